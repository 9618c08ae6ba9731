"""Mage: the Ascension house rules (rulebooks/mago.rules) against its source.

Source: Mago: la Ascensión, a Spanish digest of house rules, and the pool rule of the
game's public description ("each die at or above the difficulty is a success, each 1
cancels a success, and no successes with at least one 1 is a botch"). Every number of the
worked example (Cardinal 2 + Fuerzas 3) is reproduced with forced dice in
tests/examples/mago.yaml (run by tests/test_worked_examples.py).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from cli_helpers import run_seeded
from hypothesis import given, settings
from hypothesis import strategies as st

import dsl
import interpreter
import interpreter.cli.options
from interpreter import Change, Engine, ForcedDice, render_text

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rulebooks" / "mago.rules"
CHARACTERS = ROOT / "rulebooks" / "characters"


@pytest.fixture(scope="module")
def book():
    return dsl.load(str(RULES))


@pytest.fixture(scope="module")
def engine(book) -> Engine:
    return Engine(book)


@pytest.fixture(scope="module")
def ignacio(engine):
    """Areté 3, Avatar 3, Cardinal 2, Fuerzas 3: the mage of the paradox example."""
    return engine.load_sheet(CHARACTERS / "mago_ignacio.yaml")


@pytest.fixture(scope="module")
def ada(engine):
    """Areté 6, a technomancer with two spheres free of focus and 2 points of Paradox."""
    return engine.load_sheet(CHARACTERS / "mago_ada.yaml")


BASE = {
    "Fuerza": 2,
    "Destreza": 2,
    "Resistencia": 2,
    "Carisma": 2,
    "Manipulación": 2,
    "Apariencia": 2,
    "Percepción": 3,
    "Inteligencia": 3,
    "Astucia": 3,
    "Areté": 3,
    "Avatar": 3,
    "Fuerza de Voluntad": 6,
    "Cardinal": 2,
    "Fuerzas": 3,
}


def sheet_of(engine, **changes):
    return engine.sheet({**BASE, **changes})


SIDE_EFFECT = "Efecto secundario de la Paradoja"
#: countermagic against an effect of Fuerzas: offensive, or reflecting it
OFFENSIVE = {"forma": "ofensiva", "esferas": ["Fuerzas"]}
REFLECT = {"forma": "reflejar", "esferas": ["Fuerzas"]}


def side_effect(sheet) -> tuple:
    """The paradox side effect on the sheet: (its +1 to +3, the turns left), or (0, 0)."""
    effect = sheet["Efectos"].get(SIDE_EFFECT)
    return (0, 0) if effect is None else (effect["modifier"], effect["left"])


def hit_by(engine, penalty: int, turns: int, **changes):
    """A mage under a paradox side effect of +penalty for some turns."""
    effect = {"modifier": penalty, "targets": ["dificultad"], "left": turns, "unit": "turno"}
    return sheet_of(engine, Efectos={SIDE_EFFECT: effect}, **changes)


def run(engine, action, sheet, dice=(), **params):
    out = engine.run(action, sheet, params, dice=ForcedDice(list(dice)))
    print(render_text(out.trace))
    return out


# ─── the rulebook itself ────────────────────────────────────────────────────


def test_rulebook_loads_without_warnings(book):
    assert list(book.warnings) == []


# ─── worked example: "Cardenal 2 y Fuerzas 3" ───────────────────────────────

# Areté 3 throws three dice; an estándar action needs 2 successes. 8 and 9 reach every
# difficulty of the example; 2, 3, 4 reach none and show no 1 (a plain failure, not a
# botch); 2, 1, 3 reach none and show a 1: a FRACASO (botch). The example's own numbers
# (Cardinal 2 + Fuerzas 3) are a table: tests/examples/mago.yaml.
EXITO, FALLO, FRACASO = (8, 9, 2), (2, 3, 4), (2, 1, 3)


def test_a_failed_coincidental_effect_is_not_a_botch(engine, ignacio):
    # the digest, "La Paradoja": paradox comes "a través de magia vulgar o de un fallo en
    # algún efecto coincidente"; its accumulation system gives a coincidental effect
    # points only as "Un fracaso coincidente otorga tantos puntos de Paradoja como nivel
    # de la esfera más alta utilizada) (1xE)", and "Reglas de Efectos Mágicos" part "¿Ha
    # fallado?" from "¿Ha fracasado?". The LECTURA reads that "fallo" as the botch: a
    # plain coincidental failure (2, 3, 4: no success, no 1)
    # notes 0, like a success; the botch (2, 1, 3) notes E = 3.
    failed = run(engine, "efecto", ignacio, FALLO, esferas=["Cardinal", "Fuerzas"])
    assert (failed.result["éxito"], failed.result["fracaso"]) == (False, False)
    assert failed.result["paradoja"] == 0 and list(failed.changes) == []
    botched = run(
        engine, "efecto", ignacio, FRACASO, esferas=["Cardinal", "Fuerzas"], liberar=False
    )
    assert (botched.result["éxito"], botched.result["fracaso"]) == (False, True)
    assert list(botched.changes) == [Change("Paradoja", 0, 3)]


def test_naming_a_lower_sphere_major_is_refused(engine, ignacio):
    # the digest, "La Paradoja": "si un mago emplea Cardenal 2 y Fuerzas 3 para un efecto
    # fatuo, acumulas 3 puntos de Paradoja"; "Reglas de Efectos Mágicos": "Vulgar sin
    # testigos: Mayor esfera + 4". Naming Cardinal the major sphere would give 2 and 6: refused,
    # saying which sphere is the highest.
    with pytest.raises(interpreter.RequirementFailed) as refused:
        run(engine, "efecto", ignacio, EXITO, esfera_mayor="Cardinal", esferas=["Fuerzas"])
    message = str(refused.value)
    assert "Cardinal (2) no es la esfera mayor del efecto: Fuerzas tiene 3" in message
    assert "nivel" in message
    # An effect that uses Fuerzas below 3 says so with `nivel`: Cardinal 2 is then the
    # highest, E = 2: 2 points, difficulty 2 + 4.
    out = run(
        engine,
        "efecto",
        ignacio,
        EXITO,
        esfera_mayor="Cardinal",
        nivel=2,
        esferas=["Fuerzas"],
        vulgar=True,
        liberar=False,
    )
    assert (out.result["paradoja"], out.result["dificultad"]) == (2, 6)
    # The same level without naming the major sphere.
    out = run(
        engine, "efecto", ignacio, EXITO, nivel=2, esferas=["Fuerzas", "Cardinal"], vulgar=True
    )
    assert (out.result["paradoja"], out.result["dificultad"]) == (2, 6)


def test_the_effect_needs_its_spheres(engine, ignacio):
    with pytest.raises(interpreter.RequirementFailed, match="qué esferas usa el efecto"):
        run(engine, "efecto", ignacio, EXITO, vulgar=True)
    # A level the mage has in none of the effect's spheres (Fuerzas 3 is the highest).
    with pytest.raises(interpreter.RequirementFailed, match="no tiene ese nivel"):
        run(engine, "efecto", ignacio, EXITO, esferas=["Cardinal", "Fuerzas"], nivel=4)
    with pytest.raises(interpreter.RequirementFailed, match="no conoce una de las esferas"):
        run(engine, "efecto", ignacio, EXITO, esfera_mayor="Vida", esferas=["Fuerzas"])


SPHERES = ["Cardinal", "Correspondencia", "Entropía", "Espíritu", "Fuerzas"]


@settings(max_examples=60, deadline=None)
@given(
    levels=st.lists(st.integers(1, 3), min_size=len(SPHERES), max_size=len(SPHERES)),
    used=st.lists(st.sampled_from(SPHERES), min_size=1, max_size=4, unique=True),
    vulgar=st.booleans(),
)
def test_the_major_sphere_is_the_highest_used(engine, levels, used, vulgar):
    # E is the highest level among the effect's spheres, whatever their order; naming the
    # highest one changes nothing; naming a lower one (without `nivel`) is refused.
    mage = sheet_of(engine, Areté=3, **dict(zip(SPHERES, levels)))
    rating = dict(zip(SPHERES, levels))
    E = max(rating[s] for s in used)
    params = {"vulgar": vulgar, "liberar": False}
    derived = run(engine, "efecto", mage, EXITO, esferas=used, **params)
    assert derived.result["dificultad"] == E + (4 if vulgar else 3)
    assert derived.result["paradoja"] == (E if vulgar else 0)
    backwards = run(engine, "efecto", mage, EXITO, esferas=used[::-1], **params)
    assert backwards.result == derived.result
    for major in used:
        others = [s for s in used if s != major]
        if rating[major] == E:
            named = run(engine, "efecto", mage, EXITO, esfera_mayor=major, esferas=others, **params)
            assert named.result == derived.result
        else:
            with pytest.raises(interpreter.RequirementFailed, match="no es la esfera mayor"):
                run(engine, "efecto", mage, EXITO, esfera_mayor=major, esferas=others, **params)


def test_paradox_accumulates_on_the_counter(engine, ignacio):
    # "los otros suelen acumularse durante unos cuantos turnos más antes de caer sobre el
    # mago": a vulgar success (3) stays; a failed vulgar effect with witnesses adds 4.
    first = run(engine, "efecto", ignacio, EXITO, esfera_mayor="Fuerzas", vulgar=True)
    assert (first.result["liberados"], first.sheet["Paradoja"]) == (0, 3)
    held = run(
        engine,
        "efecto",
        first.sheet,
        FALLO,
        esfera_mayor="Fuerzas",
        vulgar=True,
        testigos=True,
        liberar=False,
    )
    assert list(held.changes) == [Change("Paradoja", 3, 7)]
    assert held.result["reaccion"] is True  # "¿Ha obtenido mas de 5 puntos de paradoja?"
    # By default the 7 now fall together: seven dice of bashing damage at 6 (6, 6 and five
    # 2s: two levels), soaked by Resistencia 2 (2, 2: none).
    fall = run(
        engine,
        "efecto",
        first.sheet,
        FALLO + (6, 6) + (2,) * 5 + (2, 2),
        esfera_mayor="Fuerzas",
        vulgar=True,
        testigos=True,
    )
    assert fall.result["liberados"] == 7
    assert fall.result["daño_paradoja"] == 2
    assert fall.sheet["Paradoja"] == 0
    assert fall.sheet["Contundente"] == 2
    # "Seis a Diez puntos ... aumentar de 1 a 3 la dificultad de todas sus acciones durante
    # un número de turnos igual al número de puntos de paradoja liberados"
    assert side_effect(fall.sheet) == (1, 7)


def test_botch_paradox_falls_at_once(engine, ignacio):
    # "Los puntos de Paradoja acumulados por fracaso normalmente se liberan en el momento en
    # el que se obtienen": the poor devil's 8 points fall now: 8 dice (one 6), soak 2 dice.
    out = run(
        engine,
        "efecto",
        ignacio,
        FRACASO + (6,) + (2,) * 7 + (2, 2),
        esfera_mayor="Fuerzas",
        vulgar=True,
        testigos=True,
        secundario=2,
    )
    assert out.result["fracaso"] is True
    assert out.result["paradoja"] == 8
    assert out.result["liberados"] == 8
    assert out.sheet["Paradoja"] == 0 and out.sheet["Contundente"] == 1
    assert side_effect(out.sheet) == (2, 8)
    assert len(out.dice) == 3 + 8 + 2
    # A coincidental botch (3 points, "Hasta cinco") falls too: 3 dice, no side effect.
    out = run(engine, "efecto", ignacio, (*FRACASO, 2, 2, 2, 2, 2), esfera_mayor="Fuerzas")
    assert (out.result["liberados"], out.sheet["Paradoja"]) == (3, 0)
    assert side_effect(out.sheet) == (0, 0)


def test_delayed_paradox_waits_for_the_end_of_the_scene(engine, ignacio):
    # "El Mago puede gastar un punto de Fuerza de Voluntad para demorar los efectos hasta el
    # final de la escena, acumulando mientras los puntos ganados y los que obtenga
    # posteriormente, para liberarse en una gran reacción."
    delayed = run(engine, "demorar_paradoja", ignacio).sheet
    out = run(
        engine, "efecto", delayed, FRACASO, esfera_mayor="Fuerzas", vulgar=True, testigos=True
    )
    out = run(engine, "efecto", out.sheet, EXITO, esfera_mayor="Fuerzas", vulgar=True)
    assert (out.result["liberados"], out.sheet["Paradoja"]) == (0, 11)
    # 11 points: "Once a Quince ... daño letal con tantos dados como puntos ... menos 10":
    # one die (a 7: one level), soaked by 2 dice (2, 2).
    end = run(engine, "fin_de_escena", out.sheet, (7, 2, 2))
    assert end.result["liberados"] == 11
    assert end.sheet["Letal"] == 1
    assert end.sheet["Paradoja"] == 0 and "Paradoja demorada" not in end.sheet["Efectos"]
    # Without a delay the end of the scene releases nothing.
    quiet = run(engine, "fin_de_escena", ignacio)
    assert quiet.result["liberados"] == 0 and list(quiet.changes) == []


def test_lower_level_of_a_sphere_sets_E(engine, ignacio):
    # Fuerzas 2 used by a mage with Fuerzas 3: E = 2, vulgar without witnesses: 2 points.
    out = run(engine, "efecto", ignacio, EXITO, esfera_mayor="Fuerzas", nivel=2, vulgar=True)
    assert out.result["dificultad"] == 6
    assert out.result["paradoja"] == 2


def test_effect_needs_the_spheres(engine, ignacio):
    with pytest.raises(interpreter.RequirementFailed):
        run(engine, "efecto", ignacio, EXITO, esfera_mayor="Fuerzas", nivel=4)
    with pytest.raises(interpreter.RequirementFailed):
        run(engine, "efecto", ignacio, EXITO, esfera_mayor="Fuerzas", esferas=["Vida"])


# ─── Areté pools ────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("dice", "successes", "success", "botch"),
    [
        ((8, 9, 2), 2, True, False),  # two dice at or above 6
        ((6, 10, 7), 3, True, False),  # 6 counts: "at or above the difficulty"
        ((8, 9, 1), 1, False, False),  # a 1 cancels a success
        ((8, 1, 1), 0, False, False),  # more 1s than successes: a failure, not a botch
        ((5, 1, 3), 0, False, True),  # no success and a 1: botch
        ((2, 3, 5), 0, False, False),  # no success, no 1: a plain failure
    ],
)
def test_arete_pool(engine, ignacio, dice, successes, success, botch):
    # Coincidental, E = 3: difficulty 6.
    out = run(engine, "efecto", ignacio, dice, esfera_mayor="Fuerzas", liberar=False)
    assert out.result["dificultad"] == 6
    assert out.result["éxitos"] == successes
    assert out.result["éxito"] is success
    assert out.result["fracaso"] is botch
    assert out.dice == dice


def test_willpower_adds_a_success_and_prevents_the_botch(engine, ignacio):
    out = run(
        engine, "efecto", ignacio, (5, 1, 3), esfera_mayor="Fuerzas", voluntad=True, accion="simple"
    )
    assert out.result["éxitos"] == 1
    assert out.result["fracaso"] is False
    assert out.result["éxito"] is True
    assert Change("Voluntad actual", 6, 5) in out.changes


def test_pool_size_is_arete(engine, ada):
    out = run(engine, "efecto", ada, (7, 7, 7, 1, 2, 3), esfera_mayor="Mente")
    assert len(out.dice) == 6
    assert out.result["éxitos"] == 2


def test_extended_effect_repeats_the_roll(engine, ignacio):
    # "Se repite el proceso en caso de efectos prolongados": a powerful action (5 successes)
    # in up to four rolls: 2 + 0 (a 10 cancelled by a 1) + 3 = 5 after three rolls.
    out = run(
        engine,
        "efecto",
        ignacio,
        (8, 9, 2, 10, 1, 3, 7, 7, 7),
        esfera_mayor="Fuerzas",
        accion="poderosa",
        tiradas=4,
    )
    assert out.result["éxitos"] == 5
    assert out.result["tiradas"] == 3
    assert out.result["éxito"] is True
    # Thresholds come off each roll: dif 11 -> 10 and one threshold per roll.
    out = run(
        engine,
        "efecto",
        ignacio,
        (10, 10, 2, 10, 2, 2),
        esfera_mayor="Fuerzas",
        vulgar=True,
        testigos=True,
        modificadores=3,
        tiradas=2,
    )
    assert out.result["éxitos"] == 1
    assert out.result["éxito"] is False
    # A botch in any roll ruins the effect.
    out = run(
        engine,
        "efecto",
        ignacio,
        (8, 9, 2, 1, 2, 3),
        esfera_mayor="Fuerzas",
        accion="difícil",
        tiradas=3,
        liberar=False,
    )
    assert out.result["fracaso"] is True
    assert out.result["éxitos"] == 0
    assert out.result["paradoja"] == 3


# ─── difficulty ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("modificadores", "circunstancias", "dificultad"),
    [
        (2, [], 8),
        (3, [], 9),
        (5, [], 9),  # "Máximo modificador en 3"
        (-7, [], 3),
        (0, ["distracción", "efecto dominó"], 8),
        (2, ["resonancia opuesta", "objeto distante"], 9),  # 4 capped to 3
        (0, ["foco único", "cerca de un nodo"], 4),
    ],
)
def test_modifiers_are_capped_at_three(engine, ignacio, modificadores, circunstancias, dificultad):
    out = run(
        engine,
        "efecto",
        ignacio,
        FALLO,
        esfera_mayor="Fuerzas",
        modificadores=modificadores,
        circunstancias=circunstancias,
    )
    assert out.result["dificultad"] == dificultad


def test_circumstances_repeat_up_to_their_range(engine, ignacio):
    # "Cerca de un Nodo -1 a -3": twice is -2 ...
    out = run(
        engine,
        "efecto",
        ignacio,
        FALLO,
        esfera_mayor="Fuerzas",
        circunstancias=["cerca de un nodo", "cerca de un nodo"],
    )
    assert out.result["dificultad"] == 4
    # ... but "Resonancia opuesta +1" has no range: twice is refused.
    with pytest.raises(interpreter.RequirementFailed):
        run(
            engine,
            "efecto",
            ignacio,
            FALLO,
            esfera_mayor="Fuerzas",
            circunstancias=["resonancia opuesta", "resonancia opuesta"],
        )


def test_focus(engine, ada):
    # Mente and Correspondencia are free of focus for Ada: going without is no penalty.
    # Mente 3 is the major sphere: the effect uses Correspondencia at 3 or less (Ada has 4),
    # which `nivel` says (without it, Correspondencia 4 would be the highest sphere used).
    out = run(
        engine,
        "efecto",
        ada,
        (2,) * 6,
        esfera_mayor="Mente",
        nivel=3,
        esferas=["Correspondencia"],
        foco=False,
    )
    assert out.result["dificultad"] == 6
    # ... and using one anyway is "Uso de un foco cuando no es necesario -1".
    out = run(engine, "efecto", ada, (2,) * 6, esfera_mayor="Mente")
    assert out.result["dificultad"] == 5
    # Fuerzas is not free: "Prescindir de un foco necesario +3".
    out = run(
        engine, "efecto", ada, (2,) * 6, esfera_mayor="Mente", esferas=["Fuerzas"], foco=False
    )
    assert out.result["dificultad"] == 9


def test_quintessence_lowers_difficulty_by_one_at_most(engine, ignacio):
    # "Gasto de Quintaesencia -1 hasta máx -1": two points spent, one off (6 → 5).
    out = run(engine, "efecto", ignacio, FALLO, esfera_mayor="Fuerzas", quintaesencia=2)
    assert out.result["dificultad"] == 5
    assert out.changes[0] == Change("Quintaesencia", 3, 1)
    one = run(engine, "efecto", ignacio, FALLO, esfera_mayor="Fuerzas", quintaesencia=1)
    assert one.result["dificultad"] == 5
    # It is one of the "Dificultades de Magia": within the ±3 cap (-3 and -1 are -3), and
    # "hasta un mínimo de 3".
    out = run(
        engine, "efecto", ignacio, FALLO, esfera_mayor="Fuerzas", quintaesencia=3, modificadores=-3
    )
    assert out.result["dificultad"] == 3
    assert out.sheet["Quintaesencia"] == 0


def test_difficulty_never_below_three(engine):
    # A coincidental Fuerzas 1 effect (1 + 3 = 4) with -3 in modifiers would be 1, where a 1
    # is both a success and a cancel: it stops at 3.
    novice = sheet_of(engine, Fuerzas=1)
    out = run(engine, "efecto", novice, FALLO, esfera_mayor="Fuerzas", modificadores=-3)
    assert out.result["dificultad"] == 3


def test_quintessence_above_avatar_is_refused(engine, ignacio):
    before = ignacio.to_data()
    with pytest.raises(interpreter.RequirementFailed) as caught:
        run(engine, "efecto", ignacio, EXITO, esfera_mayor="Fuerzas", quintaesencia=4)
    assert "Avatar" in str(caught.value)
    assert ignacio.to_data() == before


def test_quintessence_short_is_refused(engine):
    poor = sheet_of(engine, Quintaesencia=1)
    with pytest.raises(interpreter.InsufficientResource):
        run(engine, "efecto", poor, EXITO, esfera_mayor="Fuerzas", quintaesencia=2)


def test_five_quintessence_makes_it_vulgar(engine):
    rich = sheet_of(engine, Areté=5, Avatar=5, Fuerzas=5, **{"Fuerza de Voluntad": 7})
    out = run(
        engine, "efecto", rich, (8, 8, 2, 2, 2), esfera_mayor="Fuerzas", nivel=3, quintaesencia=5
    )
    assert out.result["tipo"] == "vulgar sin testigos"
    assert out.result["dificultad"] == 6  # 3 + 4 = 7, and quintessence takes one off
    assert out.result["paradoja"] == 3
    out = run(
        engine, "efecto", rich, (8, 8, 2, 2, 2), esfera_mayor="Fuerzas", nivel=3, quintaesencia=4
    )
    assert out.result["tipo"] == "coincidente"
    assert out.result["paradoja"] == 0


@pytest.mark.parametrize(
    ("antimagia", "dificultad", "umbrales", "successes", "success"),
    [
        (0, 10, 1, 2, True),  # 8 + 3 = 11: difficulty 10 and one threshold
        (1, 10, 2, 1, False),
        (2, 10, 3, 0, False),  # three 10s, three thresholds: nothing left
    ],
)
def test_thresholds_above_ten(engine, ignacio, antimagia, dificultad, umbrales, successes, success):
    out = run(
        engine,
        "efecto",
        ignacio,
        (10, 10, 10),
        esfera_mayor="Fuerzas",
        vulgar=True,
        testigos=True,
        modificadores=3,
        antimagia_rival=antimagia,
    )
    assert out.result["dificultad"] == dificultad
    assert out.result["umbrales"] == umbrales
    assert out.result["éxitos"] == successes
    assert out.result["éxito"] is success


def test_quintessence_can_remove_a_threshold(engine, ignacio):
    out = run(
        engine,
        "efecto",
        ignacio,
        (10, 10, 1),
        esfera_mayor="Fuerzas",
        vulgar=True,
        testigos=True,
        modificadores=3,
        quintaesencia=1,
    )
    assert out.result["dificultad"] == 10
    assert out.result["umbrales"] == 0
    assert out.result["éxitos"] == 1


# ─── successes needed ───────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("accion", "exitos", "needed"),
    [
        ("simple", None, 1),
        ("estándar", None, 2),
        ("difícil", None, 3),
        ("impresionante", None, 4),
        ("poderosa", None, 5),
        ("poderosa", 10, 10),
        ("extravagante", None, 10),
        ("extravagante", 20, 20),
        ("cuasi-divina", None, 20),
        ("cuasi-divina", 35, 35),
    ],
)
def test_successes_needed(engine, ignacio, accion, exitos, needed):
    params = (
        {"accion": accion} if exitos is None else {"accion": accion, "exitos_requeridos": exitos}
    )
    out = run(engine, "efecto", ignacio, EXITO, esfera_mayor="Fuerzas", **params)
    assert out.result["requeridos"] == needed
    assert out.result["éxito"] is (needed <= 2)


def test_successes_needed_outside_the_range(engine, ignacio):
    with pytest.raises(interpreter.RequirementFailed):
        run(
            engine,
            "efecto",
            ignacio,
            EXITO,
            esfera_mayor="Fuerzas",
            accion="poderosa",
            exitos_requeridos=11,
        )


def test_other_patterns_and_area_need_more(engine, ignacio):
    out = run(
        engine,
        "efecto",
        ignacio,
        (8, 9, 10),
        esfera_mayor="Fuerzas",
        accion="simple",
        patrones=1,
        area=1,
    )
    assert out.result["requeridos"] == 3
    assert out.result["éxito"] is True


def test_resistance_removes_successes(engine, ignacio):
    out = run(engine, "efecto", ignacio, (8, 9, 10), esfera_mayor="Fuerzas", resistencia=2)
    assert out.result["éxitos"] == 1
    assert out.result["éxito"] is False
    assert out.result["fracaso"] is False
    assert out.result["paradoja"] == 0  # a failed (not botched) coincidental effect


# ─── paradox backlash ───────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("puntos", "dados", "tipo", "campo", "penalizador"),
    [
        (1, 1, "contundente", "Contundente", 0),
        (5, 5, "contundente", "Contundente", 0),
        (6, 6, "contundente", "Contundente", 2),
        (10, 10, "contundente", "Contundente", 2),
        (11, 1, "letal", "Letal", 0),
        (15, 5, "letal", "Letal", 0),
        (16, 6, "letal", "Letal", 0),
        (20, 10, "letal", "Letal", 0),
        (21, 1, "agravado", "Agravado", 0),
        (27, 7, "agravado", "Agravado", 0),
    ],
)
def test_paradox_backlash_table(engine, puntos, dados, tipo, campo, penalizador):
    mage = sheet_of(engine, Paradoja=puntos)
    resistible = puntos <= 20
    # Damage dice: the first is a 6 (a success at dif 6), the rest 2s; soak (Resistencia 2):
    # one failure and no success.
    dice = (6,) + (2,) * (dados - 1) + ((3, 4) if resistible else ())
    out = run(engine, "reaccion_paradoja", mage, dice, secundario=2)
    assert out.result["dados"] == dados
    assert out.result["daño"] == tipo
    assert out.result["niveles"] == 1
    assert out.sheet[campo] == 1
    assert out.sheet["Paradoja"] == 0
    assert side_effect(out.sheet) == (penalizador, puntos if penalizador else 0)
    assert len(out.dice) == dados + (2 if resistible else 0)


def test_backlash_soak_and_partial_release(engine):
    mage = sheet_of(engine, Paradoja=9, Resistencia=3)
    # Release 4 of 9: four dice (7, 8, 1, 9: three successes, one cancelled = 2), soak
    # Resistencia 3 (6, 2, 2: one success): one level of bashing damage.
    out = run(engine, "reaccion_paradoja", mage, (7, 8, 1, 9, 6, 2, 2), puntos=4)
    assert out.result["éxitos"] == 2
    assert out.result["absorbidos"] == 1
    assert list(out.changes) == [Change("Contundente", 0, 1), Change("Paradoja", 9, 5)]


def test_backlash_cannot_release_more_than_accumulated(engine):
    mage = sheet_of(engine, Paradoja=3)
    with pytest.raises(interpreter.RequirementFailed):
        run(engine, "reaccion_paradoja", mage, (), puntos=4)


def test_side_effect_lasts_turns_and_applies_to_difficulty(engine):
    mage = sheet_of(engine, Paradoja=6)
    out = run(engine, "reaccion_paradoja", mage, (2,) * 6 + (2, 2), secundario=3)
    hit = out.sheet
    assert side_effect(hit) == (3, 6)
    effect = run(engine, "efecto", hit, FALLO, esfera_mayor="Fuerzas")
    assert effect.result["dificultad"] == 9
    for _ in range(5):
        hit = run(engine, "fin_de_turno", hit).sheet
    assert side_effect(hit) == (3, 1)
    hit = run(engine, "fin_de_turno", hit).sheet
    assert side_effect(hit) == (0, 0)


def test_side_effect_is_outside_the_cap_and_reaches_every_action(engine):
    # "aumentar de 1 a 3 la dificultad de todas sus acciones": +3 on top of +3 in modifiers
    # (6 + 3 + 3 = 12: difficulty 10 and two thresholds) ...
    hit = hit_by(engine, 3, 4)
    out = run(engine, "efecto", hit, (10, 10, 10), esfera_mayor="Fuerzas", modificadores=3)
    assert (out.result["dificultad"], out.result["umbrales"]) == (10, 2)
    assert out.result["éxitos"] == 1
    # ... and countermagic: "Tirará Areté dificultad 7" becomes 10, so a 9 no longer counts.
    out = run(engine, "contramagia", hit, (9, 10, 2), esferas=["Fuerzas"], exitos_atacante=2)
    assert out.result["éxitos"] == 1
    # Offensive countermagic to reflect, 9 + 3 = 12: two thresholds eat both 10s.
    out = run(engine, "contramagia", hit, (10, 10, 2), **REFLECT, exitos_atacante=1)
    assert out.result["éxitos"] == 0
    # Resisting Mind at 6 + 3 = 9.
    out = run(engine, "resistir_mente", hit, (8, 9, 9, 2, 2, 2), exitos_atacante=2)
    assert out.result["éxitos"] == 2


def test_extravagant_action_raises_difficulty_by_its_type(engine, ignacio):
    # "Acción Extravagante o superior +1 a +3": tied to the action, +1 unless the Narrator
    # says more (within the ±3 cap).
    params = {"esfera_mayor": "Fuerzas", "liberar": False}
    base = run(engine, "efecto", ignacio, FALLO, accion="poderosa", **params)
    assert base.result["dificultad"] == 6
    out = run(engine, "efecto", ignacio, FALLO, accion="extravagante", **params)
    assert out.result["dificultad"] == 7
    out = run(engine, "efecto", ignacio, FALLO, accion="cuasi-divina", extravagancia=3, **params)
    assert out.result["dificultad"] == 9
    # An action below extravagant takes none, whatever is asked; out of range is refused.
    out = run(engine, "efecto", ignacio, FALLO, accion="simple", extravagancia=3, **params)
    assert out.result["dificultad"] == 6
    with pytest.raises(interpreter.RequirementFailed):
        run(engine, "efecto", ignacio, FALLO, accion="extravagante", extravagancia=4, **params)


def test_delaying_paradox_costs_willpower(engine, ignacio):
    # "El Mago puede gastar un punto de Fuerza de Voluntad para demorar los efectos hasta el
    # final de la escena": a lasting effect until the scene ends.
    out = run(engine, "demorar_paradoja", ignacio)
    delay = {"name": "Paradoja demorada", "modifier": 0, "targets": (), "left": 1, "unit": "escena"}
    assert list(out.changes) == [
        Change("Voluntad actual", 6, 5),
        Change("Efectos.Paradoja demorada", None, delay),
    ]
    with pytest.raises(interpreter.RequirementFailed):
        run(engine, "demorar_paradoja", out.sheet)
    # Turns passing do not end it; the scene's end does.
    later = run(engine, "fin_de_turno", out.sheet).sheet
    assert "Paradoja demorada" in later["Efectos"]
    assert "Paradoja demorada" not in run(engine, "fin_de_escena", later).sheet["Efectos"]


# ─── countermagic ───────────────────────────────────────────────────────────


def test_basic_countermagic(engine, ignacio):
    # "Tirará Areté dificultad 7. Cada éxito anula uno del atacante"
    out = run(engine, "contramagia", ignacio, (7, 6, 10), esferas=["Fuerzas"], exitos_atacante=3)
    assert out.result["éxitos"] == 2
    assert out.result["anulados"] == 2
    assert out.result["restantes"] == 1
    with pytest.raises(interpreter.RequirementFailed):  # "al menos un punto en cada esfera"
        run(engine, "contramagia", ignacio, (7, 7, 7), esferas=["Fuerzas", "Vida"])
    with pytest.raises(interpreter.RequirementFailed):  # "debe de saber que se le viene"
        run(engine, "contramagia", ignacio, (7, 7, 7), esferas=["Fuerzas"], consciente=False)


def test_offensive_countermagic_and_reflection(engine, ignacio):
    out = run(engine, "contramagia", ignacio, (8, 7, 10), **OFFENSIVE, exitos_atacante=1)
    assert out.result["éxitos"] == 2
    assert out.result["contra_lanzador"] == 0
    # "9 para devolver el efecto": 8 no longer counts; the excess counts against the caster.
    out = run(engine, "contramagia", ignacio, (9, 8, 10), **REFLECT, exitos_atacante=1)
    assert out.result["éxitos"] == 2
    assert out.result["anulados"] == 1
    assert out.result["contra_lanzador"] == 1
    no_prime = sheet_of(engine, Cardinal=0)
    with pytest.raises(interpreter.RequirementFailed):  # "y Cardinal 1"
        run(engine, "contramagia", no_prime, (9, 9, 9), **OFFENSIVE)


def test_sphere_against_sphere_needs_no_spheres(engine):
    mage = sheet_of(engine, Cardinal=0, Fuerzas=0, Mente=1)
    out = run(
        engine,
        "contramagia",
        mage,
        (8, 7, 1),
        forma="esfera contra esfera",
        esferas=["Vida"],
        exitos_atacante=2,
    )
    assert out.result["éxitos"] == 0
    assert out.result["restantes"] == 2
    assert out.result["fracaso"] is False


def test_antimagia(engine, ignacio):
    # Cardinal 2 dice at dif 8: one success lets spend one quintessence of the two asked.
    out = run(engine, "antimagia", ignacio, (8, 7), quintaesencia=2)
    assert out.result["aumento_dificultad"] == 1
    assert list(out.changes) == [Change("Quintaesencia", 3, 2)]
    assert out.result["paradoja"] == 0
    # "Esto puede exceder el máximo de +3": the rival's effect gets it beyond the cap.
    rival = run(
        engine, "efecto", ignacio, FALLO, esfera_mayor="Fuerzas", modificadores=3, antimagia_rival=2
    )
    assert rival.result["dificultad"] == 10  # 6 + 3 + 2 = 11: one threshold
    assert rival.result["umbrales"] == 1
    weak = sheet_of(engine, Cardinal=1)
    with pytest.raises(interpreter.RequirementFailed):  # "Cardinal (mínimo 2)"
        run(engine, "antimagia", weak, (8,), quintaesencia=1)
    with pytest.raises(interpreter.RequirementFailed):  # no more than Avatar per turn
        run(engine, "antimagia", ignacio, (8, 8), quintaesencia=4)


def test_antimagia_needs_cardinal_2_and_rolls_cardinal(engine):
    # the digest, "Contramagia": "Antimagia: Tira Cardinal (mínimo 2) como reserva
    # de dados contra dificultad 8". LECTURA: Cardinal 2 is a requisite and the pool is
    # Cardinal, not a floor of two dice: Cardinal 0 or 1 is refused (it does not roll 2).
    for cardinal in (0, 1):
        weak = sheet_of(engine, Cardinal=cardinal)
        with pytest.raises(interpreter.RequirementFailed, match="Cardinal 2 como mínimo"):
            run(engine, "antimagia", weak, (8, 8), quintaesencia=1)
    # Cardinal 2, 3: that many dice at 8 (8 and 10 succeed, 7 does not; a 1 cancels one).
    two = run(engine, "antimagia", sheet_of(engine, Cardinal=2), (8, 7), quintaesencia=3)
    assert two.dice == (8, 7) and two.result["éxitos"] == 1
    three = run(engine, "antimagia", sheet_of(engine, Cardinal=3), (8, 10, 1), quintaesencia=3)
    assert three.dice == (8, 10, 1) and three.result["éxitos"] == 1
    # Exactly, two dice at 8: a die succeeds with 3/10 (8, 9, 10) and is neither a success
    # nor a 1 with 6/10 (2 to 7): two successes 9/100, one (and a die of 2 to 7) 36/100,
    # the rest none.
    odds = engine.odds("antimagia", sheet_of(engine, Cardinal=2), {"quintaesencia": 2}, "éxitos")
    assert odds.exact
    hit, blank = Fraction(3, 10), Fraction(6, 10)
    assert odds.probability(2) == hit * hit == Fraction(9, 100)
    assert odds.probability(1) == 2 * hit * blank == Fraction(36, 100)
    assert odds.probability(0) == Fraction(55, 100)


def test_unweaving_is_extended(engine, ignacio):
    # Target 2 successes: 2 + 0 + 1 = 3, more than 2, after three rolls.
    out = run(
        engine,
        "destejer",
        ignacio,
        (8, 9, 2, 9, 1, 3, 10, 2, 2),
        esferas=["Fuerzas"],
        exitos_objetivo=2,
    )
    assert out.result["destejido"] is True
    assert out.result["éxitos"] == 3
    assert out.result["tiradas"] == 3
    # A botch ruins it.
    out = run(
        engine, "destejer", ignacio, (8, 2, 2, 1, 2, 3), esferas=["Fuerzas"], exitos_objetivo=2
    )
    assert out.result["destejido"] is False and out.result["fracaso"] is True
    # Out of turns.
    out = run(
        engine,
        "destejer",
        ignacio,
        (8, 2, 2, 8, 2, 2),
        esferas=["Fuerzas"],
        exitos_objetivo=2,
        turnos=2,
    )
    assert out.result["destejido"] is False and out.result["éxitos"] == 2


def test_owner_notices_unweaving(engine, ignacio):
    # Astucia 3 + Intuición 2 = five dice at 7.
    out = run(engine, "notar_destejido", ignacio, (7, 1, 3, 4, 5))
    assert dict(out.result.items()) == {"notado": False, "éxitos": 0, "fracaso": False}
    out = run(engine, "notar_destejido", ignacio, (7, 2, 3, 4, 5))
    assert out.result["notado"] is True


# ─── willpower, damage, duration, quintessence ──────────────────────────────


def test_resisting_mind(engine, ignacio):
    # Fuerza de Voluntad 6 dice at 6; each success removes one of the caster's.
    out = run(engine, "resistir_mente", ignacio, (6, 7, 1, 2, 3, 9), exitos_atacante=3)
    assert out.result["éxitos"] == 2
    assert out.result["restantes"] == 1
    with pytest.raises(interpreter.RequirementFailed):
        run(engine, "resistir_mente", ignacio, (), consciente=False)


def test_driving_off_a_gremlin(engine, ignacio):
    out = run(engine, "alejar_gantrasgo", ignacio, (6, 2, 2, 2, 2, 2))
    assert out.result["éxito"] is True
    assert list(out.changes) == [Change("Voluntad actual", 6, 5)]


@pytest.mark.parametrize(
    ("esfera", "cargado", "tipo"),
    [
        ("Mente", False, "contundente"),
        ("Vida", False, "letal"),
        ("Materia", False, "letal"),
        ("Fuerzas", False, "agravado"),
        ("Mente", True, "agravado"),
        ("Vida", True, "agravado"),
    ],
)
def test_damage(engine, ignacio, esfera, cargado, tipo):
    out = run(engine, "daño", ignacio, (), éxitos=3, esfera=esfera, cargado=cargado)
    assert dict(out.result.items()) == {"niveles": 6, "tipo": tipo}


@pytest.mark.parametrize(
    ("exitos", "requeridos", "duracion"),
    [
        (0, None, "instantáneo"),
        (1, None, "un turno"),
        (2, None, "una escena"),
        (3, None, "un día"),
        (4, None, "una historia"),
        (5, None, "permanente"),
        (9, None, "permanente"),
        (4, 2, "permanente"),
        (3, 2, "un día"),
    ],
)
def test_duration(engine, ignacio, exitos, requeridos, duracion):
    out = run(engine, "duración", ignacio, (), éxitos=exitos, requeridos=requeridos)
    assert out.result["duración"].startswith(duracion)


def test_meditation_recharges_up_to_avatar(engine):
    mage = sheet_of(engine, Quintaesencia=0, Meditación=2)
    # Percepción 3 + Meditación 2 = five dice at 7: 7, 8, 9, 10 and a 1: three successes.
    out = run(engine, "meditar", mage, (7, 8, 9, 10, 1))
    assert out.result["recargada"] == 3
    assert list(out.changes) == [Change("Quintaesencia", 0, 3)]
    out = run(engine, "meditar", out.sheet, (7, 8, 9, 10, 10))
    assert out.result["recargada"] == 0  # the pool is full at Avatar 3
    with pytest.raises(interpreter.RequirementFailed):
        run(engine, "meditar", mage, (), cerca_de_un_nodo=False)


def test_absorbing_quintessence_is_vulgar(engine, ignacio):
    drained = run(engine, "antimagia", ignacio, (8, 8), quintaesencia=2).sheet
    out = run(engine, "absorber_quintaesencia", drained, (7, 2, 2), cantidad=2)
    assert out.result["éxito"] is True
    # Cardinal 1 (a Node), vulgar without witnesses: difficulty 5, paradox 1.
    assert list(out.changes) == [Change("Paradoja", 0, 1), Change("Quintaesencia", 1, 3)]
    with pytest.raises(interpreter.RequirementFailed):  # "refinar Tass al menos el nivel 3"
        run(engine, "absorber_quintaesencia", ignacio, (7, 2, 2), fuente="tass")


# ─── the sheet's limits ─────────────────────────────────────────────────────


def test_shipped_characters_keep_the_limits(engine, ignacio, ada):
    assert ignacio["Fuerzas"] <= ignacio["Areté"] <= ignacio["Fuerza de Voluntad"]
    assert ada["Areté"] == 6


@pytest.mark.parametrize(
    "changes",
    [
        {"Fuerzas": 4},  # "Ninguna Esfera puede superar"
        {"Areté": 5, "Fuerzas": 3, "Fuerza de Voluntad": 4},  # "Areté no puede superar"
        {"Areté": 6, "Fuerza de Voluntad": 6, "Esferas sin foco": ["Fuerzas"]},
        {
            "Areté": 5,
            "Fuerza de Voluntad": 6,
            "Tecnomago": True,
            "Esferas sin foco": ["Fuerzas", "Mente", "Vida"],
        },
    ],
)
def test_sheets_breaking_the_limits_are_refused(engine, changes):
    with pytest.raises(interpreter.SheetError):
        sheet_of(engine, **changes)


def test_focus_free_spheres_by_arete(engine):
    sheet_of(
        engine, Areté=7, **{"Fuerza de Voluntad": 7, "Esferas sin foco": ["Fuerzas", "Cardinal"]}
    )
    sheet_of(
        engine,
        Areté=5,
        Tecnomago=True,
        **{"Fuerza de Voluntad": 6, "Esferas sin foco": ["Fuerzas", "Mente"]},
    )


# ─── every action from the command line ─────────────────────────────────────

CLI_RUNS = {
    "efecto": (
        "mago_ignacio",
        [
            "esferas=Fuerzas,Cardinal",
            "vulgar=yes",
            "circunstancias=distracción,cerca de un nodo",
            "quintaesencia=1",
        ],
    ),
    "daño": ("mago_ignacio", ["éxitos=2", "esfera=Fuerzas"]),
    "duración": ("mago_ignacio", ["éxitos=3", "requeridos=2"]),
    "contramagia": (
        "mago_ignacio",
        ["forma=reflejar", "esferas=Fuerzas,Cardinal", "exitos_atacante=1"],
    ),
    "antimagia": ("mago_ignacio", ["quintaesencia=2"]),
    "destejer": ("mago_ignacio", ["esferas=Fuerzas", "exitos_objetivo=3"]),
    "notar_destejido": ("mago_ignacio", []),
    "resistir_mente": ("mago_ignacio", ["exitos_atacante=2"]),
    "alejar_gantrasgo": ("mago_ignacio", ["motivo=silencio"]),
    "demorar_paradoja": ("mago_ada", []),
    "reaccion_paradoja": ("mago_ada", ["secundario=2"]),
    "fin_de_turno": ("mago_ada", []),
    "fin_de_escena": ("mago_ada", []),
    "meditar": ("mago_ada", []),
    "absorber_quintaesencia": ("mago_ada", ["fuente=tass", "cantidad=2", "testigos=yes"]),
}


def test_cli_covers_every_action(book):
    assert set(CLI_RUNS) == set(book.actions)


@pytest.mark.parametrize("action", sorted(CLI_RUNS))
def test_every_action_runs_from_the_command_line(action, book, capsys, monkeypatch):
    # The command line loads the file on each run; here it gets the copy this module
    # already loaded (the same file), to keep the module fast.
    monkeypatch.setattr(
        interpreter.cli.options,
        "load_rulebook",
        lambda reference: book if reference == str(RULES) else dsl.load(reference),
    )
    character, params = CLI_RUNS[action]
    printed = run_seeded(capsys, RULES, action, character, params, 2024)
    assert "resultado:" in printed
