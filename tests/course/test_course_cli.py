"""The ``ledgerlab-course`` command: table, scenario, audit (once ``ledgerlab table`` etc.)."""

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import pytest

from ledgerlab.course.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]

TABLE = """\
budget  retained  dropped  bytes
   140         0        2    140
   235         1        1    235
   308         2        0    308
   408         2        0    308
   139  rejected: the mandatory input needs 140 bytes
"""


def test_table_prints_the_articles_table(course_cli):
    assert course_cli("table") == (0, TABLE, "")


def test_table_json(course_cli):
    code, out, _ = course_cli("table", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["rows"][1] == {"budget": 235, "retained": 1, "dropped": 1, "bytes": 235}
    assert [row["bytes"] for row in data["rows"]] == [140, 235, 308, 308]
    assert data["rejected"] == {"budget": 139, "mandatory_bytes": 140}


@pytest.fixture
def evidence(tmp_path, course_cli):
    out = tmp_path / "evidence"
    code, stdout, _ = course_cli("scenario", "--out", str(out))
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


def test_scenario_refuses_an_existing_directory(tmp_path, course_cli):
    code, out, err = course_cli("scenario", "--out", str(tmp_path))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "FileExistsError" in err
    assert list(tmp_path.iterdir()) == []


def test_audit_passes_on_a_fresh_scenario(evidence, course_cli):
    code, out, _ = course_cli("audit", str(evidence))
    assert code == 0 and "audit passed" in out


@pytest.mark.slow  # audits the evidence once per byte of its log
def test_audit_fails_after_any_byte_of_the_log_changes(evidence, course_cli):
    log = evidence / "conversation.log"
    original = log.read_bytes()
    for offset in range(len(original)):
        changed = bytearray(original)
        changed[offset] ^= 0x01
        log.write_bytes(bytes(changed))
        assert course_cli("audit", str(evidence))[0] == 1, offset
    log.write_bytes(original)
    assert course_cli("audit", str(evidence))[0] == 0


def test_audit_fails_when_the_report_is_edited_with_its_manifest(evidence, course_cli):
    report_path = evidence / "projection.json"
    report = json.loads(report_path.read_text())
    report["wide_request_bytes"] = 481
    report_path.write_text(json.dumps(report))
    manifest_path = evidence / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["projection.json"] = hashlib.sha256(report_path.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest))
    code, out, _ = course_cli("audit", str(evidence))
    assert code == 1 and "wide_request_bytes is 481, the log gives 480" in out


@pytest.mark.parametrize("command", [[], ["table"], ["scenario"], ["audit"]])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args([*command, "--help"])
    assert caught.value.code == 0
    assert "usage: ledgerlab" in capsys.readouterr().out


