"""Notebook 10's course layer: its fixture and images, what toolturns measures, the chart, and
exercise 9 (right answers accepted, each named mistake named, graded like the others)."""

import copy
import json
import re
import struct
import zlib

import pytest

from ledgerlab import (BudgetError, InvalidRequest, check_request, image_tokens, request_bytes,
                       select)
from ledgerlab.course import fixtures, toolcharts, toolturns
from ledgerlab.course.exercises import SLICED_MESSAGES, TOOL_MESSAGES, q9
from ledgerlab.course.grading import answers, judge
from ledgerlab.course.lessons import tool_turns
from sentences import saying, says

REQUEST = toolturns.TOOL_REQUEST
TOOLS = toolturns.TOOLS


# --- The fixture and its figures --------------------------------------------------------

def test_the_fixture_gives_the_lessons_figures():
    assert len(request_bytes(*REQUEST, tools=TOOLS)) == 908
    assert toolturns.tools_bytes() == 297
    assert len(request_bytes(fixtures.TOOL_SYSTEM, [], fixtures.TOOL_QUESTION, tools=TOOLS)) == 464
    last, sliced = toolturns.count_slice_under(*REQUEST, 700)
    assert (last, len(sliced)) == (5, 690)
    assert toolturns.verdict(sliced) == "refused: tool-after-call at message 1"
    good = select(*REQUEST, 700, tools=TOOLS)
    assert (good.kept, good.size) == (1, 571)
    assert {d: s["total"] for d, s in toolturns.dialect_sizes().items()} == {
        "openai-chat": 908, "anthropic-messages": 871}
    looping = select(*REQUEST, 700, tools=TOOLS, current_steps=fixtures.LOOP_STEPS)
    assert (looping.kept, looping.size) == (0, 684)


def test_every_dialect_total_is_the_body_that_goes_over_the_wire():
    for dialect, parts in toolturns.dialect_sizes().items():
        body = request_bytes(*REQUEST, tools=TOOLS, dialect=dialect,
                             reserve_tokens=toolturns.RESERVE)
        assert parts["total"] == len(body)
        check_request(body, dialect)


def png_chunks(data):
    offset, chunks = 8, []
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        crc, = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks.append((kind, body))
        offset += 12 + length
    return chunks


@pytest.mark.parametrize("make, size", [(fixtures.photo, (320, 240)),
                                        (fixtures.screenshot, (1920, 1080))])
def test_the_images_are_real_pngs_made_the_same_every_time(make, size):
    image = make()
    assert (image.width, image.height) == size and image.media_type == "image/png"
    chunks = png_chunks(image.data)
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    raw = zlib.decompress(chunks[1][1])
    assert len(raw) == size[1] * (1 + 3 * size[0])  # a filter byte, then RGB, per row
    make.cache_clear()
    assert make().data == image.data


