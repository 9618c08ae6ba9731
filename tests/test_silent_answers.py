"""The silent wrong answers of issue 11, each answered now: a test each.

- a parameter naming a field, left out, equals `none`;
- `set` of a name that names a field (a group member, a loop variable) sets the field;
- a misspelled open skill warns with a did-you-mean (a closed list refuses it);
- a text field compared with a literal compares its value;
- a table row's fields with dice are rolled only when read.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from interpreter import Engine, ForcedDice, ParameterError, render_text
from interpreter.cli import main

RULES = """
rulebook "Silent" { }
sheet {
  attribute Fuerza in 1..10 default 3
  resource A max 5
  resource B max 7
  group P = A, B
  text Mild
  skills in 0..10 default 0
}
table T { t1: 1, t2: 2 }
table Loc by k { 1: "Head" { dmg: 2d6, hits: 1 }  2: "Arm" { dmg: 1d4, hits: 2 } }
action given(box: P = none, at: attribute = none, t: T = none) {
  result { box: box = none, at: at = none, t: t = none, not_box: box != none }
}
action refill(which: P) {
  set which to which.max
}
action refill_all() {
  for each s in P { set s to s.max }
}
action mild() {
  require Mild = "" else "already has a mild"
  match Mild { case "" { note "no mild" } else { note "a mild" } }
  result { ok: Mild != "x" }
}
action hit(k: int) {
  let r = Loc[k]
  result { where: r.label, hits: r.hits }
}
action hurt(k: int) {
  result { damage: Loc[k].dmg }
}
check skilled(skill: skill) { roll d10 + skill }
"""


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load_text(RULES, "silent.rules"))


@pytest.fixture(scope="module")
def sheet(engine):
    return engine.sheet({"A": 1, "B": 2, "skills": {"Ocultismo": 4}})


def test_a_parameter_naming_a_field_left_out_is_none(engine, sheet):
    out = engine.run("given", sheet, {})
    assert dict(out.result) == {"box": True, "at": True, "t": True, "not_box": False}
    out = engine.run("given", sheet, {"box": "A", "at": "Fuerza", "t": "t1"})
    assert dict(out.result) == {"box": False, "at": False, "t": False, "not_box": True}


def test_set_of_a_group_member_sets_the_field_it_names(engine, sheet):
    out = engine.run("refill", sheet, {"which": "B"})
    assert [(c.path, c.before, c.after) for c in out.changes] == [("B", 2, 7)]
    assert "set B: 2 → 7" in render_text(out.trace)


def test_set_of_a_loop_variable_over_a_group_sets_each_field(engine, sheet):
    out = engine.run("refill_all", sheet, {})
    assert [(c.path, c.before, c.after) for c in out.changes] == [("A", 1, 5), ("B", 2, 7)]


def test_a_text_field_is_compared_with_a_literal_by_its_value(engine, sheet):
    out = engine.run("mild", sheet, {})
    assert out.result["ok"] is True and "no mild" in render_text(out.trace)
    mild = engine.sheet({"A": 1, "B": 2, "Mild": "Fobia"})
    with pytest.raises(Exception, match="already has a mild"):
        engine.run("mild", mild, {})


def test_dice_in_a_table_cell_nobody_reads_are_not_rolled(engine, sheet):
    # `dmg` has dice; `hit` reads only the label and `hits`: no die is drawn
    out = engine.run("hit", sheet, {"k": 1}, ForcedDice([]))
    assert dict(out.result) == {"where": "Head", "hits": 1} and out.dice == ()
    out = engine.run("hurt", sheet, {"k": 1}, ForcedDice([3, 4]))
    assert out.result["damage"] == 7 and out.dice == (3, 4)


def test_a_misspelled_open_skill_warns_with_did_you_mean(engine, sheet):
    out = engine.run("skilled", sheet, {"skill": "Ocultimso"}, ForcedDice([5]))
    assert out.result["total"] == 5
    (warning,) = out.warnings
    assert "the sheet has no skill 'Ocultimso'" in warning and "did you mean Ocultismo?" in warning
    assert engine.run("skilled", sheet, {"skill": "Ocultismo"}, ForcedDice([5])).warnings == ()
    # a skill the character simply lacks, far from any it has, is no misspelling
    assert engine.run("skilled", sheet, {"skill": "Pilotar"}, ForcedDice([5])).warnings == ()


def test_a_misspelled_skill_in_a_closed_list_is_refused():
    book = dsl.load_text(
        "sheet { skill Ocultismo, Pelea in 0..10 }\ncheck c(h: skill) { roll d10 + h }", "c"
    )
    engine = Engine(book)
    with pytest.raises(ParameterError, match="did you mean Ocultismo"):
        engine.run("c", engine.sheet({}), {"h": "Ocultimso"}, ForcedDice([5]))


def test_the_issues_example_on_the_command_line(capsys):
    argv = ["run", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja"]
    argv += ["--set", "atributo=Inteligencia", "--dice", "5"]
    assert main([*argv, "--set", "habilidad=Ocultimso"]) == 0
    captured = capsys.readouterr()
    assert "¿querías decir Ocultismo?" in captured.err and "= 13 contra 9" in captured.out
    assert main([*argv, "--set", "habilidad=Ocultismo"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "= 17 contra 9" in captured.out


def test_a_parameter_name_that_is_not_a_text_is_a_parameter_error(engine, sheet):
    # an app (or a journal record) may give any key: the project's own error, not a crash
    with pytest.raises(ParameterError, match="has no parameter None"):
        engine.run("given", sheet, {None: 1})


def test_default_of_a_field_naming_parameter_asks_whether_it_was_given():
    book = dsl.load_text(
        "sheet { attribute Fuerza, Destreza in 1..10 default 3\n skills in 0..5 default 0 }\n"
        "check c(a: attribute) { roll d6 + a }\n"
        "action x(h: skill = none, b: attribute = none) {\n"
        "  let r = c(default(b, Destreza))\n"
        "  result { h: default(h, 7), total: r.total }\n}",
        "d.rules",
    )
    engine = Engine(book)
    sheet = engine.sheet({"Destreza": 5})
    out = engine.run("x", sheet, {}, ForcedDice([1]))
    assert dict(out.result) == {"h": 7, "total": 6}  # not 0: h was not given; b is Destreza
    out = engine.run("x", sheet, {"h": "Nadar", "b": "Fuerza"}, ForcedDice([1]))
    assert dict(out.result) == {"h": 0, "total": 4}  # Nadar given (the sheet lacks it: 0)


# ─── a name holding a pool, set again ────────────────────────────────────────

REROLL = """
rulebook "Reroll" { }
sheet { resource Puntos max 1 }
action reroll() {
  let r = 2d6
  choose again "¿Otra vez?" {
    option no
    option sí cost 1 from Puntos { set r to 3d6 }
  }
  result { top: highest(r), total: r.total, dice: count(r, 1..) }
}
action reroll_always() {
  let r = 1d4
  if highest(r) < 3 { set r to 2d4 }
  result { top: highest(r) }
}
"""


def test_a_pool_set_to_a_new_roll_has_the_new_dice():
    engine = Engine(dsl.load_text(REROLL, "reroll.rules"))
    sheet = engine.sheet({})
    out = engine.run("reroll", sheet, {}, ForcedDice([1, 2, 6, 5, 1]), choices={"again": "sí"})
    assert dict(out.result) == {"top": 6, "total": 12, "dice": 3}
    # the odds see the new dice too: the first d4, or the higher of two more on 1 or 2
    odds = engine.odds("reroll_always", sheet, {}, field="top")
    assert odds.probabilities == {
        1: Fraction(1, 2) * Fraction(1, 16),
        2: Fraction(1, 2) * Fraction(3, 16),
        3: Fraction(1, 4) + Fraction(1, 2) * Fraction(5, 16),
        4: Fraction(1, 4) + Fraction(1, 2) * Fraction(7, 16),
    }
    best = engine.odds("reroll", sheet, {}, field="top", best="mean top")
    # the higher of 3d6 is 119/24 on average: rolled again when 2d6 show 4 or less
    top_of_three = sum(Fraction(k * (k**3 - (k - 1) ** 3), 216) for k in range(1, 7))
    assert top_of_three == Fraction(119, 24)
    assert best.mean == Fraction(5 * 9 + 6 * 11, 36) + Fraction(16, 36) * top_of_three
    assert best.decisions[("again", "sí")] == Fraction(16, 36)


def test_a_pool_set_to_a_number_is_refused_with_what_to_write():
    text = 'rulebook "x" { }\naction a() {\n  let r = 2d6\n  set r to r + 1\n}\n'
    with pytest.raises(dsl.RulebookInvalid) as caught:
        dsl.load_text(text, "x.rules")
    assert "`r` holds a roll and its dice: set it to another roll" in str(caught.value)
    assert "let r = d6 + 0" in caught.value.diagnostics[0].hint
