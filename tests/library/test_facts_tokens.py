"""Many facts under a token limit: select counts each fact's line once (linear); that it
still chooses what select_reference chooses by counting every prefix whole is in
test_oracle.py."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledgerlab import Fact, request_tokens, select
from ledgerlab.tokens import counter
from ledgerlab import fact_line
from tiers import examples

TOKENIZERS = ["o200k_base", "cl100k_base"]
# What the two splits treat specially around a line's end: whitespace of every kind,
# newlines, punctuation (which takes the newlines after it), "/", "[" and "]", contractions.
EDGES = st.sampled_from(list(" \t\n\r\x0b\x0c\x85\u2028\u3000.,;:!?/'s[](){}\"\\-_aA1é接🙂"))
TEXT = st.text(alphabet=st.one_of(EDGES, st.characters(exclude_categories=["Cs"])),
               max_size=12)
IDS = st.text(alphabet=st.one_of(EDGES, st.characters(exclude_categories=["Cs"])),
              min_size=1, max_size=4)
FACTS = st.lists(st.builds(Fact, IDS, TEXT, IDS), min_size=1, max_size=8)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(facts=FACTS, tokenizer=st.sampled_from(TOKENIZERS))
def test_a_prefix_of_facts_costs_its_lines_counted_one_by_one(facts, tokenizer):
    count = counter(tokenizer)
    assert count.fact_prefixes(facts) == [count.facts(facts[:size])
                                          for size in range(1, len(facts) + 1)]


def test_the_lines_with_their_newlines_add_up_in_the_known_hard_cases():
    # A line ending in punctuation, in spaces, in a newline of its own, in "/" or in a
    # contraction's quote: the joining newline can join its piece, never the next "[".
    texts = ["end.", "end  ", "end\n", "end\r", "end \n ", "a/", "it'", "x\x85", "..\n\n", ""]
    for tokenizer in TOKENIZERS:
        count = counter(tokenizer)
        for first in texts:
            for second in texts:
                facts = [Fact("a", first, "o"), Fact("b", second, "p")]
                assert count.fact_prefixes(facts)[-1] == count.facts(facts), (first, second)


def many_facts(number):
    return [Fact(f"fact{i}", f'Fact {i}: the project code is "ORCHID-{i}" 接口 🙂.' + "y" * (i % 30),
                 f"t{i}") for i in range(number)]


def test_many_facts_that_fit_the_bytes_but_not_the_tokens_are_counted_once_each(monkeypatch):
    """400 facts fit the bytes, 30 fit the tokens: select encodes each line a few times
    (it did every prefix whole, 370 of them: quadratic), and keeps the 30 (test_oracle.py:
    what the oracle keeps)."""
    system, current, facts = "Use only the supplied conversation.", "Next step?", many_facts(400)
    max_tokens = request_tokens(system, [], current, facts=facts[:30]) + 3
    options = dict(facts=facts, max_tokens=max_tokens, tokenizer="o200k_base")

    count = counter("o200k_base")
    encoded = []
    encode = count.encode
    monkeypatch.setattr(count, "encode", lambda text: encoded.append(len(text)) or encode(text))
    chosen = select(system, [], current, 1 << 20, **options)
    monkeypatch.undo()

    assert (chosen.kept, chosen.facts_kept) == (0, 30)
    lines = sum(len(fact_line(fact)) + 1 for fact in facts)
    # One whole count of the 400 (usually all fit: then that is all), then each line
    # twice, with and without its newline; before: every prefix from 400 down to 30.
    assert sum(encoded) <= 3 * lines + 200, (len(encoded), sum(encoded), lines)
    assert len(encoded) <= 2 * len(facts) + 10
