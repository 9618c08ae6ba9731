"""A statement writing a place that names no field (a parameter `p: attribute = none`
left out, a value read from one) stops with the rulebook's own error, in a run, in the
odds and in the odds under best play: never a Python exception (issue 23: `set` on a
place holding none gave a TypeError in `bounds`)."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, SeededDice

SHEET = """sheet {
  attribute A, B in 0..10
  resource Vida max 10
  skill Saltar in 0..5
  skills in 0..10 default 0
  list Notas
  catalog Cosas {
    grado: int
  }
}
"""

PARAMETERS = [
    "p: attribute = none",
    "p: skill = none",
    "p: resource = none",
    "p: attribute | resource = none",
    "p: text = none",
    "p: int = none",
    'p: attribute = "A"',
]

STATEMENTS = [
    "set p to 3",
    "set p to p + 1",
    "gain 1 to p",
    "lose 1 from p",
    "spend 1 from p",
    'add "x" to p',
    "choose c {{ option uno cost 1 from p  option dos }}",
    "for each q in [p] {{ set q to 1 }}",
    "for each q in [p, B] {{ gain 1 to q }}",
    "let z = Cosas[p]",
    "let z = p + 1",
    "let n = d3  if n = 3 {{ set p to n }}",
]


def outcomes(engine, sheet):
    """What a run, the odds and the odds under best play give; errors as themselves."""
    yield lambda: engine.run("act", sheet, {}, SeededDice(1))
    yield lambda: engine.odds("act", sheet, {})
    yield lambda: engine.odds("act", sheet, {}, "a", best="a")


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(PARAMETERS),
    st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=3),
)
def test_a_place_naming_no_field_is_the_rulebooks_error(parameter, statements):
    body = "\n  ".join(s.format() for s in statements)
    text = SHEET + f"action act({parameter}) {{\n  {body}\n  result {{ a: A }}\n}}\n"
    try:
        engine = Engine(dsl.load_text(text, "none.rules"))
    except RulebookError:
        return  # a shape the checker refuses: nothing to run
    sheet = engine.sheet({"A": 1, "B": 2})
    for compute in outcomes(engine, sheet):
        with contextlib.suppress(RulebookError):  # any other exception fails the test
            compute()


def test_set_of_a_parameter_left_none_names_the_place():
    text = SHEET + "action act(p: attribute = none) {\n  set p to 3\n  result { a: A }\n}\n"
    engine = Engine(dsl.load_text(text, "none.rules"))
    sheet = engine.sheet({"A": 1, "B": 2})
    for compute in outcomes(engine, sheet):
        try:
            answer = compute()
        except RulebookError as error:
            assert "p names no field to change: it is none" in str(error)
            assert error.span.line == 12
        else:  # (best play: the failure as an outcome of its own)
            assert [str(o) for o in answer.probabilities] == [
                "fails: p names no field to change: it is none"
            ]
