"""What grading writes: grades.csv, each submission's feedback as a Markdown page and an HTML
page to paste into a platform's comment box, a summary, and the teacher's page of the
answers in words (``written_page``).

Every name shown comes from a student's file name, so it is made safe where it lands:
``ledgerlab.console.printable`` for one visible line (an undecodable byte, a control or a
bidi character escaped), then ``csv_safe`` for a spreadsheet (never a formula), ``markdown_name`` for a
page (never HTML or a link), ``html.escape`` for an HTML page, ``feedback_name`` for a file
name. ``check_outputs`` refuses
outputs that cannot be written before anything is graded, and each file is replaced
atomically, so a teacher never opens half a grades file.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import itertools
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from ledgerlab.console import printable

from ..exercises import GRADED
from ..feedback import Feedback
from ..written import MAX_ANSWER_CHARS, WRITTEN
from .atomic import write_all
from .graded import Graded
from .notes import for_student
from . import rubrics


class OutputError(Exception):
    """The grades cannot be written where asked; nothing was graded or written."""


def feedback_folder(out: Path) -> Path:
    return out.with_name(out.stem + "-feedback")


def summary_path(out: Path) -> Path:
    return out.with_name(out.stem + "-summary.md")


def written_path(out: Path) -> Path:
    """The teacher's page of answers in words: each question, its model answer, every answer."""
    return out.with_name(out.stem + "-written.md")


# The teacher's files beside grades.csv that ``judge.grade`` adds (``class_pages``,
# ``rubrics``), by what each holds.
TEACHER_FILES = {"similarity": "-similarity.md", "canvas": "-canvas.csv",
                 "moodle": "-moodle.csv", "written scores": "-written-scores.csv"}


def teacher_file(out: Path, kind: str) -> Path:
    """``out``'s teacher's file of that kind (a TEACHER_FILES key)."""
    return out.with_name(out.stem + TEACHER_FILES[kind])


def check_outputs(out: Path) -> None:
    """Raise OutputError unless grades, feedback pages and summary can be written as ``out``
    asks: checked before grading, so that no one waits for grades that cannot be written.
    Writes nothing (a folder ``write_grades`` would make is only checked for)."""
    out = Path(out)
    if out.name in ("", ".", "..") or out.is_dir():
        raise OutputError(f"{printable(str(out))} is a folder: --out names the grades file, "
                          f"e.g. build/grades.csv")
    files = (out, summary_path(out), written_path(out),
             *(teacher_file(out, kind) for kind in TEACHER_FILES))
    for path, kind in (*((path, "file") for path in files), (feedback_folder(out), "folder")):
        if path.exists() and not (path.is_dir() if kind == "folder" else path.is_file()):
            raise OutputError(f"{printable(str(path))} exists and is not a {kind}")
    folder = out.parent
    while not folder.exists() and folder != folder.parent:  # the folder mkdir would start in
        folder = folder.parent
    for place in (folder, feedback_folder(out)):
        if place.exists() and not (place.is_dir() and os.access(place, os.W_OK | os.X_OK)):
            why = "not a folder" if not place.is_dir() else "no permission to write there"
            raise OutputError(f"cannot write in {printable(str(place))}: {why}")


def write_grades(results: list[Graded], points: dict[str, int], out: Path,
                 extra: dict[Path, str] | None = None, notes: Iterable[str] = ()) -> None:
    """grades.csv, ``<stem>-feedback/NAME.md`` and ``NAME.html`` each, ``<stem>-summary.md``
    (with ``notes`` for the teacher), ``<stem>-written.md`` (ending with where to score the
    answers in words) and ``<stem>-written-scores.csv``, and the ``extra`` pages (path ->
    text): all of them, or none (``write_all``). The feedback folder holds this run's pages only: an
    earlier run's are replaced with it."""
    rows = [{"submission": csv_safe(result.submission), **scores_shown(result, points),
             "max": sum(points.values()), "late": LATE_SHOWN[result.late],
             "note": printable(result.note)} for result in results]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["submission", "score", "max", *points, "late",
                                                "note"])
    writer.writeheader()
    writer.writerows(rows)
    pages = {name: page for result in results
             for name, page in ((feedback_name(result.submission), feedback_page(result, points)),
                                (feedback_name(result.submission, ".html"),
                                 feedback_html(result, points)))}
    # A submission not graded is named once on the written page, not as unanswered eleven
    # times; unless its answers in words were read (a run that stopped: its notebook was read).
    unread = [result.submission for result in results if result.failure and not result.written]
    answers = [(result.submission, result.written) for result in results
               if not (result.failure and not result.written)]
    written = written_page(answers, unread) + scoring_section(answers)
    # grades.csv last: renamed into place once everything beside it is.
    write_all({**(extra or {}), summary_path(out): summary_page(results, points, notes),
               written_path(out): written, teacher_file(out, "written scores"): scores_csv(answers),
               out: buffer.getvalue()}, {feedback_folder(out): pages})


