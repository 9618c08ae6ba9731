"""Lasting effects: the sheet's store and clocks, `effect`, `pass`, `end`, and their reads.

A fear that shakes a character for 2 turns, a hallucination of 2 minutes on Inteligencia
checks, a bonus until the end of the scene: kept on the sheet with their modifier, their
targets and what is left of them, read by later checks, ended by time passing.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsl
from interpreter import (
    Engine,
    ForcedDice,
    RequirementFailed,
    SheetError,
    render_text,
)

RULES = """
rulebook "Efectos" { language "en" }
sheet {
  attribute Inteligencia, Fuerza in 1..10
  effects Efectos on acciones, sociales
    time turno, minuto = 12 turno, hora = 60 minuto
    time escena
}
check chequeo(atributo: attribute) "Chequeo" {
  roll d10 + atributo + effects("acciones", atributo) >= 9
}
action asustar(turnos: int = 2) "Asustarse" {
  effect "Temblores" modifier -2 on acciones for turnos turno
  effect "Parálisis" for 4 turno
  result { temblores: effect_modifier("Temblores"), paralizado: active("Parálisis") }
}
action alucinar(atributo: attribute = "Inteligencia", minutos: int = 2) "Alucinación" {
  effect "Alucinación" modifier -5 on atributo for minutos minuto
  result { total: effects(atributo) }
}
action animar(interlocutor: text) "Buena impresión" {
  effect "Trato con {interlocutor}" modifier 2 on sociales until escena
  result { sociales: effects("sociales") }
}
action tirar(atributo: attribute = "Inteligencia") "Tirar" {
  let c = chequeo(atributo)
  result { total: c.total, acciones: effects("acciones"), ambos: effects("acciones", atributo),
           paralizado: active("Parálisis") }
}
action pasar(cuanto: int = 1, unidad: turno | minuto | hora | escena = "turno") "Pasa el tiempo" {
  match unidad {
    case "turno" { pass cuanto turno }
    case "minuto" { pass cuanto minuto }
    case "hora" { pass cuanto hora }
    else { pass cuanto escena }
  }
  result { quedan: size(["x"]) }
}
action acabar(nombre: text) "Acaba" {
  end nombre
  result { activo: active(nombre) }
}
action a_dados() "Dura lo que diga un dado" {
  let n = d4
  effect "Azar" modifier n on acciones for n turno
  result { modificador: effects("acciones") }
}
action falla() "Aplica y falla" {
  effect "Temblores" modifier -2 on acciones for 2 turno
  require no else "falla"
  result { ok: yes }
}
"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(dsl.load_text(RULES, "efectos.rules"))


@pytest.fixture(scope="module")
def sheet(engine):
    return engine.sheet({"Inteligencia": 5, "Fuerza": 3})


def run(engine, action, sheet, params=None, dice=()):
    out = engine.run(action, sheet, params or {}, dice=ForcedDice(list(dice)))
    print(render_text(out.trace))
    return out


def effects_of(sheet) -> dict:
    return {name: dict(e) for name, e in sheet["Efectos"].items()}


def test_an_effect_is_kept_on_the_sheet(engine, sheet):
    out = run(engine, "asustar", sheet)
    assert out.result["temblores"] == -2 and out.result["paralizado"] is True
    assert effects_of(out.sheet) == {
        "Temblores": {
            "name": "Temblores",
            "modifier": -2,
            "targets": ("acciones",),
            "left": 2,
            "unit": "turno",
        },
        "Parálisis": {
            "name": "Parálisis",
            "modifier": 0,
            "targets": (),
            "left": 4,
            "unit": "turno",
        },
    }
    assert [c.path for c in out.changes] == ["Efectos.Temblores", "Efectos.Parálisis"]
    assert "effect Temblores -2 on acciones for 2 turno" in render_text(out.trace)
    assert dict(sheet["Efectos"]) == {}  # the input sheet is never changed


