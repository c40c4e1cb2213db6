"""The ledgerlab command: inspect, forget, retain, salvage, prefix; the moved commands'
pointer."""

import base64
import hashlib
import io
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ledgerlab import Journal
from ledgerlab.cli import build_parser
from ledgerlab.journal import encode_record
from sentences import says


def test_inspect_shows_sizes_and_checksums_never_text(tmp_path, cli):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("SECRET-ID", "SECRET-MARKER question", "SECRET-MARKER answer")
        journal.commit("id2", "q", "a")
    code, out, err = cli("inspect", str(log))
    assert code == 0
    assert "SECRET" not in out + err
    assert "2 turns" in out and "0 corrupt lines" in out
    assert "      22        20" in out  # question and answer bytes of line 1


def test_inspect_reports_corruption_and_torn_tails(tmp_path, cli):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("a", "SECRET-MARKER", "x")
    good = log.read_bytes()
    log.write_bytes(good + b"not a record\n" + good[:20])
    code, out, err = cli("inspect", str(log))
    assert code == 1
    assert "SECRET" not in out + err
    assert "1 corrupt lines, 20 torn-tail bytes" in out
    assert log.read_bytes() == good + b"not a record\n" + good[:20]  # read-only


def test_inspect_of_a_missing_file_is_a_one_line_error(tmp_path, cli):
    code, out, err = cli("inspect", str(tmp_path / "missing.log"))
    assert code == 2 and out == "" and err.count("\n") == 1


@pytest.mark.parametrize("command", [[], ["inspect"], ["forget"], ["retain"],
                                     ["salvage"], ["prefix"]])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args([*command, "--help"])
    assert caught.value.code == 0
    assert "usage: ledgerlab" in capsys.readouterr().out


