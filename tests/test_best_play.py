"""The odds under optimal play (`odds(..., best=GOAL)`) against an oracle that runs the
action for real down every branch: each die each way, each choice each open option,
the best (for a choice of the acting character) or the worst (for another's) taken,
by exact fractions. Goals: a yes/no field, a field's value, a field's expectation."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import optimal_play

import dsl
from interpreter import Engine

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples" / "games"

#: the sheet and the check of the best-play games (here and in test_best_play_worlds.py)
SHEET_AND_CHECK = """
sheet {
  resource Puntos max 3
  counter Fuerza in 0..3 default 1
}
check prueba(n: int) "Prueba" { roll d6 + n >= 6 }
"""

# A small game with every kind of decision: a reroll with a cost and a condition, a
# choice taken again only if a die allows it, and the rival's choice against us.
JUGAR = """
action jugar(rival: character) "Jugar" {
  let a = d4 + 0                    # a number: it is set to numbers below
  choose primero "¿Repetir el d4?" {
    option no
    option repetir if a < 4 cost 1 from Puntos { set a to d4 }
    option doblar if a <= 2 cost 2 from Puntos { set a to 2 * d3 }
  }
  let p = prueba(a + Fuerza)
  let total = p.total
  if not p.success {
    choose segundo "¿Otra vez?" {
      option no
      option sí cost 1 from Puntos { set total to prueba(a).total }
    }
  }
  choose estorbo by rival "¿Estorbar?" {
    option nada
    option estorbar if total >= 6 and rival.Fuerza >= 1 { set total to total - d3 }
  }
  result { gana: total >= 6, total: total, margen: total - 6 }
}
"""
GAME = 'rulebook "Best play" { }' + SHEET_AND_CHECK + JUGAR


def goal_value(field: str, wanted=True, mean: bool = False):
    def value(result):
        if result is None:
            return 0
        return result[field] if mean else int(result[field] == wanted)

    return value


def best_of(engine, action, sheet, params, field, goal, wanted=True, mean=False):
    """(the engine's value of optimal play, the oracle's)."""
    odds = engine.odds(action, sheet, params, field=field, best=goal)
    assert odds.exact
    found = odds.mean if mean else odds.probability(wanted)

    def run(dice, choose):
        return engine.run(action, sheet, params, dice, choices=choose).result

    return found, optimal_play(run, goal_value(field, wanted, mean))


@pytest.fixture(scope="module")
def game():
    return Engine(dsl.load_text(GAME, "best.rules"))


#: the situations and goals the best play is checked in (here and over merged worlds)
SITUATIONS = {
    "puntos": st.integers(0, 3),
    "fuerza": st.integers(0, 3),
    "rival_fuerza": st.integers(0, 1),
    "goal": st.sampled_from(["gana", "mean total", "mean margen", "total=6"]),
}


@settings(max_examples=20)  # each runs the oracle's every branch: a few tenths of a second
@given(**SITUATIONS)
def test_the_best_play_is_the_oracles(game, puntos, fuerza, rival_fuerza, goal):
    sheet = game.sheet({"Puntos": puntos, "Fuerza": fuerza})
    params = {"rival": game.sheet({"Fuerza": rival_fuerza})}
    if goal == "gana":
        found, expected = best_of(game, "jugar", sheet, params, "gana", "gana")
    elif goal == "total=6":
        found, expected = best_of(game, "jugar", sheet, params, "total", goal, wanted=6)
    else:
        field = goal.split()[1]
        found, expected = best_of(game, "jugar", sheet, params, field, goal, mean=True)
    assert found == expected


def test_the_best_play_is_better_than_any_fixed_answer(game):
    sheet = game.sheet({"Puntos": 2, "Fuerza": 1})
    params = {"rival": game.sheet({"Fuerza": 1})}
    best = game.odds("jugar", sheet, params, field="gana", best="gana").probability(True)
    for primero in ("no", "repetir", "doblar"):
        for segundo in ("no", "sí"):
            answers = {"primero": primero, "segundo": segundo, "estorbo": "estorbar"}
            fixed = game.odds("jugar", sheet, params, field="gana", choices=answers)
            assert fixed.probability(True) <= best
    # and the rival's best is our worst: letting it choose costs us
    kind = game.odds("jugar", sheet, params, field="gana", best="gana",
                     choices={"estorbo": "nada"})  # fmt: skip
    assert kind.probability(True) > best


@pytest.mark.parametrize(
    ("name", "action", "character", "params", "field", "goal", "wanted"),
    [
        ("fate", "overcome", "hero", {"skill": "Athletics"}, "outcome",
         "outcome=succeed with style", "succeed with style"),
        ("fate", "overcome", "hero", {"skill": "Athletics"}, "shifts", "mean shifts", None),
        ("pbta", "act_under_fire", "driver", {}, "did_it", "did_it", True),
        ("cthulhu", "roll_with_luck", "investigator", {"skill": "Spot Hidden"}, "success",
         "success", True),
    ],
)  # fmt: skip
def test_the_example_games_best_play_is_the_oracles(
    name, action, character, params, field, goal, wanted
):
    engine = Engine(dsl.load(GAMES / f"{name}.rules"))
    sheet = engine.load_sheet(GAMES / "characters" / f"{character}.yaml")
    mean = goal.startswith("mean ")
    found, expected = best_of(engine, action, sheet, params, field, goal, wanted, mean)
    assert found == expected