def scores_shown(result: Graded, points: dict[str, int]) -> dict[str, int | str]:
    """grades.csv's score and exercise cells of a row: blank for a file that could not be
    graded (``Graded.has_score``), whose note says why, so that no one reads a 0 for it."""
    scores = result.score(points)
    if not result.has_score:
        return {"score": "", **{name: "" for name in scores}}
    return {"score": sum(scores.values()), **scores}


# grades.csv's late column: as the platform marked the file (Canvas's LATE, Moodle's
# worksheet), or "" where nothing says (Moodle's names alone, a plain file).
LATE_SHOWN = {True: "yes", False: "no", None: ""}


def csv_safe(name: str) -> str:
    """A name a spreadsheet shows as text, on one visible line, and never as a formula.

    A spreadsheet skips leading spaces and may read a full-width ＝ as =, so the test is on
    the name NFKC-normalised and left-stripped: = + - @ first gets a leading '."""
    shown = printable(name)
    first = unicodedata.normalize("NFKC", shown).lstrip()[:1]
    return "'" + shown if first in ("=", "+", "-", "@") else shown


def markdown_name(name: str) -> str:
    """A name in a Markdown page as a code span, so that nothing in it is live: no HTML, no
    link, no emphasis."""
    return code_span(printable(name), padded=True)


def code_span(shown: str, padded: bool = False) -> str:
    """``shown`` (one visible line) as a Markdown code span: the fence is longer than any run
    of backticks in it, and one space each side (``padded``, or a backtick at an end) is what
    CommonMark strips."""
    fence = "`" * (max(map(len, re.findall("`+", shown)), default=0) + 1)
    space = " " if padded or shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{space}{shown}{space}{fence}"


def feedback_name(submission: str, suffix: str = ".md") -> str:
    """A file name for a submission's feedback (``suffix``: ".md", or ".html" for the page
    to paste): safe characters, and a hash against clashes."""
    stem = re.sub(r"[^\w.-]", "_", submission.removesuffix(".ipynb"))[:60].lstrip(".") or "x"
    # At most 120 bytes (60 four-byte letters would be 240): far below a file name's 255.
    stem = stem.encode("utf-8", "surrogateescape")[:120].decode("utf-8", "ignore") or "x"
    digest = hashlib.sha256(submission.encode('utf-8', 'surrogateescape')).hexdigest()[:8]
    return f"{stem}-{digest}{suffix}"


