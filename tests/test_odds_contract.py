"""The contract between compiled code and the odds engine (interpreter/compiled.py) holds.

The odds engine reads compiled statements through their typed, frozen descriptions: it
never probes compiled objects for attributes (getattr, hasattr), never writes onto them
(setattr; the descriptions are frozen), and remembers results by values it names (a
statement's or a distribution's number, a definition's name), never by an object's
address (`id(...)`). Read from the source with `ast`, as tests/test_architecture.py
reads the imports.
"""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import attrs
import pytest

import dsl
from interpreter import Engine
from interpreter.compiled import (
    PLAIN,
    Binding,
    Branches,
    Called,
    Loop,
    Repeat,
    Statement,
    block_key,
)

ROOT = Path(__file__).resolve().parent.parent
ODDS = ROOT / "interpreter" / "odds"

#: calls that find or change an object's attributes by name
PROBES = frozenset(("getattr", "setattr", "hasattr", "delattr"))

#: (module, function) pairs still probing a value by name, each with why: not compiled
#: code, a run's values; the list only shrinks
PROBING = {
    # a dice term of the odds roller (interpreter.odds.roller imports this module)
    ("questions.py", "is_term"),
}


def _calls(tree: ast.AST, names: frozenset) -> list[tuple[str, int, str]]:
    """(the function around it, line, name) of each call of one of `names`."""
    out = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef) else function
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Name)
                and child.func.id in names
            ):
                out.append((function, child.lineno, child.func.id))
            visit(child, inner)

    visit(tree, "")
    return out


def _odds_calls(names: frozenset) -> list[tuple[str, str, int, str]]:
    out = []
    for path in sorted(ODDS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out.extend((path.name, *found) for found in _calls(tree, names))
    return out


def test_the_scan_finds_what_it_forbids():
    tree = ast.parse("def f(s):\n    return getattr(s, 'pure', id(s))\n")
    assert _calls(tree, PROBES | {"id"}) == [("f", 2, "getattr"), ("f", 2, "id")]


def test_the_odds_engine_probes_no_attribute_by_name():
    found = [
        f"{module}:{line} {name} in {function}"
        for module, function, line, name in _odds_calls(PROBES)
        if (module, function) not in PROBING
    ]
    assert found == []


def test_the_odds_engine_keys_nothing_by_an_objects_address():
    found = [f"{module}:{line} in {function}" for module, function, line, _ in _odds_calls({"id"})]
    assert found == []


TEXT = """\
rulebook "Contract" {
  language "en"
}

sheet {
  attribute Fuerza in 1..5 default 3
}

action hit() {
  let a = 1d6 + Fuerza
  set a to a + 1
  if a > 4 { note "big" } else { note "small" }
  for each k in [1, 2] { set a to a + k }
  repeat 2 times { set a to a - 1 }
  do helper()
  note "done"
  result { total: a }
}

action helper() {
  result { x: 1 }
}
"""


@pytest.fixture(scope="module")
def hit():
    engine = Engine(dsl.load_text(TEXT))
    return engine.compiler.action("hit")


def test_each_statement_is_compiled_with_the_shape_the_odds_engine_reads(hit):
    shapes = [type(statement.shape) for statement in hit.body]
    assert shapes == [Binding, Binding, Branches, Loop, Repeat, Called, type(PLAIN)]
    let, set_, if_, loop, repeat, do, _note = (statement.shape for statement in hit.body)
    assert (let.name, let.local, let.pure, let.split) == ("a", False, True, None)
    assert (set_.name, set_.local) == ("a", True)
    assert len(if_.branches) == 1 and len(if_.otherwise) == 1 and if_.pure
    assert loop.var == "k" and len(loop.body) == 1
    assert len(repeat.body) == 1
    assert do.call is not None and do.call.action.node.name == "helper"


def test_compiled_code_is_frozen_and_numbered(hit):
    statement = hit.body[0]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        statement.shape = PLAIN  # type: ignore[misc]
    numbers = [s.number for s in hit.body]
    assert len(set(numbers)) == len(numbers)  # each its own, never reused
    assert block_key(hit.body) == tuple(numbers)
    assert all(type(s) is Statement for s in hit.body)


def test_the_odds_through_every_shape_are_exact():
    engine = Engine(dsl.load_text(TEXT))
    odds = engine.odds("hit", engine.sheet({}), field="total")
    # `1d6 + 3`, then + 1; + 1 + 2 in the loop, - 1 - 1 in the repeat: 1d6 + 5
    assert odds.exact
    assert odds.probabilities == {face + 5: Fraction(1, 6) for face in range(1, 7)}
