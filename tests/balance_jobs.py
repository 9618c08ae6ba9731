"""Tasks for the parallel runner's tests (tests/test_balance_parallel.py): top-level
functions the worker processes import by name, over Brujería's shipped witch."""

from __future__ import annotations

from functools import cache

import dsl
import interpreter
from interpreter.balance import task_seed
from rulebooks import characters


@cache
def _engine_and_sheet():
    book = dsl.load("brujeria")
    sheet = interpreter.Sheet.load(characters.__path__[0] + "/brujeria_bruja.yaml", book)
    return interpreter.Engine(book), sheet


def exact_success(task: tuple) -> dict:
    """The exact odds of a simple check's success for (attribute, modifier)."""
    engine, sheet = _engine_and_sheet()
    attribute, modifier = task
    params = {"atributo": attribute, "modificador": modifier}
    return engine.odds("chequeo_sencillo", sheet, params, "éxito").probabilities


def sampled_total(task: tuple) -> int:
    """One run of a simple check with the dice of task (root seed, index): its total."""
    engine, sheet = _engine_and_sheet()
    root, index = task
    dice = interpreter.SeededDice(task_seed(root, index))
    return engine.run("chequeo_sencillo", sheet, {}, dice).result["total"]


def fails_on(task: int) -> int:
    """Raises for task 3: the error must come back to the caller."""
    if task == 3:
        raise ValueError("task 3 fails")
    return task
