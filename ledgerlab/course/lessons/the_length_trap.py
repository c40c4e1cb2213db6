"""03 · The length trap: what Java's length() measures, and what goes over the wire.

The prediction and the quiz, on the boundary fixture's mandatory request (its system message
and question: Chinese characters and an emoji): UTF-16 units, code points, UTF-8 bytes and
what each encoder sends; and the text explorer's settings (``TEXT_EXPLORER``). The lesson's
budget explorer is 04's (``the_boundary_table.BUDGET_EXPLORER``). How a question is asked and
checked is ``ledgerlab.course.feedback``; ``ledgerlab.course.questions`` gathers every
lesson's.
"""

from __future__ import annotations

from ledgerlab import request_bytes, utf16_units

from .. import fixtures
from ..feedback import Question, Questionnaire
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------


def _mandatory_body() -> str:
    return request_bytes(fixtures.BOUNDARY_SYSTEM, [], fixtures.BOUNDARY_QUESTION).decode("utf-8")


def unit_mistakes(text: str) -> dict[int, str]:
    """What a count of UTF-16 units or code points of ``text`` gets wrong, bytes being right
    (04's quiz names them too)."""
    return {utf16_units(text): "that counts UTF-16 units (Java's length()); the budget "
                               "counts UTF-8 bytes.",
            len(text): "that counts code points (Python's len()); the budget counts "
                       "UTF-8 bytes."}


def _extra_bytes(text: str, width: int) -> int:
    """What the characters of ``text`` that take ``width`` UTF-8 bytes add to its UTF-16
    units: 2 per Chinese character (3 bytes, 1 unit), 2 per emoji (4 bytes, 2 units)."""
    return sum(width - utf16_units(char) for char in text if len(char.encode("utf-8")) == width)


def _length_trap_mistakes() -> dict[int, str]:
    """predict03's sums from Java's units that leave a character out or count one twice."""
    body = _mandatory_body()
    units, chinese, emoji = utf16_units(body), _extra_bytes(body, 3), _extra_bytes(body, 4)
    named: dict[int, list[str]] = {}
    for total, message in (
            (units + chinese, "that adds 2 bytes for each Chinese character but nothing for the "
             "emoji, which UTF-8 writes with more bytes than its UTF-16 units."),
            (units + chinese + emoji - 2, "that leaves out one Chinese character: the full stop "
             "。 is one too, 3 bytes for its 1 unit."),
            (units + chinese + 4, "that adds the emoji's 4 bytes on top of its 2 UTF-16 units; "
             "the 4 bytes replace them, 2 more than Java counts.")):
        named.setdefault(total, []).append(message)
    # Two slips can give the same sum (here both the emoji and 。 forgotten): both are named.
    return {total: " Or ".join(messages) for total, messages in named.items()}


# The what-ifs the quiz asks about: each changes one thing the notebook showed.
TWO_EMOJI = fixtures.BOUNDARY_QUESTION + "👍"                  # 03: a second emoji
NO_EMOJI = fixtures.BOUNDARY_QUESTION.replace("🙂", "")        # 03: the emoji removed


def _requests_mandatory(question: str) -> int:
    return len(request_bytes(fixtures.BOUNDARY_SYSTEM, [], question, encoder="requests"))


# --- The prediction and the quiz ---------------------------------------------------------

predict03 = Question(
    "Java's body.length() says the mandatory request is 114. How many bytes go over the wire?",
    lambda: len(_mandatory_body().encode("utf-8")),
    explanation="each Chinese character is 1 UTF-16 unit but 3 UTF-8 bytes, and the emoji is "
                "2 units but 4 bytes: the wire carries bytes.",
    hint="Java's 114 counts UTF-16 units: 1 per ASCII or Chinese character, 2 for the emoji. "
         "The wire counts UTF-8 bytes: 1 per ASCII character, 3 per Chinese character, 4 for "
         "the emoji. How many Chinese characters (the full stop 。 is one) does the body hold?",
    mistakes=lambda: {**unit_mistakes(_mandatory_body()),
                      40: "that is the raw text's UTF-8 bytes; the request adds the JSON "
                          "envelope and escaping.",
                      2 * utf16_units(_mandatory_body()): "that is two bytes per UTF-16 unit, "
                      "how Java holds the string in memory. The wire carries UTF-8: 1 byte for "
                      "ASCII, 3 for a Chinese character, 4 for the emoji.",
                      fixtures.REJECTED_BUDGET: "that is the budget the article rejects, not "
                      "the request's size: count the body's UTF-8 bytes.",
                      **_length_trap_mistakes()},
)

quiz03 = Questionnaire(heading(3), [
    Question(f"The question gets a second emoji: {TWO_EMOJI}. How many UTF-8 bytes is it?",
             lambda: len(TWO_EMOJI.encode("utf-8")),
             explanation="10 bytes for 继续🙂, and 4 more: 👍 is outside the Basic Multilingual "
                         "Plane (BMP), like 🙂.",
             hint="count by character: how many UTF-8 bytes does a Chinese character take, and "
                  "an emoji outside the BMP?",
             mistakes=lambda: {**unit_mistakes(TWO_EMOJI),
                               len(fixtures.BOUNDARY_QUESTION.encode("utf-8")): "that is the "
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
             explanation="under requests the emoji is written as a surrogate pair of \\uXXXX "
                         "escapes, 12 bytes; without it the body is that much shorter.",
             hint="how does requests write 🙂 in JSON? Section 'One text, four numbers' shows "
                  "the question's JSON string under requests.",
             mistakes=lambda: {_requests_mandatory(fixtures.BOUNDARY_QUESTION): "that is the "
                               "request with the emoji still in it.",
                               _requests_mandatory(fixtures.BOUNDARY_QUESTION) - 4: "that "
                               "removes the emoji's 4 UTF-8 bytes; requests does not send "
                               "them raw, it writes \\uXXXX escapes.",
                               len(request_bytes(fixtures.BOUNDARY_SYSTEM, [], NO_EMOJI)): "that "
                               "is what gson and httpx send; requests escapes non-ASCII and "
                               "adds spaces.",
                               len(_mandatory_body().encode("utf-8")): "that is gson's "
                               "mandatory request, emoji included."}),
])


# --- The explorer ------------------------------------------------------------------------
# TextExplorer's starting text (``ledgerlab.course.widgets`` takes its default from here): the
# boundary fixture's question, Chinese characters and an emoji, whose lengths differ.
TEXT_EXPLORER = {"text": fixtures.BOUNDARY_QUESTION}