# What Markdown reads as markup inside a line: an escape, code, emphasis, strikethrough, math
# (Jupyter's $), a link; an HTML tag or comment; a character reference. And what opens a
# block at the start of one (a heading, a quote, a list, a rule).
MARKUP = re.compile(r"[\\`*_~$\[\]]|<[A-Za-z/!?]|&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
BLOCK_START = re.compile(r"[#>+=-]|[0-9]+[.)]")
# Punctuation of prose around a word, kept outside its code span: "(`cell_type`)." reads so.
AROUND = re.compile(r"^([(\"']*)(.*?)([)\"'.,:;!?]*)$", re.DOTALL)


def markdown_text(text: str) -> str:
    """Text of the grader's (a verdict, a note) on one line of a Markdown page, as written
    and with nothing in it live: each word that Markdown would read as markup (a type name
    ``__x__``, ``cell_type``, ``<b>``, ``&amp;``) is a code span, and nothing is escaped, so
    "484 <= 597" stays that (an entity or a backslash would show raw where the page is
    pasted or read as text)."""
    def word(match: re.Match) -> str:
        found = match.group()
        starts_block = match.start() == 0 and BLOCK_START.match(found)
        if not (MARKUP.search(found) or starts_block):
            return found
        before, inner, after = AROUND.match(found).groups()
        if MARKUP.search(inner) and not starts_block:
            return f"{before}{code_span(inner)}{after}"
        return code_span(found)
    return re.sub(r"\S+", word, printable(text))


def feedback_blocks(result: Graded, points: dict[str, int]) -> list[tuple[str, list]]:
    """The student's feedback, each exercise's verdict and the note in the student's words
    (``notes.for_student``: a classmate whose key the notebook holds is not named), as blocks
    ("h1", "h2" or "p", [(style, text)], style "text", "strong", "code" (a file name) or
    "term" (code in the course's words, ``course_text``)), which
    ``feedback_page`` writes as Markdown and ``feedback_html`` as HTML."""
    scores = result.score(points)
    blocks: list[tuple[str, list]] = [("h1", [("text", "Feedback: "), ("code", result.submission)])]
    if result.has_score:  # a file that could not be graded has none, and says why below
        blocks.append(("p", [("text", f"Score: {sum(scores.values())} / {sum(points.values())}")]))
    note = [("p", [("text", f"Note: {for_student(result.note)}.")])] if result.note else []
    if result.failure:  # said once, as what it is: no exercise was left unanswered by choice
        blocks.append(("p", [("strong", NOT_GRADED),
                             ("text", f": {failure_text(result)}. None of its "
                                      f"{len(result.verdicts)} exercises could be graded.")]))
        return blocks + (note if result.note != result.failure else [])
    blocks += note
    for name, verdict in result.verdicts.items():
        exercise = GRADED[name]
        blocks += [("h2", course_text(f"Exercise {exercise.number}: {exercise.title}")),
                   ("p", [("strong", Feedback.LABELS[verdict.status]),
                          *course_text(f" ({scores[name]} / {points[name]}): {verdict.message}")])]
    return blocks


# A code span in the course's own words (an exercise's title: "what Java's `String.length()`
# reports"): code on the page, never its backticks shown, nor wrapped in another code span.
COURSE_CODE = re.compile(r"`([^`\n]+)`")


def course_text(text: str) -> list[tuple[str, str]]:
    """The course's words (a title, a verdict) as parts: its code spans "term", the rest
    "text"."""
    parts = [("term" if odd else "text", piece)
             for odd, piece in zip(itertools.cycle((False, True)), COURSE_CODE.split(text))]
    return [part for part in parts if part[1]]


def feedback_page(result: Graded, points: dict[str, int]) -> str:
    """The student's page in Markdown (``feedback_blocks``), nothing in it live and nothing
    escaped (``markdown_text``)."""
    shown = {"text": markdown_text, "strong": lambda text: f"**{markdown_text(text)}**",
             "code": markdown_name, "term": lambda text: code_span(printable(text))}
    heading = {"h1": "# ", "h2": "## ", "p": ""}
    lines = []
    for kind, parts in feedback_blocks(result, points):
        lines += [heading[kind] + "".join(shown[style](text) for style, text in parts), ""]
    return "\n".join(lines)


def feedback_html(result: Graded, points: dict[str, int]) -> str:
    """The student's page as HTML (``feedback_blocks``), every text escaped: opened in a
    browser and copied, it pastes into Moodle's feedback comments or Canvas's rich content
    editor with its headings and bold, and into a plain comment box (SpeedGrader's) as clean
    text, with no Markdown or entity in it."""
    tags = {"text": "{}", "strong": "<strong>{}</strong>", "code": "<code>{}</code>",
            "term": "<code>{}</code>"}
    body = [f"<{kind}>" + "".join(tags[style].format(html.escape(printable(text)))
                                   for style, text in parts) + f"</{kind}>"
            for kind, parts in feedback_blocks(result, points)]
    title = html.escape(f"Feedback: {printable(result.submission)}")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
            f"<title>{title}</title></head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n")


# A number in a verdict that is a student's own (a budget, a size, a count): each variant has
# its own, so the same mistake is grouped under one kind with the numbers left out. A digit
# inside a word (UTF-8, U+FFFF, q3) or after # (test text #3, the same for everyone) stays.
OWN_NUMBER = re.compile(r"(?<![\w+#-])\d[\d,.]*(?<![,.])(?!\w)")


def mistake_kind(message: str) -> str:
    """A verdict's kind: its words, each number a student's variant puts there shown as …,
    so that "a 492-byte budget fits …" and "a 808-byte budget fits …" are one kind."""
    return OWN_NUMBER.sub("…", message)


