"""The best play searched over merged worlds (interpreter.odds.decide), for an action
whose choices are statements of its own body: against the oracle that runs the action
for real down every branch (tests/test_best_play.py), and against the search run by run
for how often each option is taken."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from oracle import optimal_play
from test_best_play import SHEET_AND_CHECK, SITUATIONS, goal_value

import dsl
from interpreter import Engine
from interpreter.odds import best_play, decide

GAMES = Path(__file__).resolve().parent.parent / "examples" / "games"

# Every choice is a statement of the body: a reroll with a cost and a condition, a second
# one that hangs on a die rolled before it but read only after it (`oculto`: the player
# sees it), a refusal after a choice, and the rival's choice against us.
JUGAR = """
action jugar(rival: character) "Jugar" {
  let a = d4 + 0
  let oculto = 0
  set oculto to d3                  # read once, later: kept a distribution till then
  choose primero "¿Repetir el d4?" {
    option no
    option repetir if a < 4 cost 1 from Puntos { set a to d4 }
    option doblar if a <= 2 cost 2 from Puntos { set a to 2 * d3 }
  }
  let p = prueba(a + Fuerza)
  require p.total >= 4 else "demasiado bajo"
  let total = p.total
  choose segundo "¿Otra vez?" {
    option no
    option sí cost 1 from Puntos { set total to prueba(a).total }
  }
  set total to total + oculto - 2
  choose estorbo by rival "¿Estorbar?" {
    option nada
    option estorbar if total >= 6 and rival.Fuerza >= 1 { set total to total - d3 }
  }
  result { gana: total >= 6, total: total, margen: total - 6 }
}
"""
GAME = 'rulebook "Best play over worlds" { }' + SHEET_AND_CHECK + JUGAR


@pytest.fixture(scope="module")
def game():
    return Engine(dsl.load_text(GAME, "worlds.rules"))


@pytest.fixture
def worlds_only(monkeypatch):
    """The search by runs is never reached: the worlds' answered."""

    def refused(*args, **kwargs):
        raise AssertionError("searched run by run")

    monkeypatch.setattr(best_play.Search, "value", refused)


def value_of(odds, wanted, mean: bool) -> Fraction:
    """The goal's value of the engine's answer: a refusal counts as missing it (0)."""
    if mean:
        numbers = (o * p for o, p in odds.probabilities.items() if isinstance(o, int))
        return sum(numbers, Fraction(0))
    return odds.probability(wanted)


@settings(max_examples=8, deadline=None)  # each runs the oracle down every branch
@given(**SITUATIONS)
def test_the_best_play_over_worlds_is_the_oracles(game, puntos, fuerza, rival_fuerza, goal):
    sheet = game.sheet({"Puntos": puntos, "Fuerza": fuerza})
    params = {"rival": game.sheet({"Fuerza": rival_fuerza})}
    mean = goal.startswith("mean ")
    field = goal.split()[1] if mean else goal.partition("=")[0]
    wanted = 6 if goal == "total=6" else True
    original = best_play.Search.value
    best_play.Search.value = None  # the worlds' search must answer (no fixture: hypothesis)
    try:
        odds = game.odds("jugar", sheet, params, field=field, best=goal)
    finally:
        best_play.Search.value = original
    assert odds.exact

    def run(dice, choose):
        return game.run("jugar", sheet, params, dice, choices=choose).result

    assert value_of(odds, wanted, mean) == optimal_play(run, goal_value(field, wanted, mean))


def run_by_run(monkeypatch, game, *args, **kwargs):
    """The same question, the search over worlds refused."""

    def nested(self):
        raise decide.Nested

    with monkeypatch.context() as patch:
        patch.setattr(decide.WorldSearch, "outcomes", nested)
        return game.odds(*args, budget=10**6, **kwargs)


@pytest.mark.parametrize("puntos", [0, 1, 3])
@pytest.mark.parametrize("goal", ["gana", "mean total"])
def test_the_worlds_take_each_option_as_often_as_the_runs(game, monkeypatch, puntos, goal):
    sheet = game.sheet({"Puntos": puntos, "Fuerza": 1})
    args = ("jugar", sheet, {"rival": game.sheet({"Fuerza": 1})})
    by_runs = run_by_run(monkeypatch, game, *args, best=goal)
    over_worlds = game.odds(*args, best=goal)
    assert over_worlds.probabilities == by_runs.probabilities
    assert over_worlds.decisions == by_runs.decisions
    assert sum(over_worlds.probabilities.values()) == 1  # nothing pruned, the refusal in


def test_a_choice_sees_a_die_rolled_before_it_though_read_after_it(game, worlds_only):
    # one point, for the second roll only: worth it for a low total, and how low hangs
    # on `oculto`, read only after the choice
    sheet = game.sheet({"Puntos": 1, "Fuerza": 2})
    params = {"rival": game.sheet({"Fuerza": 0})}
    answers = {"primero": "no"}
    found = game.odds("jugar", sheet, params, field="gana", best="gana", choices=answers)

    def run(dice, choose):
        def answer(question):
            return answers[question.name] if question.name in answers else choose(question)

        return game.run("jugar", sheet, params, dice, choices=answer).result

    assert found.probability(True) == optimal_play(run, goal_value("gana"))


def test_an_example_games_push_is_searched_over_worlds(worlds_only):
    engine = Engine(dsl.load(GAMES / "cthulhu.rules"))
    harvey = engine.load_sheet(GAMES / "characters" / "investigator.yaml")  # 45
    pushed = engine.odds("push", harvey, {"skill": "Spot Hidden"}, field="success", best="success")
    # pushed when it fails and is no fumble (96-100 for a skill under 50): 50 of 100
    assert pushed.probabilities[True] == Fraction(45, 100) + Fraction(50, 100) * Fraction(45, 100)
    assert pushed.decisions == {("pushed", "no"): Fraction(1, 2), ("pushed", "yes"): Fraction(1, 2)}
