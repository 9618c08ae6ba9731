"""Arcana Mundi: the rulebook against the rules of its source text.

Source: Arcana Mundi (Nosolorol), the article «El poder de la Teúrgia», with the 2d10
"capicúa" roll of the game's public description. The numbers of the two worked examples
are a table, tests/examples/arcana_mundi.yaml (run by tests/test_worked_examples.py);
here, the rules around them, with forced dice: 2d10 faces are chosen so that they are
not doubles (12 = [5, 7], 11 = [5, 6], 9 = [4, 5], 7 = [3, 4]) unless a test wants the chain.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import command, run_seeded

import dsl
from interpreter import (
    Engine,
    ForcedDice,
    InsufficientResource,
    ParameterError,
    RequirementFailed,
    SeededDice,
    SheetError,
    cli,
    render_text,
)
from interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rulebooks" / "arcana_mundi.rules"
MENECMA = ROOT / "rulebooks" / "characters" / "menecma.yaml"

FORTALEZA = "La fortaleza de Perséfone"
GRITO = "Grito Báquico"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(dsl.load(str(RULES)))


@pytest.fixture(scope="module")
def menecma(engine):
    return engine.load_sheet(str(MENECMA))


def checks(out, name: str) -> list[dict]:
    """The data of every `name` check in the trace, in order."""
    return [
        step.data
        for step in out.trace
        if step.kind == "check" and step.data and step.data.get("check") == name
    ]


def check(out, name: str) -> dict:
    found = checks(out, name)
    assert len(found) == 1, f"{name}: {len(found)} checks in the trace"
    return found[0]


def changes(out) -> dict:
    return {c.path: (c.before, c.after) for c in out.changes}


def notes(out) -> list[str]:
    return [step.data["note"] for step in out.trace if step.kind == "note"]


#: a grade-3 don of Fides (Inteligencia), beside Menecma's own núminas
DON_MAYOR = {
    "grado": 3,
    "misterio": "Hierofanía",
    "manifestación": "don",
    "dignitas": "Fides",
    "característica": "Inteligencia",
}


def with_numinas(menecma, **numinas) -> dict:
    """Menecma's data with more núminas (by name)."""
    data = menecma.to_data()
    data["Núminas"] = {**data["Núminas"], **numinas}
    return data


def variant(engine, menecma, **fields):
    """Menecma's sheet with some fields changed (for tests beyond the worked examples)."""
    data = menecma.to_data()
    if "dinamis" not in fields:
        data.pop("dinamis", None)  # full pools, whatever the Dignitates now are
    data.update(fields)
    return engine.sheet(data)


# ─── the sheet ──────────────────────────────────────────────────────────────


def test_menecma_sheet_is_her_sheet_in_the_text(menecma):
    # "Características: Fuerza 5, Destreza 6, Constitución 6, Percepción 6, Inteligencia 7,
    # Cultura 8, Carisma 7. Habilidades: Corpus religio 3, Sabiduría del culto 3.
    # Dignitates: Virtus 1, Gravitas 2, Fides 3. Misterios: Hierofanía 3."
    expected = {
        "Fuerza": 5,
        "Destreza": 6,
        "Constitución": 6,
        "Percepción": 6,
        "Inteligencia": 7,
        "Cultura": 8,
        "Carisma": 7,
        "Corpus religio": 3,
        "Sabiduría del culto": 3,
        "Virtus": 1,
        "Gravitas": 2,
        "Fides": 3,
        "Hierofanía": 3,
        "Tributo": 3,
        "Tributo de dominatus": 3,
        "Espiritista": 3,
        "Estudioso": 3,
    }
    assert {k: menecma.get(k) for k in expected} == expected
    assert list(menecma.get("Dominatus")) == [
        "La virtud de las plantas",
        "El lenguaje de las plantas",
        "El lenguaje del reino animal",
    ]
    numinas = menecma.get("Núminas")
    assert {k: v["grado"] for k, v in numinas.items()} == {
        FORTALEZA: 1,
        "La visión de Perséfone": 1,
        "Gephyrismos": 1,
        GRITO: 3,
    }


def test_dinamis_is_five_times_each_dignitas(engine, menecma):
    # "Esto le proporciona 5 puntos de dinamis de Virtus, 10 de Gravitas y 15 de Fides."
    assert [menecma.get(f"dinamis.{d}") for d in ("Virtus", "Gravitas", "Fides")] == [5, 10, 15]
    other = variant(engine, menecma, Virtus=4, Gravitas=0, Fides=1)
    assert [other.get(f"dinamis.{d}") for d in ("Virtus", "Gravitas", "Fides")] == [20, 0, 5]


def test_revisar_teurgo(engine, menecma):
    # "Todos los teúrgos pueden gastarse tres puntos en Misterios y otros tres en
    # dominatus"; "repartir los 5 puntos de Dignitates"; "tenemos 5 puntos para gastar" en
    # Cualidades. Grito Báquico was learnt later ("Menecma ha aprendido la númina").
    out = engine.run("revisar_teurgo", menecma, {"núminas_aprendidas": 1})
    print(render_text(out.trace))
    r = out.result
    assert (r["misterios"], r["misterios_permitidos"]) == (3, 3)
    assert (r["dominatus"], r["dominatus_permitidos"]) == (3, 3)
    assert (r["núminas"], r["núminas_permitidas"]) == (3, 3)
    assert r["núminas_fuera_de_grado"] == 0 and r["fuera_del_culto"] == 0
    # The text says 5 Dignitates and 5 points of Cualidades at creation, but Menecma has
    # 1 + 2 + 3 = 6 Dignitates and Espiritista 3 + Estudioso 3 = 6 (Voluntad de hierro 3 is
    # her cult's gift): the check says so.
    assert (r["dignitates"], r["dignitates_permitidas"]) == (6, 5)
    assert r["cualidades"] == 6
    assert r["éxito"] is False
    # With a point of Acrecentar dignidad (one more Dignitas, one more Cualidad point) the
    # Dignitates fit; with Estudioso 2 the Cualidades fit too.
    fixed = variant(engine, menecma, **{"Acrecentar dignidad": 1, "Estudioso": 1})
    out = engine.run("revisar_teurgo", fixed, {"núminas_aprendidas": 1})
    assert (out.result["dignitates_permitidas"], out.result["cualidades"]) == (6, 5)
    assert out.result["éxito"] is True
    # Without counting Grito Báquico as learnt later, four núminas for three points.
    out = engine.run("revisar_teurgo", fixed, {})
    assert (out.result["núminas"], out.result["éxito"]) == (4, False)


def test_creation_qualities_change_the_budgets(engine, menecma):
    # "Conocimientos Secretos (G): por cada 5 puntos, tienes 1 punto en un Misterio que no
    # es de tu culto"; "Dominio extra (G): un dominatus extra por cada punto"; "Numinae
    # extra (G): 1 punto de númina extra"; "Aplicado (G): 1 punto extra de Gravitas por cada
    # 5 de Aplicado"; "Dogmático (G): ... +1 punto en ... Gravitas".
    sheet = variant(
        engine,
        menecma,
        Natura=0,
        Bellum=1,
        **{
            "Conocimientos Secretos": 5,
            "Dominio extra": 2,
            "Numinae extra": 1,
            "Aplicado": 5,
            "Dogmático": 1,
        },
    )
    out = engine.run("revisar_teurgo", sheet, {"núminas_aprendidas": 1})
    r = out.result
    assert (r["misterios"], r["misterios_permitidos"]) == (4, 4)
    assert r["fuera_del_culto"] == 1  # Bellum is not one of Ceres' three
    assert r["dominatus_permitidos"] == 3 + 2
    assert r["núminas_permitidas"] == 4 + 1
    assert r["dignitates_permitidas"] == 5 + 1 + 1
    # Bellum without Conocimientos Secretos is outside her cult's Mysteries.
    outside = variant(engine, menecma, Bellum=1)
    out = engine.run("revisar_teurgo", outside, {"núminas_aprendidas": 1})
    assert (out.result["fuera_del_culto"], out.result["éxito"]) == (1, False)


