"""The ledgerlab command: table, scenario, audit, inspect."""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from ledgerlab import Journal
from ledgerlab.cli import build_parser, main

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
                                     ["forget"], ["retain"]])
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
