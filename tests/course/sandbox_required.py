"""Whether the grading tests run in the bubblewrap sandbox.

Where bwrap is missing or cannot run (macOS, no user namespaces) the tests that need it are
skipped and say why; in CI (.ci/run sets LEDGERLAB_REQUIRE_SANDBOX=1) that is a failure.
"""

import os

import pytest

from ledgerlab.course.grading import sandbox


def sandbox_or_skip() -> bool:
    try:
        sandbox.check_bwrap()
    except sandbox.SandboxUnavailable as error:
        if os.environ.get("LEDGERLAB_REQUIRE_SANDBOX"):
            raise
        pytest.skip(f"grading needs its sandbox: {error}", allow_module_level=True)
    return True
