"""A numeric table's negligible ends (interpreter.cli.render.negligible_ends_folded):
rows that write as 0.0000% at either end folded into the lines of outcomes left out."""

from __future__ import annotations

import re

from interpreter.cli import main

ROW = re.compile(r"^\s+(-?\d+)\s+\d+\.\d+%\s+≥")


def _rows(out: str) -> list[int]:
    return [int(m.group(1)) for line in out.splitlines() if (m := ROW.match(line))]


def test_an_exploding_dies_long_tail_is_folded_and_its_share_said(capsys):
    assert main(["odds", "1d6!"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert rows[:5] == [1, 2, 3, 4, 5] and 119 not in rows
    folded = re.search(r"… (\d+) more outcomes after these \(0\.0000%\)", out)
    assert folded is not None and int(folded.group(1)) + len(rows) == 100
    # the last row written still writes a chance at or above it that is not 0.0000%
    last = next(line for line in reversed(out.splitlines()) if ROW.match(line))
    assert not last.rstrip().endswith("≥   0.0000%")


def test_both_ends_of_a_large_sum_are_folded(capsys):
    assert main(["odds", "20d6"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert 20 not in rows and 120 not in rows and 70 in rows
    assert "more outcomes before these (0.0000%)" in out
    assert "more outcomes after these (0.0000%)" in out


def test_a_table_without_negligible_ends_and_fractions_write_every_row(capsys):
    assert main(["odds", "3d6"]) == 0
    assert _rows(capsys.readouterr().out) == list(range(3, 19))
    assert main(["odds", "1d6!", "--fractions"]) == 0
    assert len(_rows(capsys.readouterr().out)) == 100
