"""Every way a roll can be a term of a check, traced every way a run is shown: no form of
a roll (a pool, a named roll, one with its own procedure, one with parameters) reached
through any binding (written in place, held by a `let`) stops a run with a Python error,
and each is said with its value."""

from __future__ import annotations

import itertools

import pytest

import dsl
from interpreter import Engine, SeededDice, render_text
from interpreter.json_data import run_data

ROLLS = """
rulebook "Terms" { language "en" }
roll plain = 2d6
roll chained = d10 then {
  on die = 10: add d10, again while die = 10
  on die = 1: subtract d10
}
roll sized(n: int) = (n)d6
"""

#: a roll's expression, as a check's term
ROLL_FORMS = ["2d6", "plain", "chained", "sized(2)", "3d6kh2", "4dF"]
#: how the check reaches it: written in the roll, or held by a `let` first
BINDINGS = ["{roll}", "let"]


def _engine(form: str, binding: str, read_first: bool) -> Engine:
    """A check adding the roll `form` to a bonus, written in its roll or held by a `let`
    (its first die read too, when `read_first`)."""
    if binding == "let":
        first = "  first = r.dice[1]\n" if read_first else ""
        body = f"  let r = {form}\n  roll r + bonus >= 5\n{first}"
    else:
        body = f"  roll {form} + bonus >= 5\n"
    text = ROLLS + f'check c(bonus: int = 2) "C" {{\n{body}}}\n'
    return Engine(dsl.load_text(text, "terms.rules"))


@pytest.mark.parametrize(("form", "binding"), itertools.product(ROLL_FORMS, BINDINGS))
def test_a_roll_as_a_checks_term_is_traced_every_way(form, binding):
    engine = _engine(form, binding, read_first=True)
    for seed in range(8):
        outcome = engine.run("c", engine.sheet({}), {}, dice=SeededDice(seed))
        total = outcome.result["total"]
        brief = render_text(outcome.trace)
        verbose = render_text(outcome.trace, verbose=True)
        data = run_data(outcome)
        assert f"= {total} vs 5" in brief and f"= {total} vs 5" in verbose
        assert "bonus 2" in brief and data["result"]["total"] == total


@pytest.mark.parametrize(("form", "binding"), itertools.product(ROLL_FORMS, BINDINGS))
def test_a_roll_as_a_checks_term_has_odds_that_sum_to_one(form, binding):
    engine = _engine(form, binding, read_first=False)
    odds = engine.odds("c", engine.sheet({}), {}, field="success")
    assert odds.exact and sum(odds.probabilities.values()) + odds.omitted == 1
    assert 0 < odds.probabilities[True] < 1
