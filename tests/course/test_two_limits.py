"""Notebook 07's pieces: which limit binds, its chart and widget, and the exercise's check."""

import numpy as np
import pytest

from ledgerlab.course import charts, fixtures, measures
from ledgerlab.course.exercises import ARTICLE, q7  # the article's fixture: exercise 7 on 07's figures
from ledgerlab.course.widgets import TwoLimitsExplorer
from sentences import says

FIXTURE = (fixtures.BOUNDARY_SYSTEM, fixtures.BOUNDARY_HISTORY, fixtures.BOUNDARY_QUESTION)


@pytest.mark.parametrize("max_bytes, max_tokens, reserve, by_bytes, by_tokens, kept, binds", [
    (408, 100, 0, 2, 2, 2, "neither"),
    (408, 40, 0, 2, 1, 1, "tokens"),   # the bytes pass, the tokens drop a turn
    (235, 100, 0, 1, 2, 1, "bytes"),   # the reverse
    (235, 55, 20, 1, 1, 1, "both"),
    (408, 19, 0, 2, None, None, "tokens"),  # the mandatory input: 20 tokens
    (139, 100, 0, None, 2, None, "bytes"),  # the mandatory input: 140 bytes
    (139, 19, 0, None, None, None, "both"),
])
def test_which_limit_binds(max_bytes, max_tokens, reserve, by_bytes, by_tokens, kept, binds):
    result = measures.two_limits(*FIXTURE, max_bytes, max_tokens, reserve_tokens=reserve)
    assert (result.kept_by_bytes, result.kept_by_tokens, result.binds) == (by_bytes, by_tokens,
                                                                          binds)
    assert (None if result.selection is None else result.selection.kept) == kept
    assert (result.error is None) == (kept is not None)


def test_the_charts_describe_themselves_with_their_numbers():
    rows = measures.bytes_per_token({"English": "hello world", "emoji": "🙂🙂"})
    assert [(r.label, r.tokenizer, r.nbytes) for r in rows] == [
        ("English", "o200k_base", 11), ("English", "cl100k_base", 11),
        ("emoji", "o200k_base", 8), ("emoji", "cl100k_base", 8)]
    chart = charts.bytes_per_token_chart(rows)
    bundle = chart._repr_mimebundle_()
    assert bundle["image/png"] and "Figure" not in bundle["text/plain"]
    assert f"{rows[0].bytes_per_token:.2f} (o200k_base)" in bundle["text/plain"]
    result = measures.two_limits(*FIXTURE, 139, 100)
    text = charts.two_limits_chart(result, 139, 100).description
    assert "140 of 139" in text and "not counted" in text and "binds: bytes" in text


def test_the_explorer_follows_its_sliders():
    explorer = TwoLimitsExplorer(budget=308, max_tokens=60, reserve_tokens=20)
    assert "1 of 2 turns kept, 235 bytes, 35 tokens" in explorer.summary
    assert "binds: tokens" in explorer.summary
    explorer.tokens_slider.value = 80
    explorer.bytes_slider.value = 235
    says(explorer.summary, "bytes alone", "1 turn", "tokens alone", "2 turns", "binds: bytes",
         in_order=True)
    explorer.bytes_slider.value = 139
    says(explorer.summary, "BudgetError", "bytes", "mandatory input", "140 bytes", in_order=True)
    assert explorer._repr_mimebundle_()["text/plain"] == (f"{explorer.summary}\nChart: "
                                                          f"{explorer.chart.description}")


def test_the_exercise_accepts_the_answer_as_a_learner_has_it():
    assert q7.check(65, fixture=ARTICLE) and q7.check(np.int64(65), fixture=ARTICLE)
    assert q7.check(..., fixture=ARTICLE).status == "unanswered"


@pytest.mark.parametrize("answer, misconception", [
    (45, "reserve"),              # the request alone
    (308, "bytes"),               # the byte size
    (328, "bytes"),               # the byte size plus the reserve
    (77, "rule of thumb"),        # bytes / 4
    (97, "rule of thumb"),
    (58, "cl100k_base"),          # the other tokenizer
    (78, "cl100k_base"),
    (62, "prime the reply"),      # the cookbook's 3 priming tokens forgotten
    (38, "each message also costs"),  # text only, no per-message overhead
    (64, "keeps 1 turn of 2"),    # off by one
    (66, "smallest"),             # fits, but not the smallest
    (30, "BudgetError"),          # not even the mandatory input
    (20, "larger than the 20-token reserve"),
    (65.0, "whole number"), (True, "whole number"), ("65", "whole number"),
    (None, "whole number"),
])
def test_each_wrong_answer_names_its_misconception_without_the_answer(answer, misconception):
    feedback = q7.check(answer, fixture=ARTICLE)
    assert not feedback and feedback.status == "incorrect"
    assert misconception in repr(feedback)
    if answer != 65:  # 65.0 is echoed back as the learner wrote it, not given away
        assert "65" not in repr(feedback)