def test_skill_points_are_the_age(engine, menecma):
    # "tenemos para gastar en ellas tantos puntos como la edad de nuestro personaje";
    # "Anciano (-G): ... Cada punto en esta Cualidad otorga 2 de Habilidades". Menecma's
    # named skills are 3 + 3 = 6; with 10 more in skills of the open list, 16 points.
    aged = variant(engine, menecma, Edad=14)
    params = {"núminas_aprendidas": 1, "otras_habilidades": 10}
    out = engine.run("revisar_teurgo", aged, params)
    assert any("habilidades 16 de 14" in n for n in notes(out))
    old = variant(engine, menecma, Edad=14, Anciano=1, Estudioso=2)
    out = engine.run("revisar_teurgo", old, params)
    assert any("habilidades 16 de 16" in n for n in notes(out))
    assert any("1 punto(s) menos de Características" in n for n in notes(out))


def test_narrative_qualities_are_reported_in_numbers(engine, menecma):
    # "Aliados del Pacto (G): cada punto son tres teúrgos de tu congregación"; "Entidad
    # encadenada (G): ... Cada punto en esta Cualidad indica 5 en su designación de poder";
    # "Genius poderoso (G): 5 puntos en la designación de poder de tu genius por cada punto".
    sheet = variant(
        engine,
        menecma,
        **{
            "Aliados del Pacto": 2,
            "Entidad encadenada": 3,
            "Entidad": "un lar",
            "Genius poderoso": 1,
        },
    )
    out = engine.run("revisar_teurgo", sheet, {})
    assert out.result["aliados"] == 6
    said = notes(out)
    assert "Entidad encadenada (un lar): designación de poder 15" in said
    assert "Genius poderoso: +5 a la designación de poder de su genius" in said


# ─── the roll ───────────────────────────────────────────────────────────────


# The roll, the points and the two worked examples: tests/examples/arcana_mundi.yaml.


def test_the_combat_needs_its_rival(engine, menecma):
    with pytest.raises(RequirementFailed, match="el rival: su hoja"):
        engine.run("combate_teurgico", menecma, {"numina": GRITO}, dice=ForcedDice([5, 7]))


def test_grito_baquico_cast_alone(engine, menecma):
    out = engine.run("usar_numina", menecma, {"numina": GRITO}, dice=ForcedDice([3, 4]))
    print(render_text(out.trace))
    assert (out.result["éxito"], out.result["puntos"], out.result["total"]) == (True, 1, 20)
    assert out.result["coste"] == 3
    assert (out.result["tiempo"], out.result["unidad"]) == (1, "asaltos")
    assert changes(out) == {"dinamis.Virtus": (5, 2)}
    # An evocation makes no sacrificium or caerimonia unless asked.
    assert checks(out, "tirada_sacrificium") == [] and checks(out, "tirada_caerimonia") == []


def test_combat_attack_that_does_not_pass_the_defence(engine, menecma):
    # Same as the example but his defence roll is 14 = [6, 8]: 5 + 0 + 3 + 14 = 22, and
    # the attack (22) must *exceed* it.
    out = engine.run(
        "combate_teurgico",
        menecma,
        {"numina": GRITO, "maniobra_rival": 10, "dignitas_rival": 5},
        dice=ForcedDice([5, 7, 4, 5, 3, 4, 5, 6, 6, 8]),
    )
    print(render_text(out.trace))
    assert (out.result["ataque"], out.result["defensa"]) == (22, 22)
    assert out.result["afectado"] is False


def test_combat_dinamis_added_and_failed_cast_skips_the_attack(engine, menecma):
    # 1 dinamis to the maneuver (6 + 1 + 9 = 16 → +2), cast with half the time: grade 4,
    # difficulty 20; basic 13 + 6 = 19 fails → no attack, Tributo roll instead.
    out = engine.run(
        "combate_teurgico",
        menecma,
        {
            "numina": GRITO,
            "maniobra_rival": 10,
            "dignitas_rival": 5,
            "dinamis_maniobra": 1,
            "tiempo": "mitad",
        },
        dice=ForcedDice([5, 7, 4, 5, 2, 4, 1, 3]),
    )
    print(render_text(out.trace))
    assert check(out, "tirada_maniobra")["total"] == 16
    assert out.result["éxito"] is False
    assert out.result["afectado"] is False
    assert checks(out, "tirada_ataque") == []
    # Tributo roll: grado 3 + 0 + 1 point of failure + 4 = 8 vs 5 → 1 Tributo.
    assert check(out, "tirada_tributo")["total"] == 8
    assert changes(out) == {"dinamis.Virtus": (5, 1), "Tributo": (3, 4)}


@pytest.mark.parametrize(
    ("faces", "total", "bonus"),
    [([1, 3], 10, 1), ([2, 3], 11, 2), ([4, 5], 15, 2), ([6, 8], 20, 2), ([7, 8], 21, 3)],
)
def test_maneuver_bonus_per_ten_or_fraction(engine, menecma, faces, total, bonus):
    # "de 1 a 10 se obtiene +1, de 11 a 20 se obtiene +2, etc." (22 → +3, 15 → +2)
    out = engine.run("maniobra_teurgica", menecma, {"maniobra_rival": 22}, dice=ForcedDice(faces))
    assert (out.result["total"], out.result["bono"]) == (total, bonus)
    assert out.result["orden"] == "el rival actúa primero"


def test_attack_and_defence_actions(engine, menecma):
    # Attack with Gephyrismos (grade 1, Gravitas) and 2 dinamis: 6 + 0 + 1 + 2 + 2 + 12 = 23.
    out = engine.run(
        "ataque_teurgico",
        menecma,
        {"numina": "Gephyrismos", "bono_maniobra": 2, "puntos_dinamis": 2, "defensa_rival": 20},
        dice=ForcedDice([5, 7]),
    )
    print(render_text(out.trace))
    assert out.result["total"] == 23 and out.result["éxito"] is True
    assert changes(out) == {"dinamis.Gravitas": (10, 8)}
    # Defence: 6 + 0 + 1 (maneuver) + 5 (best object) + 2 + 3 (amber adds up) + 1 dinamis
    # + 9 = 27; only the strongest non-amber object counts.
    out = engine.run(
        "defensa_teurgica",
        menecma,
        {
            "bono_maniobra": 1,
            "objetos": [5, 3],
            "ámbar": [2, 3],
            "puntos_dinamis": 1,
            "dignitas_atacante": "Fides",
            "ataque_rival": 27,
        },
        dice=ForcedDice([4, 5]),
    )
    print(render_text(out.trace))
    assert out.result["total"] == 6 + 1 + 5 + 5 + 1 + 9
    assert out.result["éxito"] is True  # 27 does not exceed 27
    # "Una sola tirada puede hacer frente a todos los ataques que se reciban durante un
    # turno": the defence stays on the sheet for the round.
    assert changes(out)["dinamis.Fides"] == (15, 14)
    assert out.sheet["Efectos"]["Defensa teúrgica del asalto"]["modifier"] == 27


# ─── failures: short dinamis, Tributo, Sombra ───────────────────────────────