def test_the_trace_speaks_the_rulebooks_language(sheet):
    spanish = Engine(dsl.load_text(RULES.replace('language "en"', 'language "es"'), "es.rules"))
    out = spanish.run("asustar", spanish.sheet({"Inteligencia": 5, "Fuerza": 3}), {})
    assert "efecto Temblores -2 a acciones durante 2 turno" in render_text(out.trace)
    out = spanish.run("pasar", out.sheet, {})
    text = render_text(out.trace)
    assert "pasa 1 turno" in text and "Parálisis: quedan 3 turno" in text


def test_later_checks_read_it(engine, sheet):
    scared = run(engine, "asustar", sheet).sheet
    # 5 + 5 - 2 = 8: the shake turns a success into a failure.
    calm = run(engine, "tirar", sheet, dice=[5])
    shaking = run(engine, "tirar", scared, dice=[5])
    assert (calm.result["total"], shaking.result["total"]) == (10, 8)
    assert 'effects("acciones", Inteligencia) -2' in render_text(shaking.trace)


def test_an_effect_on_a_field_named_by_a_parameter(engine, sheet):
    # "Todos los Chequeos de Inteligencia son a -5 mientras dure": on Inteligencia only.
    seeing = run(engine, "alucinar", sheet).sheet
    assert effects_of(seeing)["Alucinación"]["targets"] == ("Inteligencia",)
    assert run(engine, "tirar", seeing, dice=[5]).result["total"] == 5 + 5 - 5
    out = run(engine, "tirar", seeing, {"atributo": "Fuerza"}, dice=[5])
    assert (out.result["total"], out.result["acciones"]) == (5 + 3, 0)
    # each effect counts once, however many of the targets asked for it has
    both = run(engine, "asustar", seeing).sheet
    assert run(engine, "tirar", both, dice=[5]).result["ambos"] == -7


def test_the_same_name_takes_the_place_of_the_one_before(engine, sheet):
    first = run(engine, "asustar", sheet).sheet
    again = run(engine, "asustar", first, {"turnos": 5})
    assert effects_of(again.sheet)["Temblores"]["left"] == 5
    assert len(again.sheet["Efectos"]) == 2
    assert "(in place of the one before)" in render_text(again.trace)


def test_time_passes_and_effects_end(engine, sheet):
    scared = run(engine, "asustar", sheet).sheet  # Temblores 2 turns, Parálisis 4
    out = run(engine, "pasar", scared)
    assert {k: e["left"] for k, e in effects_of(out.sheet).items()} == {
        "Temblores": 1,
        "Parálisis": 3,
    }
    out = run(engine, "pasar", out.sheet)
    assert list(out.sheet["Efectos"]) == ["Parálisis"]
    assert "Temblores ends" in render_text(out.trace)
    assert run(engine, "tirar", out.sheet, dice=[5]).result["acciones"] == 0
    out = run(engine, "pasar", out.sheet, {"cuanto": 3})
    assert dict(out.sheet["Efectos"]) == {}
    assert run(engine, "tirar", out.sheet, dice=[5]).result["paralizado"] is False


def test_units_of_one_clock_convert(engine, sheet):
    # minuto = 12 turno, hora = 60 minuto: 2 minutes are 24 turns; a minute passing ends
    # every effect of 12 turns or fewer and leaves 12 turns of the hallucination.
    both = run(engine, "asustar", run(engine, "alucinar", sheet).sheet).sheet
    assert effects_of(both)["Alucinación"]["left"] == 24
    out = run(engine, "pasar", both, {"unidad": "minuto"})
    assert list(out.sheet["Efectos"]) == ["Alucinación"]
    assert effects_of(out.sheet)["Alucinación"]["left"] == 12
    assert "Alucinación: 1 minuto left" in render_text(out.trace)
    out = run(engine, "pasar", both, {"unidad": "hora"})
    assert dict(out.sheet["Efectos"]) == {}