def _note_kinds(note: str) -> set[str]:
    """Which lists of the summary a note belongs in (a note can join several)."""
    kinds = set()
    if "stopped:" in note:  # the sandbox's words (sandbox._ended) and the grader's time limit
        kinds.add("ran out")
    if note.endswith("not graded") or NOT_HANDED_IN in note or "not graded;" in note:
        kinds.add("not graded")
    if "variant key" in note or "another submission is filed" in note:
        kinds.add("look at")
    return kinds


NOT_HANDED_IN = "nothing was handed in"  # judge.NOTHING_HANDED_IN starts so
NOT_GRADED = "Not graded"  # a submission none of which could be graded (Graded.failure)
NOTE_LISTS = (("ran out", "Submissions that did not run to the end"),
              ("not graded", "Submissions not graded"),
              ("look at", "Notes for the teacher to look at"))


def failure_text(result: Graded) -> str:
    """Why none of ``result`` was graded, as a student reads it after "Not graded": without
    the reason's own closing "not graded", and naming no classmate (``notes.for_student``)."""
    return re.sub(r"[:;] not graded$", "", for_student(result.failure))


def summary_page(results: list[Graded], points: dict[str, int], notes: Iterable[str] = ()) -> str:
    """Per exercise: how many got it right, and the commonest kinds of mistake, with counts;
    then the notes, each under what it is (did not run to the end, not graded, to look at)."""
    lines = [f"# Grading summary: {len(results)} submissions", "",
             "| exercise | right | not yet | not answered | not graded |",
             "|---|---|---|---|---|"]
    failed = sum(bool(result.failure) for result in results)
    for name in points:
        statuses = Counter(result.verdicts[name].status for result in results
                           if not result.failure)
        lines.append(f"| {name} | {statuses['correct']} | {statuses['incorrect']} | "
                     f"{statuses['unanswered']} | {failed} |")
    for name in points:
        mistakes = Counter(mistake_kind(result.verdicts[name].message) for result in results
                           if result.verdicts[name].status == "incorrect")
        if mistakes:
            lines += ["", f"## {name}: the commonest mistakes", ""]
            lines += [f"- {count} x {markdown_text(kind)}"
                      for kind, count in mistakes.most_common(3)]
    lines += late_section(results)
    for kind, title in NOTE_LISTS:
        noted = [result for result in results if kind in _note_kinds(result.note)]
        if noted:
            lines += ["", f"## {title}", ""]
            lines += [f"- {markdown_name(result.submission)}: {markdown_text(result.note)}"
                      for result in noted]
    notes = list(notes)
    if notes:
        lines += ["", "## The class's files", ""]
        lines += [f"- {markdown_text(note)}" for note in notes]
    return "\n".join(lines) + "\n"


def late_section(results: list[Graded]) -> list[str]:
    """The summary's lines on lateness, as the platform marked each file; none when nothing
    says (a class of plain files, or Moodle's collected without its worksheet)."""
    said = [result for result in results if result.late is not None]
    if not said:
        return []
    late = [result for result in said if result.late]
    lines = ["", "## Handed in late", "",
             f"{len(late)} of the {len(said)} files whose lateness the platform gave (Canvas's "
             f"LATE, Moodle's worksheet) were late; for {len(results) - len(said)} it is not "
             f"known (Moodle's without its worksheet, plain files, nothing handed in)."]
    return lines + ([""] if late else []) + [f"- {markdown_name(result.submission)}"
                                             for result in late]


# --- The answers in words: the teacher's page (ledgerlab.course.written reads them) ---

ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}  # entities, which every renderer reads
# What Markdown (CommonMark, GitHub's, Jupyter's with its $ math) reads anywhere in a line:
# escaped with a backslash, so that no emphasis, code, link, table or math forms. The
# punctuation of prose ( ) . , - ' " is left as it is, to be read in a plain text editor too.
INLINE = re.compile(r"[\\`*_{}\[\]|~$]")
# What opens a block only at the start of a line: a heading, a list, a rule, a setext line.
LINE_START = re.compile(r"^(\s*)([#+=-]|\d+[.)])")


