"""Every AST node class is handled at every stage: built from the parse tree (dsl.build),
checked (dsl.check), compiled (interpreter.compile) or read as a part of the node that
holds it, and drawn by a brute-force generator (its odds tested against every way the dice
can fall). A new node class fails here until it has each, or is listed below with the
reason it needs none."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import attrs
import fuzz_odds_cases
import pytest
import test_functions
import test_odds_brute_force
import test_odds_every_kind
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from dsl import nodes as n
from dsl.build import parse_rulebook_file
from dsl.check.checker import Checker
from interpreter.compile import compiler, costs

ROOT = Path(__file__).resolve().parent.parent

#: every node class of the AST
NODES = frozenset(
    node
    for node in (getattr(n, name) for name in n.__all__)
    if isinstance(node, type) and attrs.has(node)
)

#: statements compiled with the node that holds them, not by a handler of their own
COMPILED_WITH_THEIR_OWNER = {
    n.Result: "the action's last statement, compiled with the action (interpreter.compile.actions)",
}

#: each definition's check (Checker.def_<name>) and compiler (a method of the Compiler),
#: or why it has none
DEFINITION_CHECKS = {
    n.Sheet: "its items are checked one by one (Checker.sheet_item)",
    n.Symbols: "its names are collected with the definitions (Checker.collect_symbols)",
}
DEFINITION_COMPILERS = {
    n.Formula: "formula",
    n.Check: "check",
    n.Opposed: "opposed",
    n.Action: "action",
    n.RollDef: "roll_definition",
    n.Table: "table",
    n.Sheet: None,  # its fields are data: the sheet (interpreter.sheet) reads and keeps them
    n.Ladder: None,  # its steps are data, read by step(...) (interpreter.compile.builtin_functions)
    n.Symbols: None,  # names: the symbol dice that show them are compiled (compile.symbols)
    n.DieDef: None,  # a die's faces: data the symbol dice roll (interpreter.compile.symbols)
}

#: the nodes that are parts of another, checked and compiled by that node's handlers:
#: part → where they are handled
PARTS = {
    # the sheet's items (Checker.sheet_item; interpreter.sheet reads their values)
    n.Stat: "sheet",
    n.Resource: "sheet",
    n.Counter: "sheet",
    n.Flag: "sheet",
    n.TextField: "sheet",
    n.ListField: "sheet",
    n.Catalog: "sheet",
    n.Effects: "sheet",
    n.TimeUnit: "sheet: a unit of an effects store's clock",
    n.Group: "sheet",
    n.Derived: "sheet: compiled as a formula of the sheet (Compiler.derived)",
    n.Ensure: "sheet: its condition compiled for the sheet's rules (interpreter.sheet_rules)",
    n.OpenSkills: "sheet",
    # a dice term's modifiers (dsl.check.dice; interpreter.compile.dice: DiceTerms.modifier)
    n.Keep: "dice term",
    n.Explode: "dice term",
    n.Reroll: "dice term",
    n.Clamp: "dice term",
    n.Sort: "dice term",
    n.CountSuccesses: "dice term",
    n.CountFailures: "dice term",
    n.Condition: "dice term: a modifier's condition",
    n.DieFace: "a symbol die's face (DieDef)",
    # parts of definitions and statements, handled with them
    n.Param: "definition: a parameter",
    n.NamedType: "parameter's or catalog field's type",
    n.EnumType: "parameter's or catalog field's type",
    n.ListType: "parameter's or catalog field's type",
    n.Key: "table: a row's key",
    n.Row: "table: a row",
    n.RollRule: "named roll: an `on` rule of its procedure",
    n.Option: "choose: an option",
    # files: dsl.load reads them into one Rulebook before anything is checked
    n.RulebookFile: "file",
    n.Header: "file: the header, read into the Rulebook",
    n.Replace: "file: a house rule's replacement, merged into its base by dsl.load",
}

#: the nodes no brute-force generator draws, and why none needs to
NOT_DRAWN = {
    n.Replace: "a house rule's replacement is merged into its base before checking: the "
    "merged rulebook is what runs (tests/test_extends_messages.py)",
}

#: the brute-force generators: name → a strategy of rulebook texts (or of (text, ...))
GENERATORS = {
    "test_odds_every_kind.every_kind": test_odds_every_kind.every_kind(),
    "test_odds_brute_force.rulebooks": test_odds_brute_force.rulebooks(),
    "test_odds_brute_force.read_once": test_odds_brute_force.read_once(),
    "fuzz_odds_cases.actions": fuzz_odds_cases.actions(),
}
#: a fixed text per built-in function, each against brute force (tests/test_functions.py)
FIXED = [test_functions.HEADER % call for call in test_functions.EXAMPLES.values()]


def built_in(folder: Path) -> set[str]:
    """The node classes a package constructs (`n.Name(...)`), read from its source."""
    out = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "n"
            ):
                out.add(node.func.attr)
    return out


def test_every_node_class_has_a_builder():
    built = built_in(ROOT / "dsl" / "build")
    assert sorted(node.__name__ for node in NODES if node.__name__ not in built) == []


def test_every_node_class_is_an_expression_a_statement_a_definition_or_a_part():
    kinds = [set(n.EXPRESSIONS), set(n.STATEMENTS), set(n.DEFINITIONS), set(PARTS)]
    for i, kind in enumerate(kinds):
        for other in kinds[i + 1 :]:
            assert not kind & other
    assert set().union(*kinds) == NODES


@pytest.mark.parametrize("node", n.EXPRESSIONS, ids=lambda node: node.__name__)
def test_every_expression_is_checked_counted_and_compiled(node):
    assert callable(getattr(Checker, f"ex_{node.__name__.lower()}", None))
    assert node in compiler._EXPRESSIONS
    assert node in costs.EXPRESSIONS  # a step of the run's fuel


def test_the_compilers_handlers_are_for_node_classes_of_their_kind():
    assert set(compiler._EXPRESSIONS) == set(n.EXPRESSIONS)
    assert set(compiler._STATEMENTS) == set(n.STATEMENTS) - set(COMPILED_WITH_THEIR_OWNER)
    assert set(costs.EXPRESSIONS) == set(n.EXPRESSIONS)


@pytest.mark.parametrize("node", n.STATEMENTS, ids=lambda node: node.__name__)
def test_every_statement_is_checked_and_compiled(node):
    assert callable(getattr(Checker, f"st_{node.__name__.lower()}", None))
    assert node in compiler._STATEMENTS or node in COMPILED_WITH_THEIR_OWNER


@pytest.mark.parametrize("node", n.DEFINITIONS, ids=lambda node: node.__name__)
def test_every_definition_is_checked_and_compiled(node):
    checked = callable(getattr(Checker, f"def_{node.__name__.lower()}", None))
    assert checked or node in DEFINITION_CHECKS
    assert node in DEFINITION_COMPILERS
    method = DEFINITION_COMPILERS[node]
    assert method is None or callable(getattr(compiler.Compiler, method, None))


#: the action every brute-force generator's test runs (tests/test_odds_*.py: "act")
RUN = "act"


def drawn(text: str) -> set:
    """The node classes of what a brute-force test of `text` runs: the action RUN, the
    definitions it names (by a call, a name, a die's or a ladder's name: any text of a
    node that is a definition's name), theirs in turn, the sheet and the header. A
    definition nothing run names is not drawn: a generator whose fixed text defines a
    ladder its actions never use does not draw a ladder."""
    tree = parse_rulebook_file(text, "drawn.rules")
    named = {getattr(item, "name", None): item for item in tree.definitions}
    reached = [item for item in tree.definitions if isinstance(item, n.Sheet | n.Symbols)]
    reached += [item for item in (tree.header, named.get(RUN)) if item is not None]
    names = {RUN}
    out: set = {type(tree)}
    while reached:
        item = reached.pop()
        for node in n.walk(item):
            out.add(type(node))
            for value in attrs.astuple(node, recurse=False):
                if type(value) is str and value in named and value not in names:
                    names.add(value)
                    reached.append(named[value])
    return out


#: the most texts drawn from each generator looking for the nodes still unseen; no
#: shrinking (nothing failed)
DRAWING = settings(
    max_examples=300,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@functools.cache
def drawn_by() -> dict:
    """Each node class a generator draws: the first generator (or fixed text) seen to."""
    wanted = NODES - set(NOT_DRAWN)
    found: dict = {}
    for text in FIXED:
        for node in drawn(text):
            found.setdefault(node, "tests/test_functions.py")
    for name, strategy in GENERATORS.items():

        def all_seen(case, name=name) -> bool:
            text = case[0] if isinstance(case, tuple) else case
            for node in drawn(text):
                found.setdefault(node, name)
            return wanted <= set(found)

        try:
            find(strategy, all_seen, settings=DRAWING)
            break
        except NoSuchExample:
            continue
    return found


@pytest.mark.parametrize(
    "node", sorted(NODES - set(NOT_DRAWN), key=lambda node: node.__name__), ids=lambda c: c.__name__
)
def test_every_node_class_is_drawn_by_a_brute_force_generator(node):
    assert node in drawn_by(), f"no brute-force generator draws {node.__name__} (nor NOT_DRAWN)"


def test_a_definition_the_action_run_does_not_reach_is_not_drawn():
    fixed = test_odds_every_kind.DEFINITIONS  # a ladder, a formula, a check, a die, ...
    plain = drawn(fixed + "action act() {\n  let v = d2\n  result { v: v }\n}\n")
    assert not plain & {n.Ladder, n.Formula, n.Check, n.DieDef, n.RollDef, n.IfExpr, n.Change}
    stepped = drawn(fixed + "action act() {\n  result { v: step(Paso, 3, d3 - 2) }\n}\n")
    assert n.Ladder in stepped and n.Formula not in stepped
