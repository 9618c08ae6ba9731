"""Rulebooks whose every level uses the one below twice (2ⁿ evaluations when run) are
checked in work linear in their size, and refused past the nesting bound: for every kind
of definition and construct that can use another (formulas, tables, checks, opposed
checks, named rolls, `if`s, `match`, actions, texts, dice counts, groups).

Work is counted (the checker's visits of expressions), not timed."""

from __future__ import annotations

import pytest

import dsl
from dsl import checked_cache
from dsl.check import Checker
from dsl.check.scope import MAX_CALL_NESTING

#: each shape: (level 0, level i using level j = i - 1 twice, what the action reads of
#: level n, or None where the levels are actions themselves); `{{`, `}}` are braces
SHAPES = {
    "formulas": (
        "formula f0(x: int) = x + 1",
        "formula f{i}(x: int) = f{j}(x) + f{j}(x)",
        "f{n}(1)",
    ),
    "tables": (
        "table t0 { 1..6: 1, else: 0 }",
        "table t{i} {{ 1..6: t{j}[1] + t{j}[2], else: 0 }}",
        "t{n}[1]",
    ),
    "checks": (
        "check c0(x: int) { roll d6 + x >= 4 }",
        "check c{i}(x: int) {{ roll d6 + x >= 4  a = c{j}(x).success  b = c{j}(x).success }}",
        "c{n}(1).success",
    ),
    "opposed": (
        "opposed o0(x: int) { roll d6 + x  against d6 }",
        "opposed o{i}(x: int) {{ roll d6 + o{j}(x).margin  against d6 + o{j}(x).margin }}",
        "o{n}(1).margin",
    ),
    "rolls": ("roll r0 = d6", "roll r{i} = r{j} + r{j}", "r{n}"),
    "groups": ("roll r0 = d6", "roll r{i} = {{r{j}, r{j}}}kh1", "r{n}"),
    "if_expressions": (
        "formula g0(x: int) = x",
        "formula g{i}(x: int) = if x > 0 then g{j}(x) else g{j}(x - 1)",
        "g{n}(1)",
    ),
    "if_statements": (
        'action a0() { note "x" }',
        "action a{i}() {{ if yes {{ do a{j}() }} else {{ do a{j}() }} }}",
        None,
    ),
    "matches": (
        'action a0(x: int) { note "x" }',
        "action a{i}(x: int) {{ match x {{ case 1 {{ do a{j}(x) }} case 2 {{ do a{j}(x) }} }} }}",
        None,
    ),
    "texts": (
        'formula s0(x: int) = "a"',
        'formula s{i}(x: int) = "{{s{j}(x)}}{{s{j}(x)}}"',
        "s{n}(1)",
    ),
    "dice_counts": (
        "formula q0(x: int) = 1",
        "formula q{i}(x: int) = (q{j}(x))d6 + (q{j}(x))d6",
        "q{n}(1)",
    ),
}


def nested(shape: str, n: int) -> str:
    """A rulebook of `shape` with n levels over level 0, and an action reading the top."""
    first, step, read = SHAPES[shape]
    lines = [first] + [step.format(i=i, j=i - 1) for i in range(1, n + 1)]
    if read is not None:
        lines.append(f"action go() {{ result {{ v: {read.format(n=n)} }} }}")
    return "\n".join(lines) + "\n"


def visits(text: str, monkeypatch) -> tuple[int, str]:
    """How many expressions the checker visited loading `text`, and how loading ended."""
    count = [0]
    expr = Checker.expr

    def counted(self, node, scope):
        count[0] += 1
        return expr(self, node, scope)

    monkeypatch.setattr(Checker, "expr", counted)
    # (a text loaded before is read back checked from the cache: count a real check)
    monkeypatch.setattr(checked_cache, "read", lambda *_args: None)
    try:
        dsl.load_text(text)
        ended = "ok"
    except dsl.RulebookError as error:
        ended = error.render()
    finally:
        monkeypatch.setattr(Checker, "expr", expr)
    return count[0], ended


@pytest.mark.parametrize("shape", SHAPES)
def test_each_level_using_the_one_below_twice_is_checked_in_linear_work(shape, monkeypatch):
    small, ended = visits(nested(shape, 4), monkeypatch)
    assert ended == "ok", ended
    large, _ = visits(nested(shape, 16), monkeypatch)
    # linear: 16 levels cost about four times 4 levels (2¹⁶/2⁴ were it exponential)
    assert large <= 5 * small, (small, large)


@pytest.mark.parametrize("shape", SHAPES)
def test_past_the_nesting_bound_it_is_refused_after_linear_work(shape, monkeypatch):
    small, _ = visits(nested(shape, 4), monkeypatch)
    deep, ended = visits(nested(shape, MAX_CALL_NESTING), monkeypatch)
    assert ended != "ok" and "MAX_CALL_NESTING" in ended, ended
    assert deep <= 2 * small * MAX_CALL_NESTING / 4