def test_the_photo_is_bytes_heavy_and_the_screenshot_token_heavy():
    photo, shot = (toolturns.image_cost(image) for image in (fixtures.photo(), fixtures.screenshot()))
    assert photo.file_bytes > 200_000 and photo.base64_bytes == 4 * -(-photo.file_bytes // 3)
    assert (photo.tokens, shot.tokens) == (255, 1105) == (image_tokens(fixtures.photo()),
                                                          image_tokens(fixtures.screenshot()))
    assert shot.file_bytes < 20_000
    assert toolturns.binding_limit(262_144, 400) == "bytes"
    assert toolturns.binding_limit(262_144, 400, fixtures.screenshot()) == "tokens"
    assert toolturns.binding_limit(10**6, 2_000) == "neither"


# --- The slices, message by message -------------------------------------------------------

def test_labels_name_every_message_of_the_body():
    assert toolturns.tool_labels(fixtures.TOOL_HISTORY) == [
        "SYSTEM", "U1", "C1", "R1", "A1", "U2", "A2", "U3"]
    assert toolturns.tool_labels([fixtures.PARALLEL_TURN], fixtures.LOOP_STEPS) == [
        "SYSTEM", "U1", "C1", "R1", "R1", "A1", "U2", "C2", "R2"]
    assert toolturns.join_tool_labels(["SYSTEM", "R1", "A1", "U2", "A2", "U3"]) == \
        "SYSTEM | R1 A1 | U2 A2 | U3"


@pytest.mark.parametrize("budget", [464, 570, 571, 700, 907, 908, 2_000])
def test_the_segments_add_up_to_each_slices_body(budget):
    labels = toolturns.tool_labels(fixtures.TOOL_HISTORY)
    last, sliced = toolturns.count_slice_under(*REQUEST, budget)
    kept = [label == "SYSTEM" or i >= len(labels) - last for i, label in enumerate(labels)]
    segments = toolturns.tool_segments(*REQUEST, kept)
    assert sum(s.nbytes for s in segments if s.kept) == len(sliced) <= budget
    chosen = select(*REQUEST, budget, tools=TOOLS)
    whole = toolturns.tool_segments(*REQUEST, toolturns.whole_turn_kept(fixtures.TOOL_HISTORY,
                                                                         chosen))
    assert sum(s.nbytes for s in whole if s.kept) == chosen.size
    assert toolturns.fault(chosen.payload) is None
    assert sum(s.nbytes for s in whole) == len(request_bytes(*REQUEST, tools=TOOLS))


@pytest.mark.parametrize("last", range(8))
def test_a_count_slice_is_refused_exactly_when_it_starts_on_a_result(last):
    labels = toolturns.tool_labels(fixtures.TOOL_HISTORY)[1:]
    payload = toolturns.count_sliced(*REQUEST, last)
    starts_on_result = bool(last) and labels[-last].startswith("R")
    assert (toolturns.fault(payload) is not None) == starts_on_result


def test_in_anthropics_shape_the_slice_is_refused_until_it_starts_on_a_question():
    """10 · 29 and quiz 2: the slice opens on a tool result in a user message, then on the
    answer A1 (first-user); the first one accepted starts on U2 and is the whole-turn body."""
    anthropic = "anthropic-messages"
    slices = {last: toolturns.count_sliced(*REQUEST, last, dialect=anthropic) for last in (5, 4, 3)}
    assert [toolturns.verdict(slices[last], anthropic) for last in (5, 4, 3)] == [
        "refused: result-follows-use at message 0", "refused: first-user at message 0",
        "accepted"]
    whole = request_bytes(fixtures.TOOL_SYSTEM, fixtures.TOOL_HISTORY[1:], fixtures.TOOL_QUESTION,
                          tools=TOOLS, dialect=anthropic, reserve_tokens=toolturns.RESERVE)
    assert slices[3] == whole
    assert toolturns.verdict(toolturns.count_sliced(*REQUEST, 4)) == "accepted"  # OpenAI's rules


def test_the_chart_describes_both_slices_with_their_verdicts():
    chart = toolcharts.tool_slice_chart(*REQUEST, 700)
    says(chart.description, "SYSTEM | R1 A1 | U2 A2 | U3", "tools", "690 bytes", "refused",
         "tool-after-call", "message 1", "R1", "call", "A1", "question", "Whole-turn",
         "SYSTEM | U2 A2 | U3", "tools", "571 bytes", "accepted", in_order=True)
    assert chart.png().startswith(b"\x89PNG")
    rejected = toolcharts.tool_slice_chart(*REQUEST, 400).description
    says(rejected, "Whole-turn", "rejected", "mandatory input", "464 bytes", in_order=True)


# --- Exercise 9 ---------------------------------------------------------------------------

def find_orphans(messages):
    """A learner's right answer, written differently from the module's."""
    found, open_calls, opened_at = [], [], None
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            if message["tool_call_id"] in open_calls:
                open_calls.remove(message["tool_call_id"])
            else:
                found.append(index)
        else:
            if open_calls:
                found.append(opened_at)
            open_calls = [call["id"] for call in message.get("tool_calls") or []]
            opened_at = index
    if open_calls:
        found.append(opened_at)
    return sorted(found)


ALL_CASES = tool_turns.CASES + tool_turns.HIDDEN_CASES


@pytest.mark.parametrize("what, messages", ALL_CASES, ids=[what for what, _ in ALL_CASES])
def test_the_truth_agrees_with_check_request(what, messages):
    found = tool_turns.orphans(messages)
    if not messages:
        assert found == []
        return
    try:
        check_request(json.dumps({"model": "m", "messages": messages}))
    except InvalidRequest as error:
        assert error.rule in ("tool-after-call", "calls-answered") and error.index in found
    else:
        assert found == []


def test_the_example_lists_are_the_lessons():
    assert tool_turns.orphans(TOOL_MESSAGES) == [] and tool_turns.orphans(SLICED_MESSAGES) == [1]
    assert SLICED_MESSAGES == json.loads(toolturns.count_slice_under(*REQUEST, 700)[1])["messages"]


def test_a_right_answer_passes_the_check_and_the_hidden_test():
    assert q9.check(find_orphans) and q9.grade(find_orphans)
    assert q9.check(lambda messages: tuple(tool_turns.orphans(messages)))  # a tuple is a list too


@pytest.mark.parametrize("rule, named", tool_turns.WRONG_RULES)
def test_each_known_wrong_rule_is_named(rule, named):
    feedback = q9.check(rule)
    assert feedback.status == "incorrect" and feedback.message == named


def test_the_wrong_rules_differ_from_the_truth_and_from_each_other():
    outputs = [[tool_turns.orphans(m) for _, m in tool_turns.CASES]]
    outputs += [[rule(m) for _, m in tool_turns.CASES] for rule, _ in tool_turns.WRONG_RULES]
    assert len({json.dumps(o) for o in outputs}) == len(outputs)


@pytest.mark.parametrize("answer, named", [
    (lambda m: None, "returned None"),
    (lambda m: set(tool_turns.orphans(m)), "not a set"),
    (lambda m: bool(tool_turns.orphans(m)), "not a bool"),
    (lambda m: [m[i] for i in tool_turns.orphans(m)], "not the messages or their ids"),
    (lambda m: [m[i].get("tool_call_id", "") for i in tool_turns.orphans(m)], "not the messages"),
    (lambda m: 1 / 0, "raised ZeroDivisionError"),
    (lambda m: tool_turns.orphans(m)[::-1], "each index once, in order"),
    (lambda m: [], "misses message 1 (a tool message)"),
    (lambda m: [i for i, x in enumerate(m) if x["role"] == "tool"], "flags message 3"),
    (lambda m: tool_turns.orphans(m) + [len(m)], "which is not in the list"),
    ("find_orphans", "pass a function"),
])
def test_wrong_answers_get_feedback_that_names_the_mistake(answer, named):
    feedback = q9.check(answer)
    assert not feedback and named in feedback.message, feedback.message


def test_feedback_never_shows_the_conversation():
    texts = {m.get("content") for _, ms in ALL_CASES for m in ms if isinstance(m.get("content"), str)}
    for rule, _ in tool_turns.WRONG_RULES:
        message = q9.check(rule).message
        assert not any(text in message for text in texts if len(text) > 3)
    assert "ORCHID" not in q9.check(lambda m: []).message


def test_a_function_that_changes_its_argument_changes_no_other_list():
    def destructive(messages):
        result = find_orphans(messages)
        for message in messages:
            message.clear()
        messages.clear()
        return result

    before = copy.deepcopy(ALL_CASES)
    assert q9.check(destructive) and q9.grade(destructive)
    tagged = answers.plain(destructive, q9.inputs)
    assert ALL_CASES == before and q9.inputs == tuple(m for _, m in before)
    assert judge.judge("q9", {"find_orphans": json.loads(json.dumps(tagged))})


def test_the_hidden_lists_catch_a_rule_that_fits_only_the_visible_ones():
    visible = {json.dumps(m): tool_turns.orphans(m) for _, m in tool_turns.CASES}
    fitted = lambda messages: visible.get(json.dumps(messages), [])  # noqa: E731
    assert q9.check(fitted)
    graded = q9.grade(fitted)
    assert not graded and re.search(r"test list #\d+ \(\d+ messages: ", graded.message)


def test_graded_from_plain_answers_as_the_sandbox_sends_them():
    def sent(function):
        return {"find_orphans": json.loads(json.dumps(answers.plain(function, q9.inputs)))}

    assert judge.judge("q9", sent(find_orphans))
    wrong = judge.judge("q9", sent(tool_turns.WRONG_RULES[6][0]))
    assert wrong.message == tool_turns.WRONG_RULES[6][1]
    assert judge.judge("q9", {"find_orphans": {"missing": True}}).status == "unanswered"


def test_the_solution_needs_no_name_the_notebooks_do_not_import():
    namespace = {"q9": q9}
    *body, last = q9.solution_code.splitlines()
    exec("\n".join(body), namespace)
    assert eval(last, namespace)


def test_a_mandatory_round_that_does_not_fit_is_a_budget_error():
    with pytest.raises(BudgetError, match=saying("tool rounds", "684 bytes")):
        select(*REQUEST, 620, tools=TOOLS, current_steps=fixtures.LOOP_STEPS)
