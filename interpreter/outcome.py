"""What a run returns, its `Outcome`, and an Engine method's errors in the rulebook's language.

An Outcome holds the result, the new sheets, the changes and the trace (built on demand
by running again with the run's own dice)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

import attrs

from dsl.errors import TOO_DEEP, RulebookError
from interpreter.errors import LimitExceeded
from interpreter.json_data import run_data
from interpreter.sheets.character import Sheet
from interpreter.trace import Trace

F = TypeVar("F", bound=Callable[..., Any])


@attrs.frozen
class Change:
    """One value on the sheet that a run changed."""

    path: str
    before: object
    after: object


@attrs.frozen
class CharacterOutcome:
    """What a run did to one of its other characters: its sheet before and after."""

    role: str  # the action's parameter it was given as
    label: str  # how the trace names it (its sheet's file name)
    before: Sheet
    after: Sheet
    changes: tuple[Change, ...]


class Outcome:
    """What a run produced: its result, the new sheet, what changed, and how.

    `kind` says what was run: "action", "check", "opposed" or "roll" (a named roll, whose
    result is its total); `action` is its name. The trace is built on first use.
    `warnings` say what the parameters may mean without saying (an open skill the sheet
    lacks, close to one it has).
    """

    __slots__ = (
        "_params",
        "_replay",
        "_shown",
        "_trace",
        "action",
        "before",
        "changes",
        "characters",
        "choices",
        "dice",
        "kind",
        "language",
        "origin",
        "result",
        "sheet",
        "steps",
        "warnings",
    )

    def __init__(
        self,
        action: str,
        params: dict[str, Any],
        result: object,
        sheet: Sheet,
        changes: tuple[Change, ...],
        dice: tuple[int, ...],
        origin: str,
        replay: tuple[Any, ...],
        kind: str = "action",
        language: str = "en",
        warnings: tuple[Any, ...] = (),
        characters: tuple[CharacterOutcome, ...] = (),
        choices: tuple[Any, ...] = (),
        before: Sheet | None = None,
        trace: Trace | None = None,
        steps: int = 0,
    ):
        self.action, self.result, self.sheet = action, result, sheet
        #: the parameters as shown, shared with the Engine's last binding (never written
        #: to: `params` is a copy of them, made when first read)
        self._shown = params
        self._params: dict[str, Any] | None = None
        self.changes, self.dice, self.origin = changes, dice, origin
        self.kind, self.language, self.warnings = kind, language, warnings
        self.characters = characters  # CharacterOutcome of the others
        self.choices = choices  # interpreter.choosers.Choice, in order
        self.before = sheet if before is None else before
        self._replay = replay  # (a function giving the trace by running again, its arguments)
        self._trace: Trace | None = trace  # recorded as the run went (Engine.run(trace=True))
        self.steps = steps  # the steps of evaluation it took (against Limits.steps_per_run)

    @property
    def params(self) -> dict[str, Any]:
        """The parameters the run was given, as shown (defaults filled in)."""
        found = self._params
        if found is None:
            found = self._params = dict(self._shown)
        return found

    @property
    def sheets(self) -> dict[str, Sheet]:
        """Every character's new sheet, by role: `self` (the acting one) and the others."""
        return {"self": self.sheet, **{c.role: c.after for c in self.characters}}

    @property
    def sheets_before(self) -> dict[str, Sheet]:
        """Every character's sheet as the run was given it, by role."""
        return {"self": self.before, **{c.role: c.before for c in self.characters}}

    @property
    def name(self) -> str:
        """The name of what was run (an action's, a check's, a roll's)."""
        return self.action

    @property
    def trace(self) -> Trace:
        """Every roll, check, lookup, cost and change, in order (built on first use)."""
        found = self._trace
        if found is None:
            replay, *arguments = self._replay
            found = self._trace = replay(*arguments)
        return found

    def to_json(self, language: str | None = None) -> dict[str, Any]:
        """The plain JSON data of this run (schema: run), texts in `language` (by
        default the rulebook's)."""
        return run_data(self, language or self.language)


def speaking(method: F) -> F:
    """An Engine method whose errors speak the rulebook's language (`RulebookError.render`)."""

    @functools.wraps(method)
    def speaks(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (RulebookError, RecursionError) as error:
            raise spoken(error, self.language) from None

    return cast(F, speaks)  # (the same signature: functools.wraps)


def spoken(error: RulebookError | RecursionError, language: str) -> RulebookError:
    """The error to raise from an Engine method: the project's own, in the rulebook's
    language (a RecursionError is the limit on calls inside one another)."""
    if isinstance(error, RecursionError):
        return LimitExceeded(TOO_DEEP).speak(language)
    return error.speak(language)
