"""Every AST node class is classified for the odds engine's liveness: whether one mention
of a name inside it may be read many times (interpreter.odds.worlds.REPEATED).

A name read once later lets the odds engine keep a value whole (a distribution) until
that one read; a construct that reads one mention many times (a loop's body, a call's
arguments, a text kept whole) must be in REPEATED, or the odds come out silently wrong.
This table must name every node class of `dsl.nodes`: a new construct fails here until
someone decides which it is (and adds it to REPEATED when it repeats).
"""

from __future__ import annotations

import inspect
from fractions import Fraction

import attrs
import pytest
from oracle import action_outcomes, counted, optimal_play

import dsl
from dsl import nodes as n
from interpreter import Engine
from interpreter.odds.worlds import MANY, REPEATED, read_counts

#: node class → whether a name mentioned once inside it may be read many times
CLASSIFIED = {
    # read many times, or kept whole without being read, or read where a choice is made
    "Repeat": True,  # its body runs N times
    "ForEach": True,  # its body runs once per item
    "Call": True,  # an argument is read as often as the callee reads its parameter
    "CharacterCall": True,  # the same, on another character's sheet
    "Text": True,  # `{x}` kept whole in a text, not read as a value
    "ListLiteral": True,  # kept whole as an item of a list
    "RangeOf": True,  # kept whole as an end of a range, which every face it tests reads
    "Choose": True,  # read where a choice is made, which must see it
    "Match": True,  # the subject compared with arm after arm
    # each mention read at most once per evaluation
    "Add": False,
    "Binary": False,
    "Change": False,
    "Clamp": False,
    "Condition": False,
    "CountFailures": False,
    "CountSuccesses": False,
    "Dice": False,
    "Do": False,  # its call is a Call (repeated)
    "Effect": False,  # the modifier is read once, its value stored on the sheet
    "EndEffect": False,
    "Explode": False,
    "Field": False,
    "If": False,
    "IfExpr": False,
    "Index": False,
    "Keep": False,
    "Let": False,
    "Literal": False,
    "Name": False,
    "Note": False,
    "Option": False,  # only inside a Choose (repeated)
    "PassTime": False,
    "Require": False,
    "Reroll": False,
    "Result": False,
    "RollGroup": False,
    "Set": False,
    "Sort": False,
    "SymbolDice": False,
    "Unary": False,
    # definitions, sheets and files: never inside an action's body, where names are read
    "Action": False,
    "Catalog": False,
    "Check": False,
    "Counter": False,
    "Derived": False,
    "DieDef": False,
    "DieFace": False,
    "Effects": False,
    "Ensure": False,
    "EnumType": False,
    "Flag": False,
    "Formula": False,
    "Group": False,
    "Header": False,
    "Key": False,
    "Ladder": False,
    "ListField": False,
    "ListType": False,
    "NamedType": False,
    "OpenSkills": False,
    "Opposed": False,
    "Param": False,
    "Range": False,
    "Replace": False,
    "Resource": False,
    "RollDef": False,
    "RollRule": False,
    "Row": False,
    "RulebookFile": False,
    "Sheet": False,
    "Stat": False,
    "Symbols": False,
    "Table": False,
    "TextField": False,
    "TimeUnit": False,
}


def _node_classes() -> dict:
    """Every attrs class defined in the dsl.nodes package, by name."""
    return {
        name: value
        for name, value in vars(n).items()
        if inspect.isclass(value) and attrs.has(value) and value.__module__.startswith("dsl.nodes")
    }


def test_every_node_class_is_classified():
    classes = _node_classes()
    assert len(classes) > 50  # the package's classes were found
    unclassified = sorted(set(classes) - set(CLASSIFIED))
    assert not unclassified, f"classify these for interpreter.odds.worlds.REPEATED: {unclassified}"
    gone = sorted(set(CLASSIFIED) - set(classes))
    assert not gone, f"no longer node classes: {gone}"


def test_repeated_is_exactly_the_classes_that_repeat():
    classes = _node_classes()
    wanted = {classes[name] for name, many in CLASSIFIED.items() if many}
    assert set(REPEATED) == wanted


def test_a_name_inside_a_repeating_construct_is_read_many_times():
    once = n.Name("x", span=None)
    assert read_counts(n.Unary("-", once, span=None)) == {"x": 1}
    call = n.Call("f", (once,), (), span=None, name_span=None)
    assert read_counts(call) == {"x": MANY}
    loop = n.Repeat(n.Literal(3, span=None), None, (n.Do(call, span=None),), span=None)
    assert read_counts(loop) == {"x": MANY}


#: a rulebook in which `act` mentions a dice value `v` once, inside each construct of
#: REPEATED (read there more than once, kept whole, or seen by a choice)
DEFINITIONS = """
sheet {
  attribute A in 0..3 default 1
}
formula twice(x: int) = x + x
check c(x: int = 0) "C" {
  roll d2 + x >= x * 2
}
"""
#: construct → `act`'s body (its parameters: `rival: character` for CharacterCall)
INSIDE = {
    "Repeat": "let acc = 0\n  repeat 2 times { set acc to acc + v }\n  result { acc: acc }",
    "ForEach": (
        "let acc = 0\n  for each k in [1, 2] { set acc to acc + v * k }\n  result { acc: acc }"
    ),
    "Call": "let r = twice(v)\n  result { r: r }",
    "CharacterCall": "let r = rival.c(v)\n  result { ok: r.success }",
    "Text": 'let s = "{v}"\n  result { s: s }',
    "ListLiteral": "let l = [v, 2]\n  result { m: max(l) + min(l) }",
    "RangeOf": "let e = ..v\n  result { k: count([1, 2, 3], e) + (if 2 in e then 1 else 0) }",
    "Match": (
        "let acc = 0\n  match v { case 1 { set acc to 1 } case 2 { set acc to 2 } "
        "else { set acc to 5 } }\n  result { acc: acc }"
    ),
    # seen by the choice: best play takes `a` on a 4 or more, else a fresh d6 (3/4)
    "Choose": (
        'let acc = 0\n  choose q "Q?" {\n    option a { set acc to v }\n'
        "    option b { set acc to d6 }\n  }\n  result { ok: acc >= 4 }"
    ),
}


def test_every_repeating_construct_has_a_case_against_brute_force():
    assert set(INSIDE) == {kind.__name__ for kind in REPEATED}


@pytest.mark.parametrize("kind", sorted(INSIDE))
def test_a_value_mentioned_once_inside_a_repeating_construct_equals_brute_force(kind):
    """Each construct of REPEATED, reading a dice value mentioned once inside it: its
    odds against every way the dice fall (best play against the oracle's, for `choose`)."""
    params = "rival: character" if kind == "CharacterCall" else ""
    die = "d6" if kind == "Choose" else "d3"
    body = f"let v = {die} + 0\n  " + INSIDE[kind]
    engine = Engine(dsl.load_text(f"{DEFINITIONS}action act({params}) {{\n  {body}\n}}\n"))
    sheet = engine.sheet({})
    given = {"rival": sheet} if params else {}
    if kind == "Choose":
        odds = engine.odds("act", sheet, given, "ok", best="ok")

        def run(dice, choose):
            return engine.run("act", sheet, given, dice, choices=choose)

        best = optimal_play(run, lambda outcome: int(outcome is not None and outcome.result["ok"]))
        assert best == Fraction(3, 4)
        assert odds.exact and odds.probabilities[True] == best
        return
    odds = engine.odds("act", sheet, given)
    assert odds.exact and counted(odds) == action_outcomes(engine, "act", sheet, given)
