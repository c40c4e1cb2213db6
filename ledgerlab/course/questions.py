"""Predictions and check-your-understanding questions for notebooks 01 to 08.

A notebook asks before it shows: the learner writes an answer in place of ``...``
and ``check(answer)`` says whether it is right. Every expected answer is computed
from the library when it is checked, never typed in here, so a question cannot
drift from the code it is about. Plausible wrong answers (the wrong unit, a
packing answer, the request instead of the ledger) map to the misconception they
reveal; the feedback names it without giving the answer, which only
``solution()`` shows. The framework is ``ledgerlab.course.feedback``.

``predict02``, ``quiz04`` and so on are the objects the notebooks use.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ledgerlab import (Fact, Journal, JournalFull, Turn, article, byte_breakdown,
                       request_bytes, request_tokens, select, tokens)
from ledgerlab.journal import encode_record
from ledgerlab.wire import fact_line, utf16_units

from . import charts, pinning
from .feedback import Discussion, Question, Questionnaire

# --- What the answers are computed from ------------------------------------------------

BOUNDARY = (article.BOUNDARY_SYSTEM, article.BOUNDARY_HISTORY, article.BOUNDARY_QUESTION)
SLICE = (article.SLICE_SYSTEM, article.SLICE_HISTORY, article.SLICE_QUESTION)
YES_NO = ("yes", "no")


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _boundary_parts() -> dict:
    return byte_breakdown(*BOUNDARY)


def _mandatory_body() -> str:
    return request_bytes(article.BOUNDARY_SYSTEM, [], article.BOUNDARY_QUESTION).decode("utf-8")


def _unit_mistakes(text: str) -> dict[int, str]:
    """What a count of UTF-16 units or code points of ``text`` gets wrong, bytes being right."""
    return {utf16_units(text): "that counts UTF-16 units (Java's length()); the budget "
                               "counts UTF-8 bytes.",
            len(text): "that counts code points (Python's len()); the budget counts "
                       "UTF-8 bytes."}


def _history_after_select() -> int:
    history = list(article.SLICE_HISTORY)
    select(article.SLICE_SYSTEM, history, article.SLICE_QUESTION, 175)
    return len(history)


def _orphan_with_system() -> bool:
    """Whether any message-count slice that sends SYSTEM also sends an orphan."""
    labels = charts.message_labels(len(article.SLICE_HISTORY))
    suffixes = [labels[start:] for start in range(len(labels))]
    return any(problem.startswith("orphan")
               for suffix in suffixes if "SYSTEM" in suffix
               for problem in charts.slice_problems(suffix, len(article.SLICE_HISTORY)))


def _journal_after_torn_tail(torn_bytes: int = 30) -> tuple[int, int]:
    """Turns and file bytes after opening the scenario's journal with a torn fourth line
    (its first ``torn_bytes`` bytes)."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "torn.log"
        lines = [encode_record(turn_id, turn.question, turn.answer)
                 for turn_id, turn in article.SCENARIO_TURNS]
        lines.append(encode_record("three", article.NEXT_STEP_QUESTION,
                                   article.LOCAL_FIXTURE_REPLY))
        torn = encode_record("four", "A question cut short.", "Never acknowledged.")[:torn_bytes]
        path.write_bytes(b"".join(lines) + torn)
        with Journal(path) as journal:
            return len(journal), path.stat().st_size


def _slice_journal_bytes(turns: int) -> int:
    """Bytes of 01's journal (ids t1, t2, ..., turns U1 A1, U2 A2, ...) holding ``turns`` turns."""
    return sum(len(encode_record(f"t{n}", f"U{n}", f"A{n}")) for n in range(1, turns + 1))


def _slice_sent(budget: int, system: str = article.SLICE_SYSTEM) -> int:
    return select(system, article.SLICE_HISTORY, article.SLICE_QUESTION, budget).size


# The what-ifs the quizzes ask about: each changes one thing the notebook showed.
BRIEF_SYSTEM = article.SLICE_SYSTEM + ": be brief"           # 02: 10 more ASCII bytes
TWO_EMOJI = article.BOUNDARY_QUESTION + "👍"                  # 03: a second emoji
NO_EMOJI = article.BOUNDARY_QUESTION.replace("🙂", "")        # 03: the emoji removed
NO_FULL_STOP = article.BOUNDARY_SYSTEM.removesuffix("。")     # 04: the system's full stop gone
LONGER_OLDER = (Turn("hello", "world, and more"), article.BOUNDARY_HISTORY[1])  # 04


def _requests_mandatory(question: str) -> int:
    return len(request_bytes(article.BOUNDARY_SYSTEM, [], question, encoder="requests"))


