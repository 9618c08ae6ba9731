"""grammar/README.md: the worked example of each construct of outcomes, choices and other
characters loads, with the few definitions it leans on, and does what the reference says
(the trace lines it quotes, the odds it promises)."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

import dsl
from interpreter import Engine, ForcedDice, render_text

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "grammar" / "README.md"

# What the examples lean on and the reference defines elsewhere: a sheet, a check.
PRELUDE = """
rulebook "Referencia" { language "es" }
sheet {
  attribute Fuerza, Destreza in 1..10 default 3
  skills in 0..5 default 0
  resource Vida max 10 + Fuerza
  derived Defensa = 10 + Destreza
  flag Caído default no
  resource PuntosDestino max 3
}
check golpe(bono: int, defensa: int) "Golpe" { roll d20 + bono >= defensa }
check salvar(atributo: attribute, cd: int) "Salvación" { roll d20 + atributo >= cd }
check tirada(habilidad: skill, dificultad: int) "Tirada" {
  roll 4dF + habilidad >= dificultad
}
table Resultado by desplazamientos {
  ..-1: "fallo"
  0: "empate"
  1..2: "éxito"
  3..: "éxito con estilo"
}
"""


def example(heading: str) -> str:
    """The first code block under a heading of the reference."""
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    return re.search(r"^```(?:rulebook)?\n(.*?)^```$", text[start:], flags=re.S | re.M).group(1)


def reference_says(quote: str) -> bool:
    return quote in REFERENCE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def engine():
    parts = [
        example("### Outcomes a check defines itself"),
        example("### Other characters"),
        example("### Choices after the roll"),
    ]
    # and an action to run the opposed check of the example with
    parts.append("action echar(rival: character) { let p = pulso(rival)  result { gana: p.won } }")
    book = dsl.load_text(PRELUDE + "\n".join(parts), "referencia.rules")
    return Engine(book)


def test_a_check_defines_its_success_and_degrees(engine):
    sheet = engine.sheet({})
    out = engine.run_check("ataque", sheet, {"bono": 20, "ca": 5}, ForcedDice([1]))
    assert (out.result["success"], out.result["degree"]) == (False, "fallo")
    line = "Ataque: dado [1] + bono 20 = 21 contra 5 → fallo"
    assert line in render_text(out.trace) and reference_says(line)
    odds = engine.odds("ataque", sheet, {"bono": 20, "ca": 5}, field="degree")
    assert odds.probabilities == {
        "crítico": Fraction(1, 20),
        "impacto": Fraction(18, 20),
        "fallo": Fraction(1, 20),
    }


def test_an_action_against_another_character(engine, tmp_path):
    (tmp_path / "orco.yaml").write_text("Fuerza: 1\nDestreza: 2\nVida: 5\n", encoding="utf-8")
    orco = engine.load_sheet(tmp_path / "orco.yaml")
    heroe = engine.sheet({"Fuerza": 5})
    # golpe: d20 15 + Fuerza 5 = 20 against the orc's Defensa 12; the orc's save: d20 10 +
    # its Destreza 2 = 12 against 10 + the hero's Fuerza 5
    out = engine.run("atacar", heroe, {"objetivo": orco}, ForcedDice([15, 10]))
    assert dict(out.result) == {"golpe": True, "salva": False}
    text = render_text(out.trace)
    for quote in ("pierde 6 de orco.Vida: 5 → 0", "como orco:"):
        assert reference_says(quote) and quote in text
    assert out.sheets["objetivo"]["Caído"] is True and out.changes == ()
    # the opposed check: the hero's d20 + Fuerza 5 against the orc's d20 + its Fuerza 1
    assert engine.run("echar", heroe, {"rival": orco}, ForcedDice([12, 9])).result["gana"]
    assert not engine.run("echar", heroe, {"rival": orco}, ForcedDice([3, 9])).result["gana"]


def test_a_choice_after_the_roll(engine):
    sheet = engine.sheet({"skills": {"Atletismo": 1}})
    params = {"habilidad": "Atletismo"}
    out = engine.run("superar", sheet, params, ForcedDice([1, 0, 0, 0]), choices={"invocar": "sí"})
    assert out.result["resultado"] == "éxito"  # 1 + 1 + 2 against 2
    assert [(c.path, c.before, c.after) for c in out.changes] == [("PuntosDestino", 3, 2)]
    quote = "invocar: sí (respondido\n  de antemano)"
    assert reference_says(quote)
    assert "invocar: sí (respondido de antemano)" in render_text(out.trace)
    best = engine.odds("superar", sheet, params, field="resultado",
                       best="resultado=éxito con estilo")  # fmt: skip
    # 4dF + 1 - 2 of 3 or more is a roll of 4: invoking reaches it from 2 and 3 too
    assert best.probabilities["éxito con estilo"] == Fraction(1 + 4 + 10, 81)


def test_symbol_dice_as_the_reference_shows_them():
    book = dsl.load_text(example("## Symbol dice"), "symbols.rules")
    engine = Engine(book)
    sheet = engine.sheet({})
    dice = ForcedDice(["success+advantage", "blank", "threat", "failure"])
    out = engine.run("skill", sheet, {"boost": 2, "setback": 0}, dice)
    quote = "(boost)dBoost = 2dBoost [success+advantage, blank] = success 1, advantage 1"
    assert quote in render_text(out.trace) and reference_says(quote)
    assert (out.result["success"], out.result["advantage"]) == (False, 0)
    # 1 Boost and 2 Setback: a success (2 faces in 6) and no failure (2 in 6, twice)
    odds = engine.odds("skill", sheet, {"boost": 1, "setback": 2}, field="success")
    assert odds.probabilities[True] == Fraction(2, 6) * Fraction(4, 6) ** 2
