"""Pentagrama (the house rules of a forum game): its rules, with forced dice.

The worked examples of Jorge and Ur are a table, tests/examples/pentagrama.yaml (run by
tests/test_worked_examples.py). Each test here cites the passage it reproduces.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cli_helpers import run_seeded

import dsl
from interpreter import (
    Engine,
    ForcedDice,
    InsufficientResource,
    ParameterError,
    RequirementFailed,
    SheetError,
    render_text,
)
from interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rulebooks" / "pentagrama.rules"
CHARACTERS = ROOT / "rulebooks" / "characters"
JORGE = CHARACTERS / "jorge.yaml"
UR = CHARACTERS / "ur.yaml"
MAESTRA = CHARACTERS / "pentagrama_maestra.yaml"
#: the weapons of the examples: Ur's long bow, Jorge's sword
UR_BOW = {"habilidad": "Arco", "atributo": "Destreza", "arma": "Arco largo"}
JORGE_SWORD = {"habilidad": "Espada", "atributo": "Fuerza", "arma": "Espada"}


@pytest.fixture(scope="module")
def book():
    return dsl.load(RULES)


@pytest.fixture(scope="module")
def engine(book):
    return Engine(book)


def data(path: Path, **changes) -> dict:
    """A shipped character's data, with some fields changed."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    raw.update(changes)
    return raw


def run(engine, action, sheet, params=None, dice=()):
    out = engine.run(action, sheet, params or {}, dice=ForcedDice(list(dice)))
    text = render_text(out.trace, verbose=True)  # every step, with its expressions
    print(text)
    return out, text


def changes(out) -> dict:
    return {c.path: (c.before, c.after) for c in out.changes}


# ─── the rulebook itself ────────────────────────────────────────────────────


def test_rulebook_loads_without_warnings(book):
    assert list(book.warnings) == []


def test_difficulty_ladder_and_its_numbers(book, engine):
    # The text names the levels but gives no numbers: the table is this rulebook's choice.
    sheet = engine.load_sheet(UR)
    expected = {
        "fácil": (0, 10, 0),
        "media": (1, 15, 5),
        "compleja": (2, 20, 10),
        "muy compleja": (3, 25, 15),
        "extrema": (4, 30, 20),
        "imposible": (5, 35, 25),
    }
    for level, (grado, objetivo, sobre_dg) in expected.items():
        out, _ = run(
            engine, "tirada_atributo", sheet, {"atributo": "Destreza", "dificultad": level}, [1]
        )
        assert out.result["nivel"] == level
        assert out.result["total"] == 1 + grado
        out, _ = run(
            engine,
            "tirada_habilidad",
            sheet,
            {"habilidad": "Daga", "atributo": "Destreza", "dificultad": level},
            [1],
        )
        assert out.result["objetivo"] == objetivo
        out, _ = run(
            engine,
            "desarmar",
            sheet,
            {"habilidad": "Daga", "atributo": "Destreza", "DG": 10, "dificultad": level},
            [1],
        )
        # disarming is one level harder than the attack's own difficulty
        assert out.result["objetivo"] == 10 + min(sobre_dg + 5, 25)


# ─── tiradas de atributo ────────────────────────────────────────────────────


def test_willpower_example_roll_under(engine):
    # «el pj tiene 6 en dicha característica, la tirada tiene un modificador de +2 ... se
    # lanza 1d10 y obtiene 5 ... el total es 7, tirada no superada»
    sheet = engine.load_sheet(JORGE)
    assert sheet["Voluntad"] == 6
    out, text = run(
        engine, "tirada_atributo", sheet, {"atributo": "Voluntad", "modificador": 2}, [5]
    )
    assert out.result["total"] == 7
    assert out.result["objetivo"] == 6
    assert out.result["éxito"] is False
    assert "d10 [5] + modificador 2 = 7 contra 6 (<=) → fallo" in text
    assert not out.changes
    # the same +2 as two levels of difficulty («por la dificultad extra»)
    out, _ = run(
        engine, "tirada_atributo", sheet, {"atributo": "Voluntad", "dificultad": "compleja"}, [5]
    )
    assert (out.result["total"], out.result["éxito"]) == (7, False)
    # equal to the attribute succeeds («menor o igual»)
    out, _ = run(engine, "tirada_atributo", sheet, {"atributo": "Voluntad", "modificador": 2}, [4])
    assert (out.result["total"], out.result["éxito"]) == (6, True)


def test_arm_wrestling_example_opposed(engine):
    # «A tiene fuerza 6 mientras que B tiene fuerza 4 ... A obtiene 2 en el d10 ... total
    # de 8 y B obtiene un 8 ... total de 12. B gana»
    a = engine.sheet(data(JORGE, Fuerza=6))
    out, text = run(engine, "tirada_enfrentada", a, {"atributo": "Fuerza", "rival": 4}, [2, 8])
    assert out.result["total"] == 8
    assert out.result["total_rival"] == 12
    assert out.result["gana"] is False
    assert out.result["diferencia"] == -4
    assert "8 contra 12 → pierde" in text
    # the same contest seen from B
    b = engine.sheet(data(JORGE, Fuerza=4))
    out, _ = run(engine, "tirada_enfrentada", b, {"atributo": "Fuerza", "rival": 6}, [8, 2])
    assert (out.result["total"], out.result["total_rival"], out.result["gana"]) == (12, 8, True)