def _scenario_wide_sent(budget: int) -> int:
    """Bytes select sends of the scenario's three turns and its wide question (step 4)."""
    turns = [turn for _, turn in article.SCENARIO_TURNS]
    turns.append(Turn(article.NEXT_STEP_QUESTION, article.LOCAL_FIXTURE_REPLY))
    return select(article.SCENARIO_SYSTEM, turns, article.WIDE_QUESTION, budget).size


def _capped_file_after_refusal() -> int:
    """File bytes of a journal at its 600-byte cap after the refused commit."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "capped.log"
        with Journal(path, max_bytes=600) as journal:
            for turn_id, turn in article.SCENARIO_TURNS:
                journal.commit(turn_id, turn.question, turn.answer)
            journal.commit("three", article.NEXT_STEP_QUESTION, article.LOCAL_FIXTURE_REPLY)
            try:
                journal.commit("four", "One more question.", "One more answer.")
            except JournalFull:
                pass
        return path.stat().st_size


def _scenario_report() -> dict:
    with tempfile.TemporaryDirectory() as directory:
        return article.run_projection_scenario(Path(directory) / "scenario.log")


def _scenario_line() -> bytes:
    """The journal line of the scenario's first turn, under its own id."""
    own_id, turn = article.SCENARIO_TURNS[0]
    return encode_record(own_id, turn.question, turn.answer)


def _scenario_lines_under_cap(cap: int) -> int:
    """How many commits of the scenario's first turn a journal capped at ``cap`` accepts."""
    return len(charts.journal_growth(article.SCENARIO_TURNS[0][1], max_bytes=cap)) - 1


def _two_limits_kept(max_bytes: int, max_tokens: int, reserve_tokens: int) -> int:
    """Turns select keeps of the boundary fixture under both limits (notebook 07)."""
    return select(*BOUNDARY, max_bytes, max_tokens=max_tokens, reserve_tokens=reserve_tokens).kept


def _role_tokens() -> int:
    return tokens.text_tokens("system") + tokens.text_tokens("user")


def _full_request_tokens() -> int:
    return request_tokens(article.BOUNDARY_SYSTEM, list(article.BOUNDARY_HISTORY),
                          article.BOUNDARY_QUESTION)


# --- 01 · Storage vs context -------------------------------------------------------------

predict01 = Question(
    "A 175-byte request keeps 1 of the 3 stored turns. After select() returns, how many turns "
    "does the ledger (history) hold?",
    _history_after_select,
    explanation="select reads the history and writes nothing: the ledger still holds every "
                "turn, which is why a wider request can send them all again.",
    hint="what does select write? Look at its result: a Selection, not a new history.",
    mistakes=lambda: {1: "1 is how many turns the request keeps. The question is about the "
                         "ledger: does building a request change it?",
                      2: "2 is how many turns the request drops. Were they dropped from the "
                         "request, or from the ledger?"},
)

quiz01 = Questionnaire("01 · Storage vs context", [
    Question("The journal of section 'What lives on disk' holds three lines, 366 bytes. A fourth "
             "turn, U4 / A4, is committed under the id t4. How many bytes is the file then?",
             lambda: _slice_journal_bytes(4),
             explanation="the journal only appends: the three lines stay byte for byte, and the "
                         "fourth is as long as each of them (the same sizes of id, question and "
                         "answer).",
             hint="does a commit rewrite the file or add to it? How long is one line?",
             mistakes=lambda: {_slice_journal_bytes(3): "that is the file before the commit: "
                               "every confirmed turn adds a line.",
                               _slice_journal_bytes(1): "that is the new line alone; an "
                               "append-only file keeps the lines before it."}),
    Question("After the 175-byte call, the next call has a 250-byte budget. How many bytes is "
             "its request?",
             lambda: _slice_sent(250),
             explanation="the request is built afresh from the ledger, which still holds all "
                         "three turns: the two newest fit in 250 bytes, the oldest does not.",
             hint="what is the next request built from: the ledger or the last request? The "
                  "chart gives each turn's bytes.",
             mistakes=lambda: {_slice_sent(175): "that is the earlier projection again. The "
                               "next request is built from the ledger, not from the last "
                               "request, and the ledger still holds every turn.",
                               250: "that is the budget: a ceiling, not a target. select sends "
                                    "whole turns only.",
                               _slice_sent(400): "that is the request with all three turns; "
                               "does it fit in 250 bytes?"}),
    Discussion("Why can a turn trimmed from one request come back in the next?",
               "the request is a projection built fresh for each call from the ledger, and "
               "building it never changes the ledger: the trimmed turn is still stored."),
])


# --- 02 · Bad slice vs whole-turn slice --------------------------------------------------