def test_short_dinamis_fails_and_changes_nothing(engine, menecma):
    tired = variant(engine, menecma, dinamis={"Virtus": 2, "Gravitas": 10, "Fides": 15})
    with pytest.raises(InsufficientResource):
        engine.run("usar_numina", tired, {"numina": GRITO}, dice=ForcedDice([3, 4]))
    assert tired.get("dinamis.Virtus") == 2
    # The same in the middle of a combat: the maneuver dice were rolled, nothing is kept.
    with pytest.raises(InsufficientResource):
        engine.run(
            "combate_teurgico",
            tired,
            {"numina": GRITO, "maniobra_rival": 10, "dignitas_rival": 5},
            dice=ForcedDice([5, 7, 4, 5, 3, 4, 5, 6, 4, 5]),
        )
    assert (
        tired.to_data()
        == variant(engine, menecma, dinamis={"Virtus": 2, "Gravitas": 10, "Fides": 15}).to_data()
    )


def test_a_don_without_dignitas_fails(engine, menecma):
    poor = variant(engine, menecma, Fides=0)
    with pytest.raises(InsufficientResource):
        engine.run("usar_numina", poor, {"numina": FORTALEZA}, dice=ForcedDice([5, 7, 5, 6, 4, 5]))
    assert poor.get("Fides") == 0


def test_failed_cast_rolls_tributo(engine, menecma):
    # Grito Báquico with half the preparation time: grade 4, difficulty 20.
    # Basic roll 3 + 3 + 7 + 5 ([2, 3]) = 18 vs 20 → 1 point of failure.
    # Tributo: grado 3 + condiciones adversas 2 + 1 + 9 ([4, 5]) = 15 vs 5 → 2 points.
    out = engine.run(
        "usar_numina",
        menecma,
        {"numina": GRITO, "tiempo": "mitad", "condiciones_adversas": 2},
        dice=ForcedDice([2, 3, 4, 5]),
    )
    print(render_text(out.trace))
    assert out.result["éxito"] is False
    assert (out.result["grado"], out.result["dificultad"]) == (4, 20)
    assert (out.result["total"], out.result["puntos"]) == (18, 1)
    tributo = check(out, "tirada_tributo")
    assert (tributo["total"], tributo["target"], tributo["tributo"]) == (15, 5, 2)
    assert out.result["tributo"] == 2
    # "este gasto se produce con independencia de que se realice con éxito o no la númina"
    assert changes(out) == {"dinamis.Virtus": (5, 2), "Tributo": (3, 5)}
    assert "Efecto Nefando de Hierofanía con 1 punto(s) de fracaso" in notes(out)
    assert out.result["tiempo"] == pytest.approx(0.5)


def test_failed_cast_tributo_turns_into_sombra(engine, menecma):
    # The same failed cast as above with 8 Tributo: 8 + 2 = 10 → 1 Sombra, in Malignitas.
    sheet = variant(engine, menecma, Tributo=8)
    out = engine.run(
        "usar_numina",
        sheet,
        {"numina": GRITO, "tiempo": "mitad", "condiciones_adversas": 2, "sombra_en": "Malignitas"},
        dice=ForcedDice([2, 3, 4, 5]),
    )
    print(render_text(out.trace))
    assert changes(out) == {
        "dinamis.Virtus": (5, 2),
        "Tributo": (8, 0),
        "Tributo de dominatus": (3, 0),
        "Malignitas": (0, 1),
    }
    assert (
        "1 punto(s) de Sombra en Malignitas: incrementa un Estigma Sombrío o añade otro "
        "por cada uno" in notes(out)
    )


def test_tributo_roll_without_success_adds_nothing(engine, menecma):
    # Grade 4 difficulty 20, basic 13 + [1, 2] = 16 → 1 point of failure; Tributo
    # 3 + 0 + 1 + ... needs a total under 5: a double 1 then [2, 3] gives 2 - 5 = -3.
    out = engine.run(
        "usar_numina",
        menecma,
        {"numina": GRITO, "tiempo": "mitad"},
        dice=ForcedDice([1, 2, 1, 1, 2, 3]),
    )
    print(render_text(out.trace))
    assert check(out, "tirada_tributo")["total"] == 1
    assert out.result["tributo"] == 0
    assert changes(out) == {"dinamis.Virtus": (5, 2)}


def test_tributo_becomes_sombra_per_ten(engine, menecma):
    # 6.3 "1 punto de Sombra por cada 10 de Tributo"
    out = engine.run("acumular_tributo", menecma, {"puntos": 8, "sombra_en": "Dementia"})
    print(render_text(out.trace))
    assert changes(out) == {"Tributo": (3, 1), "Tributo de dominatus": (3, 1), "Dementia": (0, 1)}
    assert out.result["sombra"] == 1 and out.result["total_sombra"] == 1
    out = engine.run("acumular_tributo", menecma, {"puntos": 27})
    assert changes(out) == {"Tributo": (3, 0), "Tributo de dominatus": (3, 0), "Impietas": (0, 3)}
    out = engine.run("acumular_tributo", menecma, {"puntos": 6})
    assert changes(out) == {"Tributo": (3, 9)}


def test_failed_caerimonia_gives_five_tributo_per_point(engine, menecma):
    # Caerimonia 10 + [1, 2] = 13 vs... grade 3 needs a grade-3 don: a variant númina.
    sheet = engine.sheet(with_numinas(menecma, **{"Don mayor": DON_MAYOR}))
    # Sacrificium 11 + 12 = 23 vs 15 → +2; caerimonia 10 + 3 = 13 vs 15 → 1 point of failure:
    # +5 Tributo (3 → 8); cost 3 Fides; basic 13 + 2 + 13 = 28 vs 15 → 3 points.
    out = engine.run(
        "usar_numina", sheet, {"numina": "Don mayor"}, dice=ForcedDice([5, 7, 1, 2, 6, 7])
    )
    print(render_text(out.trace))
    assert check(out, "tirada_sacrificium")["neto"] == 2
    caerimonia = check(out, "tirada_caerimonia")
    assert (caerimonia["total"], caerimonia["success"], caerimonia["puntos"]) == (13, False, 1)
    assert (out.result["total"], out.result["puntos"], out.result["coste"]) == (28, 3, 3)
    assert changes(out) == {
        "Tributo": (3, 8),
        "Fides": (3, 0),
        "dinamis.Fides": (15, 0),
        "Casillas de rendimiento": (10, 7),
    }


def test_sacrificium_removes_only_tributo_not_from_dominatus(engine, menecma):
    sheet = variant(engine, menecma, Tributo=8)
    # 11 + 12 = 23 vs 5 → 4 points: 8 → 4.
    out = engine.run("ofrecer_sacrificium", sheet, {}, dice=ForcedDice([5, 7]))
    print(render_text(out.trace))
    assert changes(out) == {"Tributo": (8, 4)}
    # 11 + 5 (elements) + 19 = 35 vs 5 → 6 points, but only 8 - 3 = 5 can go.
    out = engine.run("ofrecer_sacrificium", sheet, {"elementos": 5}, dice=ForcedDice([9, 10]))
    assert out.result["puntos"] == 6
    assert out.result["tributo_eliminado"] == 5
    assert changes(out) == {"Tributo": (8, 3)}
    # A failed sacrificium adds a Tributo point per point of failure: grade 3, 11 + 2 = 13
    # vs 15 → 1.
    out = engine.run("ofrecer_sacrificium", sheet, {"grado": 3}, dice=ForcedDice([1, 2]))
    assert (out.result["éxito"], out.result["neto"]) == (False, -1)
    assert changes(out) == {"Tributo": (8, 9)}


# ─── preparation time, preces, lustraciones, dones for others ───────────────


