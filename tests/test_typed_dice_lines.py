"""`rulebook run --ask`: one typed line may give several dice's faces (interpreter.cli.
options.TableAsker): the next dice take them, a face refused drops the rest of its line,
and faces no die needed are said."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from interpreter.cli.main import main
from interpreter.cli.options import faces_of, faces_of_line

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BLADES = ["run", str(EXAMPLES / "blades.rules"), "act", "--set", "dots=3", "--ask"]


@pytest.mark.parametrize(
    ("line", "faces"),
    [
        ("6", ["6"]),
        ("6 3 6\n", ["6", "3", "6"]),
        ("6, 3,6", ["6", "3", "6"]),
        ("-1 0 +1", ["-1", "0", "+1"]),
        ("2 advantage, success + advantage", ["2 advantage", "success + advantage"]),
        ("six", ["six"]),
        ("", [""]),
    ],
)
def test_a_line_is_read_as_the_faces_it_gives(line, faces):
    assert faces_of_line(line) == faces


@pytest.mark.parametrize(
    ("text", "faces"),
    [
        ("6 2 3, 1 4, 5", [6, 2, 3, 1, 4, 5]),  # (a pool a part: read 623, 14 and 5)
        ("6,3,6", [6, 3, 6]),
        ("- 1, + 1", [-1, 1]),  # (a sign apart from its digits: one face)
    ],
)
def test_dice_given_on_the_command_line_are_read_as_a_typed_line(text, faces):
    assert faces_of(text) == faces


def test_a_line_of_faces_fills_the_pool_each_shown_as_if_typed(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("6 3 6\n"))
    assert main(BLADES) == 0
    captured = capsys.readouterr()
    assert "outcome critical" in captured.out and "3d6 [6, 3, 6]" in captured.out
    assert "die 2 (d6, 1..6)? 3" in captured.err and "die 3 (d6, 1..6)? 6" in captured.err
    assert "not needed" not in captured.err


def test_a_face_refused_drops_the_rest_of_its_line(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("6 9 6\n2 5\n"))
    assert main(BLADES) == 0
    captured = capsys.readouterr()
    assert "9 is not a face of d6" in captured.err
    assert "the 1 face typed after it is not taken either" in captured.err
    assert "3d6 [6, 2, 5]" in captured.out


def test_faces_no_die_needed_are_said(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("6 3 6 4 1\n"))
    assert main(BLADES) == 0
    captured = capsys.readouterr()
    assert "3d6 [6, 3, 6]" in captured.out
    assert "2 faces typed were not needed by any die: 4, 1" in captured.err
