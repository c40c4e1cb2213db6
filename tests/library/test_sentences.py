"""The helper that checks what a sentence says (tests/sentences.py) finds whole numbers and
names only, and in order when asked: a loose helper would let every test that uses it pass."""

import re

import pytest

from sentences import says, saying


def test_says_finds_whole_numbers_and_names_only():
    text = "needs 140 bytes, 4,194,304 in all; see `ledgerlab-course --help`"
    says(text, 140, 4194304, "bytes", "ledgerlab-course --help")
    for absent in (14, 40, 1140, 419, 194, "byte", "need", "help me"):
        with pytest.raises(AssertionError, match="not said"):
            says(text, absent)
    with pytest.raises(AssertionError):
        says("1,140 and 140.5", 140)


def test_says_in_order_keeps_each_number_beside_its_name():
    text = "the mandatory input needs 140 bytes but the budget is 139 bytes"
    says(text, "needs", 140, "budget", 139, in_order=True)
    with pytest.raises(AssertionError, match="in this order"):
        says(text, "needs", 139, "budget", 140, in_order=True)
    says(text, 139, 140)  # in any order unless asked


def test_a_fact_is_an_int_or_a_nonempty_str():
    for fact, error in ((1.5, TypeError), (True, TypeError), ("", ValueError)):
        with pytest.raises(error):
            says("1.5 True", fact)


def test_saying_is_a_pattern_of_the_facts_in_order():
    message = "line 2 at byte offset 140 is corrupt"
    assert re.search(saying("line 2", 140, "corrupt"), message)
    assert not re.search(saying("line 2", 14, "corrupt"), message)
    assert not re.search(saying("corrupt", "line 2"), message)