@pytest.mark.parametrize(
    ("params", "grade", "time"),
    [
        ({}, 3, 1),
        ({"tiempo": "doble"}, 2, 2),
        ({"tiempo": "mitad"}, 4, 0.5),
        ({"preces": True}, 3, 2),  # 1.1 Preces double the time
        ({"preces": True, "tiempo": "mitad"}, 4, 1),  # 3.3 "volverá a ser el normal"
        ({"preces": True, "tiempo": "doble"}, 2, 4),  # 3.3 "el cuádruple del normal"
        ({"oficiantes": 2}, 3, 3),  # 3.1 one round per officiant
    ],
)
def test_preparation_time_and_grade(engine, menecma, params, grade, time):
    sheet = variant(engine, menecma, Preces=2)
    out = engine.run("usar_numina", sheet, {"numina": GRITO, **params}, dice=ForcedDice([5, 7]))
    assert out.result["grado"] == grade
    assert out.result["dificultad"] == 5 * grade
    assert out.result["tiempo"] == pytest.approx(time)
    # Preces add their score to the basic roll: 3 + 3 + 7 (+ 2) + 12.
    assert out.result["total"] == 25 + (2 if params.get("preces") else 0)
    # The cost is by the númina's own grade.
    assert out.result["coste"] == 3


def test_grade_one_doubled_follows_the_formula(engine, menecma):
    # "5 x [Grado de la númina -1 (si se dobla el tiempo de preparación) ...]": a grade-1
    # númina with twice the time is made at grade 0, difficulty 0 (LECTURA: the formula as
    # written). It still costs 1 dinamis: "1 punto de dinamis ... por grado de la misma".
    # Basic roll 3 + 3 + 7 + 12 = 25 vs 0 → 5 points.
    out = engine.run(
        "usar_numina",
        menecma,
        {"numina": "Gephyrismos", "tiempo": "doble"},
        dice=ForcedDice([5, 7]),
    )
    assert (out.result["grado"], out.result["dificultad"], out.result["tiempo"]) == (0, 0, 2)
    assert (out.result["total"], out.result["puntos"]) == (25, 5)
    assert changes(out) == {"dinamis.Gravitas": (10, 9)}
    # Its sacrificium is made against 0 as well ("el tiempo de preparación puede modificar
    # la dificultad"): 3 + 0 + 8 + 12 = 23 vs 0 → 5 points.
    out = engine.run(
        "usar_numina",
        menecma,
        {"numina": "Gephyrismos", "tiempo": "doble", "sacrificium": True},
        dice=ForcedDice([5, 7, 5, 7]),
    )
    sacrificium = check(out, "tirada_sacrificium")
    assert (sacrificium["target"], sacrificium["puntos"]) == (0, 5)


def test_lustracion_needs_dignitas_and_its_date(engine, menecma):
    lustracion = {
        **DON_MAYOR,
        "grado": 2,
        "manifestación": "lustración",
        "característica": "Carisma",
    }
    numinas = {
        "Lustración": {**lustracion, "dignitas": "Virtus"},
        "Lustración de Fides": lustracion,
    }
    sheet = engine.sheet(with_numinas(menecma, **numinas))
    with pytest.raises(RequirementFailed):  # Virtus 1 < grade 2
        engine.run("usar_numina", sheet, {"numina": "Lustración"}, dice=ForcedDice([5, 7] * 3))
    with pytest.raises(RequirementFailed):
        engine.run(
            "usar_numina",
            sheet,
            {"numina": "Lustración de Fides", "en_fecha": False},
            dice=ForcedDice([5, 7] * 3),
        )
    # Sacrificium 23 vs 10 → 3; caerimonia 10 + 11 = 21 vs 10 → 3: cost 2 - 3 → 1 dinamis;
    # basic 3 + 3 + 7 + 3 + 3 + 9 = 28 vs 10 → 4 points; 2 hours.
    out = engine.run(
        "usar_numina", sheet, {"numina": "Lustración de Fides"}, dice=ForcedDice([5, 7, 5, 6, 4, 5])
    )
    print(render_text(out.trace))
    assert (out.result["total"], out.result["puntos"], out.result["coste"]) == (28, 4, 1)
    assert (out.result["tiempo"], out.result["unidad"]) == (2, "horas")
    assert changes(out) == {"dinamis.Fides": (15, 14)}


def test_don_for_another_splits_the_cost(engine, menecma):
    sheet = engine.sheet(with_numinas(menecma, **{"Don mayor": DON_MAYOR}))
    # Sacrificium 23 vs 15 → 2; caerimonia 10 + 6 = 16 vs 15 → 1: cost 3 - 1 = 2, halved: 1.
    out = engine.run(
        "usar_numina",
        sheet,
        {"numina": "Don mayor", "beneficiario": "otro"},
        dice=ForcedDice([5, 7, 2, 4, 4, 5]),
    )
    print(render_text(out.trace))
    assert out.result["coste"] == 1
    assert changes(out)["Fides"] == (3, 2)
    assert changes(out)["Casillas de rendimiento"] == (10, 7)


# ─── learning númina and dominatus ──────────────────────────────────────────


def test_revelatio_in_mentem(engine, menecma):
    # Grade 2, entity power 2: 7 + 6 + 2 + 3 = 18 vs 10 → 2 points ≥ grade 2: learnt.
    # Two wounds, two boxes; Constitución 6 + 9 = 15 vs 2 + 5 = 7 → 2 points: 2 wounds gone.
    out = engine.run(
        "revelatio_in_mentem",
        menecma,
        {"grado": 2, "poder_ente": 2},
        dice=ForcedDice([1, 2, 2, 3, 4, 5]),
    )
    print(render_text(out.trace))
    assert (out.result["éxito"], out.result["puntos"]) == (True, 2)
    assert (out.result["horas_inconsciente"], out.result["heridas_curadas"]) == (0, 2)
    assert changes(out) == {"Casillas de rendimiento": (10, 8)}
    # Grade 3: 15 + 3 = 18 vs 15 → 1 point < 3: not learnt (no Tributo, it succeeded).
    # Constitución 6 + 3 = 9 vs 3 + 12 = 15 → 2 points of failure: 2 hours unconscious.
    out = engine.run(
        "revelatio_in_mentem",
        menecma,
        {"grado": 3, "poder_ente": 2},
        dice=ForcedDice([1, 2, 5, 7, 1, 2]),
    )
    print(render_text(out.trace))
    assert (out.result["éxito"], out.result["puntos"]) == (False, 1)
    assert out.result["horas_inconsciente"] == 2
    assert changes(out) == {"Heridas": (0, 3), "Casillas de rendimiento": (10, 7)}
    # A failed roll: 15 + 3 = 18 vs 25 (grade 5) → 2 points of failure: 2 Tributo.
    out = engine.run(
        "revelatio_in_mentem",
        menecma,
        {"grado": 5, "poder_ente": 2},
        dice=ForcedDice([1, 2, 9, 8, 1, 2]),
    )
    assert out.result["éxito"] is False
    assert changes(out)["Tributo"] == (3, 5)


def test_revelatio_in_spiritu_costs_one_fides(engine, menecma):
    out = engine.run("revelatio_in_spiritu", menecma, {})
    assert changes(out) == {"Fides": (3, 2), "dinamis.Fides": (15, 10)}


