"""The registry of built-in functions (dsl.functions, interpreter.compile.builtin_functions):
one list of names that the checker, the compiler, the odds engine, the editor and the
reference's table all follow; each function's odds what brute force over the real roller
gives."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import pytest
from oracle import action_outcomes, keyed

import dsl
from dsl.check.builtin_calls import OWN_ARITY, TYPE_RULES
from dsl.check.checker import Checker
from dsl.errors import RulebookError
from dsl.functions import FUNCTIONS, RULES, reference_table, table_in
from interpreter import Engine, Limits
from interpreter.compile.builtin_functions import BUILTINS, COUNTED, POOL_QUESTIONS
from interpreter.errors import EvaluationError
from interpreter.lsp.complete import completions
from interpreter.lsp.hover import hover

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "grammar" / "README.md"

HEADER = """rulebook "Functions" {
  language "en"
}

sheet {
  attribute A in 0..5 default 2
  effects Efectos on acciones
    time turno
}

ladder Dado = d4, d6, d8

action act() {
  result { v: %s }
}
"""

#: a call of each function whose arguments are dice: its odds are counted as the registry
#: says (lifted, asked of a pool, made known, read on the sheet) and must be what the
#: real roller gives over every way the dice can fall
EXAMPLES = {
    "floor": "floor(d4 / 3)",
    "ceil": "ceil(d4 / 3)",
    "round": "round(d4 / 2)",
    "abs": "abs(d4 - 3)",
    "min": "min(d4, d3)",
    "max": "max([d3, 2])",
    "clamp": "clamp(d6, 2, 4)",
    "sum": "sum([d3, d2])",
    "size": "size(subsets([d2, 1]))",
    "default": "default(if d2 = 1 then none else 5, d3)",
    "step": "step(Dado, 2 + 2 * d3, d2)",
    "count": "count(3d3, 3)",
    "highest": "highest(3d3, 2)",
    "lowest": "lowest(2d4)",
    "most_sets": "most_sets(3d4, 5)",
    "without": "without([1, 2, 3], d3)",
    "subsets": "subsets([d2, 1])",
    "effects": 'effects("acciones") + d2',
    "active": 'if active("Miedo") then d2 else d3',
    "effect_modifier": 'effect_modifier("Miedo") - d2',
    "join": 'join([d2, 3], "-")',
    "number": 'number("{d3}") * 2',
}


def test_every_function_has_its_front_end_and_its_back_end():
    assert list(FUNCTIONS) == list(BUILTINS)
    for name, function in FUNCTIONS.items():
        assert function.name == name
        assert function.rule in RULES, name
        assert function.forms and all(form.startswith(f"{name}(") for form in function.forms)
        assert function.meaning and function.gives_text(), name
        backend = BUILTINS[name]
        assert backend.counted in COUNTED, name
        assert (backend.question is not None) == (backend.counted == "question"), name
        assert (function.rule == "pool") == (name in POOL_QUESTIONS), name


def test_every_type_rule_has_its_check():
    assert set(TYPE_RULES) == set(RULES)
    assert set(RULES) >= OWN_ARITY
    for rule, method in TYPE_RULES.items():
        assert callable(getattr(Checker, method, None)), rule


def test_the_references_table_is_the_registrys():
    written = table_in(REFERENCE.read_text(encoding="utf-8"))
    assert written is not None, "grammar/README.md lost the mark of its table of functions"
    assert written == reference_table(), "run: python -m dsl.function_table --reference"


def test_the_table_is_printed_by_the_module():
    printed = subprocess.run(
        [sys.executable, "-m", "dsl.function_table", "--reference"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert printed == reference_table()
    assert all(f"`{name}(" in printed for name in FUNCTIONS)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_the_editor_completes_every_function(name):
    text = HEADER % name
    offset = text.index(f"v: {name}") + 3 + len(name)
    found = completions(text, "f.rules", offset)["items"]
    assert any(item["label"] == name and item["kind"] == "function" for item in found)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_hovering_on_a_function_shows_its_entry(name):
    text = HEADER % EXAMPLES[name]
    offset = text.index(f"{name}(", text.index("v: ")) + 1
    shown = hover(text, "f.rules", offset)
    assert shown is not None and f"**{name}**" in shown["markdown"]
    assert FUNCTIONS[name].meaning in shown["markdown"]


def check_errors(expression: str) -> list[str]:
    try:
        dsl.load_text(HEADER % expression, "f.rules")
    except RulebookError as error:
        return [d.message for d in error.diagnostics if d.severity == "error"]
    return []


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_the_checker_counts_the_arguments_the_registry_says(name):
    function = FUNCTIONS[name]
    assert check_errors(EXAMPLES[name]) == []
    for count in {function.fewest, function.most or function.fewest + 2}:
        call = f"{name}({', '.join(['1'] * count)})"
        errors = check_errors(call)
        assert not any("argument" in message for message in errors), call
        if not errors:  # what the checker lets through, the back end compiles and runs
            engine = Engine(dsl.load_text(HEADER % call, "f.rules"))
            with contextlib.suppress(EvaluationError):
                engine.run("act", engine.sheet({}), {})
    too_many = function.most + 1 if function.most is not None else None
    counts = [c for c in (function.fewest - 1, too_many) if c is not None and c >= 0]
    assert counts, name
    for count in counts:
        call = f"{name}({', '.join(['1'] * count)})"
        errors = check_errors(call)
        assert any(message.startswith(name) for message in errors), (
            call,
            errors,
        )


def test_no_name_may_take_a_functions_name():
    for name in FUNCTIONS:
        errors = check_errors(f"1 }}\n}}\nformula {name}() = 1\naction b() {{ result {{ v: 1")
        assert any("built-in function" in message for message in errors), name


def test_every_function_has_an_example():
    assert set(EXAMPLES) == set(FUNCTIONS)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_each_functions_odds_are_what_the_real_roller_gives(name):
    engine = Engine(dsl.load_text(HEADER % EXAMPLES[name], "f.rules"), Limits())
    sheet = engine.sheet(
        {
            "Efectos": {
                "Miedo": {"modifier": -1, "targets": ["acciones"], "left": 2, "unit": "turno"}
            }
        }
    )
    odds = engine.odds("act", sheet, {})
    listed = action_outcomes(engine, "act", sheet, ways=3_000)
    assert listed is not None and odds.exact and odds.omitted == 0
    assert keyed(odds.probabilities) == listed
    assert len(listed) > 1, "the example's value should depend on its dice"
