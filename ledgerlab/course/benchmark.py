"""The benchmark notebook 10 shows: its last results, shipped with the package.

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
    rows = benchmark_results(folder)["selection"]
    png = (Path(folder) / "select-scaling.png").read_bytes()

    def span(key: str, name: str) -> str:
        measured = [row for row in rows if row.get(key) is not None]
        first, last = measured[0], measured[-1]
        return (f"{name} {first[key] * 1e6:,.0f} us at {first['turns']:,} turns, "
                f"{last[key] * 1e6:,.0f} us at {last['turns']:,}")

    text = ("Chart: time per selection against turns stored, both axes logarithmic, measured "
            "by make bench. " + "; ".join(
                (span("select_s", "select"), span("trim_s", "trim_messages"),
                 span("reference_s", "the readable loop"))) + ".")
    return {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": text}