def test_indagacion(engine, menecma):
    # Grade 2 evocation: needs 2 x 2 = 4 creation points. Helpers with Corpus religio 3 and
    # 5 give 1 + 2; similar effect +5: 7 + 3 + 3 + 5 + 4 = 22 vs 10 → 3 points.
    params = {"grado": 2, "manifestación": "evocación", "ayudantes": [3, 5], "parecida": True}
    out = engine.run("indagacion", menecma, params, dice=ForcedDice([1, 3]))
    print(render_text(out.trace))
    assert (out.result["puntos"], out.result["creación"], out.result["necesarios"]) == (3, 3, 4)
    assert out.result["éxito"] is False
    assert changes(out) == {"Puntos de creación": (0, 3)}
    # Next month: 7 + 3 + 3 + 5 + 3 = 21 vs 10 → 3 more: 6 ≥ 4, discovered; the counters
    # are cleared for the next research.
    out = engine.run("indagacion", out.sheet, params, dice=ForcedDice([1, 2]))
    assert out.result["éxito"] is True and out.result["creación"] == 6
    assert out.sheet.get("Puntos de creación") == 0
    # Failure (no help): 10 + 3 = 13 vs 15 (grade 3 don) → 1 point; the die (2) is under
    # the grade: the point is camouflaged.
    sheet = variant(engine, menecma, **{"Puntos de creación": 4})
    out = engine.run(
        "indagacion", sheet, {"grado": 3, "manifestación": "don"}, dice=ForcedDice([1, 2, 2])
    )
    print(render_text(out.trace))
    assert changes(out) == {"Puntos camuflados": (0, 1)}
    # ... and with a die at or above the grade it takes a creation point away.
    out = engine.run(
        "indagacion", sheet, {"grado": 3, "manifestación": "don"}, dice=ForcedDice([1, 2, 7])
    )
    assert changes(out) == {"Puntos de creación": (4, 3)}
    with pytest.raises(RequirementFailed):  # grade above her Hierofanía 3
        engine.run(
            "indagacion", menecma, {"grado": 4, "manifestación": "don"}, dice=ForcedDice([1, 2])
        )
    with pytest.raises(RequirementFailed):  # more helpers than her Carisma 7
        engine.run(
            "indagacion",
            menecma,
            {"grado": 1, "manifestación": "don", "ayudantes": [2] * 8},
            dice=ForcedDice([1, 2]),
        )


def test_codices_and_magister(engine, menecma):
    # Grade 3: 7 + 3 + 0 + Estudioso 3 + 3 = 16 vs 15 → 1 point a month; 3 needed.
    out = engine.run("estudiar_codice", menecma, {"grado": 3}, dice=ForcedDice([1, 2]))
    print(render_text(out.trace))
    assert (out.result["puntos"], out.result["acumulados"], out.result["éxito"]) == (1, 1, False)
    # With a book of the subject (+5; "Códices (G): un libro interesante por cada punto
    # gastado en la Cualidad"): 21 vs 15 → 2 points: 3 in all, learnt.
    with pytest.raises(RequirementFailed, match="Códices"):
        engine.run(
            "estudiar_codice",
            out.sheet,
            {"grado": 3, "libro_de_la_materia": True},
            dice=ForcedDice([1, 2]),
        )
    with_books = engine.sheet({**out.sheet.to_data(), "Códices": 1})
    out = engine.run(
        "estudiar_codice",
        with_books,
        {"grado": 3, "libro_de_la_materia": True},
        dice=ForcedDice([1, 2]),
    )
    assert (out.result["puntos"], out.result["acumulados"], out.result["éxito"]) == (2, 3, True)
    assert out.sheet.get("Puntos de estudio") == 0
    # A magister adds his Estudio: 13 + 4 + 3 = 20 vs 15 → 1 point.
    out = engine.run(
        "estudiar_con_magister",
        menecma,
        {"grado": 3, "estudio_magister": 4},
        dice=ForcedDice([1, 2]),
    )
    assert out.result["puntos"] == 1
    assert changes(out) == {"Puntos de estudio": (0, 1)}


def test_aprender_dominatus(engine, menecma):
    # By a Mystery point: 1 Tributo that sacrificium cannot remove.
    out = engine.run("aprender_dominatus", menecma, {"vía": "misterio"})
    assert changes(out) == {"Tributo": (3, 4), "Tributo de dominatus": (3, 4)}
    # Revelatio in Mentem: 7 + 3 + 6 + 9 = 25 vs 20 → 1 point: learnt.
    out = engine.run("aprender_dominatus", menecma, {"vía": "mentem"}, dice=ForcedDice([4, 5]))
    print(render_text(out.trace))
    assert (out.result["éxito"], out.result["puntos"]) == (True, 1)
    assert changes(out) == {"Tributo": (3, 4), "Tributo de dominatus": (3, 4)}
    # Not knowing the Mystery: 25 vs 35 → 2 points of failure: 2 wounds, 2 Tributo, 2 boxes.
    out = engine.run(
        "aprender_dominatus",
        menecma,
        {"vía": "mentem", "conoce_misterio": False},
        dice=ForcedDice([4, 5]),
    )
    assert out.result["éxito"] is False
    assert changes(out) == {
        "Heridas": (0, 2),
        "Tributo": (3, 5),
        "Casillas de rendimiento": (10, 8),
    }
    # Revelatio in Spiritu: one permanent point of Fides.
    out = engine.run("aprender_dominatus", menecma, {"vía": "spiritu"})
    assert changes(out) == {"Fides": (3, 2), "dinamis.Fides": (15, 10)}
    # Named, it is written in the sheet's list of Dominatus.
    out = engine.run("aprender_dominatus", menecma, {"vía": "spiritu", "nombre": "Furia"})
    assert out.sheet["Dominatus"] == (*menecma["Dominatus"], "Furia")
    assert "Dominatus" in changes(out)


def test_usar_dominatus(engine, menecma):
    # La virtud de las plantas adds Hierofanía (3) to Conocimiento de las plantas (0):
    # Inteligencia 7 + 0 + 3 + 12 = 22 vs 20 → 1 point.
    out = engine.run(
        "usar_dominatus",
        menecma,
        {"dominatus": "La virtud de las plantas", "dificultad": 20},
        dice=ForcedDice([5, 7]),
    )
    print(render_text(out.trace))
    assert (out.result["éxito"], out.result["puntos"]) == (True, 1)
    assert check(out, "tirada_habilidad")["total"] == 22
    # "El uso de los dominatus ... no tiene ningún coste"; an automatic one rolls nothing.
    out = engine.run(
        "usar_dominatus", menecma, {"dominatus": "El lenguaje de las plantas"}, dice=ForcedDice([])
    )
    assert list(out.changes) == []
    with pytest.raises(RequirementFailed):
        engine.run("usar_dominatus", menecma, {"dominatus": "Furia"})


def test_indagar_rites(engine, menecma):
    # Her Sacrificio and Ceremonia are 0: the permanent bonus is capped at 0.
    out = engine.run("indagar_sacrificium", menecma, {}, dice=ForcedDice([5, 7]))
    assert (out.result["puntos"], out.result["bono"]) == (4, 0)
    sheet = variant(engine, menecma, Ceremonia=2)
    out = engine.run("indagar_caerimonia", sheet, {}, dice=ForcedDice([5, 7]))
    # 3 + 2 + 7 + 12 = 24 vs 5 → 4 points, capped at Ceremonia 2.
    assert (out.result["puntos"], out.result["bono"]) == (4, 2)


# ─── every action from the command line ─────────────────────────────────────

