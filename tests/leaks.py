"""What "ask, then tell" tests share: the questions each notebook asks, their answers, the
words that state them, and the hits reviewed as harmless (docs/leaks.md says why).

Two tests use it. ``tests/course/test_no_answer_before_question.py`` reads the notebooks as
text (the fast tier, in ``make check``); ``tests/editions/browser/test_no_answer_on_screen.py``
reads them as a browser renders them: each learner copy in JupyterLab, the site's pages and
the slides (the real tier, in ``make test-browser``). One list of phrases serves both.

Notebooks are found by glob, so a new lesson is covered without a change here: every
``learner/NN-*.ipynb`` but ``00-contents`` (which every question is read against: its series
table and glossary) and the solutions notebook.
"""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache
from pathlib import Path

from ledgerlab.course import exercises, questions, syllabus
from ledgerlab.course.feedback import FEW, Discussion, Exercise, Question
from ledgerlab.course.grading.editions import SOLUTIONS_NOTEBOOK
from ledgerlab.course.lessons.images_loops_and_reasoning import reasoned_figures
from ledgerlab.course.lessons.summaries_and_evidence import summary_figures
from ledgerlab.course.lessons.prompt_caching import cache_figures

ROOT = Path(__file__).resolve().parents[1]
CONTENTS = "00"


def course_notebooks(folder: str = "learner") -> list[Path]:
    """Every notebook of the course in ``folder``, 00-contents and the solutions included."""
    return sorted((ROOT / folder).glob("[0-9][0-9]-*.ipynb"))


# The notebooks whose questions are tested, by number: all but 00 and the solutions.
NOTEBOOKS = [path.name[:2] for path in course_notebooks()
             if path.name[:2] != CONTENTS and path.name != SOLUTIONS_NOTEBOOK]
EXERCISES = f"{syllabus.EXERCISES.number:02}"  # the exercises notebook's number

# The words that state each answer, by notebook and question ("predict04", "quiz[2]", "q7").
# Regular expressions, matched case-insensitively. A live explorer is named here too: above
# its prediction, it answers it.
REVEALS: dict[tuple[str, str], tuple[str, ...]] = {
    ("01", "predict01"): (r"stored, but not sent", r"\d of 3 turns kept", r"ledger still holds"),
    ("02", "predict02_count"): (r"SliceExplorer\(",),
    ("02", "predict02"): (r"SliceExplorer\(",),
    ("03", "predict03"): (r"2 bytes more",),
    ("04", "predict04_second"): (r"selector refuses", r"raises when the mandatory input"),
    ("04", "predict04"): (r"BudgetExplorer\(", r"no longer fits", r"falls back to the 140",
                          r"never skips", r"none skipped", r"always the newest",
                          r"packs? an older", r"\b0 of 2 turns kept"),
    ("04", "quiz[2]"): (r"3 UTF-8 bytes",),
    ("05", "predict05"): (r"still holds it",),
    ("05", "predict05_torn"): (r"\d+\s+torn tail",),
    ("06", "quiz[1]"): (r"writes nothing",),
    ("07", "predict07"): (r"older turn goes", r"35 tokens kept", r"45 ≤ 60", r"hold only one"),
    ("07", "predict07_tokens"): (r"TwoLimitsExplorer\(", r"neither limit drops"),
    ("07", "quiz[2]"): (r"off in both directions", r"neither limit can be derived",
                        r"measure both"),
    ("07", "quiz[3]"): (r"no request of any conversation", r"refuses the arguments"),
    ("09", "predict09_room"): (r"never (sends|travels)[^.]* beside", r"never beside",
                               r"only (when|while) every turn it covers"),
    ("09", "predict09_forget"): (r"derived_from\(", r"deletes? (the summar\w*|every summar\w*)",
                                 r"goes with"),
    ("10", "predict10"): (r"one message is enough", r"without `?R1`?,? the slice starts"),
    (EXERCISES, "q10"): (rf"(?<!\d){summary_figures(exercises.SELF_PACED)['answer']}(?!\d)",),
    ("11", "predict11_loop"): (r"(takes|taken) \w+ as mandatory input", r"paid first", r"never trimmed",
                               r"current question and its tool rounds",  # BudgetError's words
                               r"mandatory input\*\*:[^\n]*tool loop in progress",
                               r"tool loop in progress, mandatory input"),
    ("11", "quiz[2]"): (r"call the tool again", r"honest answer is an error"),
    ("10", "predict10_tools"): (r"toolcharts\.\w+\(",),
    ("11", "predict11_reasoning"): (r"reasoning_bytes\(", r"(thinking )?block adds? \d+"),
    ("11", "quiz[3]"): (r"reasoning_bytes\(\s*(reasoning\.RESPONSES|.openai-responses)",
                        r"item adds? \d+"),
    (EXERCISES, "q11"): (rf"(?<!\d){reasoned_figures(exercises.SELF_PACED)['answer']}(?!\d)",),
    # 12: a chart or an explorer of the schedules answers how often the rule cuts; the cut to
    # the whole budget, and the bytes two held calls share, have words of their own.
    # ... and which model caches nothing: the one whose minimum the prefix is under.
    ("12", "predict12_model"): (r"haiku[^.]*(reads|caches|writes) nothing", r"nothing is read",
                                r"(every|each|all)\b[^.]*\bbut one\b"),
    ("12", "predict12_cuts"): (r"cachecharts\.\w+\(", r"CacheExplorer\(",
                               r"moved at \d+ (calls|of them)"),
    ("12", "predict12_slider"): (r"CacheExplorer\(", r"whole-turn rule again",
                                 r"send the same bytes"),
    ("12", "predict12_prefix"): (r"last two bytes",),
    ("12", "quiz[4]"): (r"evidence_after_turns=True\)? (sends|leaves|puts)",),
    (EXERCISES, "q12"): (rf"(?<![\d,]){cache_figures(exercises.SELF_PACED.key)['answer']:,}"
                         rf"(?![\d,])|(?<!\d){cache_figures(exercises.SELF_PACED.key)['answer']}"
                         rf"(?!\d)",),
}
# Phrases of REVEALS that name code: a live explorer or a call that shows the result. Above a
# question the learner has run them; below it, not yet, so there they state nothing.
CODE = re.compile(r"\\\($")

