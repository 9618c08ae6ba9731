"""Best play for a goal that weighs costs (`success - spent(Effort)/10`): the engine's
worth of the best play against the oracle of test_best_play, which runs the action down
every branch and scores each run's result and sheets by the same formula, written here
in Python; and the goal's surface (its text's errors, the command line, the HTTP API)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import optimal_play
from test_best_play import GAME, GAMES
from web_client import page_client

import dsl
from dsl.errors import RulebookSyntaxError
from interpreter import Engine
from interpreter.cli import main
from interpreter.errors import EvaluationError, ParameterError
from interpreter.odds.goals import Goal
from interpreter.web import create_app


@pytest.fixture(scope="module")
def game():
    return Engine(dsl.load_text(GAME, "best.rules"))


def worth(engine, action, sheet, params, goal: str, field: str):
    """(the engine's worth of the best play for `goal`, its odds)."""
    odds = engine.odds(action, sheet, params, field=field, best=goal)
    assert odds.exact
    return odds.goal_worth, odds


def oracles_worth(engine, action, sheet, params, formula) -> Fraction:
    """The oracle's: `formula(result, before, after)` of each run (a failed run: 0)."""

    def run(dice, choose):
        return engine.run(action, sheet, params, dice, choices=choose)

    def value(outcome):
        if outcome is None:
            return 0
        return formula(outcome.result, sheet, outcome.sheet)

    return optimal_play(run, value)


def spent(before, after, path):
    return before.get(path) - after.get(path)


#: goals over the game's result and its Puntos, and the same formula in Python
GOALS = {
    "gana - spent(Puntos)/4": lambda r, b, a: int(r["gana"]) - Fraction(spent(b, a, "Puntos"), 4),
    "mean total + left(Puntos)/2": lambda r, b, a: r["total"] + Fraction(a.get("Puntos"), 2),
    "gana and spent(Puntos) <= 1": lambda r, b, a: int(r["gana"] and spent(b, a, "Puntos") <= 1),
    "margen * 2 - 3 * spent(Puntos) + Fuerza": lambda r, b, a: (
        r["margen"] * 2 - 3 * spent(b, a, "Puntos") + a.get("Fuerza")
    ),
    "if gana then 5 - spent(Puntos) else -spent(Puntos)": lambda r, b, a: (
        5 - spent(b, a, "Puntos") if r["gana"] else -spent(b, a, "Puntos")
    ),
    "max(total, 7) - abs(spent(Puntos) - 1) / 3": lambda r, b, a: (
        max(r["total"], 7) - Fraction(abs(spent(b, a, "Puntos") - 1), 3)
    ),
    # what a run adds: after minus before (a cost that adds, as stress, weighed against)
    "gana - gained(Puntos)/3 + gained(Fuerza)": lambda r, b, a: (
        int(r["gana"]) + Fraction(spent(b, a, "Puntos"), 3) - spent(b, a, "Fuerza")
    ),
}


@settings(max_examples=20)  # each runs the oracle's every branch: a few tenths of a second
@given(
    puntos=st.integers(0, 3),
    fuerza=st.integers(0, 3),
    rival_fuerza=st.integers(0, 1),
    goal=st.sampled_from(sorted(GOALS)),
)
def test_a_goal_of_costs_is_worth_what_the_oracle_finds(game, puntos, fuerza, rival_fuerza, goal):
    sheet = game.sheet({"Puntos": puntos, "Fuerza": fuerza})
    params = {"rival": game.sheet({"Fuerza": rival_fuerza})}
    found, _ = worth(game, "jugar", sheet, params, goal, "gana")
    assert found == oracles_worth(game, "jugar", sheet, params, GOALS[goal])


@settings(max_examples=20)
@given(
    puntos=st.integers(0, 3),
    price=st.fractions(min_value=-2, max_value=2, max_denominator=6),
)
def test_any_price_of_a_point_against_the_oracle(game, puntos, price):
    """A point spent may cost anything, or be worth having spent (a negative price)."""
    sheet = game.sheet({"Puntos": puntos, "Fuerza": 1})
    params = {"rival": game.sheet({"Fuerza": 1})}
    goal = f"gana - spent(Puntos) * {price.numerator} / {price.denominator}"
    found, _ = worth(game, "jugar", sheet, params, goal, "total")

    def formula(r, b, a):
        return int(r["gana"]) - spent(b, a, "Puntos") * price

    assert found == oracles_worth(game, "jugar", sheet, params, formula)


# Cypher System: Effort is decided before the roll, each level costs points of a pool
# and eases the task by a step (3 on the d20). A "success" goal spends everything.
CYPHER = """
rulebook "Effort" { }
sheet {
  resource Might max 9
}
action lift(level: int) "Lift" {
  choose effort "Levels of Effort?" {
    option 0
    option 1 cost 3 from Might
    option 2 cost 5 from Might
    option 3 cost 7 from Might
  }
  let target = 3 * max(0, level - effort)
  let r = d20
  result { success: r >= target, roll: r }
}
"""


@pytest.fixture(scope="module")
def cypher():
    return Engine(dsl.load_text(CYPHER, "cypher.rules"))


def test_success_alone_spends_the_most_effort_and_a_cost_holds_it_back(cypher):
    sheet = cypher.sheet({"Might": 9})
    params = {"level": 4}  # a target of 12: each level adds 3/20 to the chance
    greedy = cypher.odds("lift", sheet, params, field="success", best="success")
    assert greedy.decisions == {("effort", 3): 1}
    assert greedy.goal_worth == greedy.probability(True) == Fraction(18, 20)
    # a point of Might worth a tenth of a success: one level (3 points) costs 3/10, more
    # than the 3/20 it brings
    held = cypher.odds("lift", sheet, params, field="success", best="success - spent(Might)/10")
    assert held.decisions == {("effort", 0): 1}
    assert held.goal_worth == held.probability(True) == Fraction(9, 20)
    # a point worth a fortieth: every level is worth its points (3/20 against 3/40, 2/40)
    cheap = cypher.odds("lift", sheet, params, field="success", best="success - spent(Might)/40")
    assert cheap.decisions == {("effort", 3): 1}
    assert cheap.goal_worth == Fraction(18, 20) - Fraction(7, 40)
    # any price: the level whose chance less its points' price is largest (of ties, the
    # first), by hand
    for price in (Fraction(1, 50), Fraction(1, 5), Fraction(1, 15), Fraction(3, 40), Fraction(-1)):
        goal = f"success - spent(Might) * {price.numerator} / {price.denominator}"
        odds = cypher.odds("lift", sheet, params, field="success", best=goal)
        cost = (0, 3, 5, 7)
        expected = max(range(4), key=lambda e: Fraction(9 + 3 * e, 20) - price * cost[e])
        assert odds.decisions == {("effort", expected): 1}, price
        assert odds.goal_worth == Fraction(9 + 3 * expected, 20) - price * cost[expected]


def test_keeping_the_pool_is_worth_something(cypher):
    """`left(Might)`: the pool after the run, the same as its bare name."""
    sheet = cypher.sheet({"Might": 9})
    a = cypher.odds("lift", sheet, {"level": 4}, field="success", best="success + left(Might)/10")
    b = cypher.odds("lift", sheet, {"level": 4}, field="success", best="success + Might/10")
    assert a.decisions == b.decisions == {("effort", 0): 1}
    assert a.goal_worth == b.goal_worth == Fraction(9, 20) + Fraction(9, 10)


def test_the_plain_goals_read_as_before():
    assert Goal.parse("success") == Goal("success")
    assert Goal.parse("degree=critical") == Goal("degree", "critical")
    assert Goal.parse("outcome=succeed with style") == Goal("outcome", "succeed with style")
    assert Goal.parse("mean damage") == Goal("damage", None, True)
    assert Goal.parse("mean:damage") == Goal("damage", None, True)
    assert Goal.parse('degree = "critical"') == Goal("degree", "critical")
    goal = Goal.parse("success - spent(Effort)/10")
    assert goal.field is None and goal.expression == "success - spent(Effort)/10"


@pytest.mark.parametrize(
    ("goal", "message", "column"),
    [
        ("gana - spent(Efort)/10", "the sheet has no number Efort", 14),
        ("sucess - spent(Puntos)", "gives no field sucess", 1),
        ("gana - spent(Puntos)/", "the text ends too early", 22),
        ("gana - 2d6", "a goal is made of numbers", 8),
        ("gana - roll(Puntos)", "a goal cannot call roll", 8),
        ("gana * 2 in 1", "a goal cannot use in", 1),
        ("spent(Puntos, Fuerza) + gana", "takes one value of the sheet", 1),
    ],
)
def test_a_goal_that_cannot_be_read_is_an_error_in_its_text(game, goal, message, column):
    sheet = game.sheet({"Puntos": 2, "Fuerza": 1})
    params = {"rival": game.sheet({"Fuerza": 1})}
    with pytest.raises((ParameterError, RulebookSyntaxError)) as caught:
        game.odds("jugar", sheet, params, field="gana", best=goal)
    error = caught.value
    assert message in str(error.message)
    assert error.span.location() == f"best:1:{column}"
    assert goal in error.render()


def test_a_goal_that_divides_by_zero_says_where(game):
    sheet = game.sheet({"Puntos": 2, "Fuerza": 1})
    params = {"rival": game.sheet({"Fuerza": 1})}
    with pytest.raises(EvaluationError) as caught:
        game.odds("jugar", sheet, params, field="gana", best="gana / (Puntos - Puntos)")
    assert "divides by zero" in str(caught.value.message)
    assert caught.value.span.location() == "best:1:6"


def test_a_field_no_run_holds_is_an_error_not_a_crash(cypher):
    """A goal's field that neither the result nor the sheet has is the question's error,
    said before any search (odds.answer.field_asked), not a run's stop in the explorer."""
    sheet = cypher.sheet({"Might": 9})
    with pytest.raises(ParameterError) as caught:
        cypher.odds("lift", sheet, {"level": 1}, field="success", best="nosuch")
    assert "no field 'nosuch'" in str(caught.value.message)


def test_the_command_line_shows_what_the_best_play_is_worth(tmp_path, capsys):
    path = tmp_path / "cypher.rules"
    path.write_text(CYPHER, encoding="utf-8")
    argv = ["odds", str(path), "lift", "--set", "level=4", "--field", "success", "--fractions"]
    assert main([*argv, "--best", "success - spent(Might)/10"]) == 0
    out = capsys.readouterr().out
    assert "choosing the best for success - spent(Might)/10 (worth 0.4500 = 9/20):" in out
    assert "effort = 0  100.0000%" in out
    assert main([*argv, "--best", "success - spent(Might)/40", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["goal"]["expression"] == "success - spent(Might)/40"
    assert data["goal"]["field"] is None and data["goal"]["worth"] == pytest.approx(29 / 40)
    assert main([*argv, "--best", "success - spent(Migth)/10"]) == 2
    err = capsys.readouterr().err
    assert "best:1:17: error:" in err and "did you mean Might?" in err


# six choices, one after each die: several seconds of search
HEAVY = """
rulebook "Heavy" { }
sheet {
  resource Might max 30
}
action lift() "Lift" {
  let t = 0
  repeat 6 times {
    let r = d20 + 0
    choose effort "Effort?" {
      option 0
      option 1 cost 1 from Might { set r to r + 3 }
    }
    set t to t + r
  }
  result { success: t >= 70 }
}
"""


@pytest.mark.parametrize(
    ("bound", "seconds_a_look", "named", "not_named"),
    [
        (["--budget", "1000"], 0.0, "--budget N", "--timeout"),
        # a machine so slow that every look at the clock finds a second gone: the safety
        # stop (interpreter.odds.budget), which --timeout lifts, and the hint names it
        (["--budget", "1000"], 1.0, "--timeout", "--budget"),
    ],
)
def test_a_best_play_past_its_budget_or_its_time_names_the_flag(
    tmp_path, capsys, counted_clock, bound, seconds_a_look, named, not_named
):
    counted_clock.step = seconds_a_look
    path = tmp_path / "heavy.rules"
    path.write_text(HEAVY, encoding="utf-8")
    argv = ["odds", str(path), "lift", "--best", "success - spent(Might)/100"]
    assert main([*argv, *bound]) == 4
    err = capsys.readouterr().err
    assert named in err and not_named not in err


def test_the_http_api_takes_a_goal_of_costs(tmp_path):
    (tmp_path / "cypher.rules").write_text(CYPHER, encoding="utf-8")
    (tmp_path / "hero.yaml").write_text("Might: 9\n", encoding="utf-8")
    body = {
        "rulebook": "cypher",
        "action": "lift",
        "character": "hero",
        "params": {"level": 4},
        "field": "success",
        "best": "success - spent(Might)/10",
    }
    with page_client(create_app(tmp_path)) as client:
        answer = client.post("/api/odds", json=body)
        assert answer.status_code == 200, answer.text
        data = answer.json()
        assert data["goal"]["expression"] == "success - spent(Might)/10"
        assert data["goal"]["worth"] == pytest.approx(9 / 20)
        assert data["decisions"] == [{"choice": "effort", "option": 0, "probability": 1}]
        answer = client.post("/api/odds", json={**body, "best": "success - spent(Migth)/10"})
        assert answer.status_code == 400 and "did you mean Might?" in answer.text


@pytest.fixture(scope="module")
def ironsworn():
    engine = Engine(dsl.load(GAMES / "ironsworn.rules"))
    assert engine.rulebook.warnings == ()
    return engine


@settings(max_examples=6)  # each runs the oracle's 600 rolls and both answers
@given(
    momentum=st.integers(-6, 10),
    iron=st.integers(1, 3),
    price=st.fractions(min_value=0, max_value=1, max_denominator=4),
)
def test_ironsworn_momentum_kept_at_any_price_against_the_oracle(ironsworn, momentum, iron, price):
    sheet = ironsworn.sheet({"Iron": iron, "Momentum": momentum})
    params = {"stat": "Iron"}
    goal = f"mean rank + left(Momentum) * {price.numerator} / {price.denominator}"
    found, _ = worth(ironsworn, "face_danger", sheet, params, goal, "outcome")

    def formula(r, b, a):
        return r["rank"] + a.get("Momentum") * price

    assert found == oracles_worth(ironsworn, "face_danger", sheet, params, formula)


def test_the_best_of_no_option_is_the_runs_own_error():
    # a choice with no option open: the error the run itself gives (was a TypeError)
    from interpreter.choosers import Question

    question = Question("stance", None, (), ("guarded",), None, None)
    goal = Goal.parse("success")
    with pytest.raises(EvaluationError, match="stance: no option is open"):
        goal.best(question, [])
    best = goal.best(question, [{(True, True, ()): Fraction(1, 2)}, {(True, True, ()): 1}])
    assert best == {(True, True, ()): 1}


def test_the_best_play_of_an_action_without_choices_says_it_makes_none(tmp_path, capsys):
    path = tmp_path / "plain.rules"
    path.write_text(
        'rulebook "Plain" { language "en" }\n'
        'action hit() "Hit" {\n  let r = d20\n  result { success: r >= 11 }\n}\n',
        encoding="utf-8",
    )
    assert main(["odds", str(path), "hit", "--best", "success"]) == 0
    out = capsys.readouterr().out
    assert "choosing the best for success: the action makes no choice" in out


def test_what_a_run_gained_is_after_minus_before(cypher):
    """`gained(Might)`: after minus before, what a cost that adds is weighed by (here
    the pool spent, so `+ gained(...)` weighs it as `- spent(...)` does)."""
    sheet = cypher.sheet({"Might": 9})
    params = {"level": 4}
    gained = cypher.odds("lift", sheet, params, field="success", best="success + gained(Might)/10")
    spent = cypher.odds("lift", sheet, params, field="success", best="success - spent(Might)/10")
    assert gained.decisions == spent.decisions == {("effort", 0): 1}
    assert gained.goal_worth == spent.goal_worth == Fraction(9, 20)
    wrong = cypher.odds("lift", sheet, params, field="success", best="success - gained(Might)/10")
    assert wrong.decisions == {("effort", 3): 1}  # each point "gained" back: worth spending
    assert wrong.goal_worth == Fraction(18, 20) + Fraction(7, 10)
