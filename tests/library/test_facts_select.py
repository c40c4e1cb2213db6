"""Pinned facts in the request: a prefix that fits, then the turns (select == select_reference
with facts: test_oracle.py)."""

import json

import pytest

from ledgerlab import (BudgetError, Fact, InvalidText, Turn, request_bytes, request_tokens,
                       select, select_reference)
from ledgerlab.course.fixtures import BOUNDARY_HISTORY, BOUNDARY_QUESTION, BOUNDARY_SYSTEM
from ledgerlab.tokens import encoding

SELECTORS = [select, select_reference]
FIXTURE = (BOUNDARY_SYSTEM, list(BOUNDARY_HISTORY), BOUNDARY_QUESTION)
ORCHID = Fact("code", "The project code is ORCHID-17.", "one")
JAVA = Fact("java", "The user is on Java 8.", "two")


def fact_bytes(facts, encoder="gson"):
    """What the facts add to a request: the same request, with and without them."""
    system, _, current = FIXTURE
    return (len(request_bytes(system, [], current, facts=facts, encoder=encoder))
            - len(request_bytes(system, [], current, encoder=encoder)))


@pytest.mark.parametrize("selector", SELECTORS)
def test_the_facts_are_a_second_system_message_with_their_origins(selector):
    chosen = selector(*FIXTURE, 10_000, facts=[ORCHID, JAVA])
    messages = json.loads(chosen.payload)["messages"]
    assert messages[1] == {"role": "system", "content": "[one] The project code is ORCHID-17.\n"
                                                        "[two] The user is on Java 8."}
    assert [m["role"] for m in messages] == ["system", "system", "user", "assistant", "user",
                                             "assistant", "user"]
    assert (chosen.facts_kept, chosen.facts_dropped) == (2, 0)
    assert chosen.fact_bytes == fact_bytes([ORCHID, JAVA]) == chosen.size - 308


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("budget, kept, dropped, size",
                         [(140, 0, 2, 140), (235, 1, 1, 235), (308, 2, 0, 308), (408, 2, 0, 308)])
def test_without_facts_the_article_figures_are_unchanged(selector, budget, kept, dropped, size):
    chosen = selector(*FIXTURE, budget, facts=(), max_fact_bytes=0)
    assert (chosen.kept, chosen.dropped, chosen.size) == (kept, dropped, size)
    assert (chosen.facts_kept, chosen.facts_dropped, chosen.fact_bytes) == (0, 0, 0)
    assert chosen == selector(*FIXTURE, budget)
    with pytest.raises(BudgetError):
        selector(*FIXTURE, 139, facts=[ORCHID])


@pytest.mark.parametrize("selector", SELECTORS)
def test_the_longest_prefix_within_max_fact_bytes_never_skipping_one(selector):
    big = Fact("big", "x" * 500, "two")
    facts = [ORCHID, big, JAVA]
    cap = fact_bytes([ORCHID, JAVA])  # room for the small two, but JAVA is below big
    chosen = selector(*FIXTURE, 10_000, facts=facts, max_fact_bytes=cap)
    assert (chosen.facts_kept, chosen.facts_dropped, chosen.fact_bytes) == (1, 2,
                                                                           fact_bytes([ORCHID]))
    assert b"ORCHID" in chosen.payload and b"Java 8." not in chosen.payload
    assert selector(*FIXTURE, 10_000, facts=facts, max_fact_bytes=fact_bytes([ORCHID]) - 1
                    ).fact_bytes == 0
    # With no fact kept there is no facts section at all.
    assert selector(*FIXTURE, 10_000, facts=facts, max_fact_bytes=0).payload == \
        request_bytes(*FIXTURE)


@pytest.mark.parametrize("selector", SELECTORS)
def test_facts_leave_room_for_the_mandatory_input_and_come_before_turns(selector):
    both = fact_bytes([ORCHID, JAVA])
    chosen = selector(*FIXTURE, 140 + both, facts=[ORCHID, JAVA])
    assert (chosen.facts_kept, chosen.kept, chosen.size) == (2, 0, 140 + both)
    chosen = selector(*FIXTURE, 140 + both - 1, facts=[ORCHID, JAVA])
    assert (chosen.facts_kept, chosen.facts_dropped, chosen.kept) == (1, 1, 0)
    # The turns fill what the facts leave: 95 more bytes hold the newest turn.
    assert selector(*FIXTURE, 235 + both, facts=[ORCHID, JAVA]).kept == 1


@pytest.mark.parametrize("selector", SELECTORS)
def test_facts_count_in_tokens_too(selector):
    system, history, current = FIXTURE
    mandatory = request_tokens(system, [], current)
    with_facts = request_tokens(system, [], current, facts=[ORCHID])
    # The cookbook rule: 3 per message, the role "system" (1 token), the content.
    content = encoding("o200k_base").encode_ordinary("[one] The project code is ORCHID-17.")
    assert with_facts - mandatory == 3 + 1 + len(content)
    chosen = selector(*FIXTURE, 10_000, facts=[ORCHID], max_tokens=with_facts)
    assert (chosen.facts_kept, chosen.kept, chosen.tokens) == (1, 0, with_facts)
    # One token less: the fact no longer fits, and the turns fill the room it leaves.
    chosen = selector(*FIXTURE, 10_000, facts=[ORCHID], max_tokens=with_facts - 1)
    assert (chosen.facts_kept, chosen.fact_bytes, chosen.kept) == (0, 0, 1)
    assert chosen.tokens == request_tokens(system, history[1:], current)


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("facts, max_fact_bytes, error", [
    ([Turn("q", "a")], None, TypeError),
    (["[one] text"], None, TypeError),
    ([ORCHID], -1, ValueError),
    ([ORCHID], 1.5, TypeError),
    ([ORCHID], True, TypeError),
])
def test_bad_facts_and_caps_are_typed_errors(selector, facts, max_fact_bytes, error):
    with pytest.raises(error) as caught:
        selector(*FIXTURE, 10_000, facts=facts, max_fact_bytes=max_fact_bytes)
    assert not isinstance(caught.value, BudgetError)


