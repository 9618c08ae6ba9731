"""An opposed check run, and asked for its odds, on its own (as a check or a roll is)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle import action_outcomes, counted, marginal
from test_json_data import valid
from test_odds_brute_force import HEADER, LIMITS

import dsl
from interpreter import Engine, ForcedDice
from interpreter.cli import main
from interpreter.errors import EvaluationError
from interpreter.json_data import odds_data
from interpreter.odds.marginals import ByField
from interpreter.sheets.character import shipped_characters_folder

OPPOSED = """
check c(m: int = 0) "C" {
  roll d6 + A + m >= 5
}

opposed duel(m: int = 0) "Duel" {
  roll c(m)
  against c(B - 1)
  compare success, total
  tie {tie}
  level = if won then "won" else "lost"
}
"""


def engine_for(tie: str) -> Engine:
    return Engine(dsl.load_text(HEADER + OPPOSED.replace("{tie}", tie)), LIMITS)


@pytest.mark.parametrize("tie", ["reroll", "ours", "theirs"])
def test_an_opposed_check_runs_on_its_own(tie):
    engine = engine_for(tie)
    sheet = engine.sheet({"A": 1, "B": 2})
    outcome = engine.run("duel", sheet, {"m": 1}, dice=ForcedDice([3, 1]))
    assert outcome.kind == "opposed" and outcome.action == "duel"
    result = outcome.result
    assert result["ours"]["total"] == 3 + 1 + 1 and result["theirs"]["total"] == 1 + 1 + 1
    assert result["ours"]["success"] and not result["theirs"]["success"]
    assert result["won"] is True and result["level"] == "won" and result["margin"] == 2
    assert valid(outcome.to_json())["run"] == "opposed"


@pytest.mark.parametrize("tie", ["reroll", "ours", "theirs"])
@pytest.mark.parametrize(
    "field", [None, "won", "tie", "margin", "rerolls", "ours", "theirs", "level"]
)
def test_its_odds_equal_brute_force_field_by_field(tie, field):
    engine = engine_for(tie)
    sheet = engine.sheet({"A": 1, "B": 2})
    joint = action_outcomes(engine, "duel", sheet)  # every sequence of dice, ties once again
    odds = engine.odds("duel", sheet, {}, field)
    assert odds.exact
    if field is None and isinstance(odds, ByField):
        for name, answer in odds.fields.items():
            assert counted(answer) == marginal(joint, name)
    elif field is None:
        assert counted(odds) == joint
    else:
        assert counted(odds) == marginal(joint, field)
    assert sum(odds.probabilities.values()) + odds.omitted == 1


@pytest.mark.parametrize("tie", ["reroll", "ours"])
def test_a_field_it_lacks_is_refused_naming_those_it_has(tie):
    # Cut by a name its records lack, every record read `none`: "none 100%", exact.
    engine = engine_for(tie)
    sheet = engine.sheet({"A": 1, "B": 2})
    with pytest.raises(EvaluationError) as refused:
        engine.odds("duel", sheet, {}, "lvel")
    assert "'lvel'" in str(refused.value) and "won, tie, margin, rerolls, level" in str(
        refused.value
    )


def test_the_shipped_resisted_check_on_its_own(capsys):
    book = dsl.load("brujeria")
    engine = Engine.of(book)
    character = str(shipped_characters_folder() / "brujeria_investigadora.yaml")
    sheet = engine.load_sheet(character)
    params = {"atributo": "Fuerza", "rival": 6}
    alone = engine.odds("resistido", sheet, params, "won")
    assert alone.exact
    # the same as the action that wraps it, asked for its field `gana` (= r.won)
    wrapped = engine.odds("chequeo_resistido", sheet, {"atributo": "Fuerza", "rival": 6}, "gana")
    assert alone.probabilities == wrapped.probabilities
    assert 0 < alone.probability(True) < Fraction(1, 2)
    assert valid(odds_data(alone, "es"))["exact"] is True
    whole = engine.odds("resistido", sheet, params)  # each side's record: a large joint
    assert isinstance(whole, ByField) and whole.exact
    assert list(whole.fields) == ["ours", "theirs", "won", "tie", "margin", "rerolls"]
    won = whole.fields["won"]  # the same, but for what each leaves out of the open rolls
    for outcome, probability in alone.probabilities.items():
        assert abs(won.probability(outcome) - probability) <= max(won.omitted, alone.omitted)
    assert [f["field"] for f in valid(odds_data(whole, "es"))["fields"]][2] == "won"

    given = ["--char", character, "--set", "atributo=Fuerza"]
    code = main(["odds", "brujeria", "resistido", *given, "--field", "won"])
    out = capsys.readouterr().out
    assert code == 0 and "resistido · won" in out and "exacto" in out
    code = main(["run", "brujeria", "resistido", *given, "--dice", "5,5"])
    out = capsys.readouterr().out
    assert code == 0 and "won no" in out and "theirs {total: 11" in out


@pytest.mark.parametrize("tie", ["reroll", "ours"])
def test_an_opposed_check_nothing_reads_still_stops_the_run_at_the_tie_limit(tie):
    # Only `t` is asked for: the opposed check's record is read by nothing, but a run
    # still stops when it is tied after `tie_rerolls` (1 here); that stop is an outcome.
    text = (
        HEADER
        + f"""
opposed duel(k: int) "Duel" {{
  roll d2 + k
  against d2 + B
  tie {tie}
}}
action act() {{
  let t = d3
  let c = duel(t)
  result {{ won: c.won, t: t }}
}}
"""
    )
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": 0, "B": 0})
    joint = action_outcomes(engine, "act", sheet)
    odds = engine.odds("act", sheet, {}, "t")
    assert odds.exact and counted(odds) == marginal(joint, "t")
    stops = [o for o in counted(odds) if isinstance(o, tuple)]
    assert len(stops) == (1 if tie == "reroll" else 0)