predict02 = Question(
    "Can the message-count slice keep the system message and still send an orphan answer? "
    "Answer 'yes' or 'no'.",
    lambda: _yes(_orphan_with_system()),
    explanation="the slice keeps the most recent messages, a suffix, and the system message "
                "comes first: keeping it means keeping every message, so nothing is orphaned.",
    hint="which messages does a suffix of SYSTEM U1 A1 U2 A2 U3 A3 U4 hold if it holds SYSTEM?",
    choices=YES_NO,
    mistakes=lambda: {"yes": "a slice that keeps SYSTEM is a suffix starting at the first "
                             "message. Which messages does that leave out?"},
)

predict02_count = Question(
    "At a 120-byte budget, how many messages does the message-count slice send?",
    lambda: charts.count_slice(*SLICE, 120)[0],
    explanation="N follows from the budget: the slice takes the most recent messages, as many "
                "as fit, and counts messages, not turns.",
    hint="the slice takes messages from the end, U4 first, while the request still fits 120 "
         "bytes; charts.count_slice(system, history, question, 120) measures it.",
    mistakes=lambda: {4: "4 was the example's N at 175 bytes. Here N follows from a smaller "
                         "budget.",
                      1: "that would be U4 alone. Measure whether the next message from the "
                         "end still fits in 120 bytes.",
                      3: "that counts turns, as the whole-turn rule does. The message-count "
                         "slice counts messages, from the end: U4, then A3, then U3, ..."},
)

quiz02 = Questionnaire("02 · Bad slice vs whole-turn slice", [
    Question("At a 240-byte budget, how many turns does the whole-turn slice keep?",
             lambda: select(*SLICE, 240).kept,
             explanation="each turn adds 67 bytes to the 108-byte mandatory input: one turn "
                         "needs 175 bytes, two need 242, so at 240 only the newest fits.",
             hint="the chart of notebook 01 gives the envelope, system, question and each "
                  "turn's bytes; or ask select.",
             mistakes=lambda: {2: "measure the request with the two newest turns (select or "
                                  "charts.suffix_sizes): does it fit in 240 bytes?",
                               3: "all three turns need the full request of notebook 01.",
                               charts.count_slice(*SLICE, 240)[0]: "that is how many messages "
                               "the message-count slice sends; the whole-turn slice keeps whole "
                               "turns."}),
    Question(f"Suppose the system message were {BRIEF_SYSTEM!r} (10 more ASCII characters). "
             "Below how many bytes would the whole-turn rule refuse the request?",
             lambda: charts.suffix_sizes(BRIEF_SYSTEM, *SLICE[1:])[0],
             explanation="the system message is mandatory: every ASCII character it gains is a "
                         "byte the mandatory input needs.",
             hint="the slider's 'rejected' message gives the mandatory input for 'SYSTEM'; what "
                  "do 10 ASCII characters add?",
             mistakes=lambda: {charts.suffix_sizes(*SLICE)[0]: "that is the mandatory input "
                               "with the old system message; the system message is mandatory, "
                               "so its new bytes count too.",
                               71: "that is the request with U4 alone; the system message is "
                                   "mandatory too."}),
    Discussion("Why is an orphan answer worse than simply sending less?",
               "the model reads an answer with no question and no system instructions: the "
               "conversation is wrong, not just shorter, and no error is reported."),
])


# --- 03 · The length trap ----------------------------------------------------------------

predict03 = Question(
    "Java's body.length() says the mandatory request is 114. How many bytes go over the wire?",
    lambda: len(_mandatory_body().encode("utf-8")),
    explanation="each Chinese character is 1 UTF-16 unit but 3 UTF-8 bytes, and the emoji is "
                "2 units but 4 bytes: the wire carries bytes.",
    hint="request_bytes gives the body as bytes; count those.",
    mistakes=lambda: {**_unit_mistakes(_mandatory_body()),
                      40: "that is the raw text's UTF-8 bytes; the request adds the JSON "
                          "envelope and escaping.",
                      2 * utf16_units(_mandatory_body()): "that is two bytes per UTF-16 unit, "
                      "how Java holds the string in memory. The wire carries UTF-8: 1 byte for "
                      "ASCII, 3 for a Chinese character, 4 for the emoji.",
                      article.REJECTED_BUDGET: "that is the budget the article rejects, not "
                      "the request's size: count the body's UTF-8 bytes."},
)

