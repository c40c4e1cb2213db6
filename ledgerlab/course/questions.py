"""Predictions and check-your-understanding questions for notebooks 01 to 07.

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

from ledgerlab import (Journal, JournalFull, article, byte_breakdown, request_bytes,
                       request_tokens, select, tokens)
from ledgerlab.journal import encode_record
from ledgerlab.wire import utf16_units

from . import charts
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


def _journal_after_torn_tail() -> tuple[int, int]:
    """Turns and file bytes after opening the scenario's journal with a torn fourth line."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "torn.log"
        lines = [encode_record(turn_id, turn.question, turn.answer)
                 for turn_id, turn in article.SCENARIO_TURNS]
        lines.append(encode_record("three", article.NEXT_STEP_QUESTION,
                                   article.LOCAL_FIXTURE_REPLY))
        torn = encode_record("four", "A question cut short.", "Never acknowledged.")[:30]
        path.write_bytes(b"".join(lines) + torn)
        with Journal(path) as journal:
            return len(journal), path.stat().st_size


def _slice_text_length() -> int:
    turns = "".join(turn.question + turn.answer for turn in article.SLICE_HISTORY)
    return len(article.SLICE_SYSTEM + turns + article.SLICE_QUESTION)


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


def _scenario_line(turn_id: str | None = None) -> bytes:
    """The journal line of the scenario's first turn, under its own id or ``turn_id``."""
    own_id, turn = article.SCENARIO_TURNS[0]
    return encode_record(turn_id or own_id, turn.question, turn.answer)


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
    Question("How many bytes is the journal line of the record id 'two', question '第二问', "
             "answer '第二答'?",
             lambda: len(encode_record("two", "第二问", "第二答")),
             explanation="the JSON payload in base64, a space, 64 hex digits of SHA-256 and "
                         "the newline.",
             hint="len(encode_record(...)) measures it; count base64, the checksum and the "
                  "newline too.",
             mistakes=lambda: {6: "that counts characters; a file holds bytes.",
                               18: "that is the UTF-8 bytes of the six characters alone; the "
                                   "line also holds the JSON keys, in base64, and a checksum."}),
    Question("How many bytes is the request that sends all three turns U1 A1 | U2 A2 | U3 A3 "
             "with the question U4?",
             lambda: len(request_bytes(article.SLICE_SYSTEM, list(article.SLICE_HISTORY),
                                       article.SLICE_QUESTION)),
             explanation="the envelope (model, keys, brackets) is most of it: each message is "
                         "only 2 characters.",
             hint="request_bytes(...) gives the exact body; len() of bytes counts bytes.",
             mistakes=lambda: {_slice_text_length(): "that counts only the text of the "
                               "messages; the JSON body has keys, quotes and the model name "
                               "too."}),
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
                         "end still fits in 120 bytes."},
)

