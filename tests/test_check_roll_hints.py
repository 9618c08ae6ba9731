"""`sum`, `min` and `max` of one roll: an error whose hint says what to write instead
(the roll itself is its total; `lowest` and `highest` its dice), and what it suggests
checks and runs."""

from __future__ import annotations

import pytest

import dsl
from dsl.errors import RulebookInvalid
from interpreter import Engine, ForcedDice

HEADER = 'rulebook "hints" {\n  language "en"\n}\nsheet { attribute A in 1..5 }\n'


def errors_of(body: str) -> list[tuple[str, str | None]]:
    with pytest.raises(RulebookInvalid) as caught:
        dsl.load_text(HEADER + body)
    return [
        (str(d.message), None if d.hint is None else str(d.hint))
        for d in caught.value.diagnostics
        if d.severity == "error"
    ]


@pytest.mark.parametrize(
    ("call", "hint"),
    [
        ("sum(r)", "a roll reads as its total already: write r alone"),
        ("max(r)", "the highest die of a roll: highest(r)"),
        ("min(r)", "the lowest die of a roll: lowest(r)"),
        ("min(3d6)", "the lowest die of a roll: lowest(...)"),
    ],
)
def test_an_aggregate_of_one_roll_says_what_to_write(call, hint):
    body = f'action a() "a" {{\n  let r = 3d6\n  result {{ x: {call} }}\n}}\n'
    (error,) = errors_of(body)
    assert "needs a list" in error[0]
    assert error[1] is not None and error[1].startswith(hint)


def test_an_aggregate_of_one_number_has_no_roll_hint():
    (error,) = errors_of('action a() "a" {\n  result { x: sum(A) }\n}\n')
    assert "needs a list" in error[0] and error[1] is None


def test_what_the_hints_suggest_runs():
    book = dsl.load_text(
        HEADER + 'action a() "a" {\n  let r = 4d6kh3\n'
        "  result { total: r, faces: sum(r.sorted), low: lowest(r), high: highest(r) }\n}\n"
    )
    engine = Engine(book)
    out = engine.run("a", engine.sheet({"A": 3}), dice=ForcedDice([2, 6, 1, 5]))
    assert dict(out.result) == {"total": 13, "faces": 13, "low": 2, "high": 6}