quiz03 = Questionnaire("03 · The length trap", [
    Question(f"The question gets a second emoji: {TWO_EMOJI}. How many UTF-8 bytes is it?",
             lambda: len(TWO_EMOJI.encode("utf-8")),
             explanation="10 bytes for 继续🙂, and 4 more: 👍 is outside the Basic Multilingual "
                         "Plane (BMP), like 🙂.",
             hint=f"{TWO_EMOJI!r}.encode('utf-8'); how many bytes does an emoji outside the BMP "
                  "take?",
             mistakes=lambda: {**_unit_mistakes(TWO_EMOJI),
                               len(article.BOUNDARY_QUESTION.encode("utf-8")): "that is the "
                               "question before the second emoji.",
                               len(TWO_EMOJI.encode("utf-8")) - 1: "that counts 3 bytes for "
                               "the new emoji, as for a Chinese character; a character outside "
                               "the BMP takes 4 UTF-8 bytes."}),
    Question(f"How many UTF-16 units (Java's length()) is {TWO_EMOJI}?",
             lambda: utf16_units(TWO_EMOJI),
             explanation="1 unit per Chinese character, 2 per emoji: each is outside the BMP, "
                         "a surrogate pair.",
             hint="a character outside the BMP is a surrogate pair in UTF-16.",
             mistakes=lambda: {len(TWO_EMOJI.encode("utf-8")): "that counts UTF-8 bytes; "
                               "Java's length() counts UTF-16 units.",
                               len(TWO_EMOJI): "that counts code points; a character outside "
                               "the BMP takes two UTF-16 units.",
                               utf16_units(TWO_EMOJI) - 1: "that counts one emoji as a single "
                               "unit: every character outside the BMP is a surrogate pair."}),
    Question(f"Under requests, how many bytes is the mandatory request if the question is "
             f"{NO_EMOJI} (the emoji removed)?",
             lambda: _requests_mandatory(NO_EMOJI),
             explanation="requests writes the emoji as a surrogate pair of \\uXXXX escapes, 12 "
                         "bytes; without it the body is that much shorter.",
             hint="how does requests write 🙂 in JSON? Section 'One text, four numbers' shows "
                  "the question's JSON string under requests.",
             mistakes=lambda: {_requests_mandatory(article.BOUNDARY_QUESTION): "that is the "
                               "request with the emoji still in it.",
                               _requests_mandatory(article.BOUNDARY_QUESTION) - 4: "that "
                               "removes the emoji's 4 UTF-8 bytes; requests does not send "
                               "them raw, it writes \\uXXXX escapes.",
                               len(request_bytes(article.BOUNDARY_SYSTEM, [], NO_EMOJI)): "that "
                               "is what gson and httpx send; requests escapes non-ASCII and "
                               "adds spaces.",
                               len(_mandatory_body().encode("utf-8")): "that is gson's "
                               "mandatory request, emoji included."}),
])


# --- 04 · The boundary table -------------------------------------------------------------

predict04 = Question(
    "At a 234-byte budget, how many turns will select keep?",
    lambda: select(*BOUNDARY, 234).kept,
    explanation="turn 2 (the newest) needs 235 bytes, so it is dropped, and the rule never "
                "skips a newer turn to pack an older one: the kept turns are always the newest.",
    hint="list the request sizes from the table: 140, 235, 308. Which turn is the newest?",
    mistakes=lambda: {1: "keeping 1 here would mean skipping the newest turn to pack the older, "
                         "smaller one. Does the whole-turn rule ever skip a turn?",
                      2: "both turns need 308 bytes."},
)

quiz04 = Questionnaire("04 · The boundary table", [
    Question("How many bytes does select send at a 1,000-byte budget?",
             lambda: select(*BOUNDARY, 1_000).size,
             explanation="every turn fits, and the request is as large as it is: a budget is a "
                         "ceiling, not a target.",
             hint="what is the largest request this fixture can make?",
             mistakes=lambda: {1_000: "that is the budget. Is a budget a target to fill, or a "
                                      "ceiling?",
                               charts.suffix_sizes(*SLICE)[-1]: "that is the full request of "
                               "notebooks 01 and 02 (U1 A1 … U4); this table's fixture is the "
                               "Chinese one."}),
    Question(f"The system message loses its final 。 (a CJK full stop): {NO_FULL_STOP}. What is "
             "the smallest budget select accepts now?",
             lambda: charts.suffix_sizes(NO_FULL_STOP, *BOUNDARY[1:])[0],
             explanation="the mandatory input shrinks by the full stop's UTF-8 bytes: 。 is a "
                         "CJK character, 3 bytes, like the other ten.",
             hint="how many UTF-8 bytes is '。'? Or measure: charts.suffix_sizes(...)[0].",
             mistakes=lambda: {charts.suffix_sizes(*BOUNDARY)[0]: "that is the mandatory input "
                               "with the full stop; the system message is mandatory, so its "
                               "bytes count.",
                               charts.suffix_sizes(*BOUNDARY)[0] - 1: "that removes one byte; "
                               "'。' is one character but 3 UTF-8 bytes.",
                               **_unit_mistakes(request_bytes(NO_FULL_STOP, [], BOUNDARY[2])
                                                .decode("utf-8"))}),
    Question("The older turn's answer grows from 'world' to 'world, and more' (10 more ASCII "
             "bytes). At a 308-byte budget, how many turns does select keep?",
             lambda: select(BOUNDARY[0], LONGER_OLDER, BOUNDARY[2], 308).kept,
             explanation="the newest turn did not change, so it still fits, but the whole "
                         "request is 10 bytes larger than 308: the older turn is dropped.",
             hint="which requests changed size: the one with the newest turn alone, the one "
                  "with both, or both?",
             mistakes=lambda: {2: "the whole request grew by those 10 bytes: does it still fit "
                                  "308?",
                               0: "the newest turn did not change: the request with it alone "
                                  "is as large as before."}),
])


