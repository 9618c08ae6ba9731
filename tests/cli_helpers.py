"""Running the command line inside a test: its exit code and what it printed."""

from __future__ import annotations

import shlex

from interpreter.cli import main


def run_cli(capsys, *argv):
    """(exit code, standard output, standard error) of `rulebook ARGV...`."""
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def command(capsys, line: str, *extra):
    """run_cli with the arguments written in one line, split as a shell would."""
    return run_cli(capsys, *shlex.split(line), *extra)


def run_seeded(capsys, rules, action: str, character, settings, seed: int) -> str:
    """`rulebook run RULES ACTION --char CHARACTER --seed SEED --set ...`: it must exit 0;
    what it printed."""
    argv = ["run", rules, action, "--char", character, "--seed", seed]
    for setting in settings:
        argv += ["--set", setting]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, f"{action}: {err}"
    return out