# Hits reviewed and found harmless: (notebook, question, what matched) -> why. docs/leaks.md
# lists the same. The text-level test and the browser test both hold to it: an entry neither
# finds any more fails.
REVIEWED: dict[tuple[str, str, str], str] = {
    ("01", "predict01", "1 of 3 turns kept"):
        "the chart's caption repeats the question's premise (the request kept 1 of the 3 "
        "turns); it says what was sent, not what the ledger holds",
    ("03", "quiz[1]", "14"):
        "14 is the mandatory request's raw text in UTF-16 units (03 · 15's chart); the quiz asks "
        "the UTF-8 bytes of another text, 继续🙂👍, which are 14 by coincidence",
    ("05", "quiz[2]", "526"):
        "526 is where the torn line starts (examine's table) and the file's size once opened, "
        "both shown after their prediction; the quiz asks one step past: would a longer torn "
        "line change what opening cuts back to",
}
# Hits only a browser finds, reviewed and found harmless, as REVIEWED: the slides show each
# prediction's answer on the slide after its question, and JupyterLab shows the same words
# once the learner's answer is right. docs/leaks.md lists the same.
REVIEWED_IN_A_BROWSER: dict[tuple[str, str, str], str] = {
    ("06", "quiz[1]", "writes nothing"):
        "predict06's answer (06 · 16: a refused commit writes nothing, not even part of a "
        "line), on the slide after its question; quiz 1 asks one step past it: how many "
        "170-byte commits a 1,000-byte cap takes",
}
# Cells reviewed and found harmless for a question: (notebook, question, cell) -> why, for
# text a learner reads before answering that a six-word run of a model answer matches, or
# that holds an answer's number as the number of something else.
# docs/leaks.md lists the same.
REVIEWED_ON_SCREEN: dict[tuple[str, str, str], str] = {
    ("03", "quiz[1]", "00 · 3"):
        "14 is the number of the solutions notebook, 14 · Solutions, in the series table; the "
        "quiz asks the UTF-8 bytes of 继续🙂👍",
    ("05", "quiz[3]", "00 · 10"):
        "a recall question by design: its first half asks what 'fails closed' means, and the "
        "glossary defines the word in the model answer's words",
    ("05", "quiz[3]", "05 · 41"):
        "the same definition, where the lesson teaches it (TEACHING.md: 'define fails closed "
        "with 05 · 41'); the question asks the learner to explain it back",
    ("06", "quiz[3]", "06 · 41"):
        "a recall question by design: section 6 lists what deletion cannot reach, and the "
        "question asks the learner to name two of them",
}
MODEL_ANSWER_WORDS = 6  # a model answer's run of this many words, on the page, states it