def test_arm_wrestling_between_two_sheets(engine):
    # The same pulseada with B a character of its own (its Fuerza 4 on its sheet): the
    # same dice give the same contest, both ways.
    a, b = engine.sheet(data(JORGE, Fuerza=6)), engine.sheet(data(JORGE, Fuerza=4))
    out, _ = run(engine, "tirada_enfrentada", a, {"atributo": "Fuerza", "contra": b}, [2, 8])
    assert (out.result["total"], out.result["total_rival"], out.result["gana"]) == (8, 12, False)
    out, _ = run(engine, "tirada_enfrentada", b, {"atributo": "Fuerza", "contra": a}, [8, 2])
    assert (out.result["total"], out.result["total_rival"], out.result["gana"]) == (12, 8, True)
    with pytest.raises(RequirementFailed, match="el rival"):
        engine.run("tirada_enfrentada", a, {"atributo": "Fuerza"}, dice=ForcedDice([]))


def test_initiative_against_another_sheet(engine):
    ur, rival = engine.load_sheet(UR), engine.sheet(data(JORGE, Destreza=5))
    out, _ = run(engine, "iniciativa", ur, {"contra": rival}, [3, 6, 4, 2])
    assert (out.result["total"], out.result["total_rival"], out.result["primero"]) == (12, 7, True)


def test_jorges_wound_dealt_by_an_attack_on_his_sheet(engine):
    # «su adversario lo ataca con una espada que hace 4d6 + 3 de daño» (27: the dice show
    # 6, 6, 6, 6) and it lands on the right arm (2d10: 6, then 3 «Brazo»). Jorge takes it
    # on his own sheet (recibir_daño): «a los 27 puntos se le restan los 4 del CAF ... El
    # brazo es inutilizado ... se aplica lo que resta, en este caso 17, a la vida».
    adversario = engine.sheet(data(JORGE))
    jorge = engine.sheet(data(JORGE, **{"Defensa general": 20}))
    params = {"habilidad": "Espada", "atributo": "Fuerza", "arma": "Espada", "objetivo": jorge}
    out, text = run(engine, "atacar", adversario, params, [5, 5, 5, 6, 3, 6, 6, 6, 6])
    assert (out.result["objetivo"], out.result["total"], out.result["impacta"]) == (20, 29, True)
    assert (out.result["zona"], out.result["punto"], out.result["daño"]) == (
        "Brazo derecho",
        "Brazo",
        27,
    )
    assert out.changes == ()
    (target,) = out.characters
    assert {c.path: (c.before, c.after) for c in target.changes} == {
        "Puntos.Brazo derecho": (4, 0),
        "Vida": (15, -2),
    }
    assert "como objetivo:" in text  # (a sheet without a file: named by its role)
    # without a sheet, DG is given and the damage is the defender's to apply, as before
    by_number = {**params, "DG": 20}
    del by_number["objetivo"]
    out, _ = run(engine, "atacar", adversario, by_number, [5, 5, 5, 6, 3, 6, 6, 6, 6])
    assert out.result["daño"] == 27 and out.characters == ()


def test_initiative_is_opposed_dexterity_and_ties_reroll(engine):
    # «La tirada de iniciativa se considera una tirada enfrentada de destreza»
    sheet = engine.load_sheet(UR)  # Destreza 8
    out, _ = run(engine, "iniciativa", sheet, {"rival": 5}, [3, 6, 4, 2])
    # 3 + 8 = 11 against 6 + 5 = 11: a tie, rolled again: 4 + 8 = 12 against 2 + 5 = 7
    assert list(out.dice) == [3, 6, 4, 2]
    assert (out.result["total"], out.result["total_rival"], out.result["primero"]) == (12, 7, True)


# ─── tiradas de habilidad ───────────────────────────────────────────────────


def test_second_triangle_perception_example(engine):
    # «ha completado el segundo triángulo en advertir/notar y tiene un total de 4 en
    # percepción ... lanza 2d10+7 (2d10 ... + 4 ... + 3 del bono ...)»
    sheet = engine.load_sheet(UR)
    assert sheet["Percepción"] == 4
    out, text = run(
        engine,
        "tirada_habilidad",
        sheet,
        {"habilidad": "Advertir/notar", "atributo": "Percepción"},
        [3, 4],
    )
    assert list(out.dice) == [3, 4]  # two d10
    assert out.result["total"] == 3 + 4 + 7
    assert out.result["rango"] == "Iniciado en el segundo triángulo"
    assert "(t.dados)d10 = 2d10 [3, 4] + Percepción 4 + t.bono 3" in text


@pytest.mark.parametrize(
    ("triangulos", "dice", "bonus", "rank"),
    [
        (0, 1, -3, "Incapaz"),
        (1, 1, 1, "Iniciado en el primer triángulo"),
        (2, 2, 3, "Iniciado en el segundo triángulo"),
        (3, 3, 6, "Iniciado en el tercer triángulo"),
        (4, 4, 10, "Iniciado en el cuarto triángulo"),
        (5, 5, 15, "Maestro del pentagrama"),
    ],
)
def test_dice_and_bonus_by_triangles(engine, triangulos, dice, bonus, rank):
    # «Cantidad de dados a lanzar acorde a los triángulos» and «Capacidades»
    sheet = engine.sheet(data(UR, skills={"Nadar": triangulos}))
    out, _ = run(
        engine, "tirada_habilidad", sheet, {"habilidad": "Nadar", "atributo": "Fuerza"}, [2] * dice
    )
    assert len(out.dice) == dice
    assert out.result["total"] == 2 * dice + 4 + bonus  # Fuerza 4
    assert out.result["rango"] == rank