# --- 05 · The ledger ---------------------------------------------------------------------

predict05 = Question(
    "After closing and reopening the journal, with a budget the full request fits, is "
    "ORCHID-17 back in the request? Answer 'yes' or 'no'.",
    lambda: _yes(_scenario_report()["old_fact_in_wide_request"]),
    explanation="the narrow request left the turn out but never wrote to the journal; reopening "
                "reads every stored turn back, and a wide budget sends them all.",
    hint="did building the narrow request change the journal's file bytes?",
    choices=YES_NO,
    mistakes=lambda: {"no": "the narrow request only left the turn out of one request. Where is "
                            "the turn stored, and did that change?"},
)

predict05_torn = Question(
    "The journal holds three acknowledged turns, then the first 30 bytes of a fourth line (a "
    "crash mid-append). How many turns does it hold once opened?",
    lambda: _journal_after_torn_tail()[0],
    explanation="the fourth line was never acknowledged (its commit never returned), so it is "
                "a torn tail: cut, and the cut synced. Nothing acknowledged is lost.",
    hint="was the fourth turn ever acknowledged to the caller?",
    mistakes=lambda: {4: "30 bytes are not a turn: the fourth commit never returned, so "
                         "nothing was promised.",
                      0: "a torn tail is not corruption in the middle: the journal does not "
                         "refuse to open over it."},
)

quiz05 = Questionnaire("05 · The ledger", [
    Question("Step 4's wide request sends three turns in 480 bytes. With a 479-byte budget "
             "instead, how many bytes does select send?",
             lambda: _scenario_wide_sent(479),
             explanation="480 bytes do not fit, so select drops the oldest whole turn, 'one' "
                         "(the one holding ORCHID-17), and sends the other two.",
             hint="what does select do when the request is one byte too large? Measure the "
                  "request without turn one.",
             mistakes=lambda: {_scenario_wide_sent(480): "480 bytes do not fit in a 479-byte "
                               "budget: select drops the oldest whole turn.",
                               479: "a budget is a ceiling, not a target: select never cuts "
                                    "inside a turn to fill it.",
                               _scenario_report()["narrow_request_bytes"]: "that is step 2's "
                               "narrow request, for another question."}),
    Question("Suppose the torn fourth line had been 100 bytes instead of 30. How many bytes is "
             "the file once the journal has opened it?",
             lambda: _journal_after_torn_tail(100)[1],
             explanation="whatever follows the last newline was never acknowledged, 30 bytes or "
                         "100: it is cut, and the three complete lines stay.",
             hint="does the length of the torn tail change what is cut?",
             mistakes=lambda: {_journal_after_torn_tail(100)[1] + 100: "that keeps the torn "
                               "bytes: nothing after the last newline was acknowledged.",
                               _journal_after_torn_tail(100)[1] + 30: "that is the notebook's "
                               "file before opening, with its 30 torn bytes."}),
    Discussion("What does 'fails closed' mean, and why is it right for a corrupt line in the "
               "middle of the journal?",
               "on damage it cannot explain, the journal refuses to open and changes nothing, "
               "rather than guess and go on. A complete line was acknowledged (its newline "
               "reached the disk), so dropping it would silently lose acknowledged data."),
])


# --- 06 · The costs of a ledger ----------------------------------------------------------

predict06 = Question(
    "A journal with a 600-byte cap holds 526 bytes; the next commit's line would cross the cap "
    "and is refused. How many bytes is the file afterwards?",
    _capped_file_after_refusal,
    explanation="a refused commit writes nothing, not even part of a line: the file is byte for "
                "byte the same.",
    hint="does the journal write what fits and stop, or write nothing?",
    mistakes=lambda: {600: "the journal never writes part of a line up to the cap: a partial "
                           "line would be a torn tail.",
                      0: "a refused commit does not touch the turns already stored."},
)


