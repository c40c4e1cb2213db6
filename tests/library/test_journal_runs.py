"""A run of identical corrupt lines costs about what one line does (issue 35.12).

``inspect`` and ``salvage`` of 4 MiB of newlines took over a minute: about 17 µs of
Python per line. ``scan`` now examines a corrupt line once and counts its copies, and
reports the run as one status, so the work is bounded by the count of distinct lines,
not of lines. These tests count the calls of the per-line examiner (``decode_record``);
none of them times anything.
"""

import dataclasses
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sentences import says
from tiers import examples

from ledgerlab.cli import main
from ledgerlab.journal import encode_record, records, salvage, scan

GOOD = encode_record("one", "q", "a")
DAMAGED = GOOD[:-2] + (b"0" if GOOD[-2:-1] != b"0" else b"1") + b"\n"


@pytest.fixture
def examined(monkeypatch):
    """How many lines ``decode_record`` was asked to decode."""
    calls = []
    real = records.decode_record

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(records, "decode_record", counted)
    return calls


def test_inspect_of_many_newlines_examines_a_few_lines(tmp_path, capsys, examined):
    log = tmp_path / "newlines.log"
    log.write_bytes(b"\n" * 200_000)
    assert main(["inspect", str(log)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(examined) <= 2  # the first line, and the last (never part of a run)
    says(out[1], "next 199999 lines", "line 200000", "199999 bytes", in_order=True)
    assert out[2].startswith("0 turns, 200000 bytes, 200000 corrupt lines")


def test_salvage_of_runs_examines_each_distinct_line_once(tmp_path, examined):
    broken, saved = tmp_path / "broken.log", tmp_path / "saved.log"
    broken.write_bytes(b"\n" * 100_000 + GOOD + DAMAGED * 50_000 + b"junk\n" * 3)
    result = salvage(broken, saved)
    assert len(examined) <= 6
    assert result.kept == 1 and saved.read_bytes() == GOOD
    assert [(lost.number, lost.offset, lost.length, lost.lines, lost.id_tag is None)
            for lost in result.lost] == [
        (1, 0, 100_000, 100_000, True),
        (100_002, 100_000 + len(GOOD), 50_000 * len(DAMAGED), 50_000, False),  # names "one"
        (150_002, 100_000 + len(GOOD) + 50_000 * len(DAMAGED), 15, 3, True)]


def test_the_last_line_is_never_part_of_a_run(tmp_path):
    """A file's last line may be a torn append (NULs, then its newline): cut, not corrupt."""
    statuses = list(scan(b"\0\n" * 5))
    assert [(status.lines, status.torn) for status in statuses] == [(4, False), (1, True)]


def one_by_one(data: bytes, kind=records.TURNS) -> list:
    """Every line's status as if runs were not counted: the reference."""
    original = records._copies
    records._copies = lambda *args: 1
    try:
        return list(scan(data, kind))
    finally:
        records._copies = original


def expanded(statuses: list) -> list:
    """Each run of copies as the statuses of its lines."""
    out = []
    for status in statuses:
        size = status.length // status.lines
        out += [dataclasses.replace(status, number=status.number + k,
                                    offset=status.offset + k * size, length=size, lines=1)
                for k in range(status.lines)]
    return out


LINES = [GOOD, DAMAGED, encode_record("two", "q2", "a2"), b"\n", b"junk\n", b"\0\n", b"\0",
         GOOD[:20], b" \n"]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LINES), st.integers(1, 40)), max_size=12))
def test_runs_expand_to_exactly_the_statuses_of_the_lines(pieces):
    data = b"".join(line * copies for line, copies in pieces)
    statuses = list(scan(data))
    assert expanded(statuses) == one_by_one(data)
    assert all(status.lines == 1 or status.problem is not None for status in statuses)


def test_memory_stays_flat_one_status_for_a_million_lines():
    statuses = list(scan(b"x\n" * 1_000_000))
    assert [status.lines for status in statuses] == [999_999, 1]
    assert sys.getsizeof(statuses) < 1000