def quoted(text: str) -> str:
    """``text`` as a Markdown block quote in which nothing is live: no HTML, link, image,
    heading, list, table, emphasis or math; one visible line per line (controls and bidi
    characters shown as escapes). A bare URL may still be shown as a link by GitHub; its
    text is its address, so it cannot pass for anything else."""
    lines = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = INLINE.sub(lambda match: "\\" + match.group(), printable(line))
        line = "".join(ENTITIES.get(char, char) for char in line)
        line = LINE_START.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1],
                              line)
        lines.append(line.rstrip())
    # A backslash before a line break keeps the student's line breaks (CommonMark's hard
    # break), where a paragraph would run the lines together; a blank line stays a break.
    return "\n".join(f"> {line}\\" if line and following else f"> {line}".rstrip()
                     for line, following in zip(lines, [*lines[1:], ""]))


def written_page(rows: Iterable[tuple[str, Mapping[str, str]]],
                 not_graded: Iterable[str] = ()) -> str:
    """The teacher's page: per question, its prompt, the model answer, then each
    submission's answer quoted (``quoted``), or that it was not answered. An ``Answer``
    whose ``cut`` is set is followed by the grader's note that it was cut. The submissions
    ``not_graded`` (names) are named once, as not graded, not as unanswered."""
    rows = list(rows)
    for row in rows:
        if not (isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], str)
                and isinstance(row[1], Mapping)):
            raise TypeError("each row is (submission name, {question id: text})")
    not_graded = [markdown_name(name) for name in not_graded]
    count = len(rows) + len(not_graded)
    lines = [f"# Written answers: {count} submission{'' if count == 1 else 's'}", "",
             "Read by the teacher, not scored. Each answer is quoted as it was written, escaped "
             "so that nothing in it is formatted or live.", ""]
    if not_graded:
        lines += [f"*Not graded, so not read here* (the summary says why): "
                  f"{', '.join(not_graded)}.", ""]
    for question in WRITTEN:
        answered = [(name, answers[question.id]) for name, answers in rows
                    if isinstance(answers.get(question.id), str)]
        missing = [markdown_name(name) for name, answers in rows
                   if not isinstance(answers.get(question.id), str)]
        model = question.model_answer
        lines += [f"## {question.id}: {question.title}, question {question.number}", "",
                  f"**Question.** {question.prompt}", "",
                  f"**Model answer.** {model[:1].upper()}{model[1:]}", "",
                  f"Answered by {len(answered)} of {len(rows)}.", ""]
        for name, text in answered:
            lines += [f"### {markdown_name(name)}", "", quoted(text), ""]
            if getattr(text, "cut", False) is True:
                lines += [f"*Cut at {MAX_ANSWER_CHARS:,} characters by the grader.*", ""]
        if missing:
            lines += [f"*Not answered:* {', '.join(missing)}.", ""]
    return "\n".join(lines)


def written_report(rows: Iterable[tuple[str, Mapping[str, str]]], path: Path) -> Path:
    """Write ``written_page(rows)`` to ``path``, whole or not at all."""
    text = written_page(rows)  # a bad row raises before anything is written
    path = Path(path)
    write_all({path: text}, {})  # whole, or unchanged with no temp file left
    return path


def scoring_section(rows: Iterable[tuple[str, Mapping[str, str]]]) -> str:
    """Where the teacher scores the answers in words: per question, its rubric and a table
    with a row for each submission that answered it."""
    rows = list(rows)
    lines = ["", "## Scoring the answers in words", "",
             "Each question's rubric (one point an idea), and a row to score each answer in. "
             "The same rows are in the written-scores CSV beside this page.", ""]
    for question in WRITTEN:
        answered = [name for name, answers in rows if isinstance(answers.get(question.id), str)]
        lines += [f"### Score {question.id} (out of {rubrics.points(question.id)})", ""]
        lines += [f"- {idea}" for idea in rubrics.RUBRICS[question.id]]
        lines += ["", "| submission | score | comment |", "|---|---|---|"]
        # A | in a name would end the cell, even in a code span (GitHub's tables).
        lines += [f"| {markdown_name(name).replace('|', chr(92) + '|')} |  |  |"
                  for name in answered]
        lines.append("")
    return "\n".join(lines)


def scores_csv(rows: Iterable[tuple[str, Mapping[str, str]]]) -> str:
    """A row per answer in words: submission, question, out of, and empty score and
    comment cells for the teacher."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["submission", "question", "out of", "score", "comment"])
    for name, answers in rows:
        for question in WRITTEN:
            if isinstance(answers.get(question.id), str):
                writer.writerow([csv_safe(name), question.id, rubrics.points(question.id), "", ""])
    return buffer.getvalue()

