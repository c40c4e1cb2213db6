"""Evidence and summaries in the request (issue 37): where each goes, what it names, the
errors and the repr; the order select places summaries in over long histories. That select
== select_reference on random memories, and a 20,000-turn history sends what the rule takes,
is in test_oracle.py."""

import json

import pytest

from ledgerlab import (BudgetError, Evidence, Fact, Summary, Turn, request_bytes, select,
                       select_reference)
from ledgerlab.course.fixtures import BOUNDARY_HISTORY, BOUNDARY_QUESTION, BOUNDARY_SYSTEM
from ledgerlab import CoverNotInHistory

SELECTORS = [select, select_reference]
FIXTURE = (BOUNDARY_SYSTEM, list(BOUNDARY_HISTORY), BOUNDARY_QUESTION)
IDS = ["one", "two"]
ORCHID = Summary("s-orchid", "The user's project code is ORCHID-17.", ("one",))
BOTH = Summary("s-both", "Code ORCHID-17, Java 8.", ("one", "two"))
MANUAL = Evidence("e-manual", "Java 8 reached end of public updates in 2019.", "manual.pdf#p3")


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("dialect", ["openai-chat", "anthropic-messages"])
def test_none_given_keeps_the_article_bytes(selector, dialect):
    reserve = 1 if dialect == "anthropic-messages" else 0
    for budget in (160, 235, 308):
        plain = selector(*FIXTURE, budget, reserve_tokens=reserve, dialect=dialect)
        assert selector(*FIXTURE, budget, reserve_tokens=reserve, dialect=dialect, ids=IDS,
                        summaries=(), evidence=()) == plain
        assert "summar" not in repr(plain) and "evidence" not in repr(plain)
    assert [selector(*FIXTURE, budget).size for budget in (140, 235, 308)] == [140, 235, 308]


@pytest.mark.parametrize("selector", SELECTORS)
def test_a_summary_replaces_the_turns_it_covers_never_a_kept_one(selector):
    # The summaries' budget is theirs before the turns': at 235 bytes the summary of turn
    # one is taken first, and turn two no longer fits beside it.
    narrow = selector(*FIXTURE, 235, ids=IDS, summaries=[ORCHID])
    assert (narrow.kept, narrow.summary_ids) == (0, ("s-orchid",))
    assert narrow.size == 140 + narrow.summary_bytes
    capped = selector(*FIXTURE, 235, ids=IDS, summaries=[ORCHID], max_summary_bytes=10)
    assert (capped.kept, capped.summary_ids, capped.size) == (1, (), 235)
    messages = json.loads(narrow.payload)["messages"]
    assert messages[1] == {"role": "system",
                           "content": "[turns: one] The user's project code is ORCHID-17."}
    full = selector(*FIXTURE, 10_000, ids=IDS, summaries=[ORCHID, BOTH])
    assert (full.kept, full.summary_ids, full.summary_bytes) == (2, (), 0)


@pytest.mark.parametrize("selector", SELECTORS)
def test_evidence_names_its_source_in_both_dialects(selector):
    chosen = selector(*FIXTURE, 10_000, evidence=[MANUAL])
    assert json.loads(chosen.payload)["messages"][1]["content"] == \
        "[source: manual.pdf#p3] Java 8 reached end of public updates in 2019."
    assert (chosen.evidence_kept, chosen.evidence_bytes) == (1, chosen.size - 308)
    anthropic = selector(*FIXTURE, 10_000, evidence=[MANUAL], dialect="anthropic-messages",
                         reserve_tokens=64)
    assert json.loads(anthropic.payload)["system"][1]["text"].startswith("[source: manual.pdf")


@pytest.mark.parametrize("selector", SELECTORS)
def test_summaries_need_ids_that_place_them(selector):
    with pytest.raises(CoverNotInHistory, match="ids="):
        selector(*FIXTURE, 10_000, summaries=[ORCHID])
    with pytest.raises(CoverNotInHistory, match="not among ids"):
        selector(*FIXTURE, 10_000, ids=["two", "three"], summaries=[ORCHID])
    with pytest.raises(CoverNotInHistory, match="2"):
        selector(*FIXTURE, 10_000, ids=["one"], summaries=[ORCHID])
    with pytest.raises(CoverNotInHistory, match="more than once"):
        selector(*FIXTURE, 10_000, ids=["one", "one"], summaries=[ORCHID])
    with pytest.raises(TypeError, match="Summary"):
        selector(*FIXTURE, 10_000, ids=IDS, summaries=[MANUAL])
    with pytest.raises(TypeError, match="Evidence"):
        selector(*FIXTURE, 10_000, evidence=[ORCHID])


