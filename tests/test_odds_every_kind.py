"""Exact odds against brute force for actions made of every kind of statement and expression.

tests/test_odds_brute_force.py draws checks, opposed checks, lets, ifs, loops and tables;
this draws the rest: unary minus, roll groups, symbol dice, named rolls with `then` rules,
ladders, another character's check, `match`, `spend`/`gain`/`lose`, `do`, `add`, lasting
effects (`effect`, `pass`, `end`, `effects(...)`), `choose` answered in advance. The odds
engine's distribution of the action's result must equal, fraction for fraction, the real
engine run once per way the dice can fall (tests/test_nodes_handled.py checks that every
node class is drawn by some such generator).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import counted, every_roll, failed

import dsl
from dsl import nodes as n
from interpreter import Engine, Limits
from interpreter.errors import EvaluationError

DEFINITIONS = """rulebook "Every kind" {
  system "odds against brute force"
  language "en"
}

symbols golpe, escudo
die S { 1 golpe, 1 escudo + 1 golpe, blank }

sheet {
  attribute A in 0..6 default 1
  resource Vida max 4
  skills in 0..3 default 0
  counter Golpes
  flag Herido default no
  text Nombre
  list Notas
  catalog Armas {
    daño: int
  }
  derived Total = A + Vida
  ensure Golpes <= 3 else "too many blows"
  effects Efectos on acciones
    time turno, ronda = 2 turno
}

formula pick(m: alto | bajo, xs: list of int) = if m = "alto" then sum(xs) else 0

check c(x: int = 0) "C" {
  roll d3 + x >= 3
}

ladder Paso = d2, d3, d4

roll abierta(n: int) = (n)d2 then {
  on die = 2: add d2
}

action otra(k: int) "Otra" {
  gain k to Vida
  result { k: k }
}
"""

#: the statements an action is made of, beyond those of test_odds_brute_force
KINDS = (
    "unary",
    "group",
    "symbols",
    "rival",
    "match",
    "change",
    "do",
    "add",
    "effect",
    "pass",
    "end",
    "choose",
    "roll",
    "ladder",
    "sheet",
    "catalog",
    "formula",
)
#: statements on the sheet's other fields (too many blows break its `ensure`: the run fails)
ON_THE_SHEET = ("gain d2 to Golpes", "set Herido to d2 = 2", 'add "x" to Notas', "set A to d3")
#: dice terms with each modifier, one in every action (bounded: an explosion explodes once)
MODIFIED = ("2d3kh1", "2d3dl1", "2d2xo", "2d3ro=1", "2d3min2", "2d3max2", "3d2cs>=2")
MODIFIED += ("3d3cs>=2df=1", "3d2cf=1", "2d3s", "d{1,1,3}", "{2d2+d3}k2")
#: every `choose` is answered 2 in advance (an option closed there fails the run)
ANSWER = 2


@st.composite
def every_kind(draw) -> str:
    """The text of a rulebook whose action `act(rival: character)` is a few statements of
    the kinds above over small dice, its result reading what they left."""
    numbers = ["1", "acc", "A", "m"]
    body = ["let acc = 0", "let bag = [0]", f"let m = {draw(st.sampled_from(MODIFIED))}"]
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=2, max_size=4))
    for index, kind in enumerate(kinds):
        name = f"v{index}"
        number = draw(st.sampled_from(numbers))
        if kind == "unary":
            body.append(f"let {name} = -d2 + {number}")
            numbers.append(name)
        elif kind == "group":
            body.append(f"let {name} = {{d2, d3}}kh1")
            numbers.append(name)
        elif kind == "symbols":
            body.append(f"let {name} = 1dS")
            numbers.append(f"{name}.golpe - {name}.escudo")
        elif kind == "rival":
            body.append(f"let {name} = rival.c({number})")
            numbers.append(f"{name}.total")
        elif kind == "match":
            body.append(
                f"match d3 {{ case 1 {{ set acc to acc + {number} }} "
                f'case 2, 3 {{ set acc to acc - 1 }} else {{ note "none" }} }}'
            )
        elif kind == "change":
            verb = draw(st.sampled_from(["gain d2 to", "lose d2 from", "spend d2 from"]))
            body.append(f"{verb} Vida")
        elif kind == "do":
            body.append("do otra(d2 - 1)")
        elif kind == "add":
            body.append(f"add d2 + {number} to bag")
        elif kind == "effect":
            body.append(
                f'effect "Miedo" modifier -d2 on acciones for {draw(st.integers(1, 3))} turno'
            )
        elif kind == "pass":
            body.append(f"pass d2 {draw(st.sampled_from(['turno', 'ronda']))}")
        elif kind == "end":
            body.append('if d2 = 1 { end "Miedo" }')
        elif kind == "roll":
            body.append(f"let {name} = abierta(d2)")
            numbers.append(name)
        elif kind == "sheet":
            body.append(draw(st.sampled_from(ON_THE_SHEET)))
        elif kind == "catalog":
            body.append('add "Daga" to Armas { daño: d2 }')
            numbers.append('Armas["Daga"].daño + Armas["Espada"].daño')
        elif kind == "formula":
            body.append(f'let {name} = pick("alto", [d2, {number}])')
            numbers.append(name)
        elif kind == "ladder":
            body.append(f"let {name} = step(Paso, 3, d3 - 2)")
            numbers.append(name)
        else:
            body.append(
                f'choose q{index} "Which?" {{ option 1 option 2 if acc >= 1 {{ '
                f"set acc to acc + d2 }} }}"
            )
    result = (
        f"acc: acc + {draw(st.sampled_from(numbers))}, bag: sum(bag), vida: Vida, "
        'miedo: effects("acciones"), on: active("Miedo"), golpes: Golpes, herido: Herido, '
        "total: Total, notas: size(Notas), armas: size(Armas), nombre: Nombre"
    )
    action = (
        "action act(rival: character) {\n  "
        + "\n  ".join(body)
        + f"\n  result {{ {result} }}\n}}\n"
    )
    return DEFINITIONS + action


def brute_force(engine, sheet, params, choices) -> dict:
    """Each result's probability, over every sequence of faces a real run can draw."""

    def run(dice):
        try:
            return engine.run("act", sheet, params, dice, choices=choices).result
        except EvaluationError as error:  # a run stopped there: an outcome of the odds too
            return failed(error)

    return every_roll(run)


def case_of(text: str):
    engine = Engine(dsl.load_text(text, "every.rules"), Limits(tie_rerolls=1))
    sheet = engine.sheet({"A": 1, "Vida": 1, "Golpes": 1, "Armas": {"Espada": {"daño": 2}}})
    params = {"rival": engine.sheet({"A": 2})}
    asked = n.walk(engine.rulebook.actions["act"])
    choices = {node.name: ANSWER for node in asked if isinstance(node, n.Choose)}
    return engine, sheet, params, choices


@settings(
    max_examples=max(10, settings().max_examples // 4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(every_kind())
def test_every_kind_of_statement_counts_as_every_run_of_the_dice(text):
    engine, sheet, params, choices = case_of(text)
    listed = brute_force(engine, sheet, params, choices)
    try:
        odds = engine.odds("act", sheet, params, choices=choices)
    except EvaluationError as error:  # every run fails alike: the odds say so as a run would
        assert listed == {failed(error): 1}, text
        return
    assert odds.exact and odds.omitted == 0, text
    assert counted(odds) == listed, text
