"""What `make lab` and `python -m ledgerlab.course lab` start: one command, JupyterLab on the
learner's copies with idle kernels culled."""

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from ledgerlab.course import paths
from ledgerlab.course.cli import CULL_IDLE_KERNELS
from ledgerlab.course.learner import course_notebooks

CULL = ("--MappingKernelManager.cull_idle_timeout=1800",
        "--MappingKernelManager.cull_interval=300",
        "--MappingKernelManager.cull_connected=True")


def test_lab_culls_idle_kernels_even_with_a_tab_open(course_cli, tmp_path):
    code, out, _ = course_cli("lab", "--root", str(tmp_path / "work"), "--print")
    assert code == 0
    command = shlex.split(out)
    for flag in CULL:
        assert flag in command
    assert f"--ServerApp.root_dir={tmp_path / 'work'}" in command
    assert not (tmp_path / "work").exists()  # --print writes nothing


def test_the_cull_options_are_the_servers_own():
    from jupyter_server.services.kernels.kernelmanager import MappingKernelManager
    names = set(MappingKernelManager.class_trait_names(config=True))
    for flag in CULL_IDLE_KERNELS:
        assert flag.removeprefix("--MappingKernelManager.").split("=")[0] in names


def test_arguments_after_the_separator_go_to_jupyterlab_last(course_cli, tmp_path):
    code, out, _ = course_cli("lab", "--root", str(tmp_path), "--print", "--",
                              "--no-browser", "--ServerApp.port=9")
    assert shlex.split(out)[-2:] == ["--no-browser", "--ServerApp.port=9"]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_lab_runs_the_course_command():
    # make -n prints the recipe without running it: nothing starts.
    shown = subprocess.run(["make", "-n", "-s", "-C", str(paths.CHECKOUT), "lab",
                            "LAB_ROOT=somewhere", "LAB_ARGS=--no-browser"],
                           capture_output=True, text=True, timeout=60, check=True).stdout
    assert "-m ledgerlab.course lab --root=somewhere -- --no-browser" in shown


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_lab_fills_the_folder_then_serves_it(tmp_path):
    """The Windows path, run for real: copies made, then a server on loopback, stopped."""
    root, port = tmp_path / "work", _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_DATA_DIR": str(tmp_path / "data"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    server = subprocess.Popen(
        [sys.executable, "-m", "ledgerlab.course", "lab", "--root", str(root), "--",
         "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", "--IdentityProvider.token="],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, status = time.monotonic() + 120, None
        while status is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status",
                                            timeout=5) as reply:
                    status = json.load(reply)
            except OSError:
                time.sleep(0.5)
        assert status is not None, "the server did not answer"
        assert [p.name for p in course_notebooks(root)] == \
            [p.name for p in course_notebooks(paths.learner())]
    finally:
        server.terminate()
        server.communicate(timeout=60)
