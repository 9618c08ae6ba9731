"""Errors raised while evaluating: limits, dice, requirements, resources, sheets."""

from __future__ import annotations

from dsl.errors import RulebookError


class EvaluationError(RulebookError):
    """An evaluation that could not finish; nothing it did is kept. Exit code 4."""

    exit_code = 4


class LimitExceeded(EvaluationError):
    """A bound set by `Limits` was passed (dice, chain length, steps, ...)."""


class ChainTooLong(LimitExceeded):
    """A die exploded or was rerolled (a roll procedure went on) past extra_per_die: the
    dice decided it, so the odds engine counts it as an outcome of its own."""


class DiceError(EvaluationError):
    """A die the dice source cannot give: a forced value it cannot show, too few values..."""


class RequirementFailed(EvaluationError):
    """A `require` whose condition did not hold."""


class InsufficientResource(EvaluationError):
    """A `spend` of more than the sheet holds."""


class SheetError(RulebookError):
    """A character sheet that does not fit the rulebook's schema. Exit code 3."""

    def __init__(
        self,
        message: str,
        field: str | None = None,
        hint: str | None = None,
        path: str | None = None,
    ):
        super().__init__(message, None, hint)
        self.field = field
        self.path = path

    def render(self) -> str:
        where = f"{self.path}: " if self.path else ""
        text = f"{where}error: {self.message}"
        return text + (f"\n    {self.hint}" if self.hint else "")


class SheetChanged(SheetError):
    """A sheet file that changed on disk since it was read: saving would lose that
    change, so nothing is written. Exit code 4."""

    exit_code = 4


class ShippedSheet(SheetError):
    """A save aimed at a character that ships with the package. Exit code 2."""

    exit_code = 2


class ParameterError(RulebookError):
    """An action parameter that is missing, unknown, or not one of its choices. Exit code 2."""

    exit_code = 2