quiz06 = Questionnaire("06 · The costs of a ledger", [
    Question("With a 1,000-byte cap instead of 4 MiB, how many commits of the scenario's turn "
             "one (170-byte lines) does the journal accept?",
             lambda: _scenario_lines_under_cap(1_000),
             explanation="each commit adds a whole 170-byte line; the one that would cross "
                         "1,000 bytes is refused, and nothing of it is written.",
             hint="add 170 bytes at a time: which commit would cross the cap?",
             mistakes=lambda: {_scenario_lines_under_cap(1_000) + 1: "that rounds up: the "
                               "last of those lines would cross the cap, and the journal never "
                               "writes part of a line.",
                               len(_scenario_line()): "that is the size of one line; the "
                               "question asks how many lines fit."}),
    Question("Does leaving a turn out of a request delete it from the journal? Answer 'yes' or "
             "'no'.",
             lambda: _yes(not _scenario_report()["projection_preserved_file_bytes"]),
             explanation="a projection hides the turn from one request; only forget or retain "
                         "remove its bytes from storage.",
             hint="search the file's bytes after a narrow request.",
             choices=YES_NO,
             mistakes=lambda: {"yes": "the narrow request changed nothing on disk: the file "
                                      "bytes were the same before and after."}),
    Discussion("Name two copies of a forgotten turn that forget() cannot reach.",
               "backups and snapshots; blocks a copy-on-write file system or an SSD has "
               "remapped; a request already sent to the provider."),
])


# --- 07 · Two limits: bytes and tokens ---------------------------------------------------

predict07 = Question(
    "A 60-token window, a 408-byte budget, 20 tokens reserved for the reply: how many stored "
    "turns does select keep?",
    lambda: _two_limits_kept(408, 60, 20),
    explanation="the reserve is taken from the window, so the request itself may use only what "
                "is left, and select drops the oldest whole turn until it fits.",
    hint="subtract the reserve from the window, then compare what is left with the request's "
         "tokens for each number of kept turns (the table of section 1).",
    mistakes=lambda: {_two_limits_kept(408, 60, 0): "that is what fits with no reserve: the "
                      "whole request fits 60 tokens, but the reserve is taken from the window "
                      "too, and the request must fit in what is left.",
                      _two_limits_kept(408, 60, 40): "that leaves room for the mandatory input "
                      "alone, as a 40-token reserve would. With 20 reserved, does one more turn "
                      "fit in what is left?"},
)

predict07_tokens = Question(
    "The explorer: a 308-byte budget, 20 tokens reserved, and the token limit raised from 60 to "
    "80. How many stored turns does select keep?",
    lambda: _two_limits_kept(308, 80, 20),
    explanation="80 tokens minus the 20 reserved hold the whole request, and 308 bytes hold it "
                "too: neither limit drops anything.",
    hint="compare the full request's tokens plus the reserve with 80, and its bytes with 308.",
    mistakes=lambda: {_two_limits_kept(308, 60, 20): "that is what the 60-token limit kept. "
                      "Does the whole request, with the reserve, fit in 80 tokens?",
                      0: "the mandatory input fits both limits with room to spare: select "
                         "drops turns only while the request does not fit."},
)

quiz07 = Questionnaire("07 · Two limits: bytes and tokens", [
    Question("Of the 20 tokens of the mandatory input under o200k_base, how many come from the "
             "counting rule itself (per message and reply priming), not from any text the "
             "tokenizer reads?",
             lambda: 2 * tokens.PER_MESSAGE + tokens.REPLY_PRIMING,
             explanation="3 per message for two messages and 3 to prime the reply: the rule's "
                         "fixed cost. The roles and the texts are tokenized, so they change with "
                         "the tokenizer.",
             hint="section 1's term-by-term table: which terms do not depend on a text?",
             mistakes=lambda: {2 * tokens.PER_MESSAGE: "that counts the messages' overhead "
                               "only; the reply is primed too.",
                               tokens.REPLY_PRIMING: "that is the reply priming alone; each "
                               "message costs a fixed overhead too.",
                               2 * tokens.PER_MESSAGE + tokens.REPLY_PRIMING
                               + _role_tokens(): "that includes the role names, 'system' "
                               "and 'user': they are text, tokenized like the rest."}),
    Discussion("Why can't you turn a 4,096-token window into a byte budget by multiplying by 4?",
               "bytes per token depend on the text and the tokenizer: about 5 for English, "
               "4.25 or 2.83 for Chinese, 3.10 or 1.48 for emoji. Multiplying by 4 overshoots "
               "for some texts and undershoots for others, and the window must also keep room "
               "for the reply. Measure both limits."),
    Discussion("Section 5 ends with a reserve as large as the window, 20 tokens of 20: select "
               "raises ValueError, not BudgetError. Why is that an error in the arguments?",
               "it raises ValueError before looking at the request: a reserve as large as the "
               "window leaves no room for any request at all, whatever the conversation, so the "
               "arguments are inconsistent. A BudgetError is about this request's mandatory "
               "input not fitting limits that could hold some request."),
    Question("With an 80-token limit (20 reserved), what is the smallest byte budget at which "
             "select keeps both stored turns?",
             lambda: select(*BOUNDARY, 10_000).size,
             explanation="with 80 tokens the token limit holds both turns, so the byte budget "
                         "binds: it must hold the whole request's wire bytes.",
             hint="the tokens allow both turns; how many bytes is the request that sends both?",
             mistakes=lambda: {charts.suffix_sizes(*BOUNDARY)[1]: "that budget holds only "
                               "the newest turn: there the byte budget binds.",
                               _full_request_tokens(): "that counts the request's tokens; the "
                               "byte budget counts wire bytes.",
                               _full_request_tokens() + 20: "that counts tokens and the "
                               "reserve; the byte budget counts wire bytes."}),
])


