"""Exact odds of the shipped rulebooks' actions: opposed checks, loops, calls; the output.

Opposed checks are counted by combining the two sides' distributions (ties as a geometric
series), checked here against the same sum written out from the sides' own odds; the
command line's answers follow the rulebook's orders and words, and refuse as `run` does.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import dsl
from dsl.rulebook import reads_sheet
from interpreter import Engine
from interpreter.cli import main
from interpreter.odds import Failure
from interpreter.odds.marginals import JOINT_OUTCOMES, ByField
from tests.test_json_data import valid

CHARACTERS = Path(__file__).resolve().parent.parent / "rulebooks" / "characters"


@pytest.fixture(scope="module")
def brujeria():
    engine = Engine(dsl.load("brujeria"))
    return engine, engine.load_sheet(CHARACTERS / "brujeria_investigadora.yaml")


def _by_key(odds) -> dict:
    """A check's odds as (success, total) → probability: what the opposed check compares."""
    out: dict = {}
    for record, p in odds.probabilities.items():
        key = (record["success"], record["total"])
        out[key] = out.get(key, 0) + p
    return out


def _wins(ours: dict, theirs: dict) -> Fraction:
    """P(ours wins) of an opposed check that rolls ties again, from the two sides."""
    wins = sum(p * q for a, p in ours.items() for b, q in theirs.items() if a > b)
    ties = sum(p * theirs.get(a, 0) for a, p in ours.items())
    return wins / (1 - ties)


def test_a_resisted_check_is_the_geometric_series_over_both_sides(brujeria):
    engine, sheet = brujeria
    won = engine.odds("chequeo_resistido", sheet, {"habilidad": "Pelea"}, field="gana")
    assert won.exact
    # The same probability from the two sides on their own: ours wins a decided pair when
    # its (success, total) is the greater; a tie is rolled again, so P(win) is the share
    # of the decided pairs ours wins.
    ours = _by_key(engine.odds("complicado", sheet, {"atributo": "Destreza", "habilidad": "Pelea"}))
    theirs = _by_key(engine.odds("del_rival", sheet, {"valor": 6}))
    expected = _wins(ours, theirs)
    assert abs(won.probability(True) - expected) <= won.omitted + Fraction(1, 10**12)
    assert won.probability(True) + won.probability(False) + won.omitted == 1


def test_a_resisted_check_reports_its_rerolls(brujeria):
    engine, sheet = brujeria
    rerolls = engine.odds("chequeo_resistido", sheet, {"habilidad": "Pelea"}, "repeticiones")
    assert rerolls.exact
    p = rerolls.probabilities
    t = p[1] / p[0]  # P(k rerolls) = t^k (1 - t)
    assert 0 < t < Fraction(1, 5)
    for k in range(1, 6):
        assert p[k] == p[0] * t**k


def test_best_of_three_is_exact_and_counts_the_bouts(brujeria):
    engine, sheet = brujeria
    odds = engine.odds("pulso", sheet, {})
    assert odds.exact
    bouts = {(r["asaltos_ganados"], r["asaltos_perdidos"]) for r in odds.probabilities}
    assert bouts == {(2, 0), (2, 1), (0, 2), (1, 2)}
    won = sum(p for r, p in odds.probabilities.items() if r["gana"])
    # each bout: sencillo(Fuerza) against del_rival(2 × 2), won with probability w; the
    # match, first to two: w² + 2 w² (1 - w)
    w = _wins(
        _by_key(engine.odds("sencillo", sheet, {"atributo": "Fuerza"})),
        _by_key(engine.odds("del_rival", sheet, {"valor": 4})),
    )
    assert abs(won - w * w * (3 - 2 * w)) <= odds.omitted + Fraction(1, 10**12)