@pytest.mark.slow  # starts four Python processes
def test_python_dash_m_and_the_console_script_both_run():
    module = subprocess.run([sys.executable, "-m", "ledgerlab.course", "table"],
                            capture_output=True, text=True, check=True)
    assert module.stdout == TABLE
    script = shutil.which("ledgerlab-course", path=os.path.dirname(sys.executable))
    assert script, "the ledgerlab-course console script is not installed beside this Python"
    version = subprocess.run([script, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == "ledgerlab 0.1.0"


@pytest.mark.parametrize("manifest", ['{"files": []}', "[]", "not json", '{"files": {}}'])
def test_audit_of_a_malformed_manifest_reports_instead_of_crashing(evidence, course_cli, manifest):
    (evidence / "manifest.json").write_text(manifest)
    code, out, err = course_cli("audit", str(evidence))
    assert code == 1 and "manifest" in out and "Traceback" not in err


def test_audit_names_the_missing_file(evidence, course_cli):
    (evidence / "projection.json").unlink()
    code, out, _ = course_cli("audit", str(evidence))
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
def test_audit_compares_types_not_just_equality(evidence, course_cli, key, value):
    report_path = evidence / "projection.json"
    report = json.loads(report_path.read_text())
    report[key] = value
    report_path.write_text(json.dumps(report))
    rehash(evidence)
    code, out, _ = course_cli("audit", str(evidence))
    assert code == 1 and f"FAIL projection.json: {key} is {value!r}" in out


def audit_fails(course_cli, evidence, expected):
    code, out, err = course_cli("audit", str(evidence))
    assert code == 1 and expected in out, out
    assert out.count("FAIL") == len(out.splitlines()) and "audit failed" in err
    return out


def test_audit_fails_on_an_extra_file_or_a_symlink(evidence, course_cli, tmp_path):
    (evidence / "notes.txt").write_text("x")
    audit_fails(course_cli, evidence, "FAIL 'notes.txt' is not part of the evidence")
    (evidence / "notes.txt").unlink()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes((evidence / "projection.json").read_bytes())
    (evidence / "projection.json").unlink()
    (evidence / "projection.json").symlink_to(elsewhere)  # same bytes, same hash
    audit_fails(course_cli, evidence,
                "FAIL cannot read projection.json: projection.json is not a regular file")
    (evidence / "projection.json").unlink()
    (evidence / "link").symlink_to(elsewhere)
    (evidence / "projection.json").write_bytes(elsewhere.read_bytes())
    audit_fails(course_cli, evidence, "FAIL 'link' is not part of the evidence")


def test_audit_fails_when_the_manifest_lists_a_missing_file(evidence, course_cli):
    manifest_path = evidence / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["notes.txt"] = "0" * 64
    manifest_path.write_text(json.dumps(manifest))
    audit_fails(course_cli, evidence, 'FAIL manifest.json: "files" must list exactly')


def test_audit_fails_when_the_version_was_changed(evidence, course_cli):
    manifest_path = evidence / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["ledgerlab_version"] = "0.0.9"
    manifest_path.write_text(json.dumps(manifest))
    audit_fails(course_cli, evidence, "ledgerlab_version is '0.0.9', this is ledgerlab 0.1.0")


@pytest.mark.parametrize("name", ["manifest.json", "projection.json"])
@pytest.mark.parametrize("content", ["[" * 100_000, '{"a": 1, "a": 2}', "\udcff"])
def test_audit_of_hostile_json_is_a_fail_line_not_a_traceback(evidence, course_cli, name, content):
    (evidence / name).write_bytes(content.encode("utf-8", "surrogateescape"))
    if name == "projection.json":
        rehash(evidence)
    audit_fails(course_cli, evidence, f"FAIL {name}: not a JSON document")


def test_audit_of_a_log_with_a_hostile_payload_is_a_fail_line(evidence, course_cli):
    payload = b'{"id":"a","question":' + b"[" * 5000 + b"]" * 5000 + b',"answer":"b"}'
    line = (base64.b64encode(payload) + b" " + hashlib.sha256(payload).hexdigest().encode()
            + b"\n")
    with open(evidence / "conversation.log", "ab") as log:
        log.write(line)
    rehash(evidence)
    audit_fails(course_cli, evidence, "FAIL conversation.log line 4 at byte offset")


@pytest.mark.slow  # starts a Python process per case
@pytest.mark.parametrize("stdout", ["full", "broken pipe"])
def test_a_report_that_cannot_be_printed_is_a_one_line_error(unwritable, stdout):
    # stdout buffered, as a shell runs the command (this suite may set PYTHONUNBUFFERED).
    buffered = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    result = subprocess.run([sys.executable, "-m", "ledgerlab.course", "table"],
                            stdout=unwritable(stdout), stderr=subprocess.PIPE, text=True,
                            env=buffered)
    assert result.returncode == 1
    assert result.stderr == ("ledgerlab-course table: the output could not be written (stdout closed, "
                             "full or a broken pipe)\n")


# --- Issue 44: the command the library's wheel installs runs, or says what is missing ---------
def course_extra():
    """The names of the course extra's packages, as pyproject.toml lists them."""
    text = (ROOT / "pyproject.toml").read_text()
    block = text.split("\ncourse = [\n", 1)[1].split("\n]", 1)[0]
    return re.findall(r'^\s*"([A-Za-z0-9._-]+)', block, re.M)


def test_the_entry_point_finds_every_package_of_the_course_extra(monkeypatch):
    from ledgerlab.course import entry

    assert entry.missing_packages() == []  # this environment has the extra

    def absent(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(entry, "distribution", absent)
    assert sorted(entry.missing_packages()) == sorted(course_extra()) and course_extra()


def test_without_the_course_extra_the_command_says_how_to_install_it(monkeypatch, capsys):
    from ledgerlab.course import entry

    def without_nbformat(name, found=entry.distribution):
        if name == "nbformat":
            raise PackageNotFoundError(name)
        return found(name)

    monkeypatch.setattr(entry, "distribution", without_nbformat)
    assert entry.main(["table"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "(nbformat)" in err and "pip install 'ledgerlab[course]'" in err
