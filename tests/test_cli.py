"""The ledgerlab command: table, scenario, audit, inspect."""

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

from ledgerlab import Journal
from ledgerlab.cli import build_parser, main
from ledgerlab.journal import encode_record

TABLE = """\
budget  retained  dropped  bytes
   140         0        2    140
   235         1        1    235
   308         2        0    308
   408         2        0    308
   139  rejected: the mandatory input needs 140 bytes
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_table_prints_the_articles_table(capsys):
    assert run(capsys, "table") == (0, TABLE, "")


def test_table_json(capsys):
    code, out, _ = run(capsys, "table", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["rows"][1] == {"budget": 235, "retained": 1, "dropped": 1, "bytes": 235}
    assert [row["bytes"] for row in data["rows"]] == [140, 235, 308, 308]
    assert data["rejected"] == {"budget": 139, "mandatory_bytes": 140}


@pytest.fixture
def evidence(tmp_path, capsys):
    out = tmp_path / "evidence"
    code, stdout, _ = run(capsys, "scenario", "--out", str(out))
    assert code == 0
    assert "wide_request_bytes                       480" in stdout
    return out


def test_scenario_writes_the_log_report_and_manifest(evidence):
    assert sorted(p.name for p in evidence.iterdir()) == [
        "conversation.log", "manifest.json", "projection.json"]
    report = json.loads((evidence / "projection.json").read_text())
    assert (report["narrow_request_bytes"], report["wide_request_bytes"]) == (264, 480)
    manifest = json.loads((evidence / "manifest.json").read_text())
    assert manifest["ledgerlab_version"] == "0.1.0"
    assert set(manifest["files"]) == {"conversation.log", "projection.json"}


def test_scenario_refuses_an_existing_directory(tmp_path, capsys):
    code, out, err = run(capsys, "scenario", "--out", str(tmp_path))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "FileExistsError" in err
    assert list(tmp_path.iterdir()) == []


def test_audit_passes_on_a_fresh_scenario(evidence, capsys):
    code, out, _ = run(capsys, "audit", str(evidence))
    assert code == 0 and "audit passed" in out


def test_audit_fails_after_any_byte_of_the_log_changes(evidence, capsys):
    log = evidence / "conversation.log"
    original = log.read_bytes()
    for offset in range(len(original)):
        changed = bytearray(original)
        changed[offset] ^= 0x01
        log.write_bytes(bytes(changed))
        assert run(capsys, "audit", str(evidence))[0] == 1, offset
    log.write_bytes(original)
    assert run(capsys, "audit", str(evidence))[0] == 0


def test_audit_fails_when_the_report_is_edited_with_its_manifest(evidence, capsys):
    report_path = evidence / "projection.json"
    report = json.loads(report_path.read_text())
    report["wide_request_bytes"] = 481
    report_path.write_text(json.dumps(report))
    manifest_path = evidence / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["projection.json"] = hashlib.sha256(report_path.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest))
    code, out, _ = run(capsys, "audit", str(evidence))
    assert code == 1 and "wide_request_bytes is 481, the log gives 480" in out


def test_inspect_shows_sizes_and_checksums_never_text(tmp_path, capsys):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("SECRET-ID", "SECRET-MARKER question", "SECRET-MARKER answer")
        journal.commit("id2", "q", "a")
    code, out, err = run(capsys, "inspect", str(log))
    assert code == 0
    assert "SECRET" not in out + err
    assert "2 turns" in out and "0 corrupt lines" in out
    assert "      22        20" in out  # question and answer bytes of line 1


def test_inspect_reports_corruption_and_torn_tails(tmp_path, capsys):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("a", "SECRET-MARKER", "x")
    good = log.read_bytes()
    log.write_bytes(good + b"not a record\n" + good[:20])
    code, out, err = run(capsys, "inspect", str(log))
    assert code == 1
    assert "SECRET" not in out + err
    assert "1 corrupt lines, 20 torn-tail bytes" in out
    assert log.read_bytes() == good + b"not a record\n" + good[:20]  # read-only


def test_inspect_of_a_missing_file_is_a_one_line_error(tmp_path, capsys):
    code, out, err = run(capsys, "inspect", str(tmp_path / "missing.log"))
    assert code == 2 and out == "" and err.count("\n") == 1


@pytest.mark.parametrize("command", [[], ["table"], ["scenario"], ["audit"], ["inspect"],
                                     ["forget"], ["retain"], ["salvage"]])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args([*command, "--help"])
    assert caught.value.code == 0
    assert "usage: ledgerlab" in capsys.readouterr().out


def test_python_dash_m_and_the_console_script_both_run():
    module = subprocess.run([sys.executable, "-m", "ledgerlab", "table"],
                            capture_output=True, text=True, check=True)
    assert module.stdout == TABLE
    script = shutil.which("ledgerlab", path=os.path.dirname(sys.executable))
    assert script, "the ledgerlab console script is not installed beside this Python"
    version = subprocess.run([script, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == "ledgerlab 0.1.0"


def test_inspect_of_a_directory_or_device_is_a_one_line_error(tmp_path, capsys):
    for target in (tmp_path, "/dev/zero"):
        code, out, err = run(capsys, "inspect", str(target))
        assert code == 2 and out == "" and err.count("\n") == 1


@pytest.mark.parametrize("manifest", ['{"files": []}', "[]", "not json", '{"files": {}}'])
def test_audit_of_a_malformed_manifest_reports_instead_of_crashing(evidence, capsys, manifest):
    (evidence / "manifest.json").write_text(manifest)
    code, out, err = run(capsys, "audit", str(evidence))
    assert code == 1 and "manifest" in out and "Traceback" not in err


def test_audit_names_the_missing_file(evidence, capsys):
    (evidence / "projection.json").unlink()
    code, out, _ = run(capsys, "audit", str(evidence))
    assert code == 1 and "cannot read projection.json" in out


# --- Issue 11: a strict audit ---------------------------------------------------------------------
def rehash(evidence):
    """Make the manifest agree with whatever projection.json and the log now hold."""
    manifest_path = evidence / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for name in ("projection.json", "conversation.log"):
        manifest["files"][name] = hashlib.sha256((evidence / name).read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("key, value", [
    ("narrow_kept_turns", True), ("narrow_request_bytes", 264.0), ("reopened_turns", 3.0),
    ("old_fact_in_wide_request", 1), ("projection_preserved_file_bytes", 1),
    ("wide_request_bytes", "480"),
])
def test_audit_compares_types_not_just_equality(evidence, capsys, key, value):
    report_path = evidence / "projection.json"
    report = json.loads(report_path.read_text())
    report[key] = value
    report_path.write_text(json.dumps(report))
    rehash(evidence)
    code, out, _ = run(capsys, "audit", str(evidence))
    assert code == 1 and f"FAIL projection.json: {key} is {value!r}" in out


def audit_fails(capsys, evidence, expected):
    code, out, err = run(capsys, "audit", str(evidence))
    assert code == 1 and expected in out, out
    assert out.count("FAIL") == len(out.splitlines()) and "audit failed" in err
    return out


def test_audit_fails_on_an_extra_file_or_a_symlink(evidence, capsys, tmp_path):
    (evidence / "notes.txt").write_text("x")
    audit_fails(capsys, evidence, "FAIL 'notes.txt' is not part of the evidence")
    (evidence / "notes.txt").unlink()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes((evidence / "projection.json").read_bytes())
    (evidence / "projection.json").unlink()
    (evidence / "projection.json").symlink_to(elsewhere)  # same bytes, same hash
    audit_fails(capsys, evidence, "FAIL cannot read projection.json: projection.json is not a "
                                  "regular file")
    (evidence / "projection.json").unlink()
    (evidence / "link").symlink_to(elsewhere)
    (evidence / "projection.json").write_bytes(elsewhere.read_bytes())
    audit_fails(capsys, evidence, "FAIL 'link' is not part of the evidence")


def test_audit_fails_when_the_manifest_lists_a_missing_file(evidence, capsys):
    manifest_path = evidence / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["notes.txt"] = "0" * 64
    manifest_path.write_text(json.dumps(manifest))
    audit_fails(capsys, evidence, 'FAIL manifest.json: "files" must list exactly')


def test_audit_fails_when_the_version_was_changed(evidence, capsys):
    manifest_path = evidence / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["ledgerlab_version"] = "0.0.9"
    manifest_path.write_text(json.dumps(manifest))
    audit_fails(capsys, evidence, "ledgerlab_version is '0.0.9', this is ledgerlab 0.1.0")


@pytest.mark.parametrize("name", ["manifest.json", "projection.json"])
@pytest.mark.parametrize("content", ["[" * 100_000, '{"a": 1, "a": 2}', "\udcff"])
def test_audit_of_hostile_json_is_a_fail_line_not_a_traceback(evidence, capsys, name, content):
    (evidence / name).write_bytes(content.encode("utf-8", "surrogateescape"))
    if name == "projection.json":
        rehash(evidence)
    audit_fails(capsys, evidence, f"FAIL {name}: not a JSON document")


def test_audit_of_a_log_with_a_hostile_payload_is_a_fail_line(evidence, capsys):
    payload = b'{"id":"a","question":' + b"[" * 5000 + b"]" * 5000 + b',"answer":"b"}'
    line = (base64.b64encode(payload) + b" " + hashlib.sha256(payload).hexdigest().encode()
            + b"\n")
    with open(evidence / "conversation.log", "ab") as log:
        log.write(line)
    rehash(evidence)
    audit_fails(capsys, evidence, "FAIL conversation.log line 4 at byte offset")


# --- Issue 11: inspect and deletion on hostile, torn and oversized journals ------------------------
def test_inspect_and_forget_on_a_hostile_payload_report_instead_of_crashing(tmp_path, capsys):
    log = tmp_path / "c.log"
    for payload in (b'{"id":"a","question":' + b"[" * 5000 + b"]" * 5000 + b',"answer":"b"}',
                    b'[["id","x"],["question","q"],["answer","a"]]', b"[0]"):
        log.write_bytes(base64.b64encode(payload) + b" "
                        + hashlib.sha256(payload).hexdigest().encode() + b"\n")
        code, out, err = run(capsys, "inspect", str(log))
        assert code == 1 and "0 turns" in out and "1 corrupt lines" in out
        code, out, err = run(capsys, "forget", str(log), "a")
        assert code == 2 and "JournalCorrupt" in err and err.count("\n") == 1


@pytest.mark.parametrize("zeros, status", [
    (0, "torn tail: a whole record without its newline, never acknowledged (cut on open)"),
    (8, "torn tail: a whole record without its newline, then 8 bytes of NUL, never acknowledged "
        "(cut on open)"),
])
def test_inspect_names_a_whole_record_without_its_newline(tmp_path, capsys, zeros, status):
    log = tmp_path / "c.log"
    first, second = encode_record("one", "q", "a"), encode_record("two", "第二问", "第二答")
    log.write_bytes(first + second[:-1] + b"\0" * zeros)
    code, out, _ = run(capsys, "inspect", str(log))
    assert code == 0
    assert out.splitlines()[2].endswith(f"{141 + zeros:>6}         -         -  -             "
                                        + status)
    assert out.splitlines()[-1] == f"1 turns, {len(first) + 141 + zeros} bytes, 0 corrupt lines, " \
                                   f"{141 + zeros} torn-tail bytes"


@pytest.mark.parametrize("tail, status", [
    (b"x", "torn tail: 1 byte that no append writes (stale data a crash exposed?), never "
           "acknowledged (cut on open)"),
    (b"\0" * 5, "torn tail: 5 bytes of NUL, never acknowledged (cut on open)"),
    (encode_record("two", "q", "a")[:30] + b"\0\0" + encode_record("two", "q", "a")[32:50],
     "torn tail: the first 50 bytes of a record with 2 bytes of NUL inside, never acknowledged "
     "(cut on open)"),
    (encode_record("two", "q", "a")[:-1] + b"x",
     "a verified record whose newline was overwritten"),
])
def test_inspect_names_what_the_tail_holds_and_how_many_bytes(tmp_path, capsys, tail, status):
    log = tmp_path / "c.log"
    log.write_bytes(encode_record("one", "q", "a") + tail)
    code, out, err = run(capsys, "inspect", str(log))
    assert out.splitlines()[2].endswith(status)
    refused = "overwritten" in status
    assert code == refused and ("refuses to open" in err) == refused
    assert log.read_bytes() == encode_record("one", "q", "a") + tail  # inspect only reads


def test_forget_retain_and_inspect_work_on_a_journal_over_the_cap(tmp_path, capsys):
    log = tmp_path / "big.log"
    lines = [encode_record(f"t{n}", f"question {n}", "x" * 1000) for n in range(6000)]
    log.write_bytes(b"".join(lines))
    assert log.stat().st_size > 6_000_000
    code, out, _ = run(capsys, "inspect", str(log))
    assert code == 0 and "6000 turns" in out
    assert run(capsys, "forget", str(log), "t0")[0] == 0
    code, out, _ = run(capsys, "retain", str(log), "--last", "10")
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


def broken_pipe():
    read, write = os.pipe()
    os.close(read)  # nobody will read: every write is EPIPE
    return write


@pytest.mark.parametrize("stdout", ["closed", "full", "broken pipe"])
@pytest.mark.parametrize("command", [["forget", "{log}", "two"], ["retain", "{log}", "--last", "1"]])
def test_a_deletion_that_happened_exits_0_whatever_printing_does(tmp_path, stdout, command):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("one", "q1", "a1")
        journal.commit("two", "q2", "a2")
    argv = [sys.executable, "-m", "ledgerlab", *(part.format(log=log) for part in command)]
    if stdout == "closed":
        result = subprocess.run(["bash", "-c", '"$@" >&-', "-", *argv], capture_output=True,
                                text=True)
    else:
        target = os.open("/dev/full", os.O_WRONLY) if stdout == "full" else broken_pipe()
        try:
            result = subprocess.run(argv, stdout=target, stderr=subprocess.PIPE, text=True)
        finally:
            os.close(target)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    with Journal(log) as journal:
        kept = ["q1"] if command[0] == "forget" else ["q2"]
        assert [turn.question for turn in journal.history()] == kept


@pytest.mark.parametrize("stdout", ["full", "broken pipe"])
def test_a_report_that_cannot_be_printed_is_a_one_line_error(tmp_path, stdout):
    target = os.open("/dev/full", os.O_WRONLY) if stdout == "full" else broken_pipe()
    try:
        result = subprocess.run([sys.executable, "-m", "ledgerlab", "table"], stdout=target,
                                stderr=subprocess.PIPE, text=True)
    finally:
        os.close(target)
    assert result.returncode == 1
    assert result.stderr == ("ledgerlab table: the output could not be written (stdout closed, "
                             "full or a broken pipe)\n")


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
    assert result.stderr.startswith(f"ledgerlab {command[0]}: JournalError: the journal's "
                                    "3000000000 bytes do not fit in this process's memory")
    assert "Traceback" not in result.stderr
    assert log.stat().st_size == 3_000_000_000
