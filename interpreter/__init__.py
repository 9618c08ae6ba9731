"""The back end: runs a rulebook's AST against a character sheet and a dice source.

import dsl, interpreter
book = dsl.load("arcana_mundi")
engine = interpreter.Engine(book)
sheet = engine.load_sheet("rulebooks/characters/menecma.yaml")
out = engine.run("usar_numina", sheet, {"numina": "Grito Báquico"},
                 dice=interpreter.ForcedDice([3, 4]))
out.result, out.sheet, out.changes, out.trace
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from interpreter.choosers import Choice, Chooser, Question
    from interpreter.dice import DiceSource, ForcedDice, SeededDice, TypedDice
    from interpreter.engine import Engine
    from interpreter.errors import (
        ChoiceNotOpen,
        DiceError,
        EvaluationError,
        InsufficientResource,
        LimitExceeded,
        ParameterError,
        RequirementFailed,
        SheetError,
    )
    from interpreter.expression import RollResult, roll
    from interpreter.limits import DEFAULT_LIMITS, Limits
    from interpreter.odds.best_play import Goal
    from interpreter.outcome import Change, CharacterOutcome, Outcome
    from interpreter.sheets.character import Sheet
    from interpreter.trace import Step, render_text

from interpreter.version import VERSION as __version__

#: where each public name lives: imported on first use (`import interpreter` alone costs
#: nothing, so that a command imports only what it uses)
_EXPORTS = {
    "Choice": "interpreter.choosers",
    "Chooser": "interpreter.choosers",
    "Question": "interpreter.choosers",
    "DiceSource": "interpreter.dice",
    "ForcedDice": "interpreter.dice",
    "SeededDice": "interpreter.dice",
    "TypedDice": "interpreter.dice",
    "Change": "interpreter.outcome",
    "CharacterOutcome": "interpreter.outcome",
    "Engine": "interpreter.engine",
    "Outcome": "interpreter.outcome",
    "ChoiceNotOpen": "interpreter.errors",
    "DiceError": "interpreter.errors",
    "EvaluationError": "interpreter.errors",
    "InsufficientResource": "interpreter.errors",
    "LimitExceeded": "interpreter.errors",
    "ParameterError": "interpreter.errors",
    "RequirementFailed": "interpreter.errors",
    "SheetError": "interpreter.errors",
    "RollResult": "interpreter.expression",
    "roll": "interpreter.expression",
    "DEFAULT_LIMITS": "interpreter.limits",
    "Limits": "interpreter.limits",
    "Goal": "interpreter.odds.best_play",
    "Sheet": "interpreter.sheets.character",
    "Step": "interpreter.trace",
    "render_text": "interpreter.trace",
}

__all__ = [
    "DEFAULT_LIMITS",
    "Change",
    "CharacterOutcome",
    "Choice",
    "ChoiceNotOpen",
    "Chooser",
    "DiceError",
    "DiceSource",
    "Engine",
    "EvaluationError",
    "ForcedDice",
    "Goal",
    "InsufficientResource",
    "LimitExceeded",
    "Limits",
    "Outcome",
    "ParameterError",
    "Question",
    "RequirementFailed",
    "RollResult",
    "SeededDice",
    "Sheet",
    "SheetError",
    "Step",
    "TypedDice",
    "__version__",
    "render_text",
    "roll",
]


def __getattr__(name: str):
    """A public name, imported from its module the first time it is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'interpreter' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