def test_skill_roll_must_exceed_the_target(engine):
    sheet = engine.load_sheet(UR)
    out, _ = run(
        engine,
        "tirada_habilidad",
        sheet,
        {"habilidad": "Advertir/notar", "atributo": "Percepción"},
        [4, 4],
    )
    assert (out.result["total"], out.result["objetivo"], out.result["éxito"]) == (15, 15, False)
    out, _ = run(
        engine,
        "tirada_habilidad",
        sheet,
        {"habilidad": "Advertir/notar", "atributo": "Percepción"},
        [4, 5],
    )
    assert out.result["éxito"] is True


# ─── localización ───────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("dice", "zone", "spot", "graze"),
    [
        ((1, 2), "Cabeza", "Cráneo", False),
        ((1, 4), "Cabeza", "Ojo derecho", False),
        ((1, 5), "Cabeza", "Ojo izquierdo", False),
        ((1, 7), "Cabeza", "Cara", False),
        ((1, 9), "Cabeza", "Cuello", False),
        ((1, 10), "Torso", "Pecho", False),
        ((4, 3), "Torso", "Pecho", False),
        ((2, 8), "Torso", "Estómago", False),
        ((5, 9), "Torso", "Cadera derecha", False),
        ((3, 10), "Torso", "Cadera izquierda", False),
        ((6, 1), "Brazo derecho", "Hombro", False),
        ((6, 5), "Brazo derecho", "Codo", False),
        ((7, 9), "Brazo izquierdo", "Mano", False),
        ((7, 10), "Torso", "Pecho", False),
        ((8, 6), "Pierna izquierda", "Rodilla", False),
        ((9, 8), "Pierna derecha", "Espinilla", False),
        ((9, 10), "Torso", "Cadera", False),
        ((10, 1), "Cabeza", None, True),
        ((10, 4), "Torso", None, True),
        ((10, 6), "Brazo derecho", None, True),
        ((10, 8), "Pierna izquierda", None, True),
        ((10, 10), "Torso", None, True),
    ],
)
def test_two_level_hit_location(engine, dice, zone, spot, graze):
    # «Tabla de localización»; «El primer dado indicaría la zona general y el segundo la
    # específica»; «10) Roce -El segundo dado indica la zona rozada»
    sheet = engine.load_sheet(UR)
    out, _ = run(engine, "localizar", sheet, {}, dice)
    assert (out.result["zona"], out.result["punto"], out.result["roce"]) == (zone, spot, graze)


def test_every_location_resolves_to_a_zone_of_the_sheet(engine):
    sheet = engine.load_sheet(UR)
    zones = {
        "Cabeza",
        "Torso",
        "Brazo derecho",
        "Brazo izquierdo",
        "Pierna izquierda",
        "Pierna derecha",
    }
    for first in range(1, 11):
        for second in range(1, 11):
            out = engine.run("localizar", sheet, {}, dice=ForcedDice([first, second]))
            assert out.result["zona"] in zones


# ─── daño: CAF, puntos del miembro, multiplicador ──────────────────────────


def test_the_lethal_state_rolls_against_death_then_unconsciousness(engine):
    # Jorge after the example: «17, a la vida dejando al pj en un estado letal y debiendo
    # realizar una tirada de salvación contra muerte y, de superarla, otra de inconsciencia».
    sheet = engine.load_sheet(JORGE)
    hit, _ = run(engine, "recibir_daño", sheet, {"daño": 27, "zona": "Brazo derecho"})
    assert hit.sheet["Vida"] == 15 - 17
    # Voluntad 6: 4 survives, 9 faints.
    out, _ = run(engine, "salvación", hit.sheet, {}, [4, 9])
    assert (out.result["vive"], out.result["consciente"]) == (True, False)
    assert changes(out) == {"Inconsciente": (False, True)}
    out, _ = run(engine, "salvación", hit.sheet, {}, [7])
    assert (out.result["vive"], out.sheet["Muerto"]) == (False, True)
    out, _ = run(engine, "salvación", hit.sheet, {}, [2, 3])
    assert (out.result["vive"], out.result["consciente"], changes(out)) == (True, True, {})
    with pytest.raises(RequirementFailed, match="estado letal"):
        engine.run("salvación", sheet, {}, dice=ForcedDice([2]))


