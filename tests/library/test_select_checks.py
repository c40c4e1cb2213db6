"""Issue 11: what select checks of the history, and what it leaves unread."""

import pytest

from ledgerlab import Turn, select, select_reference
from sentences import saying

HISTORY = ["not a turn", *[Turn("q" * 200, "a")] * 4, Turn("q", "a")]


def test_select_checks_only_the_turns_it_encodes():
    # select writes the turns it walks back over in chunks, each at most twice the last one
    # kept: the large turns stop the walk long before it reaches the non-Turn item.
    chosen = select("s", HISTORY, "c", 200)
    assert (chosen.kept, chosen.dropped) == (1, 5)
    with pytest.raises(TypeError, match=saying("history", "Turn", "str")):
        select_reference("s", HISTORY, "c", 200)  # it encodes every candidate suffix


def test_a_non_turn_that_select_reaches_is_a_type_error():
    with pytest.raises(TypeError, match=saying("history", "Turn", "str")):
        select("s", HISTORY, "c", 10_000)
