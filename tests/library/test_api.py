"""The public API as an application developer meets it (issue 44): what a Selection gives
back, turns that carry their ids, the defaults of each dialect, and typed errors."""

import inspect

import pytest

from ledgerlab import (DIALECTS, CoverNotInHistory, InvalidText, Summary, Turn, check_request,
                       request_bytes,
                       select, select_reference)
from ledgerlab.options import SELECT

HISTORY = [Turn(f"question {index}", f"answer {index}", id=f"t{index}") for index in range(6)]


@pytest.mark.parametrize("selector", [select, select_reference])
def test_a_selection_gives_the_kept_turns_oldest_first(selector):
    chosen = selector("s", HISTORY, "c", 250)
    assert 0 < chosen.kept < len(HISTORY)
    assert chosen.turns == tuple(HISTORY[-chosen.kept:])
    assert [turn.id for turn in chosen.turns] == [f"t{index}" for index in
                                                  range(6 - chosen.kept, 6)]
    assert chosen.payload == request_bytes("s", chosen.turns, "c")


@pytest.mark.parametrize("selector", [select, select_reference])
def test_summaries_find_their_turns_by_the_turns_own_ids(selector):
    summary = Summary("s1", "the first three", ("t0", "t1", "t2"))
    chosen = selector("s", HISTORY, "c", 200, summaries=[summary])
    assert chosen.summary_ids == ("s1",)
    assert chosen.kept <= 3
    # Without ids anywhere, the error says where they come from.
    bare = [Turn(turn.question, turn.answer) for turn in HISTORY]
    with pytest.raises(CoverNotInHistory, match="Turn.id"):
        selector("s", bare, "c", 200, summaries=[summary])


def test_a_turns_id_is_not_part_of_its_value_or_its_bytes():
    assert Turn("q", "a", id="x") == Turn("q", "a")
    assert request_bytes("s", [Turn("q", "a", id="x")], "c") == request_bytes(
        "s", [Turn("q", "a")], "c")
    assert "x" not in repr(Turn("q", "a", id="x"))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_works_with_the_defaults(dialect):
    chosen = select("s", HISTORY, "c", 10_000, dialect=dialect)
    check_request(chosen.payload, dialect)
    assert chosen.kept == len(HISTORY)


@pytest.mark.parametrize("selector", [select, select_reference])
@pytest.mark.parametrize("arguments, named", [
    (("s", HISTORY, None, 100), "current"),
    (("s", None, "c", 100), "history"),
    (("s", "not a list", "c", 100), "history"),
    (("s", HISTORY, "c", "100"), "max_bytes"),
])
def test_a_wrong_type_is_a_type_error_naming_the_argument(selector, arguments, named):
    with pytest.raises((TypeError, InvalidText), match=named):
        selector(*arguments)


def test_help_of_select_names_every_option_in_a_line():
    text = inspect.getdoc(select)
    assert len(text.splitlines()) <= 30
    for name in SELECT:
        assert any(line.lstrip("- ").startswith(f"``{name}``") or f"``{name}``" in line
                   for line in text.splitlines()), name
    assert "options" in text


# --- issue 45: wrong types are typed errors naming the argument --------------------------

@pytest.mark.parametrize("function, named", [
    ("ledgerlab:fact_line", "fact"),
    ("ledgerlab:utf16_units", "text"),
    ("ledgerlab.console:printable", "text"),
])
def test_none_where_a_value_belongs_is_a_type_error_naming_it(function, named):
    import importlib

    module, name = function.split(":")
    with pytest.raises(TypeError, match=f"^{named} must be"):
        getattr(importlib.import_module(module), name)(None)


@pytest.mark.parametrize("value, error", [(float("inf"), TypeError), (float("nan"), TypeError),
                                          (2.5, TypeError), ("3", TypeError), (True, TypeError),
                                          (-1, ValueError)])
def test_a_token_count_is_a_whole_number(value, error):
    from ledgerlab.dialects import TokenCount

    with pytest.raises(error, match="^value must"):
        TokenCount(value, exact=True, basis="a rule")
    with pytest.raises(TypeError, match="^exact"):
        TokenCount(3, exact=1, basis="a rule")
    with pytest.raises(TypeError, match="^basis"):
        TokenCount(3, exact=True, basis=None)


@pytest.mark.parametrize("option", ["encoder", "dialect", "tokenizer"])
def test_a_deeply_nested_list_as_a_name_is_a_value_error_not_a_recursion(option):
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(ValueError, match=f"unknown {option} \\(a list, not a str\\)"):
        select("s", HISTORY, "c", 1_000, **{option: nested})
    with pytest.raises(ValueError, match=f"unknown {option} 'x{{10}}.*\\(5000 characters\\)"):
        select("s", HISTORY, "c", 1_000, **{option: "x" * 5_000})
