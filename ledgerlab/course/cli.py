"""The ``ledgerlab-course`` command: the article's table, scenario and audit; ``lab``.

Course material, so a course command: the ``ledgerlab`` command is the library's
(inspect, forget, retain, salvage). What these print, and their exit statuses, are
what ``ledgerlab table|scenario|audit`` printed before they moved here: they run through
the library's ``run_command`` and print with its ``say`` (``ledgerlab.console``), so an
error, or a closed or broken stdout, is handled alike.

``python -m ledgerlab.course lab`` is ``make lab`` for a machine without make (Windows): it
fills ``work/`` with the learner's copies, then starts JupyterLab on it. The Makefile runs
it, so the two start the same server with the same settings.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import re
import sys
from pathlib import Path
from urllib.parse import quote

from ledgerlab import __version__
from ledgerlab.console import run_command, say, shown

from . import learner, paths, scenario


def cmd_table(args: argparse.Namespace) -> int:
    rows = scenario.boundary_table()
    rejected = scenario.boundary_rejection()
    if args.json:
        say(json.dumps({"rows": rows, "rejected": rejected}, indent=2))
        return 0
    say(f"{'budget':>6}  {'retained':>8}  {'dropped':>7}  {'bytes':>5}")
    for row in rows:
        say(f"{row['budget']:>6}  {row['retained']:>8}  {row['dropped']:>7}  {row['bytes']:>5}")
    say(f"{rejected['budget']:>6}  rejected: the mandatory input needs "
        f"{rejected['mandatory_bytes']} bytes")
    return 0


def cmd_scenario(args: argparse.Namespace) -> int:
    report = scenario.write_evidence(args.out, __version__)
    for key, value in report.items():
        say(f"{key:<40} {json.dumps(value)}")
    say(f"wrote {scenario.LOG_NAME}, {scenario.REPORT_NAME}, {scenario.MANIFEST_NAME} "
        f"to {shown(args.out)}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    problems = scenario.audit_evidence(args.dir, __version__)
    for problem in problems:
        say(f"FAIL {problem}")
    if problems:
        print(f"audit failed: {len(problems)} problem(s) in {shown(args.dir)}", file=sys.stderr)
        return 1
    say("audit passed: manifest hashes, every log line's checksum and the report's invariants")
    return 0


# JupyterLab reopens every tab of the last session, each with its kernel (17 notebooks, 17
# kernels): the server shuts down a kernel idle for 30 minutes, even with its tab open.
CULL_IDLE_KERNELS = ("--MappingKernelManager.cull_idle_timeout=1800",
                     "--MappingKernelManager.cull_interval=300",
                     "--MappingKernelManager.cull_connected=True")


def lab_command(root: Path, extra: list[str]) -> list[str]:
    """The JupyterLab that ``make lab`` starts, on the learner's copies in ``root``.

    No news or update pop-up over the first notebook: editions/lab-settings/overrides.json
    answers the "get notified about official Jupyter news?" question, and nothing asks the
    Internet. Kernels on loopback speak CurveZMQ (without it every kernel logs "Kernel is
    running over TCP without encryption"). ``extra`` comes last, so it can override any.
    """
    settings = paths.learner().parent / "editions" / "lab-settings"
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root}",
               f"--LabApp.app_settings_dir={settings}", "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--KernelManager.transport_encryption=auto", *CULL_IDLE_KERNELS]
    if getattr(os, "geteuid", lambda: 1)() == 0:  # root in a container: lab refuses without
        command.append("--allow-root")
    return command + list(extra)


def cmd_lab(args: argparse.Namespace) -> int:
    # (paths.learner() raises CheckoutMissing in an install: it has no course notebooks.)
    root = args.root or paths.learner().parent / "work"
    command = lab_command(root, args.lab_args)
    if args.print:
        say(subprocess.list2cmdline(command) if os.name == "nt" else shlex.join(command))
        return 0
    added, kept = learner.fill(root)
    say(learner.fill_message(args.root or Path("work"), added, kept))
    sys.stdout.flush()
    if os.name != "nt":  # this process becomes the server: Ctrl-C and kill reach it alone
        os.execv(command[0], command)
    server = subprocess.Popen(command)  # Windows has no exec that keeps the console's process
    while True:  # Ctrl-C reaches the server too, which asks to confirm: wait for its answer
        try:
            return server.wait()
        except KeyboardInterrupt:
            continue


# A GitHub remote as git prints it: https://github.com/OWNER/NAME(.git) or
# git@github.com:OWNER/NAME(.git) (ssh://git@github.com/OWNER/NAME too).
GITHUB_REMOTE = re.compile(r"^(?:https://|ssh://git@|git@)github\.com[/:]"
                           r"(?P<owner>[A-Za-z0-9-]+)/(?P<name>[A-Za-z0-9._-]+?)(?:\.git)?/?$")
OPENS = "learner/00-contents.ipynb"  # every link opens the course without outputs


def origin_url(repository: Path) -> str:
    """``git remote get-url origin`` of ``repository``; ValueError if it has none."""
    found = subprocess.run(["git", "-C", str(repository), "remote", "get-url", "origin"],
                           capture_output=True, text=True, timeout=30)
    if found.returncode != 0:
        raise ValueError(f"{repository} has no remote named origin (git remote add origin URL)")
    return found.stdout.strip()


def course_links(remote: str, hub: str = "https://HUB", branch: str = "main") -> dict[str, str]:
    """The Binder link and the class hub's nbgitpuller link for the GitHub repository
    ``remote``; ValueError if it is not one."""
    match = GITHUB_REMOTE.match(remote)
    if match is None:
        raise ValueError("the remote is not a GitHub repository (https://github.com/OWNER/NAME "
                         "or git@github.com:OWNER/NAME): Binder and nbgitpuller links need one")
    owner, name = match["owner"], match["name"]
    repo = quote(f"https://github.com/{owner}/{name}", safe="")
    opens = quote(f"lab/tree/{name}/{OPENS}", safe="")
    return {"binder": f"https://mybinder.org/v2/gh/{owner}/{name}/HEAD?urlpath=lab/tree/{OPENS}",
            "hub": f"{hub.rstrip('/')}/hub/user-redirect/git-pull?repo={repo}&branch={branch}"
                   f"&urlpath={opens}"}


def cmd_links(args: argparse.Namespace) -> int:
    remote = args.remote or origin_url(paths.CHECKOUT or Path.cwd())
    for kind, link in course_links(remote, args.hub, args.branch).items():
        say(f"{kind:<6} {link}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ledgerlab-course",
        description="The article's boundary table, and its projection scenario with the "
        "evidence it leaves and an audit of it.",
    )
    parser.add_argument("--version", action="version", version=f"ledgerlab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    table = commands.add_parser("table", help="the article's boundary table",
                                description="The boundary table for the article's fixture, "
                                "and the rejected 139-byte budget.")
    table.add_argument("--json", action="store_true", help="print JSON instead of a table")
    table.set_defaults(run=cmd_table)

    run = commands.add_parser("scenario", help="run the projection scenario",
                              description="Run the projection scenario into a new "
                              "directory: conversation.log, projection.json, manifest.json.")
    run.add_argument("--out", required=True, metavar="DIR",
                     help="a directory that must not exist yet")
    run.set_defaults(run=cmd_scenario)

    audit = commands.add_parser("audit", help="re-verify a scenario directory",
                                description="Re-verify the manifest hashes, every log line's "
                                "checksum and the report's invariants. Exit 1 on any mismatch.")
    audit.add_argument("dir", metavar="DIR")
    audit.set_defaults(run=cmd_audit)

    lab = commands.add_parser("lab", help="what make lab does: your copies, then JupyterLab",
                              description="Copy into work/ the learner notebooks it does not "
                              "have yet (never overwriting one), then start JupyterLab on it, "
                              "idle kernels shut down after 30 minutes. Arguments after -- go "
                              "to JupyterLab.")
    lab.add_argument("--root", type=Path, metavar="DIR",
                     help="the folder of your copies (default: work/ of the checkout)")
    lab.add_argument("--print", action="store_true",
                     help="print the JupyterLab command instead of running anything")
    lab.add_argument("lab_args", nargs="*", metavar="JUPYTERLAB_ARG")
    lab.set_defaults(run=cmd_lab)

    links = commands.add_parser("links", help="the Binder and class hub links of this clone",
                                description="The Binder link and the class hub's nbgitpuller "
                                "link, for the GitHub repository this clone's origin names.")
    links.add_argument("--remote", metavar="URL", help="a GitHub URL instead of origin's")
    links.add_argument("--hub", default="https://HUB", metavar="URL",
                       help="the class hub's address (default: a HUB placeholder)")
    links.add_argument("--branch", default="main", help="the branch the hub pulls")
    links.set_defaults(run=cmd_links)
    return parser


# The command that writes files before it prints: its exit status is the writing's,
# whatever printing does.
CHANGES = frozenset({"scenario"})


def main(argv: list[str] | None = None) -> int:
    # The library CLI's runner: errors are one line, "ledgerlab COMMAND: ...", as before.
    return run_command(build_parser(), argv, CHANGES)