# --- 08 · Pinned facts: explicit origins and budgets ---------------------------------------

PINNED = (pinning.SYSTEM, pinning.HISTORY, pinning.QUESTION)
ROOM = 100_000  # a budget that holds every fact and turn of the fixture


def _pinned(budget: int = ROOM, count: int = 1, cap: int | None = None,
            tokens: int | None = None):
    """select over notebook 08's fixture with its first ``count`` facts."""
    return select(*PINNED, budget, facts=pinning.FACTS[:count], max_fact_bytes=cap,
                  max_tokens=tokens)


def _fact_line_bytes(fact: Fact = pinning.FACTS[0]) -> int:
    return len(fact_line(fact).encode())


def _facts_left_after_retain() -> int:
    with tempfile.TemporaryDirectory() as folder:
        with pinning.pinned_journal(Path(folder) / "conversation.log") as journal:
            extra = pinning.LANGUAGE
            journal.pin(extra.id, extra.text, origin=extra.origin)
            journal.retain(last=1)
            return len(journal.facts())


predict08 = Question(
    "Pin the fact 'The project code is ORCHID-17.' from turn one. How many bytes does it add "
    "to the request, with a budget large enough for everything?",
    lambda: _pinned().fact_bytes,
    explanation="the fact travels as its own system message: the comma before it, the message's "
                "keys and quotes, then the line '[one] ' + the text. The same bytes at every "
                "budget, whatever turns are kept.",
    hint="the fact is a message like the others: what does {\"role\":\"system\",\"content\":...} "
         "cost around its line, and what is in front of the text?",
    mistakes=lambda: {len(pinning.FACTS[0].text.encode()): "that is the fact's text alone; "
                      "its origin is sent too, as '[one] ' in front of it, and the message "
                      "around it has bytes of its own.",
                      _fact_line_bytes(): "that is the fact's line, origin included; the "
                      "system message that carries it adds its keys, quotes, braces and the "
                      "comma before it."},
)

predict08_turns = Question(
    "Notebook 05's narrow budget, 264 bytes, kept turn two. With the fact pinned, how many "
    "stored turns does select keep at 264 bytes?",
    lambda: _pinned(article.narrow_budget(list(pinning.HISTORY))).kept,
    explanation="the facts are paid first: 157 bytes of mandatory input plus the fact leave "
                "less than turn two needs, so no turn fits. The fact is in the request, turn "
                "two is not.",
    hint="add the fact's bytes to the 157 bytes of mandatory input, then see what is left "
         "of 264 for turn two.",
    mistakes=lambda: {1: "turn two fit 264 bytes before the fact was pinned. The fact's bytes "
                         "come out of the same budget, first: is there still room for turn two?",
                      2: "264 bytes never held both turns, even without the fact."},
)