quiz02 = Questionnaire("02 · Bad slice vs whole-turn slice", [
    Question("At 175 bytes, how many turns does the whole-turn slice keep?",
             lambda: select(*SLICE, 175).kept,
             explanation="SYSTEM | U3 A3 | U4: the newest turn, whole.",
             hint="select(system, history, question, 175).kept",
             mistakes=lambda: {2: "that counts messages (U3 and A3) or dropped turns; the "
                                  "question asks for kept turns.",
                               4: "that counts the messages the bad slice sends."}),
    Question("Below how many bytes does the whole-turn rule refuse this fixture (its mandatory "
             "input)?",
             lambda: charts.suffix_sizes(*SLICE)[0],
             explanation="the system message and the question are mandatory: below their "
                         "request size select raises BudgetError.",
             hint="charts.suffix_sizes(...)[0] or the slider's 'rejected' message.",
             mistakes=lambda: {71: "that is the request with U4 alone; the system message is "
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
                          "envelope and escaping."},
)

quiz03 = Questionnaire("03 · The length trap", [
    Question("How many UTF-8 bytes is the emoji 🙂?",
             lambda: len("🙂".encode("utf-8")),
             explanation="it is outside the Basic Multilingual Plane: 4 bytes in UTF-8, 2 UTF-16 "
                         "units, 1 code point.",
             hint="'🙂'.encode('utf-8')",
             mistakes=lambda: _unit_mistakes("🙂")),
    Question("How many UTF-16 units (Java's length()) is the question 继续🙂?",
             lambda: utf16_units(article.BOUNDARY_QUESTION),
             explanation="1 unit per Chinese character, 2 for the emoji (a surrogate pair).",
             hint="an emoji outside the BMP is a surrogate pair in UTF-16.",
             mistakes=lambda: {len(article.BOUNDARY_QUESTION.encode("utf-8")): "that counts "
                               "UTF-8 bytes; Java's length() counts UTF-16 units.",
                               len(article.BOUNDARY_QUESTION): "that counts code points; a "
                               "character outside the BMP takes two UTF-16 units."}),
    Question("How many bytes is the mandatory request as the requests library sends it?",
             lambda: len(request_bytes(article.BOUNDARY_SYSTEM, [], article.BOUNDARY_QUESTION,
                                       encoder="requests")),
             explanation="requests writes non-ASCII as \\uXXXX escapes and puts spaces after "
                         "separators.",
             hint="request_bytes(..., encoder='requests')",
             mistakes=lambda: {140: "that is what gson and httpx send; requests escapes "
                                    "non-ASCII and adds spaces."}),
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
    Question("How many bytes does select send at a 408-byte budget?",
             lambda: select(*BOUNDARY, 408).size,
             explanation="every turn fits, and the request is as large as it is: a budget is a "
                         "ceiling, not a target.",
             hint="the table's last row.",
             mistakes=lambda: {408: "that is the budget. Is a budget a target to fill, or a "
                                    "ceiling?"}),
    Question("What is the smallest budget select accepts for this fixture?",
             lambda: charts.suffix_sizes(*BOUNDARY)[0],
             explanation="the mandatory input, system message plus question, in wire bytes.",
             hint="the 139-byte error message says what the mandatory input needs.",
             mistakes=lambda: {139: "139 is the budget that is refused.",
                               **_unit_mistakes(_mandatory_body())}),
    Question("How many bytes does the newest turn add to the request?",
             lambda: _boundary_parts()["turns"][-1],
             explanation="235 - 140: the newest turn is the first one added back.",
             hint="byte_breakdown(...)['turns'] lists the turns oldest first.",
             mistakes=lambda: {_boundary_parts()["turns"][0]: "that is the older turn: "
                               "byte_breakdown lists turns oldest first."}),
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
    Question("How many bytes is the narrow request of the scenario?",
             lambda: _scenario_report()["narrow_request_bytes"],
             explanation="the request with turn two only and the question 'Explain the next "
                         "step.'",
             hint="the Selection of step 2."),
    Question("After the torn tail is cut, how many bytes is the file?",
             lambda: _journal_after_torn_tail()[1],
             explanation="exactly the three complete lines: the torn bytes are cut, nothing "
                         "else.",
             hint="add up the three complete lines' bytes (examine lists them).",
             mistakes=lambda: {556: "that is the size before opening, torn bytes included."}),
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
    Question("How many bytes of disk does the scenario's first turn take, as a journal line "
             "under its own id 'one' (section 1, not the growth demo's 't1')?",
             lambda: len(_scenario_line()),
             explanation="base64 of the JSON payload, a space, the 64-digit checksum and a "
                          "newline.",
             hint="len(encode_record(...)) of that turn.",
             mistakes=lambda: {len(_scenario_line("t1")): "that is the growth demo's line, "
                               "whose record has the id 't1'; the question's record has the id "
                               "'one', and the id is part of the payload, so the line is longer.",
                               38: "that is the text's UTF-8 bytes alone.",
                               76: "that is the JSON payload before base64.",
                               104: "that is the base64 payload without the checksum and "
                                    "newline."}),
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
    Discussion("A reserve of 20 tokens and a window of 20 tokens: what does select do, and why is "
               "that an error in the arguments rather than a BudgetError?",
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