def test_until_the_end_of_the_scene_is_another_clock(engine, sheet):
    # "+2 en sucesivas tiradas sociales con los mismos interlocutores": until the scene ends;
    # turns passing do not end it, nor does the scene end the turns of another clock.
    warm = run(engine, "animar", sheet, {"interlocutor": "la condesa"})
    assert warm.result["sociales"] == 2
    both = run(engine, "asustar", warm.sheet).sheet
    later = run(engine, "pasar", both, {"cuanto": 1, "unidad": "hora"}).sheet
    assert list(later["Efectos"]) == ["Trato con la condesa"]
    scene = run(engine, "pasar", both, {"unidad": "escena"}).sheet
    assert sorted(scene["Efectos"]) == ["Parálisis", "Temblores"]


def test_end_stops_an_effect_now(engine, sheet):
    scared = run(engine, "asustar", sheet).sheet
    out = run(engine, "acabar", scared, {"nombre": "Parálisis"})
    assert out.result["activo"] is False
    assert [c.path for c in out.changes] == ["Efectos.Parálisis"]
    assert out.changes[0].after is None
    nothing = run(engine, "acabar", sheet, {"nombre": "Parálisis"})
    assert list(nothing.changes) == []
    assert "it is not on" in render_text(nothing.trace)


def test_no_time_or_no_duration_changes_nothing(engine, sheet):
    scared = run(engine, "asustar", sheet).sheet
    assert list(run(engine, "pasar", scared, {"cuanto": 0}).changes) == []
    out = run(engine, "asustar", sheet, {"turnos": 0})
    assert list(out.sheet["Efectos"]) == ["Parálisis"]
    with pytest.raises(Exception, match="time does not go back"):
        run(engine, "pasar", scared, {"cuanto": -1})


def test_a_failed_action_keeps_no_effect(engine, sheet):
    with pytest.raises(RequirementFailed):
        run(engine, "falla", sheet)
    assert dict(sheet["Efectos"]) == {}


def test_odds_follow_an_effect_set_by_the_dice(engine, sheet):
    odds = engine.odds("a_dados", sheet, {}, field="modificador")
    assert odds.probabilities == {k: Fraction(1, 4) for k in (1, 2, 3, 4)}
    scared = run(engine, "asustar", sheet).sheet
    # Inteligencia 5 + d10 - 2 >= 9: 6 of 10 faces; without the effect, 5 + d10 >= 9: 6.
    with_effect = engine.odds("tirar", scared, {}, field="total").probabilities
    assert min(with_effect) == 5 + 1 - 2 and max(with_effect) == 5 + 10 - 2


# ─── the sheet file ─────────────────────────────────────────────────────────


def test_a_sheet_file_gives_effects_in_any_unit_of_their_clock(engine):
    data = {
        "Inteligencia": 5,
        "Fuerza": 3,
        "Efectos": {
            "Alucinación": {
                "modifier": -5,
                "targets": ["Inteligencia"],
                "left": 2,
                "unit": "minuto",
            },
            "Encanto": {"modifier": 1, "targets": ["sociales"], "left": 1, "unit": "escena"},
        },
    }
    sheet = engine.sheet(data)
    assert effects_of(sheet)["Alucinación"]["left"] == 24  # kept in turns
    assert effects_of(sheet)["Alucinación"]["unit"] == "turno"
    # written back and read again, it is the same sheet
    again = engine.sheet(sheet.to_data())
    assert again == sheet
    text = sheet.dumps()
    assert "targets:" in text and "'on'" not in text


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"modifier": 1, "targets": ["sueño"], "left": 1, "unit": "turno"}, "not a target"),
        ({"modifier": 1, "targets": [], "left": 1, "unit": "semana"}, "not a unit of time"),
        ({"modifier": 1, "targets": [], "left": 0, "unit": "turno"}, "1 or more"),
        ({"modifier": "x", "targets": [], "left": 1, "unit": "turno"}, "not a number"),
        ({"modifer": 1, "targets": [], "left": 1, "unit": "turno"}, "not part of an effect"),
        ({"modifier": 1, "on": ["acciones"], "left": 1, "unit": "turno"}, "not part"),
    ],
)
def test_a_bad_effect_on_a_sheet_is_refused(engine, entry, message):
    with pytest.raises(SheetError, match=message):
        engine.sheet({"Inteligencia": 5, "Fuerza": 3, "Efectos": {"X": entry}})