quiz08 = Questionnaire("08 · Pinned facts: explicit origins and budgets", [
    Question("Pin the two facts in the other order, Java 8 first, then ORCHID-17. With a "
             "1,000-byte budget and a 66-byte facts cap, how many facts does select keep?",
             lambda: select(*PINNED, 1_000, facts=pinning.FACTS[::-1],
                            max_fact_bytes=66).facts_kept,
             explanation="the Java 8 fact, now first, needs 63 bytes and fits; adding ORCHID-17 "
                         "would make the facts 101 bytes, over the cap. The order is the "
                         "priority: with it reversed, the other fact is the one kept.",
             hint="the cap holds a prefix of the facts. What does the first one need alone, "
                  "and the first two together?",
             mistakes=lambda: {0: "in section 4 no fact fitted 66 bytes because ORCHID-17 came "
                                  "first. Which fact comes first now, and does it fit?",
                               2: "both facts need 101 bytes together, over the 66-byte cap."}),
    Question("Under a token limit the facts count in tokens too. Both facts pinned, a "
             "1,000-byte budget, max_tokens=60 (o200k_base, nothing reserved for the reply): "
             "how many stored turns does select keep?",
             lambda: _pinned(1_000, 2, tokens=60).kept,
             explanation="1,000 bytes hold everything, but the tokens do not: the mandatory "
                         "input and the two facts are 50 tokens, paid first, and turn two needs "
                         "22 more. The token limit binds.",
             hint="request_tokens counts the request; compare the tokens of the mandatory input "
                  "plus the facts, then plus turn two, with 60.",
             mistakes=lambda: {2: "1,000 bytes hold both turns, but a token limit is a separate "
                                  "limit, and the facts' tokens are paid first.",
                               1: "that fits without the facts; the facts' tokens come out of "
                                  "the same 60, first."}),
    Question("A journal like section 3's (both turns, both facts pinned) gets a third fact "
             "from turn two. Then retain(last=1). How many pinned facts remain?",
             _facts_left_after_retain,
             explanation="retain(last=1) keeps turn two and drops turn one, with every fact "
                         "whose origin is turn one: ORCHID-17 goes, the two facts from turn two "
                         "stay.",
             hint="which turn does retain(last=1) drop, and which facts came from it?",
             mistakes=lambda: {3: "retain deletes the facts whose origin it drops, as forget "
                                  "does.",
                               1: "only the facts from the dropped turn go; two facts came "
                                  "from turn two, which stays."}),
    Discussion("Why does a pinned fact carry the id of the turn it came from?",
               "so that deleting the turn deletes what was taken from it: forget and retain "
               "remove the facts whose origin they remove, and nothing derived from a forgotten "
               "turn stays on disk or in a request. The origin also tells the model, and a "
               "reader of the request, where the fact comes from."),
])


# --- The teacher's answer key ------------------------------------------------------------

NOTEBOOK_QUESTIONS = {
    "01 · Storage vs context": (("Predict", predict01), ("Quiz", quiz01)),
    "02 · Bad slice vs whole-turn slice": (("Predict", predict02_count),
                                           ("Think about it", predict02), ("Quiz", quiz02)),
    "03 · The length trap": (("Predict", predict03), ("Quiz", quiz03)),
    "04 · The boundary table": (("Predict", predict04), ("Quiz", quiz04)),
    "05 · The ledger": (("Predict", predict05), ("Predict", predict05_torn), ("Quiz", quiz05)),
    "06 · The costs of a ledger": (("Predict", predict06), ("Quiz", quiz06)),
    "07 · Two limits: bytes and tokens": (("Predict", predict07), ("Predict", predict07_tokens),
                                          ("Quiz", quiz07)),
    "08 · Pinned facts: explicit origins and budgets": (("Predict", predict08),
                                                        ("Predict", predict08_turns),
                                                        ("Quiz", quiz08)),
}


def _key_row(label: str, item: Question | Discussion) -> str:
    if isinstance(item, Discussion):
        answer = f"in words. {item.model_answer[:1].upper()}{item.model_answer[1:]}"
    else:
        answer = f"**{item._answer()}**. {item.explanation[:1].upper()}{item.explanation[1:]}"
    cell = lambda text: text.replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return f"| {cell(label)} | {cell(item.prompt)} | {cell(answer)} |"


def answer_key() -> str:
    """Every prediction and quiz question with its answer, computed from the library now:
    ``docs/answer-key.md`` is this text (``python tools/answer_key.py`` writes it, and a test
    fails when it drifts)."""
    lines = ["# Answer key: predictions and check-your-understanding questions", "",
             "For teachers. Generated from `ledgerlab/course/questions.py` by "
             "`python tools/answer_key.py`; every answer is computed from the library, and "
             "`make test` fails if this file drifts from it. Exercise answers are in "
             "`notebooks/10-solutions.ipynb`.", ""]
    for notebook, parts in NOTEBOOK_QUESTIONS.items():
        lines += [f"## {notebook}", "", "| where | question | answer |", "|---|---|---|"]
        for label, part in parts:
            if isinstance(part, Questionnaire):
                lines += [_key_row(f"quiz[{n}]", q) for n, q in enumerate(part.questions, 1)]
            else:
                lines.append(_key_row(label, part))
        lines.append("")
    return "\n".join(lines)