def test_the_cover_error_shows_id_tags_not_ids():
    secret = Summary("secret-summary", "private text", ("secret-turn",))
    with pytest.raises(CoverNotInHistory) as caught:
        select(*FIXTURE, 10_000, ids=IDS, summaries=[secret])
    assert "secret" not in str(caught.value) and "private" not in str(caught.value)


def test_the_repr_shows_counts_and_bytes_never_text():
    chosen = select(*FIXTURE, 400, ids=IDS, summaries=[ORCHID], evidence=[MANUAL])
    shown = repr(chosen)
    assert f"evidence_kept=1, evidence_dropped=0, evidence_bytes={chosen.evidence_bytes}" in shown
    assert f"summaries_sent=1, summaries_dropped=0, summary_bytes={chosen.summary_bytes}" in shown
    for private in ("ORCHID", "manual", "s-orchid", "Java", "one"):
        assert private not in shown


@pytest.mark.parametrize("selector", SELECTORS)
def test_mandatory_input_still_raises_budget_error(selector):
    with pytest.raises(BudgetError):
        selector(*FIXTURE, 139, ids=IDS, summaries=[ORCHID], evidence=[MANUAL])


@pytest.mark.parametrize("dialect", ["openai-chat", "anthropic-messages"])
def test_byte_breakdown_names_each_section_and_adds_up(dialect):
    from ledgerlab import byte_breakdown
    system, history, current = FIXTURE
    memory = dict(facts=[Fact("f", "Code ORCHID-17.", "one")], evidence=[MANUAL],
                  summaries=[ORCHID], dialect=dialect,
                  reserve_tokens=8 if dialect == "anthropic-messages" else 0)
    parts = byte_breakdown(system, history, current, **memory)
    total = len(request_bytes(system, history, current, **memory))
    assert sum(sum(v) if isinstance(v, list) else v for v in parts.values()) == total
    chosen = select(system, history, current, 10_000, ids=IDS, **{**memory, "summaries": ()})
    assert (parts["facts"], parts["evidence"]) == (chosen.fact_bytes, chosen.evidence_bytes)
    assert "summaries" not in byte_breakdown(system, history, current)


# --- Long histories: select places the summaries a block of ids at a time -------------

def test_the_lazy_order_is_summary_order_read_a_block_at_a_time():
    import random

    from ledgerlab.memory_sections import LazyOrder, summary_order

    ids = [f"t{index}" for index in range(12_000)]
    for seed in range(12):
        pick = random.Random(seed)
        summaries = []
        for number in range(pick.randint(1, 60)):
            end = pick.randrange(len(ids))  # nested, overlapping, spread over every block
            span = ids[max(0, end - pick.randint(1, 300)):end + 1]
            covers = pick.sample(span, min(len(span), pick.randint(1, 8)))
            summaries.append(Summary(f"s{number}", "text", tuple(covers)))
        window = pick.choice([0, 1, 50, 1_500, 12_000])
        order = LazyOrder(summaries, ids, window)
        while order.extend(room=1 << 30):
            pass
        expected = summary_order(ids, summaries)
        assert order.items == expected
        assert order.near == sum(1 for newest, _ in expected if newest >= len(ids) - window)
        # The passes test overlaps when two spans (oldest to newest covered index) meet:
        # always when two summaries share a turn, never when every span is apart.
        where = {turn_id: index for index, turn_id in enumerate(ids)}
        spans = sorted((min(map(where.get, s.covers)), max(map(where.get, s.covers)))
                       for s in summaries)
        meet = any(low <= high for (_, high), (low, _) in zip(spans, spans[1:]))
        assert order.overlapping == meet
        if len({c for s in summaries for c in s.covers}) != sum(len(s.covers) for s in summaries):
            assert order.overlapping
    apart = [Summary(f"s{n}", "text", tuple(ids[n * 10:n * 10 + 10])) for n in range(50)]
    assert not LazyOrder(apart, ids, 100).overlapping
    interleaved = [Summary("even", "text", ("t0", "t2")), Summary("odd", "text", ("t1", "t3"))]
    order = LazyOrder(interleaved, ids, 12_000)
    assert order.overlapping  # spans meet though no turn is shared: the passes test them


def test_a_cover_outside_ids_is_found_when_a_pass_reaches_it():
    turns = [Turn(f"q{index}", f"a{index}") for index in range(6_000)]
    ids = [f"t{index}" for index in range(len(turns))]
    lost = Summary("lost", "Old.", ("t1", "gone"))
    with pytest.raises(CoverNotInHistory, match="not among ids"):
        select("sys", turns, "now?", 2_000, ids=ids, summaries=[lost])
    with pytest.raises(CoverNotInHistory, match="more than once"):
        select("sys", turns, "now?", 2_000, ids=ids[:-1] + ["t0"], summaries=[lost])