CLI_SETS = {
    "usar_numina": ["numina=Grito Báquico"],
    "combate_teurgico": ["numina=Grito Báquico", "maniobra_rival=10", "dignitas_rival=5"],
    "maniobra_teurgica": ["maniobra_rival=20"],
    "ataque_teurgico": ["numina=Gephyrismos", "defensa_rival=15", "puntos_dinamis=1"],
    "defensa_teurgica": ["objetos=3,5", "ámbar=2", "ataque_rival=20"],
    "acumular_tributo": ["puntos=12", "sombra_en=Malignitas"],
    "ofrecer_sacrificium": ["grado=2", "elementos=3"],
    "indagar_sacrificium": ["grado=1"],
    "indagar_caerimonia": ["grado=1"],
    "revelatio_in_mentem": ["grado=1", "poder_ente=5"],
    "revelatio_in_spiritu": [],
    "indagacion": ["grado=2", "manifestación=evocación", "ayudantes=3,4", "parecida=sí"],
    "estudiar_codice": ["grado=1"],
    "estudiar_con_magister": ["grado=2", "estudio_magister=4"],
    "aprender_dominatus": ["vía=mentem"],
    "usar_dominatus": ["dominatus=La virtud de las plantas", "dificultad=15"],
    "combate_con_dominatus": [
        "dominatus=El lenguaje del reino animal",
        "maniobra_rival=8",
        "dignitas_rival=3",
    ],
    "furia": ["penalizador=2", "maniobra_rival=5"],
    "evocacion_de_la_sangre": [],
    "reservada": [],
    "fin_de_asalto": [],
    "fin_del_combate": [],
    "pasar_tiempo": ["cantidad=2", "unidad=estación"],
    "tirada": ["característica=Percepción", "dificultad=15"],
    "revisar_teurgo": [],
}


SPECIAL = ("furia", "evocacion_de_la_sangre", "reservada")


def test_cli_runs_every_action(engine, capsys, monkeypatch, tmp_path):
    assert set(CLI_SETS) == set(engine.rulebook.actions)
    # Parse and check the rulebook once (about half a second each); everything else runs
    # through the command line: options, sheet, parameters, run, printing.
    monkeypatch.setattr(cli.options, "load_rulebook", lambda reference: engine.rulebook)
    # Furia is a dominatus of Bellum: Menecma with it (and a point of Bellum); the same
    # sheet has Evocación de la sangre and a maneuver reserved from the round before.
    berserker = tmp_path / "menecma_furia.yaml"
    berserker.write_text(
        MENECMA.read_text(encoding="utf-8").replace(
            "Dominatus: [La virtud", "Bellum: 1\nDominatus: [Furia, La virtud"
        )
        + "Evocación de la sangre: yes\n"
        + "Efectos: {Maniobra reservada: {modifier: 2, left: 1, unit: asalto}}\n",
        encoding="utf-8",
    )
    for action, sets in CLI_SETS.items():
        character = berserker if action in SPECIAL else MENECMA
        assert "resultado:" in run_seeded(capsys, RULES, action, character, sets, 11)


def test_cli_shipped_names_and_json(capsys):
    line = "run arcana_mundi usar_numina --char menecma --dice 5,7,5,6,4,5 --json"
    code, out, _ = command(capsys, line, "--set", "numina=La fortaleza de Perséfone")
    assert code == 0
    assert '"éxito": true' in out and '"puntos": 5' in out


def test_seeded_runs_are_replayable(engine, menecma):
    first = engine.run(
        "combate_teurgico",
        menecma,
        {"numina": GRITO, "maniobra_rival": 10, "dignitas_rival": 5},
        dice=SeededDice(3),
    )
    again = engine.run(
        "combate_teurgico",
        menecma,
        {"numina": GRITO, "maniobra_rival": 10, "dignitas_rival": 5},
        dice=SeededDice(3),
    )
    assert list(first.dice) == list(again.dice)
    assert first.result == again.result


def test_half_time_raises_the_sacrificium_and_basic_difficulty(engine, menecma):
    # 1.2 the sacrificium's difficulty follows the preparation time ("lee el punto 3");
    # the caerimonia's is the númina's own grade. La fortaleza de Perséfone at half time:
    # grade 2. Sacrificium 23 vs 10 → 3; caerimonia 21 vs 5 → 4; basic 3 + 3 + 7 + 3 + 4 + 9
    # = 29 vs 10 → 4 points; half a day.
    out = engine.run(
        "usar_numina",
        menecma,
        {"numina": FORTALEZA, "tiempo": "mitad"},
        dice=ForcedDice([5, 7, 5, 6, 4, 5]),
    )
    print(render_text(out.trace))
    sacrificium = check(out, "tirada_sacrificium")
    assert (sacrificium["total"], sacrificium["target"], sacrificium["puntos"]) == (23, 10, 3)
    caerimonia = check(out, "tirada_caerimonia")
    assert (caerimonia["total"], caerimonia["target"], caerimonia["puntos"]) == (21, 5, 4)
    assert (out.result["total"], out.result["dificultad"], out.result["puntos"]) == (29, 10, 4)
    assert out.result["tiempo"] == pytest.approx(0.5)


# ─── the Cualidades and the sheet's limits ──────────────────────────────────


def test_dignidad_extraordinaria_raises_one_maximum_to_twelve(engine, menecma):
    # "Dignidad extraordinaria (5): el máximo de una de tus Dignitates es 12, en lugar de 10."
    strong = variant(engine, menecma, Fides=11, **{"Dignidad extraordinaria": ["Fides"]})
    assert (strong.get("Fides"), strong.get("dinamis.Fides")) == (11, 55)
    with pytest.raises(SheetError, match="Fides: el máximo de una Dignitas es 10"):
        variant(engine, menecma, Fides=11)
    with pytest.raises(SheetError, match="Virtus: el máximo"):
        variant(engine, menecma, Virtus=12, Fides=11, **{"Dignidad extraordinaria": ["Fides"]})
    with pytest.raises(SheetError, match="una \\(sola\\)"):
        variant(engine, menecma, **{"Dignidad extraordinaria": ["Fides", "Virtus"]})
    with pytest.raises(SheetError):
        variant(engine, menecma, Fides=13, **{"Dignidad extraordinaria": ["Fides"]})


def test_a_dignitas_is_not_a_characteristic(engine, menecma):
    # "la Característica que entra en juego con la númina (que se especifica en cada una de
    # ellas)": Fuerza ... Carisma, never Virtus, Gravitas or Fides.
    gephyrismos = menecma.to_data()["Núminas"]["Gephyrismos"]
    data = with_numinas(menecma, Rara={**gephyrismos, "característica": "Fides"})
    with pytest.raises(SheetError, match="Fides"):
        engine.sheet(data)
    with pytest.raises(ParameterError):
        engine.run("tirada", menecma, {"característica": "Fides", "dificultad": 5})


def test_caerimonia_objects_on_an_evocation_are_refused(engine, menecma):
    # 1.3 the caerimonia "no se puede llevar a cabo en evocaciones": its objects would be
    # dropped; they are refused with the reason instead.
    with pytest.raises(RequirementFailed, match="no se puede llevar a cabo en evocaciones"):
        engine.run("usar_numina", menecma, {"numina": GRITO, "objetos": 3}, dice=ForcedDice([]))
    with pytest.raises(RequirementFailed, match="sin sacrificium"):
        engine.run("usar_numina", menecma, {"numina": GRITO, "elementos": 2}, dice=ForcedDice([]))
    # With a sacrificium the elements count: 3 + 0 + 8 + 2 + 12 = 25 vs 15 → 2 points.
    out = engine.run(
        "usar_numina",
        menecma,
        {"numina": GRITO, "sacrificium": True, "elementos": 2},
        dice=ForcedDice([5, 7, 5, 7]),
    )
    assert check(out, "tirada_sacrificium")["total"] == 25