def test_python_dash_m_and_the_console_script_both_run():
    module = subprocess.run([sys.executable, "-m", "ledgerlab", "table"],
                            capture_output=True, text=True)
    assert (module.returncode, module.stdout) == (2, "")
    assert module.stderr.startswith("ledgerlab table:") and module.stderr.count("\n") == 1
    says(module.stderr, "`ledgerlab-course table`")
    script = shutil.which("ledgerlab", path=os.path.dirname(sys.executable))
    assert script, "the ledgerlab console script is not installed beside this Python"
    version = subprocess.run([script, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == "ledgerlab 0.1.0"


def test_inspect_of_a_directory_or_device_is_a_one_line_error(tmp_path, cli):
    for target in (tmp_path, "/dev/zero"):
        code, out, err = cli("inspect", str(target))
        assert code == 2 and out == "" and err.count("\n") == 1


# --- Issue 11: inspect and deletion on hostile, torn and oversized journals ------------------------
def test_inspect_and_forget_on_a_hostile_payload_report_instead_of_crashing(tmp_path, cli):
    log = tmp_path / "c.log"
    for payload in (b'{"id":"a","question":' + b"[" * 5000 + b"]" * 5000 + b',"answer":"b"}',
                    b'[["id","x"],["question","q"],["answer","a"]]', b"[0]"):
        log.write_bytes(base64.b64encode(payload) + b" "
                        + hashlib.sha256(payload).hexdigest().encode() + b"\n")
        code, out, err = cli("inspect", str(log))
        assert code == 1 and "0 turns" in out and "1 corrupt lines" in out
        code, out, err = cli("forget", str(log), "a")
        assert code == 2 and "JournalCorrupt" in err and err.count("\n") == 1


@pytest.mark.parametrize("zeros, nuls", [(0, ()), (8, (8, "NUL"))])
def test_inspect_names_a_whole_record_without_its_newline(tmp_path, cli, zeros, nuls):
    log = tmp_path / "c.log"
    first, second = encode_record("one", "q", "a"), encode_record("two", "第二问", "第二答")
    log.write_bytes(first + second[:-1] + b"\0" * zeros)
    code, out, _ = cli("inspect", str(log))
    assert code == 0
    row = out.splitlines()[2]
    assert row.split()[:6] == ["2", str(len(first)), str(141 + zeros), "-", "-", "-"]
    says(row, "torn tail", "whole record", "newline", *nuls, "cut on open", in_order=True)
    assert out.splitlines()[-1] == f"1 turns, {len(first) + 141 + zeros} bytes, 0 corrupt lines, " \
                                   f"{141 + zeros} torn-tail bytes"


@pytest.mark.parametrize("tail, status", [
    (b"x", ("torn tail", "1 byte", "no append writes", "cut on open")),
    (b"\0" * 5, ("torn tail", "5 bytes", "NUL", "cut on open")),
    (encode_record("two", "q", "a")[:30] + b"\0\0" + encode_record("two", "q", "a")[32:50],
     ("torn tail", 50, "record", "2 bytes", "NUL", "cut on open")),
    (encode_record("two", "q", "a")[:-1] + b"x", ("verified record", "newline", "overwritten")),
])
def test_inspect_names_what_the_tail_holds_and_how_many_bytes(tmp_path, cli, tail, status):
    log = tmp_path / "c.log"
    log.write_bytes(encode_record("one", "q", "a") + tail)
    code, out, err = cli("inspect", str(log))
    says(out.splitlines()[2], *status, in_order=True)
    refused = "overwritten" in status
    assert code == refused and ("refuses to open" in err) == refused
    assert log.read_bytes() == encode_record("one", "q", "a") + tail  # inspect only reads


@pytest.mark.slow  # writes a 6 MB journal and rewrites it twice
def test_forget_retain_and_inspect_work_on_a_journal_over_the_cap(tmp_path, cli):
    log = tmp_path / "big.log"
    lines = [encode_record(f"t{n}", f"question {n}", "x" * 1000) for n in range(6000)]
    log.write_bytes(b"".join(lines))
    assert log.stat().st_size > 6_000_000
    code, out, _ = cli("inspect", str(log))
    assert code == 0 and "6000 turns" in out
    assert cli("forget", str(log), "t0")[0] == 0
    code, out, _ = cli("retain", str(log), "--last", "10")
    assert code == 0 and "deleted 5989 of 5999 turns" in out
    assert log.read_bytes() == b"".join(lines[-10:])


def test_forget_prints_a_path_stdout_cannot_encode_and_reports_success(tmp_path):
    directory = os.fsencode(tmp_path) + b"/caf\xe9-\xff"  # not UTF-8
    os.mkdir(directory)
    log = directory + b"/c.log"
    with Journal(os.fsdecode(log)) as journal:
        journal.commit("one", "q", "a")
        journal.commit("two", "q", "a")
    result = subprocess.run([sys.executable, "-m", "ledgerlab", "forget", log, "one"],
                            capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert b"2 -> 1 turns" in result.stdout and b"caf\\xe9-\\xff" in result.stdout
    with Journal(os.fsdecode(log)) as journal:
        assert journal.find("one") is None and len(journal) == 1


def test_a_path_prints_as_the_console_can_show_it(monkeypatch):
    from ledgerlab.cli import shown

    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))
    assert shown("café") == "café"  # printable there: printed, not garbled
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    assert shown("café") == "caf\\xe9"
    assert shown(os.fsdecode(b"caf\xff")) == "caf\\xff"  # not text at all: its byte escaped


def buffering(mode):
    """The environment of a child whose stdout is buffered (as a shell runs a command; this
    suite may run with PYTHONUNBUFFERED set) or unbuffered."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    return {**env, "PYTHONUNBUFFERED": "1"} if mode == "unbuffered" else env


@pytest.mark.parametrize("mode", ["buffered", "unbuffered"])
@pytest.mark.parametrize("stdout", ["closed", "full", "broken pipe"])
@pytest.mark.parametrize("command", [["forget", "{log}", "two"], ["retain", "{log}", "--last", "1"]])
def test_a_deletion_that_happened_exits_0_whatever_printing_does(tmp_path, unwritable, stdout,
                                                                 command, mode):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("one", "q1", "a1")
        journal.commit("two", "q2", "a2")
    argv = [sys.executable, "-m", "ledgerlab", *(part.format(log=log) for part in command)]
    if stdout == "closed":
        result = subprocess.run(["bash", "-c", '"$@" >&-', "-", *argv], capture_output=True,
                                text=True, env=buffering(mode))
    else:
        result = subprocess.run(argv, stdout=unwritable(stdout), stderr=subprocess.PIPE,
                                text=True, env=buffering(mode))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    with Journal(log) as journal:
        kept = ["q1"] if command[0] == "forget" else ["q2"]
        assert [turn.question for turn in journal.history()] == kept


@pytest.mark.parametrize("mode", ["buffered", "unbuffered"])
@pytest.mark.parametrize("stdout", ["full", "broken pipe"])
def test_a_report_that_cannot_be_printed_is_a_one_line_error(tmp_path, unwritable, stdout, mode):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
    result = subprocess.run([sys.executable, "-m", "ledgerlab", "inspect", str(log)],
                            stdout=unwritable(stdout), stderr=subprocess.PIPE, text=True,
                            env=buffering(mode))
    assert result.returncode == 1
    assert result.stderr.startswith("ledgerlab inspect:") and result.stderr.count("\n") == 1
    says(result.stderr, "output", "stdout")


def test_a_lost_stdout_leaves_stdout_as_it_was_with_nothing_left_to_flush(
        tmp_path, cli, unwritable, monkeypatch):
    # In this process: the command's stdout is a buffered file on a broken pipe.
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
    pipe = unwritable("broken pipe")
    stream = io.TextIOWrapper(io.BufferedWriter(io.FileIO(pipe, "w", closefd=False)),
                              encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stream)
    from ledgerlab.cli import main

    assert main(["inspect", str(log)]) == 1
    assert sys.stdout is stream  # restored, not pointed elsewhere
    assert stat.S_ISFIFO(os.fstat(pipe).st_mode)  # its descriptor is still the pipe
    stream.flush()  # what could not be written was let go: Python's flush at exit succeeds


def test_say_escapes_what_stdout_cannot_encode_and_stdout_stays_open():
    # A lone surrogate once pointed stdout at the null device for the rest of the process.
    code = ("from ledgerlab.console import say\n"
            "say('a\\ud800b')\nsay('b')\nprint('c')\nsay('caf\\xe9')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            env={**buffering("buffered"), "PYTHONIOENCODING": "ascii"})
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == b"a\\ud800b\nb\nc\ncaf\\xe9\n"


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_say_inside_a_command_escapes_and_leaves_stdout_where_it_was(encoding):
    # Issue 45: in a command's run too, a lone surrogate is printed escaped, the command
    # succeeds, and file descriptor 1 is still the pipe afterwards (never the null device).
    code = ("import argparse, os, sys\n"
            "from ledgerlab.console import run_command, say\n"
            "parser = argparse.ArgumentParser(prog='demo')\n"
            "parser.add_subparsers(dest='command').add_parser('go').set_defaults(\n"
            "    run=lambda args: say('a\\ud800b') or 0)\n"
            "code = run_command(parser, ['go'], frozenset())\n"
            "print(code, os.path.samestat(os.fstat(1), os.stat(os.devnull)))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            env={**buffering("buffered"), "PYTHONIOENCODING": encoding})
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == b"a\\ud800b\n0 False\n"


def test_the_console_helpers_are_the_commands_not_the_public_api():
    import ledgerlab

    for name in ("say", "shown", "printable", "run_command"):
        assert name not in ledgerlab.__all__ and not hasattr(ledgerlab, name), name


BIG_FILE_CHILD = r"""
import resource, sys
from ledgerlab.cli import main
resource.setrlimit(resource.RLIMIT_AS, (2_500_000_000, 2_500_000_000))
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("command", [["inspect", "{log}"], ["forget", "{log}", "one"],
                                     ["retain", "{log}", "--last", "0"]])
def test_a_journal_larger_than_memory_is_a_one_line_error_and_unchanged(tmp_path, command):
    log = tmp_path / "big.log"
    with open(log, "wb") as file:  # sparse: 3 GB that take no disk
        file.write(encode_record("one", "q", "a"))
        file.truncate(3_000_000_000)
    argv = [part.format(log=log) for part in command]
    result = subprocess.run([sys.executable, "-c", BIG_FILE_CHILD, *argv], capture_output=True,
                            text=True)
    assert result.returncode == 2, result.stderr[-300:]
    assert result.stderr.startswith(f"ledgerlab {command[0]}: JournalError:")
    says(result.stderr.splitlines()[0], 3000000000, "bytes", "memory", in_order=True)
    assert "Traceback" not in result.stderr
    assert log.stat().st_size == 3_000_000_000


# --- Issue 26: the article's commands moved to ledgerlab-course; inspect lists ids ---------------
@pytest.mark.parametrize("argv", [["table"], ["table", "--json"], ["scenario", "--out", "x"],
                                  ["audit", "x"], ["audit", "--help"]])
def test_a_moved_command_is_one_line_naming_its_new_command(cli, argv):
    code, out, err = cli(*argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"ledgerlab {argv[0]}:") and err.count("\n") == 1
    says(err, f"`ledgerlab-course {argv[0]}`")


def test_help_says_where_table_scenario_and_audit_went(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    words = " ".join(capsys.readouterr().out.split())  # as wrapped to any terminal's width
    says(words, "table", "scenario", "audit", "`ledgerlab-course --help`", in_order=True)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["forget", "--help"])
    says(" ".join(capsys.readouterr().out.split()), "`ledgerlab inspect LOG --ids`")


def test_inspect_ids_lists_the_ids_in_commit_order_never_text(tmp_path, cli):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        for turn_id in ("b", "SECRET-ID", "a"):
            journal.commit(turn_id, "SECRET-MARKER question", "SECRET-MARKER answer")
        journal.pin("f", "SECRET-MARKER fact", origin="a")
        journal.forget("b")
        journal.commit("b", "q", "a")  # committed again: now the newest
        ids = journal.ids()
    assert cli("inspect", str(log), "--ids") == (0, "SECRET-ID\na\nb\n", "")
    assert ids == ("SECRET-ID", "a", "b")
    code, out, _ = cli("inspect", str(log))
    assert "SECRET-ID" not in out and "SECRET-MARKER" not in out  # the table shows no id


def test_inspect_ids_escapes_what_a_terminal_would_act_on(tmp_path, cli):
    log = tmp_path / "c.log"
    hostile = ["two\nlines", "\x1b[2J", "back\\slash", "line\u2028sep", "接🙂"]
    with Journal(log) as journal:
        for turn_id in hostile:
            journal.commit(turn_id, "q", "a")
    code, out, err = cli("inspect", str(log), "--ids")
    assert (code, err) == (0, "")
    assert out.splitlines() == ["two\\nlines", "\\x1b[2J", "back\\\\slash", "line\\u2028sep",
                                "接🙂"]


def test_inspect_ids_of_a_damaged_journal_lists_what_verifies_and_exits_1(tmp_path, cli):
    log = tmp_path / "c.log"
    good = encode_record("one", "q", "a") + encode_record("two", "q", "a")
    torn = encode_record("three", "q", "a")[:-1]  # never acknowledged: not a stored turn
    log.write_bytes(good + torn)
    assert cli("inspect", str(log), "--ids") == (0, "one\ntwo\n", "")
    log.write_bytes(encode_record("one", "q", "a") + b"not a record\n" + good[-100:])
    code, out, err = cli("inspect", str(log), "--ids")
    assert (code, out) == (1, "one\n")
    assert err.startswith(f"{log}:") and err.count("\n") == 1
    says(err, "corrupt", "Journal")
    assert log.read_bytes().startswith(encode_record("one", "q", "a") + b"not a record\n")


def test_inspect_ids_exits_1_when_the_facts_file_is_corrupt(tmp_path, cli):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        journal.pin("f1", "a fact", origin="one")
    facts = tmp_path / "c.log.facts"
    facts.write_bytes(facts.read_bytes() + b"not a record\n")
    code, out, err = cli("inspect", str(log), "--ids")
    assert (code, out) == (1, "one\n")
    assert err.startswith(f"{log}:") and err.count("\n") == 1
    says(err, "corrupt", "Journal")


# --- Summaries (issue 37): shown by id tag, covers and sizes, never text ---------------------

@pytest.fixture
def with_summaries(tmp_path):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        for turn_id in ("one", "two", "three"):
            journal.commit(turn_id, f"SECRET-MARKER {turn_id}", "a")
        journal.add_summary("SECRET-ID", "SECRET-MARKER summary", covers=["one", "two"])
        journal.add_summary("s2", "SECRET-MARKER other", covers=["three"])
    return log


def test_inspect_shows_summaries_by_tag_covers_and_size_never_text(with_summaries, cli):
    from ledgerlab.journal import id_tag

    code, out, err = cli("inspect", str(with_summaries))
    assert code == 0 and "SECRET" not in out + err
    rows = out.splitlines()
    assert f"2 turns: {id_tag('one')}, {id_tag('two')}" in rows[-3]
    assert f"{len('SECRET-MARKER summary'):>6}  2 turns" in rows[-3]
    size = (with_summaries.parent / "c.log.summaries").stat().st_size
    says(rows[-1], 2, "summaries", 3, "turns", size, "bytes", "0 corrupt", "0 torn-tail",
         "0 covering", "not stored", in_order=True)


def test_inspect_ids_exits_1_on_a_corrupt_summaries_file(with_summaries, cli):
    summaries = with_summaries.parent / "c.log.summaries"
    summaries.write_bytes(summaries.read_bytes() + b"junk\n")
    code, out, err = cli("inspect", str(with_summaries), "--ids")
    assert code == 1 and out.split() == ["one", "two", "three"]
    code, out, err = cli("inspect", str(with_summaries))
    assert code == 1 and "1 corrupt lines" in out.splitlines()[-1]


def test_forget_and_retain_say_how_many_summaries_went(with_summaries, cli):
    code, out, err = cli("forget", str(with_summaries), "two")
    assert code == 0 and "0 of 0 facts deleted, 1 of 2 summaries deleted" in out
    code, out, err = cli("retain", str(with_summaries), "--last", "0")
    assert code == 0 and "1 of 1 summaries deleted" in out and "SECRET" not in out + err


def test_salvage_says_what_it_did_with_the_summaries(with_summaries, cli):
    lines = with_summaries.read_bytes().splitlines(keepends=True)
    with_summaries.write_bytes(lines[0] + b"junk\n" + lines[2])  # turn two lost
    code, out, err = cli("salvage", str(with_summaries), "--out",
                         str(with_summaries.parent / "new.log"))
    assert code == 1 and "SECRET" not in out + err
    says(out, "lost", "summaries file line 1", "not salvaged", in_order=True)
    assert "salvaged 1 summaries into" in out


@pytest.mark.parametrize("argv", ["inspect", ["inspect", Path("c.log")], [b"inspect"]])
def test_main_refuses_an_argv_that_is_not_a_list_of_str(argv):
    from ledgerlab.cli import main

    with pytest.raises(TypeError, match=r"^argv\b.*\blist\b.*\bstr\b"):
        main(argv)


def test_prefix_names_where_two_requests_part_never_their_text(tmp_path, cli):
    from ledgerlab import Turn, select
    turns = [Turn(f"SECRET question {n} " + "q" * 30, f"SECRET answer {n} " + "a" * 30)
             for n in range(30)]
    first = select("SECRET system", turns[:20], "SECRET now", 1200)
    moved = select("SECRET system", turns[:21], "SECRET next", 1200)
    held = select("SECRET system", turns[:21], "SECRET next", 1400, previous=first)
    paths = []
    for name, chosen in (("a", first), ("b", moved), ("c", held)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_bytes(chosen.payload)
    code, out, err = cli("prefix", str(paths[0]), str(paths[1]))
    assert code == 1 and "SECRET" not in out + err
    assert f"A: {first.size} bytes, B: {moved.size} bytes" in out
    assert f"A: turn 1 of {first.kept} (bytes" in out and f"B: turn 1 of {moved.kept}" in out
    code, out, err = cli("prefix", str(paths[0]), str(paths[2]))
    assert held.dropped == first.dropped and held.kept == first.kept + 1
    assert code == 1 and "A: question (bytes" in out and f"B: turn {held.kept} of " \
        f"{held.kept} (bytes" in out
    code, out, err = cli("prefix", str(paths[0]), str(paths[0]))
    assert code == 0 and out == f"A and B are the same {first.size} bytes\n"
    paths[1].write_bytes(b"SECRET not json")
    code, out, err = cli("prefix", str(paths[0]), str(paths[1]))
    assert code == 2 and "UnreadableRequest: not a JSON request body (15 bytes)" in err
    assert "SECRET" not in out + err
