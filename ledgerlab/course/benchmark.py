"""The benchmark notebook 13 shows: its last results, shipped with the package.

``make bench`` (``benchmarks/bench_select.py``) measures select, the article's loop and
LangChain's trim_messages side by side and writes ``results.json`` and
``select-scaling.png`` into the package's ``data/`` (``paths.DATA``), so a wheel install
shows the same figure as a checkout.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from . import paths
from .charts import figure_html


def benchmark_results(folder: Path = paths.DATA) -> dict:
    """The benchmark's last results (``make bench``), shipped in the package's ``data/``."""
    path = Path(folder) / "results.json"
    if not path.is_file():
        raise FileNotFoundError(f"no benchmark results at {path}: run `make bench` in a "
                                f"clone of the ledgerlab repository to measure them")
    return json.loads(path.read_text(encoding="utf-8"))


def benchmark_figure(folder: Path = paths.DATA) -> dict[str, str]:
    """The benchmark chart as a display bundle: the PNG, and a description with its numbers
    as the text a screen reader, a terminal or nbval sees. Show it with
    ``IPython.display.display(bundle, raw=True)``."""
    results = benchmark_results(folder)
    png = base64.b64encode((Path(folder) / "select-scaling.png").read_bytes()).decode("ascii")

    def span(rows: list[dict], key: str, name: str) -> str:
        measured = [row for row in rows if row.get(key) is not None]
        first, last = measured[0], measured[-1]
        return (f"{name} {first[key] * 1e6:,.0f} us at {first['turns']:,} turns, "
                f"{last[key] * 1e6:,.0f} us at {last['turns']:,}")

    rows, tokens = results["selection"], results["tokens"]
    text = ("Chart: time per selection against turns stored, both axes logarithmic, measured "
            f"by make bench, in two panels. Left, a {results['budget_bytes'] // 1024} KiB "
            "request: " + "; ".join(
                (span(rows, "select_s", "select"), span(rows, "trim_s", "trim_messages"),
                 span(rows, "reference_s", "the readable loop"))) +
            f". Right, a {tokens['max_tokens']:,}-token window with {tokens['reserve_tokens']} "
            f"kept for the reply ({tokens['tokenizer']}): " + "; ".join(
                (span(tokens["rows"], "select_s", "select with a token limit"),
                 span(tokens["rows"], "trim_s", "trim_messages with a tiktoken counter"))) + ".")
    # The HTML figure, as every chart of the course shows: alt text and a caption.
    return {"text/html": figure_html(png, text), "image/png": png, "text/plain": text}