def test_outcomes_follow_the_table_and_numbers_their_size(brujeria):
    engine, sheet = brujeria
    levels = engine.odds("chequeo_sencillo", sheet, {"habilidad": "Notar"}, field="nivel")
    labels = [row.value.value for row in engine.rulebook.tables["Nivel"].rows]
    assert list(levels.probabilities) == [
        label for label in labels if label in levels.probabilities
    ]
    initiative = engine.odds("iniciativa", sheet, {})
    totals = [record["iniciativa"] for record in initiative.probabilities]
    assert totals == sorted(totals)


def test_a_roll_reading_no_sheet_needs_no_character(capsys):
    book = dsl.load("brujeria")
    assert not reads_sheet(book, book.rolls["abierta"])
    assert reads_sheet(book, book.checks["sencillo"])
    assert main(["odds", "brujeria", "abierta"]) == 0
    assert "(exacto;" in capsys.readouterr().out
    assert main(["odds", "brujeria", "sencillo", "--lang", "en"]) == 2
    assert "needs a character" in capsys.readouterr().err


def test_running_a_roll_reading_no_sheet_needs_no_character(capsys):
    assert main(["run", "arcana_mundi", "capicua", "--dice", "3,4"]) == 0
    assert "resultado: 7" in capsys.readouterr().out
    assert main(["run", "arcana_mundi", "usar_numina", "--dice", "3,4", "--lang", "en"]) == 2
    assert "needs a character" in capsys.readouterr().err


def test_a_refused_action_exits_4_as_run_does(capsys):
    argv = ["brujeria", "defensa_con_esencia", "--char", "brujeria_investigadora"]
    assert main(["run", *argv]) == 4
    refused = capsys.readouterr().err
    assert main(["odds", *argv]) == 4
    assert capsys.readouterr().err == refused
    assert "Canalización" in refused