def test_a_list_typed_in_brackets(capsys):
    # `--set objetos=[4,3]` is the same list as `objetos=4,3`.
    totals = []
    for typed in ("[4,3]", "4,3", "[4, 3]"):
        argv = ["run", "arcana_mundi", "defensa_teurgica", "--char", "menecma"]
        argv += ["--set", f"objetos={typed}", "--dice", "5,7", "--json"]
        assert main(argv) == 0, capsys.readouterr().err
        totals.append('"total": 22' in capsys.readouterr().out)
    assert totals == [True, True, True]  # 6 + 4 (the best object) + 12
    argv = ["run", "arcana_mundi", "defensa_teurgica", "--char", "menecma", "--set", "ámbar=[]"]
    assert main([*argv, "--dice", "5,7"]) == 0


def test_dinamis_per_round_and_firmeza(engine, menecma):
    # LECTURA: no more dinamis a round than the Dignitas it comes from (Virtus 1); "Firmeza
    # (5): ... Puedes usar el doble de puntos de dinamis permitidos por asalto".
    with pytest.raises(RequirementFailed, match="más de 1 puntos de dinamis de Virtus"):
        engine.run("maniobra_teurgica", menecma, {"puntos_dinamis": 2}, dice=ForcedDice([5, 7]))
    firm = variant(engine, menecma, Firmeza=["Virtus"])
    out = engine.run("maniobra_teurgica", firm, {"puntos_dinamis": 2}, dice=ForcedDice([5, 7]))
    assert out.result["total"] == 6 + 2 + 12
    assert changes(out) == {"dinamis.Virtus": (5, 3)}
    # In a whole combat the maneuver's and the attack's dinamis share the round's allowance.
    params = {"numina": GRITO, "maniobra_rival": 10, "dignitas_rival": 5}
    with pytest.raises(RequirementFailed, match="por asalto"):
        engine.run(
            "combate_teurgico",
            menecma,
            {**params, "dinamis_maniobra": 1, "dinamis_ataque": 1},
            dice=ForcedDice([]),
        )


def test_evocacion_de_la_sangre(engine, menecma):
    # "puede utilizar sus Heridas totales para mejorar su defensa y su ataque durante un
    # asalto. +5 por cada herida": two wounds, +10 to the attack and to the defence.
    hurt = variant(engine, menecma, Heridas=2, **{"Evocación de la sangre": True})
    out = engine.run(
        "ataque_teurgico",
        hurt,
        {"numina": "Gephyrismos", "sangre": True},
        dice=ForcedDice([5, 7]),
    )
    assert out.result["total"] == 6 + 0 + 1 + 12 + 10
    out = engine.run("defensa_teurgica", hurt, {"sangre": True}, dice=ForcedDice([5, 7]))
    assert out.result["total"] == 6 + 12 + 10
    with pytest.raises(RequirementFailed, match="Evocación de la sangre"):
        engine.run("defensa_teurgica", menecma, {"sangre": True}, dice=ForcedDice([5, 7]))


def test_defence_qualities(engine, menecma):
    # "Esfera de salvaguarda (G): tu genius te protege intuitivamente de un Misterio. +1 a
    # la defensa teúrgica contra ese Misterio por cada punto"; "Voluntad de hierro (G): de
    # +1 a +10 en tiradas para resistirte a ser controlado o convencido, incluso si
    # intervienen efectos sobrenaturales" (Menecma's 3, from her cult); "Supersticioso (-G):
    # tienes de –1 a –10 en tiradas para defenderte de efectos sobrenaturales".
    guarded = variant(
        engine,
        menecma,
        Supersticioso=1,
        **{"Esfera de salvaguarda": 4, "Salvaguarda contra": ["Vitae"]},
    )
    plain = engine.run("defensa_teurgica", guarded, {}, dice=ForcedDice([5, 7]))
    assert plain.result["total"] == 6 + 12 - 1
    vitae = engine.run(
        "defensa_teurgica", guarded, {"misterio_atacante": "Vitae"}, dice=ForcedDice([5, 7])
    )
    assert vitae.result["total"] == 6 + 12 - 1 + 4
    other = engine.run(
        "defensa_teurgica", guarded, {"misterio_atacante": "Natura"}, dice=ForcedDice([5, 7])
    )
    assert other.result["total"] == 6 + 12 - 1
    control = engine.run("defensa_teurgica", menecma, {"control": True}, dice=ForcedDice([5, 7]))
    assert control.result["total"] == 6 + 12 + 3
    # Dinamis to the defence only against a númina one knows.
    with pytest.raises(RequirementFailed, match="si se conoce la númina"):
        engine.run(
            "defensa_teurgica",
            menecma,
            {"puntos_dinamis": 1, "conoce_numina": False},
            dice=ForcedDice([5, 7]),
        )


def test_casting_qualities(engine, menecma):
    # Supersticioso: "de +1 a +10 para provocarlos" (a númina provokes a supernatural
    # effect); "Marcado por los dioses (G): tienes de +1 a +10 para obtener dones de tres
    # Misterios apropiados"; Espiritista "+3 en tiradas relacionadas con difuntos".
    # Grito Báquico, basic 3 + 3 + 7 + 7 = 20; Supersticioso 2: 22.
    superstitious = variant(engine, menecma, Supersticioso=2)
    out = engine.run("usar_numina", superstitious, {"numina": GRITO}, dice=ForcedDice([3, 4]))
    assert out.result["total"] == 22
    out = engine.run(
        "usar_numina", menecma, {"numina": GRITO, "difuntos": True}, dice=ForcedDice([3, 4])
    )
    assert out.result["total"] == 23
    # La fortaleza de Perséfone is a don of Hierofanía: marked, +2 (30 → 32).
    marked = variant(
        engine, menecma, **{"Marcado por los dioses": 2, "Misterios marcados": ["Hierofanía"]}
    )
    out = engine.run(
        "usar_numina", marked, {"numina": FORTALEZA}, dice=ForcedDice([5, 7, 5, 6, 4, 5])
    )
    assert out.result["total"] == 32
    # ... but not an evocation of the same Mystery.
    out = engine.run("usar_numina", marked, {"numina": GRITO}, dice=ForcedDice([3, 4]))
    assert out.result["total"] == 20


def test_rolls_with_a_quality(engine, menecma):
    # "Aplicado (G): ... Se recibe de +1 a +10 al entrenar"; Voluntad de hierro to resist
    # being controlled; Espiritista with the dead.
    trained = variant(engine, menecma, Aplicado=4)
    base = {"característica": "Fuerza", "dificultad": 15}
    out = engine.run("tirada", trained, {**base, "entrenar": True}, dice=ForcedDice([5, 7]))
    assert out.result["total"] == 5 + 12 + 4
    out = engine.run("tirada", menecma, {**base, "resistir_control": True}, dice=ForcedDice([5, 7]))
    assert out.result["total"] == 5 + 12 + 3
    out = engine.run("tirada", menecma, {**base, "difuntos": True}, dice=ForcedDice([5, 7]))
    assert out.result["total"] == 5 + 12 + 3


# ─── dominatus in a theurgic combat ─────────────────────────────────────────


def berserker(engine, menecma):
    return variant(engine, menecma, Bellum=2, Dominatus=["Furia", *menecma["Dominatus"]])


