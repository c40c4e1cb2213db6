"""What `make lab` starts: JupyterLab on the learner's copies, with idle kernels culled."""

import shutil
import subprocess

import pytest

from ledgerlab.course import paths

CULL = ("--MappingKernelManager.cull_idle_timeout=1800",
        "--MappingKernelManager.cull_interval=300",
        "--MappingKernelManager.cull_connected=True")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_lab_culls_idle_kernels():
    # make -n prints the recipe without running it: nothing starts.
    shown = subprocess.run(["make", "-n", "-s", "-C", str(paths.CHECKOUT), "lab"],
                           capture_output=True, text=True, timeout=60, check=True).stdout
    for flag in CULL:
        assert flag in shown
