"""Golden transcripts of the command line: each file in tests/golden/cli/ is one command
and the whole of what it answers (exit code, standard output, standard error).

A case's first line is the command, `$ rulebook ARGS...` (split as a shell would), run
from tests/data/ so that files are named as given; the rest of the file is the transcript,
compared whole. To add a case, write a file with only its first line; after a deliberate
change of output, `pytest tests/test_golden_cli.py --update-golden` rewrites the
transcripts from what runs now: review the diff before committing it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from interpreter.cli import main

TESTS = Path(__file__).resolve().parent
CASES = sorted((TESTS / "golden" / "cli").glob("*.txt"))
PROMPT = "$ rulebook "


def transcript(argv: list[str], capsys) -> str:
    """What the command answers, as a golden file holds it."""
    try:
        code = main(argv)
    except SystemExit as exit_:  # a usage error: argparse exits
        code = exit_.code
    captured = capsys.readouterr()
    text = f"exit {code}\n--- stdout\n{captured.out}--- stderr\n{captured.err}"
    return text.replace(str(TESTS.parent), "<repo>")


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_the_command_answers_its_transcript(path, update_golden, monkeypatch, capsys):
    command, _, expected = path.read_text(encoding="utf-8").partition("\n")
    assert command.startswith(PROMPT), f"{path.name}: the first line is `{PROMPT}ARGS`"
    monkeypatch.chdir(TESTS / "data")
    got = transcript(shlex.split(command[len(PROMPT) :]), capsys)
    if update_golden:
        path.write_text(f"{command}\n{got}", encoding="utf-8")
        return
    assert got == expected


def test_there_are_transcripts_of_every_kind_of_answer():
    commands = {shlex.split(p.read_text(encoding="utf-8").partition("\n")[0])[2] for p in CASES}
    assert commands >= {"roll", "run", "odds", "check", "describe"}
