"""The trace in the rules' words: names rather than expressions, maxima that did not change
left out, each roll-procedure step with its own arithmetic, a tied opposed check grouped
per roll; `--verbose` keeps every detail."""

from __future__ import annotations

import dsl
from interpreter import Engine, ForcedDice, render_text
from interpreter.cli import main

SLOTS = """
rulebook "Slots" {
  language "es"
}
sheet {
  attribute Nivel in 1..10
  resource Vida max 10
  resource Huecos max Slots[Vida]
}
table Slots by vida { ..3: 1  4..6: 2  7..: 3 }
roll abierta = d10 then {
  on die = 10: add d6 - 1, again while die = 6
  on die = 1: subtract d6, again while die = 1
}
check sencillo(extra: int = 0) "Chequeo" {
  roll abierta + Nivel + extra >= 9
}
opposed pulso() "Pulso" {
  roll sencillo()
  against sencillo(2)
  compare total
  tie reroll
}
action golpe(daño: int = 1) "Golpe" {
  let herida = daño * 1
  if herida > 0 {
    lose herida from Vida
  }
}
action pelear() "Pelea" {
  let p = pulso()
  note "gana: {p.won}"
}
"""


def _engine() -> Engine:
    return Engine(dsl.load_text(SLOTS, "slots.rules"))


def test_a_value_is_named_by_the_author_and_its_expression_is_the_detail():
    engine = _engine()
    sheet = engine.sheet({"Nivel": 3})
    out = engine.run("golpe", sheet, {"daño": 1})
    brief, verbose = render_text(out.trace), render_text(out.trace, verbose=True)
    assert "herida = 1" in brief and "daño * 1" not in brief
    assert "herida = daño * 1 = 1" in verbose
    assert "si herida > 0 → sí" not in brief and "si herida > 0 → sí" in verbose
    assert "pierde 1 de Vida: 10 → 9" in brief


def test_maxima_that_did_not_change_are_not_printed_again():
    engine = _engine()
    sheet = engine.sheet({"Nivel": 3})
    out = engine.run("golpe", sheet, {"daño": 1})  # Vida 10 → 9: Huecos still max 3
    brief, verbose = render_text(out.trace), render_text(out.trace, verbose=True)
    assert "Slots[" not in brief
    assert "Slots[9] → 3" in verbose
    # a maximum that fell and brought the resource down is said
    out = engine.run("golpe", sheet, {"daño": 5})  # Vida 10 → 5: Huecos max 2
    brief = render_text(out.trace)
    assert "Huecos: 3 → 2 (su máximo es ahora 2)" in brief
    assert {c.path: c.after for c in out.changes} == {"Vida": 5, "Huecos": 2}


def test_each_roll_procedure_step_has_its_own_arithmetic():
    engine = _engine()
    sheet = engine.sheet({"Nivel": 3})
    out = engine.run_roll("abierta", sheet, dice=ForcedDice([10, 6, 6, 2]))
    assert out.result == 10 + 5 + 5 + 1 == 21
    assert "abierta: 10 + (6−1) + (6−1) + (2−1) = 21" in render_text(out.trace)
    assert "abierta: [10] + [6] + [6] + [2] = 21" in render_text(out.trace, verbose=True)
    down = engine.run_roll("abierta", sheet, dice=ForcedDice([1, 1, 4]))
    assert "abierta: 1 - 1 - 4 = -4" in render_text(down.trace)
    check = engine.run_check("sencillo", sheet, dice=ForcedDice([10, 3]))
    lines = render_text(check.trace).splitlines()
    assert any("Chequeo: abierta 12 + Nivel 3 + extra 0 = 15" in line for line in lines)
    assert any("abierta: 10 + (3−1) = 12" in line for line in lines)


def test_a_tied_opposed_check_is_grouped_per_roll():
    engine = _engine()
    sheet = engine.sheet({"Nivel": 3})
    # 5 + 3 = 8 against 3 + 3 + 2 = 8: a tie; then 9 + 3 = 12 against 2 + 5 = 7
    out = engine.run("pelear", sheet, dice=ForcedDice([5, 3, 9, 2]))
    lines = [line.split("│", 1)[1] for line in render_text(out.trace).splitlines()]
    heads = [i for i, line in enumerate(lines) if "Pulso" in line]
    assert "Pulso: 12 contra 7 → gana" in lines[heads[0]]
    assert "Pulso: empate (8 - 8), se vuelve a tirar" in lines[heads[1]]
    assert "Pulso, tirada 2: 12 - 7" in lines[heads[2]]
    # under each heading, that roll's checks, one level deeper
    first_roll = lines[heads[1] + 1 : heads[2]]
    assert len([line for line in first_roll if "Chequeo:" in line]) == 2
    indent = len(lines[heads[1]]) - len(lines[heads[1]].lstrip())
    assert all(len(line) - len(line.lstrip()) > indent for line in first_roll)
    assert "[5]" in " ".join(first_roll) and "[9]" not in " ".join(first_roll)


