"""How many examples a property test draws: its own count in `make test`, a tenth of it in
`make check`.

A count set in @settings wins over any profile, so the fast tier's profile (tests/conftest.py:
max_examples 10 where Hypothesis's default is 100) reaches those tests through this function.
"""

from __future__ import annotations

from hypothesis import settings

HYPOTHESIS_DEFAULT_EXAMPLES = 100


def examples(full: int) -> int:
    """`full` under the default profile; scaled as the loaded profile scales the default."""
    return max(1, full * settings.default.max_examples // HYPOTHESIS_DEFAULT_EXAMPLES)
