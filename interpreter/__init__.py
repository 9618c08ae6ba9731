"""The back end: runs a rulebook's AST against a character sheet and a dice source.

import dsl, interpreter
book = dsl.load("arcana_mundi")
engine = interpreter.Engine(book)
sheet = engine.load_sheet("rulebooks/characters/menecma.yaml")
out = engine.run("usar_numina", sheet, {"numina": "Grito Báquico"},
                 dice=interpreter.ForcedDice([3, 4]))
out.result, out.sheet, out.changes, out.trace
"""

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