def test_verbose_on_the_command_line(capsys, tmp_path):
    rules = tmp_path / "slots.rules"
    rules.write_text(SLOTS, encoding="utf-8")
    sheet = tmp_path / "a.yaml"
    sheet.write_text("Nivel: 3\n", encoding="utf-8")
    argv = ["run", str(rules), "golpe", "--char", str(sheet)]
    assert main(argv) == 0
    brief = capsys.readouterr().out
    assert main([*argv, "--verbose"]) == 0
    verbose = capsys.readouterr().out
    assert "herida = 1" in brief and "herida = daño * 1 = 1" in verbose
    assert len(verbose.splitlines()) > len(brief.splitlines())


PICKED = """
rulebook "Picked" { language "en" }
action pick(edge: int = 1) "Advantage" {
  let a = d{0..99}
  let b = d{0..99}
  let best = if a < b then a else b
  let r = if edge > 0 then best else b
  result { roll: r }
}
"""


def test_a_pool_picked_from_pools_rolled_is_a_step_of_its_own():
    """`let best = if a < b then a else b` rolls nothing: its step says which one it kept
    (it was left out of the trace, the dice alone shown); a pool rolled is said once, by
    its dice."""
    engine = Engine(dsl.load_text(PICKED, "picked.rules"))
    for verbose in (False, True):
        outcome = engine.run("pick", engine.sheet({}), {}, dice=ForcedDice([12, 80]))
        text = render_text(outcome.trace, verbose=verbose)
        assert "best = " + ("if a < b then a else b = 12" if verbose else "12") in text
        assert "r = " in text and text.count("[12]") == 1
        assert outcome.result["roll"] == 12


CHAINED = """
rulebook "Chained" { language "en" }
roll check_die = d10 then {
  on die = 10: add d10
  on die = 1: subtract d10
}
check skill_check(bonus: int = 8) "Skill check" {
  let d = check_die
  roll d + bonus > 15
  critical = d.dice[1] = 10
}
"""


def test_a_named_roll_that_went_on_given_a_name_is_a_term_of_a_check():
    """`let d = check_die` (a roll with its own procedure) added in a check: its line
    showed it as a pool's faces and stopped every traced run with a Python error."""
    from interpreter.json_data import run_data

    engine = Engine(dsl.load_text(CHAINED, "chained.rules"))
    outcome = engine.run("skill_check", engine.sheet({}), {}, dice=ForcedDice([10, 7]))
    assert "Skill check: d 17 + bonus 8 = 25" in render_text(outcome.trace)
    assert "d [10] + [7] + bonus 8 = 25" in render_text(outcome.trace, verbose=True)
    steps = run_data(outcome)["trace"]
    assert any("d 17 + bonus 8" in str(step) for step in steps)
    assert outcome.result["critical"] is True


UNDER = """
rulebook "Under" { language "en" }
sheet {
  attribute WS in 1..100 default 41
  skills in 0..60 default 0
  counter Advantage in 0..10 default 1
}
table Difficulty { Easy: 40, Average: 20, Hard: -20 }
check test(skill: skill = none, difficulty: Difficulty = "Average") "Test" {
  roll d100 <= WS + skill + Difficulty[difficulty] + 10 * Advantage - 5
}
action strike() "Strike" {
  let t = test("Melee", "Hard")
  result { hit: t.success }
}
"""


def test_a_target_of_several_terms_shows_each():
    """A roll-under check's modifiers are in its target: its line showed `vs 31` alone.
    Each term is shown, in the rules' words, as the roll's are; by the closures and by
    the generated traced code alike (`codegen.SWITCH.generated`)."""
    from interpreter.compile.codegen import SWITCH

    engine = Engine(dsl.load_text(UNDER, "under.rules"))
    sheet = engine.sheet({"skills": {"Melee": 10}})
    line = "d100 [34] = 34 vs WS 41 + Melee 10 + Difficulty[Hard] -20 + 10 * Advantage 10 - 5 = 36"
    texts = set()
    for generated in (True, False):
        SWITCH.generated = generated
        try:  # (past `SWITCH.after` traced runs, the generated traced code runs them)
            for _ in range(SWITCH.after + 2):
                for name, params in (
                    ("test", {"skill": "Melee", "difficulty": "Hard"}),
                    ("strike", {}),
                ):
                    outcome = engine.run(name, sheet, params, dice=ForcedDice([34]), trace=True)
                    texts.add((name, render_text(outcome.trace)))
                    assert line in texts_of(outcome), texts_of(outcome)
        finally:
            SWITCH.generated = True
    assert len(texts) == 2  # (each the same every way)


def texts_of(outcome) -> str:
    return render_text(outcome.trace)
