"""Golden tests: the rendered message for bad expressions and bad rulebooks.

Each case sits beside its expected output (tests/golden/). After a deliberate change of
wording, `pytest tests/test_golden.py --update-golden` rewrites the expected files;
review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import dsl
from dsl.errors import RulebookError
from interpreter import ForcedDice, SeededDice, roll

GOLDEN = Path(__file__).resolve().parent / "golden"
EXPRESSIONS = GOLDEN / "expressions.txt"


def _expression_cases() -> list[tuple[str, str]]:
    cases, current, lines = [], None, []
    for line in EXPRESSIONS.read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            if current is not None:
                cases.append((current, "\n".join(lines).strip("\n")))
            current, lines = line[4:], []
        else:
            lines.append(line)
    if current is not None:
        cases.append((current, "\n".join(lines).strip("\n")))
    return cases


def _render_expression(text: str) -> str:
    dice = ForcedDice([7]) if "--dice 7" in text else SeededDice(1)
    expression = text.replace(" --dice 7", "")
    try:
        result = roll(expression, dice)
    except RulebookError as error:
        return f"exit {error.exit_code}\n{error.render()}"
    return f"ok {result.detail}"


def test_expression_messages(update_golden):
    cases = _expression_cases()
    actual = [(text, _render_expression(text)) for text, _ in cases]
    if update_golden:
        EXPRESSIONS.write_text(
            "".join(f"### {t}\n{out}\n\n" for t, out in actual), encoding="utf-8"
        )
        return
    for (text, expected), (_, got) in zip(cases, actual):
        assert got == expected, f"for {text!r}"
    assert len(cases) >= 12


def _render_rulebook(path: Path) -> str:
    try:
        book = dsl.load(path)
    except RulebookError as error:
        return error.render()
    return "\n".join(w.render() for w in book.warnings) or "ok"


CHECK_CASES = sorted((GOLDEN / "check").glob("*.rules"))


@pytest.mark.parametrize("path", CHECK_CASES, ids=lambda p: p.stem)
def test_rulebook_diagnostics(path, update_golden, monkeypatch):
    monkeypatch.chdir(path.parent)  # file names in messages are as given: relative
    got = _render_rulebook(Path(path.name))
    expected_file = path.with_suffix(".out")
    if update_golden:
        expected_file.write_text(got + "\n", encoding="utf-8")
        return
    assert got == expected_file.read_text(encoding="utf-8").rstrip("\n")
