"""Rulebooks whose every level uses the one below twice (2ⁿ evaluations when run) are
checked in work linear in their size, and refused past the nesting bound: for every kind
of definition and construct that can use another (formulas, tables, checks, opposed
checks, named rolls, `if`s, `match`, actions, texts, dice counts, groups).

Work is counted (the checker's visits of expressions), not timed."""

from __future__ import annotations

import pytest

import dsl
from dsl.check import Checker
from dsl.check.scope import MAX_CALL_NESTING


def formulas(n: int) -> str:
    lines = ["formula f0(x: int) = x + 1"]
    lines += [f"formula f{i}(x: int) = f{i - 1}(x) + f{i - 1}(x)" for i in range(1, n + 1)]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: f{n}(1) }} }}\n"


def tables(n: int) -> str:
    lines = ["table t0 { 1..6: 1, else: 0 }"]
    lines += [f"table t{i} {{ 1..6: t{i - 1}[1] + t{i - 1}[2], else: 0 }}" for i in range(1, n + 1)]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: t{n}[1] }} }}\n"


def checks(n: int) -> str:
    lines = ["check c0(x: int) { roll d6 + x >= 4 }"]
    lines += [
        f"check c{i}(x: int) {{ roll d6 + x >= 4  a = c{i - 1}(x).success  "
        f"b = c{i - 1}(x).success }}"
        for i in range(1, n + 1)
    ]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: c{n}(1).success }} }}\n"


def opposed(n: int) -> str:
    lines = ["opposed o0(x: int) { roll d6 + x  against d6 }"]
    lines += [
        f"opposed o{i}(x: int) {{ roll d6 + o{i - 1}(x).margin  against d6 + o{i - 1}(x).margin }}"
        for i in range(1, n + 1)
    ]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: o{n}(1).margin }} }}\n"


def rolls(n: int) -> str:
    lines = ["roll r0 = d6"] + [f"roll r{i} = r{i - 1} + r{i - 1}" for i in range(1, n + 1)]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: r{n} }} }}\n"


def groups(n: int) -> str:
    lines = ["roll r0 = d6"] + [f"roll r{i} = {{r{i - 1}, r{i - 1}}}kh1" for i in range(1, n + 1)]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: r{n} }} }}\n"


def if_expressions(n: int) -> str:
    lines = ["formula g0(x: int) = x"]
    lines += [
        f"formula g{i}(x: int) = if x > 0 then g{i - 1}(x) else g{i - 1}(x - 1)"
        for i in range(1, n + 1)
    ]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: g{n}(1) }} }}\n"


def if_statements(n: int) -> str:
    lines = ['action a0() { note "x" }']
    lines += [
        f"action a{i}() {{ if yes {{ do a{i - 1}() }} else {{ do a{i - 1}() }} }}"
        for i in range(1, n + 1)
    ]
    return "\n".join(lines) + "\n"


def matches(n: int) -> str:
    lines = ['action a0(x: int) { note "x" }']
    lines += [
        f"action a{i}(x: int) {{ match x {{ case 1 {{ do a{i - 1}(x) }} "
        f"case 2 {{ do a{i - 1}(x) }} }} }}"
        for i in range(1, n + 1)
    ]
    return "\n".join(lines) + "\n"


def texts(n: int) -> str:
    lines = ['formula s0(x: int) = "a"']
    lines += [f'formula s{i}(x: int) = "{{s{i - 1}(x)}}{{s{i - 1}(x)}}"' for i in range(1, n + 1)]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: s{n}(1) }} }}\n"


def dice_counts(n: int) -> str:
    lines = ["formula q0(x: int) = 1"]
    lines += [f"formula q{i}(x: int) = (q{i - 1}(x))d6 + (q{i - 1}(x))d6" for i in range(1, n + 1)]
    return "\n".join(lines) + f"\naction go() {{ result {{ v: q{n}(1) }} }}\n"


SHAPES = [
    formulas,
    tables,
    checks,
    opposed,
    rolls,
    groups,
    if_expressions,
    if_statements,
    matches,
    texts,
    dice_counts,
]


def visits(text: str, monkeypatch) -> tuple[int, str]:
    """How many expressions the checker visited loading `text`, and how loading ended."""
    count = [0]
    expr = Checker.expr

    def counted(self, node, scope):
        count[0] += 1
        return expr(self, node, scope)

    monkeypatch.setattr(Checker, "expr", counted)
    try:
        dsl.load_text(text)
        ended = "ok"
    except dsl.RulebookError as error:
        ended = error.render()
    finally:
        monkeypatch.setattr(Checker, "expr", expr)
    return count[0], ended


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
def test_each_level_using_the_one_below_twice_is_checked_in_linear_work(shape, monkeypatch):
    small, ended = visits(shape(4), monkeypatch)
    assert ended == "ok", ended
    large, _ = visits(shape(16), monkeypatch)
    # linear: 16 levels cost about four times 4 levels (2¹⁶/2⁴ were it exponential)
    assert large <= 5 * small, (small, large)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
def test_past_the_nesting_bound_it_is_refused_after_linear_work(shape, monkeypatch):
    small, _ = visits(shape(4), monkeypatch)
    deep, ended = visits(shape(MAX_CALL_NESTING), monkeypatch)
    assert ended != "ok" and "MAX_CALL_NESTING" in ended, ended
    assert deep <= 2 * small * MAX_CALL_NESTING / 4