@lru_cache(maxsize=None)
def cells(folder: str, number: str) -> list[dict]:
    (path,) = (ROOT / folder).glob(f"{number}-*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def outputs(cell: dict) -> str:
    """What a cell shows: its text, its HTML's text and alt texts, its figures' captions."""
    seen = []
    for output in cell.get("outputs", []):
        if "text" in output:
            seen.append("".join(output["text"]))
        data = output.get("data", {})
        for kind in ("text/plain", "text/markdown"):
            seen.append("".join(data.get(kind, "")))
        page = "".join(data.get("text/html", ""))
        seen += re.findall(r'alt="([^"]*)"', page)
        seen.append(html.unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", page, flags=re.S)))
    return "\n".join(seen)


def asked(number: str) -> list[tuple[str, int, int]]:
    """Each checked question a notebook asks: its name, the index of the cell that asks it
    (the text above the first check, or the quiz's listing) and of the first cell that
    checks it."""
    found, quiz_at = {}, None
    for at, cell in enumerate(cells("learner", number)):
        text = source(cell)
        if cell["cell_type"] == "code" and re.search(r"^quiz$", text, re.M):
            quiz_at = at
        for name in re.findall(r"\b(predict\w*|q\d+)\.check\(", text):
            if name not in found:
                prompt = max(i for i in range(at) if cells("learner", number)[i]["cell_type"]
                             == "markdown")
                found[name] = (prompt, at)
        for n in re.findall(r"\bquiz\[(\d+)\]\.check\(", text):
            found.setdefault(f"quiz[{n}]", (quiz_at, at))
    return [(name, prompt, check) for name, (prompt, check) in found.items()]


def asked_on_screen(number: str) -> list[tuple[str, int, int]]:
    """Every question of a notebook: the checked ones (``asked``), and each question in words,
    asked by the markdown cell the learner writes its answer in."""
    found = asked(number)
    for at, cell in enumerate(cells("learner", number)):
        for question_id in cell["metadata"].get("ledgerlab", {}).get("written", []):  # "07-2"
            name = f"quiz[{question_id.split('-')[1]}]"
            assert isinstance(item(number, name), Discussion), (number, name)
            found.append((name, at, at))
    return found


def item(number: str, name: str) -> Question | Discussion | Exercise:
    if name.startswith("quiz["):
        return getattr(questions, f"quiz{number}")[int(name[5:-1])]
    return getattr(questions, name, None) or getattr(exercises, name)


def number_pattern(answer: int) -> str:
    """An answer's number alone: 526 or 5,260, not 1526 or 5.26."""
    return r"(?<!\d)(?<!\d[,.])({})(?!\d|[,.]\d)".format(f"{answer}|{answer:,}")


def answer_number(question) -> int | None:
    """The answer, where it is a number of 10 or more (a small count or a word is everywhere)."""
    if isinstance(question, Question):
        answer = question._answer()
        if isinstance(answer, int) and answer >= FEW:
            return answer
    return None


def words(text: str) -> list[str]:
    return re.findall(r"[\w'’]+", text.lower())


def model_answer_runs(question) -> list[str]:
    """For a question in words: every run of MODEL_ANSWER_WORDS words of its model answer that
    the question itself does not use, as a pattern (any punctuation between the words)."""
    if not isinstance(question, Discussion):
        return []
    said, asks = words(question.model_answer), " ".join(words(question.prompt))
    runs = {" ".join(said[i:i + MODEL_ANSWER_WORDS])
            for i in range(len(said) - MODEL_ANSWER_WORDS + 1)}
    return [r"\b" + r"\W+".join(re.escape(word.replace("’", "'")).replace("'", "['’]")
                                 for word in run.split())
            + r"\b" for run in sorted(runs) if run not in asks]


def answer_patterns(number: str, name: str, *, below: bool = False) -> list[str]:
    """The answer's number (10 or more), the phrases that state it (``REVEALS``) and, for a
    question in words, every run of MODEL_ANSWER_WORDS words of its model answer. ``below``:
    the patterns for what is below the question, where code that is not run yet states
    nothing (an explorer's constructor)."""
    question = item(number, name)
    patterns = [pattern for pattern in REVEALS.get((number, name), ())
                if not (below and CODE.search(pattern))]
    number_found = answer_number(question)
    if number_found is not None:
        patterns.append(number_pattern(number_found))
    return patterns + model_answer_runs(question)
