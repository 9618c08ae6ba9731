"""Other characters as an action's parameters, each with its own sheet (tests/data/duel.rules).

An attack reads the target's defence and changes its hit points; the target rolls its
own save; an opposed check between two sheets; an action the target runs for itself;
`ensure` rules on every sheet; odds over both sheets; the command line's `--target` and
`--save` of every changed sheet.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

import dsl
from interpreter import Engine, EvaluationError, ForcedDice, ParameterError, render_text
from interpreter.cli import main

DATA = Path(__file__).resolve().parent / "data"
RULES = DATA / "duel.rules"


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load(RULES))


@pytest.fixture(scope="module")
def hero(engine):
    return engine.load_sheet(DATA / "characters" / "hero.yaml")


@pytest.fixture(scope="module")
def orc(engine):
    return engine.load_sheet(DATA / "characters" / "orc.yaml")


def test_an_attack_reads_the_targets_fields_and_changes_its_sheet(engine, hero, orc):
    # golpe: d20 15 + Fuerza 5 = 20 vs Defensa 10 + 4; the orc saves with its Destreza 4
    out = engine.run("atacar", hero, {}, ForcedDice([15, 10]), targets={"objetivo": orc})
    assert dict(out.result) == {"golpe": True, "salva": False, "vida": 0}
    assert out.changes == ()  # the attacker's sheet is as it was
    (other,) = out.characters
    assert (other.role, other.label) == ("objetivo", "orc")
    assert [(c.path, c.before, c.after) for c in other.changes] == [
        ("Vida", 5, 0),
        ("Caído", False, True),
    ]
    assert other.after["Vida"] == 0 and other.after["Caído"] is True
    assert orc["Vida"] == 5 and orc["Caído"] is False  # the input sheets are never mutated
    assert out.sheets == {"self": hero, "objetivo": other.after}
    assert out.sheets_before == {"self": hero, "objetivo": orc}


def test_the_trace_says_whose_sheet_and_whose_roll(engine, hero, orc):
    out = engine.run("atacar", hero, {}, ForcedDice([15, 10]), targets={"objetivo": orc})
    text = render_text(out.trace)
    assert "Golpe: d20 [15] + bono 5 = 20 vs 14 → success" in text
    assert "lose 6 orc.Vida: 5 → 0" in text and "set orc.Caído: no → yes" in text
    assert "as orc:" in text and "Salvación: d20 [10] + Destreza 4 = 14 vs 15" in text


def test_a_sheet_given_as_a_parameter_is_the_same(engine, hero, orc):
    a = engine.run("atacar", hero, {"objetivo": orc}, ForcedDice([15, 10]))
    b = engine.run("atacar", hero, {}, ForcedDice([15, 10]), targets={"objetivo": orc})
    assert a.result == b.result and a.characters == b.characters


def test_an_opposed_check_between_two_sheets(engine, hero, orc):
    # ours: d20 12 + Fuerza 5; theirs: d20 8 + the orc's Fuerza 1
    out = engine.run("echar_un_pulso", hero, {"rival": orc}, ForcedDice([12, 8]))
    assert out.result["gana"] is True
    out = engine.run("echar_un_pulso", hero, {"rival": orc}, ForcedDice([1, 10]))
    assert out.result["gana"] is False


def test_another_characters_resource_bounds_are_its_own(engine, hero, orc):
    hurt = engine.sheet({"Fuerza": 1, "Destreza": 4, "Vida": 2})
    out = engine.run("curar", hero, {"a": hurt}, ForcedDice([]))
    assert dict(out.result) == {"vida": 11, "máximo": 11}  # 10 + its Fuerza 1, not 15


def test_an_action_the_target_runs_changes_its_own_sheet(engine, hero, orc):
    out = engine.run("asustar", hero, {"a": orc}, ForcedDice([]))
    assert out.result["miedo"] == 1 and out.changes == ()
    assert [(c.path, c.after) for c in out.characters[0].changes] == [("Miedo", 1)]


def test_a_rule_the_targets_sheet_would_break_fails_the_run(engine, hero):
    scared = engine.sheet({"Fuerza": 1, "Destreza": 4, "Miedo": 2})
    with pytest.raises(EvaluationError, match="three fears knock a character down"):
        engine.run("asustar", hero, {"a": scared}, ForcedDice([]))


def test_a_character_left_out_is_an_error_where_it_is_needed(engine, hero):
    with pytest.raises(EvaluationError, match="no character was given for rival"):
        engine.run("echar_un_pulso", hero, {}, ForcedDice([12]))
    with pytest.raises(ParameterError, match="needs the parameter 'objetivo'") as error:
        engine.run("atacar", hero, {}, ForcedDice([]))
    assert "--target objetivo=FILE" in error.value.render()
    with pytest.raises(ParameterError, match=r"a character's sheet, not 'orc\.yaml'"):
        engine.run("atacar", hero, {"objetivo": "orc.yaml"}, ForcedDice([]))


def test_exact_odds_over_both_sheets_are_every_way_the_dice_fall(engine, hero, orc, exhaustive):
    params = {"objetivo": orc}
    odds = engine.odds("atacar", hero, params, field="vida").probabilities
    assert odds == {0: Fraction(12, 20), 5: Fraction(8, 20)}  # 20 + 5 >= 14: a 9 or more
    brute = exhaustive(lambda dice: engine.run("atacar", hero, params, dice).result["vida"])
    assert odds == brute
    pulse = engine.odds("echar_un_pulso", hero, {"rival": orc}, field="gana").probabilities
    assert pulse == exhaustive(
        lambda dice: engine.run("echar_un_pulso", hero, {"rival": orc}, dice).result["gana"]
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("action a(x: int) { do x.asustarse() }", "x is number, not a character"),
        ("action a(o: character) { let v = o.Vidaa }", "the sheet has no field `Vidaa`"),
        ("action a(self: character) { }", "`self` is the character acting"),
        ("action a(o: character) { let v = o.max(1, 2) }", "max is not a check, an action"),
    ],
)
def test_what_the_checker_says_of_other_characters(text, message):
    rules = RULES.read_text(encoding="utf-8") + "\n" + text
    with pytest.raises(dsl.RulebookInvalid) as caught:
        dsl.load_text(rules, "duel.rules")
    assert message in str(caught.value)


# ─── the command line ───────────────────────────────────────────────────────


def test_run_with_a_target_lists_the_changes_per_character(capsys):
    code = main(
        [
            "run", str(RULES), "atacar", "--char", str(DATA / "characters" / "hero.yaml"),
            "--target", f"objetivo={DATA / 'characters' / 'orc.yaml'}", "--dice", "15,10",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "changes of hero: none" in out
    assert "changes of orc (objetivo):\n  Vida: 5 → 0\n  Caído: no → yes" in out


def test_the_target_name_may_be_left_out_when_there_is_one(capsys):
    hero, orc = DATA / "characters" / "hero.yaml", DATA / "characters" / "orc.yaml"
    argv = ["run", str(RULES), "atacar", "--char", str(hero), "--dice", "15,10", "--json"]
    assert main([*argv, "--target", str(orc)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["characters"][0]["role"] == "objetivo"
    assert data["characters"][0]["sheet"]["Vida"] == 0
    assert main([*argv, "--target", f"objetiv={orc}"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["hint"] == "did you mean objetivo?"


def test_save_writes_every_changed_sheet(tmp_path, capsys):
    for name in ("hero", "orc"):
        shutil.copy(DATA / "characters" / f"{name}.yaml", tmp_path / f"{name}.yaml")
    argv = ["run", str(RULES), "atacar", "--char", str(tmp_path / "hero.yaml")]
    argv += ["--target", f"objetivo={tmp_path / 'orc.yaml'}", "--dice", "15,10", "--save"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "saved" in out and "orc.yaml" in out
    text = (tmp_path / "orc.yaml").read_text(encoding="utf-8")
    assert "Vida: 0" in text and "Caído: yes" in text and "# the duel's target" in text
    assert (tmp_path / "hero.yaml").read_text(encoding="utf-8") == (
        DATA / "characters" / "hero.yaml"
    ).read_text(encoding="utf-8")


def test_save_refuses_one_file_for_two_characters(tmp_path, capsys):
    shutil.copy(DATA / "characters" / "hero.yaml", tmp_path / "hero.yaml")
    hero = str(tmp_path / "hero.yaml")
    code = main(["run", str(RULES), "atacar", "--char", hero, "--target", hero, "--save"])
    assert code == 2 and "the same file" in capsys.readouterr().err
    assert (tmp_path / "hero.yaml").read_text(encoding="utf-8").endswith("Destreza: 2\n")


def test_a_failed_run_saves_no_sheet(tmp_path, capsys):
    for name in ("hero", "orc"):
        shutil.copy(DATA / "characters" / f"{name}.yaml", tmp_path / f"{name}.yaml")
    scared = tmp_path / "orc.yaml"
    scared.write_text(scared.read_text(encoding="utf-8") + "Miedo: 2\n", encoding="utf-8")
    before = scared.read_text(encoding="utf-8")
    argv = ["run", str(RULES), "asustar", "--char", str(tmp_path / "hero.yaml")]
    assert main([*argv, "--target", f"a={scared}", "--save"]) == 4
    assert "three fears" in capsys.readouterr().err
    assert scared.read_text(encoding="utf-8") == before