def test_a_misspelt_skill_is_said_and_named_incapaz(engine, capsys):
    # «Incapaz 1d10 (0 en la habilidad, se aplica un modificador negativo a la tirada)»:
    # a skill the sheet does not have is Incapaz, and a misspelling is flagged with the
    # skill it most likely meant.
    argv = ["run", str(RULES), "tirada_habilidad", "--char", str(JORGE), "--seed", "1"]
    argv += ["--set", "habilidad=Espda", "--set", "atributo=Fuerza"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "Espada" in captured.err  # did you mean
    assert "Incapaz" in captured.out


def test_graze_halves_damage_rounding_down(engine):
    # «Roce ... el daño se divide entre 2»: 27 / 2 rounds down to 13 (this rulebook's choice)
    sheet = engine.load_sheet(JORGE)
    out, _ = run(
        engine, "recibir_daño", sheet, {"daño": 27, "zona": "Brazo derecho", "roce": "yes"}
    )
    r = out.result
    assert (r["recibido"], r["tras_lesión"], r["sobrante"], r["a_vida"]) == (13, 9, 5, 3)
    assert changes(out) == {"Puntos.Brazo derecho": (4, 0), "Vida": (15, 12)}


def test_damage_the_zone_absorbs_does_not_reach_life(engine):
    sheet = engine.load_sheet(JORGE)
    out, _ = run(engine, "recibir_daño", sheet, {"daño": 10, "zona": "Brazo izquierdo"})
    assert (out.result["tras_lesión"], out.result["al_miembro"], out.result["a_vida"]) == (6, 6, 0)
    assert changes(out) == {"Puntos.Brazo izquierdo": (8, 2)}
    assert out.result["letal"] is False


def test_multiplier_and_spiritual_damage(engine):
    # head ×3 (this rulebook's choice; the text gives only «1 para el brazo»)
    sheet = engine.load_sheet(JORGE)
    out, _ = run(engine, "recibir_daño", sheet, {"daño": 14, "zona": "Cabeza"})
    # 14 − 4 = 10; head 6 → 0; 4 × 3 = 12; − 2 = 10
    assert (out.result["sobrante"], out.result["multiplicado"], out.result["a_vida"]) == (4, 12, 10)
    # CAE (1/0 for Jorge) for spiritual damage
    out, _ = run(
        engine, "recibir_daño", sheet, {"daño": 14, "zona": "Cabeza", "tipo": "espiritual"}
    )
    assert (out.result["tras_lesión"], out.result["sobrante"], out.result["a_vida"]) == (13, 7, 21)
    assert out.sheet["Vida"] == -6
    # life stops at its minimum, − Vida máxima
    out, _ = run(engine, "recibir_daño", sheet, {"daño": 40, "zona": "Cabeza"})
    assert (out.result["a_vida"], out.sheet["Vida"]) == (88, -15)


# ─── the three ways to attack ──────────────────────────────────────────────


def test_attack_without_aiming_misses_on_failure(engine):
    # «En caso de fallar no se golpea al objetivo»: no location, no damage dice
    sheet = engine.load_sheet(JORGE)
    out, _ = run(
        engine,
        "atacar",
        sheet,
        {"habilidad": "Espada", "atributo": "Fuerza", "arma": "Espada", "DG": 30},
        [1, 1, 1],
    )
    assert (out.result["impacta"], out.result["zona"], out.result["daño"]) == (False, None, 0)
    assert list(out.dice) == [1, 1, 1]


def test_attack_at_a_zone_lucky_roll_on_failure(engine):
    # «decide entonces apuntar a la cabeza con lo que la dificultad asciende a media»;
    # «En caso de fallar se hará una tirada de suerte enfrentada»
    sheet = engine.load_sheet(JORGE)  # Suerte 5
    params = {**JORGE_SWORD, "DG": 20, "zona": "Cabeza", "suerte_rival": 5}
    # fails (3 + 8 + 6 = 17 ≤ 25); luck 7 + 5 = 12 against 2 + 5 = 7: hits elsewhere (2d10)
    out, _ = run(engine, "atacar_zona", sheet, params, [1, 1, 1, 7, 2, 8, 6, 1, 2, 3, 4])
    r = out.result
    assert (r["nivel"], r["objetivo"], r["total"]) == ("media", 25, 17)
    assert (r["impacta"], r["en_otro_lado"]) == (True, True)
    assert (r["zona"], r["punto"]) == ("Pierna izquierda", "Rodilla")
    assert r["daño"] == 1 + 2 + 3 + 4 + 3
    # fails and loses the luck roll: a miss
    out, _ = run(engine, "atacar_zona", sheet, params, [1, 1, 1, 2, 7])
    assert (out.result["impacta"], out.result["zona"], out.result["daño"]) == (False, None, 0)
    # succeeds: 1d10 on the head's row; a 10 there is the chest
    out, _ = run(engine, "atacar_zona", sheet, params, [9, 9, 9, 10, 1, 1, 1, 1])
    assert (out.result["zona"], out.result["punto"]) == ("Torso", "Pecho")


def test_attack_at_a_specific_spot(engine):
    # «si lo que quiere es que su ataque vaya dirigido al ojo derecho, realiza su tirada de
    # ataque contra una dificultad compleja y, de tener éxito, el daño se efectúa
    # directamente en ese punto sin hacer tirada de localización alguna»
    sheet = engine.load_sheet(UR)
    params = {**UR_BOW, "DG": 10, "zona": "Cabeza", "punto": "Ojo derecho", "suerte_rival": 5}
    out, _ = run(engine, "atacar_punto", sheet, params, [4, 4, 4, 6, 6])
    r = out.result
    assert (r["nivel"], r["objetivo"], r["total"], r["impacta"]) == ("compleja", 20, 26, True)
    assert (r["zona"], r["punto"], r["daño"]) == ("Cabeza", "Ojo derecho", 14)
    assert list(out.dice) == [4, 4, 4, 6, 6]  # attack and damage only: no location dice
    with pytest.raises(RequirementFailed, match="no es un lugar"):
        engine.run("atacar_punto", sheet, {**params, "punto": "Rodilla"}, dice=ForcedDice([]))


def test_hitting_elsewhere_never_lands_where_it_was_aimed(engine):
    # «En caso de fallar se hará una tirada de suerte enfrentada para determinar si se
    # acierta en otro lado o no»: aimed at the head, the location roll 1, 5 (the left eye)
    # is the head again, so it is rolled again: 2, 3 (the chest).
    sheet = engine.load_sheet(JORGE)
    params = {**JORGE_SWORD, "DG": 20, "zona": "Cabeza", "suerte_rival": 5}
    out, text = run(engine, "atacar_zona", sheet, params, [1, 1, 1, 7, 2, 1, 5, 2, 3, 1, 1, 1, 1])
    assert (out.result["en_otro_lado"], out.result["zona"], out.result["punto"]) == (
        True,
        "Torso",
        "Pecho",
    )
    assert "se vuelve a tirar" in text
    # Aimed at the right eye, the same eye is not «otro lado», the left eye is.
    ur = engine.load_sheet(UR)
    spot = {**UR_BOW, "DG": 30, "zona": "Cabeza", "punto": "Ojo derecho", "suerte_rival": 2}
    out, _ = run(engine, "atacar_punto", ur, spot, [1, 1, 1, 5, 1, 1, 4, 1, 5, 3, 3])
    assert (out.result["zona"], out.result["punto"]) == ("Cabeza", "Ojo izquierdo")


def test_any_spot_of_a_zone_can_be_aimed_at(engine):
    # «por ejemplo al ojo derecho, a la yugular, a la mano, a la rodilla, a tal o cual punto
    # de presión, etc.»: «yugular» is not in the location table, but it is a spot of the
    # head; it is aimed at like any other (fácil + 2 = compleja).
    ur = engine.load_sheet(UR)
    params = {**UR_BOW, "DG": 10, "zona": "Cabeza", "punto": "yugular", "suerte_rival": 5}
    out, text = run(engine, "atacar_punto", ur, params, [4, 4, 4, 6, 6])
    assert (out.result["nivel"], out.result["impacta"], out.result["punto"]) == (
        "compleja",
        True,
        "yugular",
    )
    assert "no está en la tabla" in text
    # A spot the table puts in another zone is refused, and the message lists the zone's.
    with pytest.raises(RequirementFailed, match="Cráneo, Ojo derecho, Ojo izquierdo, Cara"):
        engine.run("atacar_punto", ur, {**params, "punto": "Rodilla"}, dice=ForcedDice([]))


def test_attacks_take_a_modifier(engine):
    # «apuntar para obtener algún bono al ataque», or the director's ±: Jorge's Espada 3
    # (3d10 + Fuerza 8 + 6) with 1, 1, 1 is 17; +4 makes 21, over DG 20.
    sheet = engine.load_sheet(JORGE)
    params = {"habilidad": "Espada", "atributo": "Fuerza", "arma": "Espada", "DG": 20}
    out, _ = run(engine, "atacar", sheet, params, [1, 1, 1])
    assert (out.result["total"], out.result["impacta"]) == (17, False)
    out, _ = run(engine, "atacar", sheet, {**params, "modificador": 4}, [1, 1, 1, 3, 4, 1, 1, 1, 1])
    assert (out.result["total"], out.result["impacta"]) == (21, True)
    assert (out.result["zona"], out.result["punto"]) == ("Torso", "Pecho")
    # (a zone attack that fails loses its luck roll, 1 + 5 against 10 + 5: no more dice)
    for action, extra, dice in [
        ("atacar_zona", {"zona": "Cabeza", "suerte_rival": 5}, [1, 1, 1, 1, 10]),
        ("desarmar", {}, [1, 1, 1]),
    ]:
        base = {**params, **extra}
        if action == "desarmar":
            base.pop("arma")
        plain = engine.run(action, sheet, base, dice=ForcedDice(dice))
        more = engine.run(action, sheet, {**base, "modificador": -3}, dice=ForcedDice(dice))
        assert more.result["total"] == plain.result["total"] - 3
    out, _ = run(
        engine,
        "bloquear",
        sheet,
        {"habilidad": "Espada", "atributo": "Fuerza", "ataque": 17, "modificador": 1},
        [1, 1, 1],
    )
    assert (out.result["total"], out.result["bloquea"]) == (18, True)


def test_disarm_needs_dg_plus_one_level(engine):
    # «debe superarse un valor igual a los DG más un nivel de dificultad»
    sheet = engine.load_sheet(JORGE)
    params = {"habilidad": "Espada", "atributo": "Fuerza", "DG": 10}
    out, _ = run(engine, "desarmar", sheet, params, [1, 1, 1])
    assert (out.result["objetivo"], out.result["total"], out.result["desarma"]) == (15, 17, True)
    out, _ = run(engine, "desarmar", sheet, {**params, "DG": 12}, [1, 1, 1])
    assert (out.result["objetivo"], out.result["desarma"]) == (17, False)


def test_block_lowers_the_next_attack_one_level(engine):
    # «superar el ataque del rival. Si se tiene éxito ... disminuir la dificultad del
    # próximo ataque en un nivel»
    sheet = engine.load_sheet(JORGE)
    out, _ = run(
        engine,
        "bloquear",
        sheet,
        {"habilidad": "Espada", "atributo": "Fuerza", "ataque": 20},
        [3, 3, 1],
    )
    assert (out.result["total"], out.result["bloquea"]) == (21, True)
    assert changes(out) == {"Ventaja": (False, True)}
    ataque = {**JORGE_SWORD, "DG": 10, "zona": "Cabeza", "punto": "Cuello", "suerte_rival": 5}
    out2, _ = run(engine, "atacar_punto", out.sheet, ataque, [1, 1, 1, 1, 1, 1, 1])
    assert out2.result["nivel"] == "media"  # compleja − 1
    assert changes(out2) == {"Ventaja": (True, False)}  # used up
    # a failed block changes nothing; equal is not enough («superar»)
    out, _ = run(
        engine,
        "bloquear",
        sheet,
        {"habilidad": "Espada", "atributo": "Fuerza", "ataque": 21},
        [3, 3, 1],
    )
    assert (out.result["bloquea"], bool(out.changes)) == (False, False)


# ─── numen ──────────────────────────────────────────────────────────────────


def test_numen_is_ten_times_vibration_plus_ten_reserve(engine):
    # «multiplicando por diez el atributo Vibración y además ... diez puntos extra»
    sheet = engine.load_sheet(MAESTRA)
    assert (sheet["Vibración"], sheet["Numen"], sheet["Reserva"]) == (3, 30, 10)
    assert engine.load_sheet(JORGE)["Numen"] == 20


def test_mastery_example_rolled_spell(engine):
    # «Podría lanzar un hechizo de 1d12 de daño por 7 puntos de numen más la base (12)»
    # (LECTURA: 7 for the d12 plus the base, 5, is the normal cost: 12)
    sheet = engine.load_sheet(MAESTRA)
    out, text = run(engine, "lanzar_hechizo", sheet, {"hechizo": "Rayo de luz"}, [9])
    r = out.result
    assert (r["coste_dados"], r["base"], r["normal"], r["coste"]) == (7, 5, 12, 12)
    assert r["efecto"] == 9
    assert r["maestría"] == "Maestro del pentagrama"
    assert changes(out) == {"Numen": (30, 18)}
    assert "coste_dados = hechizo.dados * coste_dado(hechizo.caras) = 7" in text


def test_mastery_example_fixed_amount(engine):
    # «o bien lanzar ese mismo hechizo provocando los 12 puntos de daño gastando 18 puntos»:
    # «una cantidad igual al gasto normal del dominio por 1.5»: 12 × 1.5
    sheet = engine.load_sheet(MAESTRA)
    out, _ = run(engine, "lanzar_hechizo", sheet, {"hechizo": "Rayo de luz", "fijo": "yes"})
    assert (out.result["efecto"], out.result["normal"], out.result["coste"]) == (12, 12, 18)
    assert list(out.dice) == []
    assert changes(out) == {"Numen": (30, 12)}


def test_a_fixed_amount_is_a_surcharge_on_the_whole_normal_cost(engine):
    # 3d6: 3 × 4 (3.5 → 4) + base 6 = 18 rolled; fixed, 18 × 1.5 = 27: never cheaper.
    sheet = engine.load_sheet(MAESTRA)
    out, _ = run(engine, "lanzar_hechizo", sheet, {"hechizo": "Bola de fuego"}, [1, 2, 3])
    assert (out.result["coste_dados"], out.result["coste"], out.result["efecto"]) == (12, 18, 6)
    out, _ = run(engine, "lanzar_hechizo", sheet, {"hechizo": "Bola de fuego", "fijo": "yes"})
    assert (out.result["coste"], out.result["efecto"]) == (27, 18)
    assert changes(out) == {"Numen": (30, 3)}
    # A fixed 9d12 (base 1): 1 + 9 × 7 = 64, × 1.5 = 96, not 1.5 × the base.
    storm = {
        "pentagrama": "Elemental",
        "triángulo": "Elemental de Aire",
        "dados": 9,
        "caras": 12,
        "base": 1,
    }
    raw = data(MAESTRA, Vibración=10)
    raw["Hechizos"]["Tormenta"] = storm
    big = engine.sheet(raw)
    out, _ = run(
        engine, "lanzar_hechizo", big, {"hechizo": "Tormenta", "fijo": "yes", "cantidad": 50}
    )
    assert (out.result["normal"], out.result["coste"], out.result["efecto"]) == (64, 96, 50)
    assert changes(out) == {"Numen": (100, 4)}


def test_a_spell_needs_its_triangle(engine):
    # «cada triángulo brinda acceso a una rama de ese área en particular»
    raw = data(MAESTRA)
    raw["Triángulos dominados"] = [
        t for t in raw["Triángulos dominados"] if t != "Elemental de Luz"
    ] + ["Encantamiento"]
    with pytest.raises(RequirementFailed, match="no domina ese triángulo"):
        engine.run(
            "lanzar_hechizo",
            engine.sheet({**raw, "Anímico": 2, "Elemental": 4}),
            {"hechizo": "Rayo de luz"},
            dice=ForcedDice([5]),
        )
    # The triangles must agree with the pentagram's number.
    with pytest.raises(SheetError, match="Elemental debe ser"):
        engine.sheet({**data(MAESTRA), "Elemental": 4})
    with pytest.raises(SheetError, match="no existe"):
        engine.sheet(
            {
                **data(MAESTRA),
                "Triángulos dominados": [
                    *data(MAESTRA)["Triángulos dominados"],
                    "Elemental de Hielo",
                ],
            }
        )
    # A spell of one pentagram cannot name another's triangle.
    bad = data(MAESTRA)
    bad["Hechizos"]["Llama"] = {
        "pentagrama": "Anímico",
        "triángulo": "Elemental de Fuego",
        "dados": 1,
        "caras": 6,
        "base": 1,
    }
    with pytest.raises(RequirementFailed, match="del pentagrama Elemental, no de Anímico"):
        engine.run("lanzar_hechizo", engine.sheet(bad), {"hechizo": "Llama"}, dice=ForcedDice([5]))


def test_an_enchantment_needs_the_triangle_of_its_property(engine):
    # «crear un arma mágica que provoque daño de fuego, para esto el encantador también debe
    # tener acceso al pentagrama Elemental y al triángulo Elemental de Fuego»
    raw = data(MAESTRA, Anímico=2)
    raw["Triángulos dominados"] = [*raw["Triángulos dominados"], "Encantamiento"]
    sheet = engine.sheet(raw)
    params = {"hechizo": "Filo ardiente", "propiedad": "Elemental de Fuego"}
    out, _ = run(engine, "lanzar_hechizo", sheet, params, [4])
    assert (out.result["coste"], out.result["efecto"]) == (3 + 4, 4)
    without_fire = dict(raw)
    without_fire["Triángulos dominados"] = [
        t for t in raw["Triángulos dominados"] if t != "Elemental de Fuego"
    ]
    without_fire["Elemental"] = 4
    with pytest.raises(RequirementFailed, match="dominar también"):
        engine.run("lanzar_hechizo", engine.sheet(without_fire), params, dice=ForcedDice([4]))


def test_incapaz_senses_the_law_for_free(engine):
    # «Incapaz: No se puede hacer uso de la ley pero se siente su presencia, también permite
    # sentir los usos que otros hagan de la ley sin costo alguno de numen»
    out, _ = run(engine, "sentir_la_ley", engine.load_sheet(JORGE), {"pentagrama": "Alterador"})
    assert (out.result["siente"], out.result["maestría"], out.result["coste"]) == (
        True,
        "Incapaz",
        0,
    )
    assert changes(out) == {}


def test_mastery_limits(engine):
    # «Iniciado en el primer triángulo ... Cantidad máxima: 1 (1d6)»; «Incapaz: No se puede
    # hacer uso de la ley»; only the master fixes the amount
    sheet = engine.load_sheet(MAESTRA)
    with pytest.raises(RequirementFailed, match="cantidad máxima de dados"):
        engine.run(
            "lanzar_hechizo", sheet, {"hechizo": "Espíritus del bosque"}, dice=ForcedDice([])
        )
    with pytest.raises(RequirementFailed, match="Incapaz"):
        engine.run("lanzar_hechizo", sheet, {"hechizo": "Empujón"}, dice=ForcedDice([]))
    alumna_data = data(MAESTRA, Elemental=4)
    alumna_data["Triángulos dominados"].remove("Elemental de Agua")
    alumna = engine.sheet(alumna_data)
    with pytest.raises(RequirementFailed, match="supera el dado máximo"):
        engine.run("lanzar_hechizo", alumna, {"hechizo": "Rayo de luz"}, dice=ForcedDice([]))
    with pytest.raises(RequirementFailed, match="sólo el Maestro"):
        engine.run(
            "lanzar_hechizo",
            alumna,
            {"hechizo": "Bola de fuego", "fijo": "yes"},
            dice=ForcedDice([]),
        )


def test_spending_the_reserve(engine):
    # the numen goes first, then the reserve («a medida que comience a utilizarlos»)
    sheet = engine.sheet(data(MAESTRA, Numen=10))
    out, text = run(engine, "lanzar_hechizo", sheet, {"hechizo": "Rayo de luz"}, [4])
    assert (out.result["de_numen"], out.result["de_reserva"]) == (10, 2)
    assert changes(out) == {"Numen": (10, 0), "Reserva": (10, 8)}
    assert "usa la reserva" in text
    # down to zero: death («morir si sus puntos de reserva desciende a cero»)
    sheet = engine.sheet(data(MAESTRA, Numen=9))
    out, text = run(engine, "lanzar_hechizo", sheet, {"hechizo": "Rayo de luz", "fijo": "yes"})
    assert changes(out) == {"Numen": (9, 0), "Reserva": (10, 1)}
    sheet = engine.sheet(data(MAESTRA, Numen=8))
    out, text = run(engine, "lanzar_hechizo", sheet, {"hechizo": "Rayo de luz", "fijo": "yes"})
    assert out.sheet["Reserva"] == 0
    assert "la reserva llega a cero: muerte" in text


def test_not_enough_numen_changes_nothing(engine):
    sheet = engine.sheet(data(MAESTRA, Numen=5, Reserva=3))
    before = dict(sheet.values)
    with pytest.raises(InsufficientResource):
        engine.run(
            "lanzar_hechizo", sheet, {"hechizo": "Rayo de luz", "fijo": "yes"}, dice=ForcedDice([])
        )
    assert dict(sheet.values) == before
    assert (sheet["Numen"], sheet["Reserva"]) == (5, 3)


def test_numen_absorbed(engine):
    # «el ataque de alguna criatura o arma con la habilidad de absorber numen»
    sheet = engine.sheet(data(MAESTRA, Numen=4))
    out, text = run(engine, "perder_numen", sheet, {"cantidad": 20})
    assert changes(out) == {"Numen": (4, 0), "Reserva": (10, 0)}
    assert out.result["muere"] is True
    assert "muerte" in text
    # 20 absorbed, 4 from the numen, and the reserve had only 10: 10 lost from it, not 16.
    assert (out.result["de_numen"], out.result["de_reserva"]) == (4, 10)
    out, _ = run(engine, "perder_numen", sheet, {"cantidad": 9})
    assert (out.result["de_numen"], out.result["de_reserva"], out.result["muere"]) == (4, 5, False)


def test_numen_regeneration(engine):
    # «Vibración por hora de sueño o descanso y la mitad en caso de estar realizando alguna
    # actividad ... los puntos de reserva se regeneran a 1 punto por hora de sueño o
    # descanso y nada en caso de estar realizando alguna actividad»
    sheet = engine.sheet(data(MAESTRA, Numen=0, Reserva=5))
    out, _ = run(engine, "descansar", sheet, {"horas": 4})
    assert changes(out) == {"Numen": (0, 12), "Reserva": (5, 9)}
    out, _ = run(engine, "descansar", sheet, {"horas": 3, "actividad": "yes"})
    assert changes(out) == {"Numen": (0, 4)}  # 3 × 3 / 2 = 4.5, rounded down
    out, _ = run(engine, "descansar", sheet, {"horas": 20})
    assert (out.sheet["Numen"], out.sheet["Reserva"]) == (30, 10)  # capped


def test_a_sheet_must_give_life_and_every_zone(engine):
    # The text gives no formula for them: a sheet that leaves them out is refused, not
    # given 1 point.
    raw = data(JORGE)
    del raw["Vida máxima"]
    with pytest.raises(SheetError, match="Vida máxima"):
        engine.sheet(raw)
    raw = data(JORGE)
    del raw["Cabeza"]
    with pytest.raises(SheetError, match="cada zona"):
        engine.sheet(raw)


def test_bad_parameters_are_refused(engine):
    sheet = engine.load_sheet(JORGE)
    with pytest.raises(ParameterError):
        engine.run("recibir_daño", sheet, {"daño": 5, "zona": "Cola"}, dice=ForcedDice([]))
    with pytest.raises(ParameterError):
        engine.run(
            "tirada_habilidad",
            sheet,
            {"habilidad": "Espada", "atributo": "Fuerza", "dificultad": "dura"},
            dice=ForcedDice([]),
        )


# ─── every action through the command line ─────────────────────────────────

CLI_RUNS = {
    "tirada_atributo": (JORGE, ["atributo=Voluntad", "modificador=2"]),
    "tirada_enfrentada": (JORGE, ["atributo=Fuerza", "rival=4"]),
    "iniciativa": (UR, ["rival=6"]),
    "tirada_habilidad": (UR, ["habilidad=Advertir/notar", "atributo=Percepción"]),
    "acción_sin_tirada": (UR, ["acción=3", "qué=recargar"]),
    "localizar": (UR, []),
    "atacar": (UR, ["habilidad=Arco", "atributo=Destreza", "arma=Arco largo", "DG=10"]),
    "atacar_zona": (
        JORGE,
        [
            "habilidad=Espada",
            "atributo=Fuerza",
            "arma=Espada",
            "DG=12",
            "zona=Cabeza",
            "suerte_rival=5",
        ],
    ),
    "atacar_punto": (
        UR,
        [
            "habilidad=Arco",
            "atributo=Destreza",
            "arma=Arco largo",
            "DG=10",
            "zona=Cabeza",
            "punto=Ojo derecho",
            "suerte_rival=5",
        ],
    ),
    "desarmar": (JORGE, ["habilidad=Espada", "atributo=Fuerza", "DG=10"]),
    "bloquear": (JORGE, ["habilidad=Espada", "atributo=Fuerza", "ataque=18"]),
    "recibir_daño": (JORGE, ["daño=27", "zona=Brazo derecho"]),
    "perder_numen": (MAESTRA, ["cantidad=5"]),
    "descansar": (MAESTRA, ["horas=2"]),
    "lanzar_hechizo": (MAESTRA, ["hechizo=Rayo de luz"]),
    "acertar_en_otro_lado": (JORGE, ["zona=Torso"]),
    "sentir_la_ley": (JORGE, ["pentagrama=Anímico"]),
    "salvación": (JORGE, []),
}


def test_cli_runs_cover_every_action(book):
    assert set(CLI_RUNS) == set(book.actions)


@pytest.fixture
def cached_load(book, monkeypatch):
    """Parsing the rulebook takes a while: the command line gets the
    rulebook this module already loaded; everything else it does is the real path."""
    import interpreter.cli.options

    monkeypatch.setattr(interpreter.cli.options, "load_rulebook", lambda reference: book)


@pytest.mark.parametrize("action", sorted(CLI_RUNS))
def test_every_action_runs_from_the_command_line(action, cached_load, capsys, tmp_path):
    character, settings = CLI_RUNS[action]
    if action == "salvación":  # Jorge after the example: in a lethal state
        character = tmp_path / "jorge_herido.yaml"
        character.write_text(JORGE.read_text(encoding="utf-8") + "Vida: -2\n", encoding="utf-8")
    printed = run_seeded(capsys, RULES, action, character, settings, 7)
    assert f"Pentagrama · {action}" in printed
    assert "resultado:" in printed


def test_cli_check_is_clean(capsys):
    assert main(["check", str(RULES)]) == 0
    printed = capsys.readouterr().out
    assert "warning" not in printed
    assert printed.strip().endswith(": ok")