def test_yes_and_no_as_the_language_writes_them(capsys):
    argv = ["odds", "brujeria", "intentar", "--char", "brujeria_investigadora"]
    assert main([*argv, "--field", "éxito"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()[2:]]
    assert rows == ["no", "sí"]
    assert main([*argv, "--field", "éxito", "--lang", "en"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()[2:]]
    assert rows == ["no", "yes"]


def test_fractions_of_sampled_odds_say_why_not(capsys):
    argv = ["odds", "brujeria", "chequeo_resistido", "--char", "brujeria_investigadora"]
    argv += ["--set", "habilidad=Pelea", "--field", "gana", "--lang", "en", "--fractions"]
    assert main([*argv, "--budget", "1", "--trials", "200"]) == 0
    out = capsys.readouterr().out
    assert "no fractions: sampled odds are estimates" in out
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "no fractions" not in out and "/" in out


def test_failures_are_outcomes_of_their_own(brujeria):
    engine, _sheet = brujeria
    rich = engine.load_sheet(CHARACTERS / "brujeria_bruja.yaml")
    odds = engine.odds("defensa_con_esencia", rich, {"esencia": 999})
    assert all(isinstance(o, Failure) for o in odds.probabilities)
    assert odds.refused() is not None


ENSURE = (
    'rulebook "E" { }\nsheet { attribute A, B in 0..10\n'
    'ensure A <= B else "A cannot pass B" }\n'
    "action raise_a() { gain d4 to A\n result { a: A } }"
)


@pytest.mark.parametrize("field", [None, "a"])
def test_a_broken_ensure_is_an_outcome_where_the_run_fails(field):
    """A run whose end breaks an `ensure` fails (run raises there): odds count it as a
    failure outcome with its probability, not as an error of the whole computation."""
    from interpreter import EvaluationError, ForcedDice

    engine = Engine(dsl.load_text(ENSURE, "e.rules"))
    sheet = engine.sheet({"A": 0, "B": 2})
    with pytest.raises(EvaluationError, match="A cannot pass B"):
        engine.run("raise_a", sheet, {}, ForcedDice([3]))
    odds = engine.odds("raise_a", sheet, {}, field)
    failures = [o for o in odds.probabilities if isinstance(o, Failure)]
    assert len(failures) == 1 and "A cannot pass B" in failures[0].message
    assert odds.probability(failures[0]) == Fraction(1, 2)
    kept = {o if field else o["a"]: p for o, p in odds.probabilities.items() if o not in failures}
    assert kept == {1: Fraction(1, 4), 2: Fraction(1, 4)}


THREE_ROLLS = (
    'rulebook "T" { }\nsheet { attribute A in 0..10 }\n'
    'action three() {\n let a = d100\n require a > 5 else "too low"\n'
    " let b = d100 + A\n let c = d20\n result { a: a, b: b, c: c } }"
)


def test_a_joint_too_large_to_read_is_answered_field_by_field(capsys, tmp_path):
    """Three independent rolls: a joint of 95 × 100 × 20 outcomes, past the bound, so each
    field comes on its own, exact, the refusal's probability the same in each."""
    engine = Engine(dsl.load_text(THREE_ROLLS, "t.rules"))
    sheet = engine.sheet({"A": 3})
    odds = engine.odds("three", sheet)
    assert isinstance(odds, ByField) and odds.exact
    assert list(odds.fields) == ["a", "b", "c"] and "each field on its own" in str(odds.note)
    refusal = Failure("too low")
    for name, field in odds.fields.items():
        assert field.field == name and field.exact
        assert field.probability(refusal) == Fraction(5, 100)
    assert odds.probability(refusal) == Fraction(5, 100)
    assert odds.fields["a"].probabilities[6] == Fraction(1, 100)
    assert odds.fields["b"].probabilities == {
        **{b: Fraction(95, 100 * 100) for b in range(4, 104)},
        refusal: Fraction(5, 100),
    }
    assert odds.fields["c"].probability(20) == Fraction(95, 100 * 20)
    with pytest.raises(Exception, match="field by field"):
        odds.probability({"a": 6, "b": 4, "c": 1})
    # each field alone is what --field gives
    assert engine.odds("three", sheet, field="c").probabilities == odds.fields["c"].probabilities
    rules, character = tmp_path / "t.rules", tmp_path / "t.yaml"
    rules.write_text(THREE_ROLLS, encoding="utf-8")
    character.write_text("A: 3\n", encoding="utf-8")
    assert main(["odds", str(rules), "three", "--char", str(character)]) == 0
    text = capsys.readouterr().out
    assert "each field on its own" in text and text.count("three · ") == 3
    assert main(["odds", str(rules), "three", "--char", str(character), "--json"]) == 0
    data = valid(json.loads(capsys.readouterr().out))
    assert data["outcomes"] == [] and data["note"].startswith("each field on its own")
    assert [f["field"] for f in data["fields"]] == ["a", "b", "c"]
    assert data["fields"][2]["outcomes"][0] == valid_row(data["fields"][2]["outcomes"][0])
    # a field of more outcomes than the bound: the joint surely has more too, said so
    wide = THREE_ROLLS.replace("let b = d100 + A", "let b = d60 * 100 + d50")
    engine = Engine(dsl.load_text(wide, "w.rules"))
    odds = engine.odds("three", engine.sheet({"A": 0}))
    assert isinstance(odds, ByField) and odds.proven and odds.exact
    assert len(odds.fields["b"].probabilities) == 60 * 50 + 1
    assert f"more than {JOINT_OUTCOMES} outcomes" in str(odds.note)
    assert odds.to_json()["joint_outcomes_above"] == JOINT_OUTCOMES


def valid_row(row: dict) -> dict:
    assert row["outcome"] == 1 and row["probability"] == 95 / 2000
    return row


def test_a_joint_small_enough_stays_whole():
    book = THREE_ROLLS.replace("d100", "d6").replace("d20", "d4")
    engine = Engine(dsl.load_text(book, "t.rules"))
    odds = engine.odds("three", engine.sheet({"A": 0}))
    assert not hasattr(odds, "fields") and odds.exact
    assert len(odds.probabilities) == 1 + 1 * 6 * 4  # a=6 only, b and c: every value