# ─── the checks ─────────────────────────────────────────────────────────────


def problems(text: str) -> list[str]:
    try:
        book = dsl.load_text(text, "t.rules")
    except dsl.RulebookInvalid as error:
        return [d.message for d in error.diagnostics if d.severity == "error"]
    return [w.message for w in book.warnings]


SHEET = """
sheet {
  attribute Fuerza in 1..10
  effects Efectos on acciones time turno, minuto = 12 turno time escena
}
"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('effect "X" modifier 1 on acciones for 2 turnos', "unknown unit of time `turnos`"),
        ('effect "X" modifier 1 on accion for 2 turno', "`accion` is not one of the targets"),
        ('effect "X" modifier "mucho" for 2 turno', "an effect's modifier should be number"),
        ("effect 3 for 2 turno", "an effect's name should be text"),
        ("pass 1 día", "unknown unit of time `día`"),
        ("end 7", "the name of the effect that ends should be text"),
        ('let x = effects("accion")', "`accion` is not one of the targets"),
        ("let x = active(3)", "an effect's name should be text"),
    ],
)
def test_mistakes_are_caught_when_the_rulebook_loads(body, message):
    text = SHEET + f'action a() "A" {{\n  {body}\n  result {{ ok: yes }}\n}}\n'
    assert any(message in p for p in problems(text)), problems(text)


@pytest.mark.parametrize(
    ("sheet", "message"),
    [
        ("effects E on a time turno, minuto = 12 hora", "not an earlier unit"),
        ("effects E on a time turno = 2 turno", "first unit of its clock"),
        ("effects E on a time turno, minuto", "needs its length"),
        ("effects E on a time turno, minuto = 1.5 turno", "whole number"),
        ("effects E on a time turno time turno", "declared twice"),
        ("effects E on a, a time turno", "twice"),
        ("effects E on a time turno\n effects F on b time hora", "one place"),
    ],
)
def test_bad_stores_and_clocks_are_refused(sheet, message):
    text = f"sheet {{\n {sheet}\n}}\n"
    assert any(message in p for p in problems(text)), problems(text)


def test_effects_need_a_store():
    text = 'sheet { counter A }\naction a() "A" {\n  pass 1 turno\n  result { ok: yes }\n}\n'
    assert any("keeps no lasting effects" in p for p in problems(text))


# ─── properties ─────────────────────────────────────────────────────────────


@given(
    durations=st.lists(st.integers(1, 60), min_size=1, max_size=4),
    first=st.integers(0, 40),
    second=st.integers(0, 40),
)
def test_time_passing_in_two_steps_is_passing_it_at_once(engine, durations, first, second):
    sheet = engine.sheet(
        {
            "Inteligencia": 5,
            "Fuerza": 3,
            "Efectos": {
                f"E{i}": {"modifier": -1, "targets": ["acciones"], "left": d, "unit": "turno"}
                for i, d in enumerate(durations)
            },
        }
    )
    steps = engine.run("pasar", sheet, {"cuanto": first}).sheet
    steps = engine.run("pasar", steps, {"cuanto": second}).sheet
    once = engine.run("pasar", sheet, {"cuanto": first + second}).sheet
    assert steps == once
    left = {f"E{i}": d - first - second for i, d in enumerate(durations) if d > first + second}
    assert {k: e["left"] for k, e in once["Efectos"].items()} == left
    # what is still on modifies the checks: one -1 per effect left
    assert engine.run("tirar", once, {}, dice=ForcedDice([5])).result["acciones"] == -len(left)