def test_furia_needs_the_maneuver_before_the_attack(engine, menecma):
    # "el dominatus de Bellum llamado Furia permite resistir el dolor, eliminando las
    # penalizaciones por heridas a razón de un punto por cada uno de Virtus ... se debe
    # realizar una tirada de Maniobra teúrgica que permita hacer efectivo el dominatus antes
    # de que el teúrgo sea atacado." Her maneuver 6 + 12 = 18 beats his 10 + 7 = 17: a
    # wound penalty of 3 drops by her Virtus 1, to 2.
    sheet = berserker(engine, menecma)
    out = engine.run(
        "furia",
        sheet,
        {"penalizador": 3, "maniobra_rival": 10},
        dice=ForcedDice([3, 4, 5, 7]),
    )
    print(render_text(out.trace))
    assert (out.result["éxito"], out.result["penalizador"]) == (True, 2)
    # Beaten to it (his 10 + 11 = 21), Furia does not take hold.
    out = engine.run(
        "furia",
        sheet,
        {"penalizador": 3, "maniobra_rival": 10},
        dice=ForcedDice([5, 6, 5, 7]),
    )
    assert (out.result["éxito"], out.result["penalizador"]) == (False, 3)
    with pytest.raises(RequirementFailed, match="Furia"):
        engine.run("furia", menecma, {"penalizador": 3, "maniobra_rival": 10})


def test_a_dominatus_against_a_target(engine, menecma):
    # "Hay dominatus que pueden utilizarse en combate ... o porque con ellos se puede
    # afectar a un objetivo, como ocurre con las núminas. En estos casos, hay que aplicar
    # las tiradas de Maniobra, Ataque y Defensa teúrgicas." His maneuver 10 + 12 = 22 (+3),
    # hers 6 + 9 = 15 (+2); attack 6 + 0 + 2 + 11 = 19 (a dominatus has no grade) against
    # his defence 5 + 3 + 9 = 17: affected.
    out = engine.run(
        "combate_con_dominatus",
        menecma,
        {"dominatus": "El lenguaje del reino animal", "maniobra_rival": 10, "dignitas_rival": 5},
        dice=ForcedDice([5, 7, 4, 5, 5, 6, 4, 5]),
    )
    print(render_text(out.trace))
    assert (out.result["maniobra_rival"], out.result["maniobra"]) == (22, 15)
    assert (out.result["ataque"], out.result["defensa"]) == (19, 17)
    assert out.result["afectado"] is True
    # Its cost, as the dominatus says: here 2 dinamis of Gravitas and a box.
    out = engine.run(
        "combate_con_dominatus",
        menecma,
        {
            "dominatus": "El lenguaje del reino animal",
            "maniobra_rival": 10,
            "dignitas_rival": 5,
            "dignitas": "Gravitas",
            "coste_dinamis": 2,
            "coste_rendimiento": 1,
        },
        dice=ForcedDice([5, 7, 4, 5, 5, 6, 4, 5]),
    )
    assert changes(out) == {"dinamis.Gravitas": (10, 8), "Casillas de rendimiento": (10, 9)}


# ─── what lasts: effects on the sheet ───────────────────────────────────────


def test_la_fortaleza_protects_against_ghosts_for_five_seasons(engine, menecma):
    # Worked example 1: "durante tantas estaciones como la puntuación de Dignitates ...
    # tendremos +5 a nuestra Defensa Teúrgica contra poderes sobrenaturales de fantasmas".
    cast = engine.run(
        "usar_numina", menecma, {"numina": FORTALEZA}, dice=ForcedDice([5, 7, 5, 6, 4, 5])
    ).sheet
    # Her defence (now Dignitas 5, Fides spent) against a ghost, 5 + 12 + 5; against a man,
    # 5 + 12.
    ghost = engine.run("defensa_teurgica", cast, {"fantasmas": True}, dice=ForcedDice([5, 7]))
    man = engine.run("defensa_teurgica", cast, {}, dice=ForcedDice([5, 7]))
    assert (ghost.result["total"], man.result["total"]) == (22, 17)
    # Four seasons later it still holds; the fifth ends it.
    later = engine.run("pasar_tiempo", cast, {"cantidad": 4, "unidad": "estación"}).sheet
    assert later["Efectos"][FORTALEZA]["left"] == 91
    over = engine.run("pasar_tiempo", later, {"cantidad": 91}).sheet
    assert FORTALEZA not in over["Efectos"]
    ghost = engine.run("defensa_teurgica", over, {"fantasmas": True}, dice=ForcedDice([5, 7]))
    assert ghost.result["total"] == 17


def test_one_defence_roll_for_every_attack_of_the_round(engine, menecma):
    # "Una sola tirada puede hacer frente a todos los ataques que se reciban durante un
    # turno": the second attack of the round meets the same 18, no dice; next round, a new
    # roll.
    first = engine.run("defensa_teurgica", menecma, {"ataque_rival": 17}, dice=ForcedDice([5, 7]))
    assert (first.result["total"], first.result["éxito"]) == (18, True)
    second = engine.run("defensa_teurgica", first.sheet, {"ataque_rival": 19}, dice=ForcedDice([]))
    assert (second.result["total"], second.result["éxito"]) == (18, False)
    assert list(second.dice) == []
    next_round = engine.run("fin_de_asalto", second.sheet, {}).sheet
    third = engine.run("defensa_teurgica", next_round, {}, dice=ForcedDice([9, 10]))
    assert third.result["total"] == 6 + 19


def test_evocacion_de_la_sangre_lasts_the_round(engine, menecma):
    # "durante un asalto": used for the attack, it is still there for the defence of that
    # round; the round over, it is gone.
    hurt = variant(engine, menecma, Heridas=2, **{"Evocación de la sangre": True})
    attack = engine.run(
        "ataque_teurgico", hurt, {"numina": "Gephyrismos", "sangre": True}, dice=ForcedDice([5, 7])
    )
    assert attack.result["total"] == 6 + 1 + 12 + 10
    defence = engine.run("defensa_teurgica", attack.sheet, {}, dice=ForcedDice([5, 7]))
    assert defence.result["total"] == 6 + 12 + 10
    after = engine.run("fin_de_asalto", attack.sheet, {}).sheet
    attack = engine.run(
        "ataque_teurgico", after, {"numina": "Gephyrismos"}, dice=ForcedDice([5, 7])
    )
    assert attack.result["total"] == 6 + 1 + 12


def test_a_maneuver_bonus_reserved_for_the_next_round(engine, menecma):
    # "ese positivo se puede reservar para el siguiente asalto": 6 + 9 = 15, +2, kept;
    # next round the attack takes it, once.
    kept = engine.run(
        "maniobra_teurgica", menecma, {"reservar": True}, dice=ForcedDice([4, 5])
    ).sheet
    next_round = engine.run("fin_de_asalto", kept, {}).sheet
    attack = engine.run(
        "ataque_teurgico",
        next_round,
        {"numina": "Gephyrismos", "usar_reserva": True},
        dice=ForcedDice([5, 7]),
    )
    assert attack.result["total"] == 6 + 1 + 2 + 12
    assert "Maniobra reservada" not in attack.sheet["Efectos"]
    # Not used in the next round, it is gone after it.
    gone = engine.run("fin_de_asalto", next_round, {}).sheet
    with pytest.raises(RequirementFailed, match="Maniobra reservada"):
        engine.run(
            "ataque_teurgico",
            gone,
            {"numina": "Gephyrismos", "usar_reserva": True},
            dice=ForcedDice([5, 7]),
        )


def test_furia_lasts_the_combat(engine, menecma):
    sheet = berserker(engine, menecma)
    out = engine.run(
        "furia", sheet, {"penalizador": 3, "maniobra_rival": 10}, dice=ForcedDice([3, 4, 5, 7])
    )
    furia = out.sheet["Efectos"]["Furia"]
    assert (furia["modifier"], furia["targets"], furia["unit"]) == (
        -1,
        ("penalizaciones por heridas",),
        "combate",
    )
    rounds = engine.run("fin_de_asalto", out.sheet, {}).sheet
    assert "Furia" in rounds["Efectos"]
    assert "Furia" not in engine.run("fin_del_combate", rounds, {}).sheet["Efectos"]