@pytest.mark.parametrize("fields", [("", "t", "o"), ("i", "t", ""), ("i", "t\ud800", "o"),
                                    ("i", b"t", "o"), (1, "t", "o")])
def test_a_fact_checks_its_fields_like_a_turn(fields):
    with pytest.raises(InvalidText):
        Fact(*fields)


def test_reprs_show_tags_and_sizes_never_text():
    fact = Fact("PRIVATE-ID", "PRIVATE-TEXT é", "PRIVATE-ORIGIN")
    assert "PRIVATE" not in repr(fact) and "text=15 bytes" in repr(fact)
    chosen = select("s", [], "q", 10_000, facts=[fact])
    assert "PRIVATE" not in repr(chosen)
    assert repr(chosen).endswith(f"facts_kept=1, facts_dropped=0, fact_bytes={chosen.fact_bytes})")


def test_select_looks_only_at_the_facts_up_to_the_first_that_does_not_fit():
    # As with turns: a bad item past the stopping point is never encoded.
    chosen = select(*FIXTURE, 10_000, facts=[ORCHID, Fact("big", "x" * 10_000, "one"), "junk"])
    assert (chosen.facts_kept, chosen.facts_dropped) == (1, 2)


# --- issue 45: a fact is sent only while its origin is among the history's turns ---------

@pytest.mark.parametrize("selector", SELECTORS)
def test_a_fact_kept_from_before_a_forget_is_refused_not_sent(selector, log):
    from ledgerlab import CoverNotInHistory, Journal, OriginNotInHistory

    with Journal(log) as journal:
        journal.commit("t1", "My code is ORCHID-17.", "Noted.")
        journal.commit("t2", "I use Java 8.", "Noted.")
        journal.pin("code", "The code is ORCHID-17.", origin="t1")
        journal.pin("java", "Java 8.", origin="t2")
        kept = journal.facts()  # the application's copy
        journal.forget("t1")
        history, ids = journal.history(), journal.ids()
        assert [fact.id for fact in journal.facts()] == ["java"]
    for options in ({}, {"ids": ids}):
        with pytest.raises(OriginNotInHistory) as caught:
            selector("s", history, "q", 10_000, facts=kept, **options)
        assert isinstance(caught.value, CoverNotInHistory)  # the summaries' error family
        for private in ("ORCHID", "t1", "code"):
            assert private not in str(caught.value)
    assert selector("s", history, "q", 10_000, facts=kept[1:]).facts_kept == 1
    # Every turn forgotten: ids= still names the history's turns (none).
    with pytest.raises(OriginNotInHistory):
        selector("s", [], "q", 10_000, facts=kept[1:], ids=())


@pytest.mark.parametrize("selector", SELECTORS)
def test_only_the_facts_sent_are_checked_and_turns_without_ids_check_nothing(selector):
    gone = Fact("gone", "x" * 5_000, "t9")
    history = [Turn("q1", "a1", id="t1"), Turn("q2", "a2", id="t2")]
    chosen = selector("s", history, "q", 10_000, facts=[Fact("f", "kept", "t1"), gone],
                      max_fact_bytes=100)
    assert (chosen.facts_kept, chosen.facts_dropped) == (1, 1)  # the stale one is not sent
    # Turns made by hand carry no ids: there is nothing to check a fact against.
    assert selector(*FIXTURE, 10_000, facts=[gone]).facts_kept == 1


def test_a_fact_from_an_old_turn_of_a_long_history_is_found():
    history = [Turn(f"q{index}", f"a{index}", id=f"t{index}") for index in range(5_000)]
    chosen = select("s", history, "q", 2_000, facts=[Fact("f", "first", "t0")])
    assert (chosen.facts_kept, chosen.dropped > 4_000) == (1, True)


def test_facts_beside_a_long_history_made_by_hand_read_no_more_of_it():
    class Counting(list):
        """A history that counts the turns read from it."""
        reads = 0

        def __getitem__(self, index):
            got = super().__getitem__(index)
            Counting.reads += len(got) if isinstance(index, slice) else 1
            return got

    history = Counting(Turn(f"q{index}", f"a{index}") for index in range(100_000))
    facts = [Fact(f"f{index}", "text", f"t{index}") for index in range(20)]
    reads = []
    for given in ((), facts):
        Counting.reads = 0
        select("s", history, "q", 4_000, facts=given)
        reads.append(Counting.reads)
    assert reads[1] - reads[0] <= 1 and reads[0] < 1_000  # its newest turn's id, at most
