"""Errors raised while evaluating: limits, dice, requirements, resources, sheets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dsl.errors import KINDS, RulebookError, Span, windowed
from dsl.errors import shown as seen
from dsl.messages import Message, tr, translate
from interpreter.limits import DEFAULT_LIMITS
from interpreter.shown import glimpse

#: characters of one value an evaluation error quotes (longer: cut, `… N more
#: characters`): the default `Limits.shown_length`
QUOTED = DEFAULT_LIMITS.shown_length


def quoting(message):
    """A message whose values are cut to QUOTED characters each (a text of 100,000
    characters, a list of 10,000 items, in `a condition must be yes or no, not ...`)."""
    if message is None or len(message) <= 2 * QUOTED:
        return message
    if isinstance(message, Message):
        if message.parts is not None:
            parts = [
                quoting(p) if isinstance(p, Message) else glimpse(p, QUOTED) for p in message.parts
            ]
            return Message.joined(parts, message.separator)
        params = {
            name: quoting(value) if isinstance(value, Message) else glimpse(value, QUOTED)
            for name, value in message.params.items()
        }
        return Message(message.template, params, message.plural, message.count)
    return glimpse(str(message), QUOTED)  # a text the rules made (a `require`'s message)


class EvaluationError(RulebookError):
    """An evaluation that could not finish; nothing it did is kept. Exit code 4.

    Raised by `Engine.run`, it carries the run's trace up to the error (`trace`: a list
    of steps, built on first use by running again with the same dice; None otherwise).
    `refusal()` says it as at the table: first what happened, in the game's terms, then on
    its own line where in the rulebook (with `verbose`, as `render()` does: the line
    itself and a caret)."""

    exit_code = 4
    code = "evaluation_error"
    #: set by the Engine: a function giving the trace up to the error
    replay: Callable[[], Any] | None = None
    steps: int | None = None  # set by the Engine: the steps the run took up to the error

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(quoting(message), span, hint)

    @property
    def trace(self) -> list | None:
        """The run's trace up to the error (None when not from an Engine run)."""
        if self.replay is None:
            return None
        steps = self.replay()
        self.replay = lambda: steps
        return steps

    def refusal(self, language: str | None = None, verbose: bool = False) -> str:
        """What happened, then where: `No puedes gastar 3 de ...`, then
        `(en x.rules, línea 4, columna 3)`."""
        language = language or self.language
        if verbose:
            return self.render(language)
        text = translate(self.message, language)
        if self.span is not None:
            file = self.span.source.name.replace("\\", "/").rsplit("/", 1)[-1]
            line, column = self.span.source.line_col(self.span.start)
            where = tr(
                "(at {file}, line {line}, column {column})", file=file, line=line, column=column
            )
            text += "\n    " + where.render(language)
        if self.hint:
            text += "\n    " + translate(self.hint, language)
        return text


class LimitExceeded(EvaluationError):
    """A bound set by `Limits` was passed (dice, chain length, steps, ...)."""

    code = "limit_exceeded"


class ChainTooLong(LimitExceeded):
    """A die exploded or was rerolled (a roll procedure went on) past extra_per_die: the
    dice decided it, so the odds engine counts it as an outcome of its own."""

    code = "limit_exceeded"


#: why a ChainTooLong was raised (the roller and the odds engine say it alike)
EXPLODED_PAST = tr("a die exploded more than {limit} times (limit extra_per_die)")
REROLLED_PAST = tr("a die was rerolled more than {limit} times (limit extra_per_die)")
WENT_ON_PAST = tr("roll {name} went on more than {limit} times (limit extra_per_die)")
#: what every face of a die would do, when a condition holds for all of them (the roller
#: and the odds engine refuse such a roll alike; `every face of d6 explodes`)
FACES_EXPLODE, FACES_REROLLED = tr("explodes"), tr("is rerolled")


class DiceError(EvaluationError):
    """A die the dice source cannot give: a forced value it cannot show, too few values..."""

    code = "dice_error"


class RequirementFailed(EvaluationError):
    """A `require` whose condition did not hold."""

    code = "requirement_failed"


class ChoiceNotOpen(RequirementFailed):
    """An answer given in advance to a `choose` names an option its condition (or its
    cost) closes at that moment: like a `require` that fails, the run changes nothing."""

    code = "choice_not_open"
    refused: Any = None  # the answer refused (interpreter.choosers.Choice), for the replay


class InsufficientResource(EvaluationError):
    """A `spend` of more than the sheet holds."""

    code = "insufficient_resource"


class SheetError(RulebookError):
    """A character sheet that does not fit the rulebook's schema. Exit code 3."""

    code = "invalid_sheet"

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
        #: where in the file (1-based), when known: the line, the column, the line's text
        #: and how many characters the caret covers (interpreter.sheets.field_positions)
        self.line: int | None = None
        self.column: int | None = None
        self.line_text: str = ""
        self.width: int = 1
        #: the sheet's every value found wrong, this one first, when there are several
        self.every_value: list[SheetError] = []

    def at(self, line: int, column: int, line_text: str, width: int = 1) -> SheetError:
        """The same error, placed at a line and column of the sheet file."""
        self.line, self.column, self.line_text, self.width = line, column, line_text, width
        return self

    def render(self, language: str | None = None, verbose: bool = False) -> str:  # noqa: ARG002 (every error renders with (language, verbose))
        language = language or self.language
        if self.every_value:
            return "\n".join(e._render_one(language) for e in self.every_value)
        return self._render_one(language)

    def _render_one(self, language: str | None) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where or '<sheet>'}:{self.line}:{self.column}"
        kind = translate(KINDS.get(self.kind, self.kind), language)
        head = f"{kind}: {translate(self.message, language)}"
        text = f"{where}: {head}" if where else head
        if self.line is not None and self.column is not None:
            line, column, width = windowed(self.line_text, self.column, self.width)
            caret = " " * (column - 1) + "^" * max(1, min(width, len(line) - column + 1))
            text += f"\n    {seen(line)}\n    {caret}"
        return text + (f"\n    {translate(self.hint, language)}" if self.hint else "")


class SheetWarning(SheetError):
    """Something a sheet file says that may not be what it seems (a key that only looks
    like a field's name): shown, not raised (`Sheet.warnings`)."""

    code = "invalid_sheet"
    kind = "warning"


class SheetChanged(SheetError):
    """A sheet file that changed on disk since it was read: saving would lose that
    change, so nothing is written. Exit code 4."""

    code = "sheet_changed"

    exit_code = 4


class ShippedSheet(SheetError):
    """A save aimed at a character that ships with the package. Exit code 2."""

    code = "shipped_sheet"

    exit_code = 2


class ParameterError(RulebookError):
    """An action parameter that is missing, unknown, or not one of its choices. Exit code 2."""

    exit_code = 2
    code = "invalid_parameter"
