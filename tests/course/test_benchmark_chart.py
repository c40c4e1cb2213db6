"""11's benchmark chart is shown as every chart of the course is: alt text and a caption."""

import pytest
import html
import re

from ledgerlab.course import benchmark
from sentences import says

# They render with matplotlib: `make test` runs them, `make check` leaves them out.
pytestmark = pytest.mark.draws


def test_the_benchmark_chart_has_its_description_as_alt_text_and_caption():
    bundle = benchmark.benchmark_figure()
    page, text = bundle["text/html"], bundle["text/plain"]
    assert f'alt="{html.escape(text)}"' in page
    caption = re.search(r"<figcaption[^>]*>(.*)</figcaption>", page).group(1)
    assert html.unescape(caption) == text
    assert bundle["image/png"] in page


def test_the_description_covers_both_panels():
    text = benchmark.benchmark_figure()["text/plain"]
    tokens = benchmark.benchmark_results()["tokens"]
    last = tokens["rows"][-1]
    assert "Left, a 16 KiB request" in text
    assert f"Right, a {tokens['max_tokens']:,}-token window" in text
    first = tokens["rows"][0]
    says(text, "trim_messages", "tiktoken", f"{first['trim_s'] * 1e6:,.0f} us", first["turns"],
         f"{last['trim_s'] * 1e6:,.0f} us", last["turns"], in_order=True)
