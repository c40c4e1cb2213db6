"""bench_cache's trim_messages column (issue 47, item 4): LangChain's trim with start_on="human"
and bench_tools' byte counter, its requests built as the other schedules build theirs."""

from pathlib import Path

import pytest

pytest.importorskip("langchain_core", reason="the bench extra is not installed")

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["plain", "tools", "evidence"])
def test_trim_messages_keeps_the_whole_turn_rules_turns_in_openai_chat(kind, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_cache

    monkeypatch.setattr(bench_cache, "CALLS", 80)
    calls = bench_cache.Calls(kind, "openai-chat", 16 << 10)
    whole = calls.whole_turn()
    starts, over = calls.trimmed()

    # Counted in the openai-chat request's bytes, the trim is the whole-turn rule.
    assert starts == [chosen.dropped for chosen in whole]
    assert over == 0
    assert max(starts) > 0  # the budget did cut
