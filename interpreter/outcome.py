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


#: the slots of an Outcome's replay tuple (built by Engine.run on every run: a plain
#: tuple, read by these names)
ENGINE, RUNNABLE, BEFORE, ARGUMENTS, FACES, SHOWN, ORIGIN, MADE = range(8)


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
        "_trace",
        "changes",
        "characters",
        "result",
        "sheet",
        "steps",
        "warnings",
    )

    # (no `__init__`: `Outcome()` makes one without a call of Python code, and the
    # engine gives it its fields, every one of them: `made` for any other maker)
    #: what was run and with what, the trace made from it by running again: (engine,
    #: runnable, the sheet before, arguments, dice, the parameters as shown, the dice's
    #: origin, the choices made); `action`, `kind`, `language`, `dice`, `origin`,
    #: `choices`, `before` and `params` are read from it
    _replay: tuple[Any, ...]
    result: object
    sheet: Sheet
    changes: tuple[Change, ...]
    warnings: tuple[Any, ...]
    characters: tuple[CharacterOutcome, ...]  # CharacterOutcome of the others
    _params: dict[str, Any] | None  # (either may be left unset: None)
    _trace: Trace | None  # recorded as the run went (Engine.run(trace=True))
    steps: int  # the steps of evaluation it took (against Limits.steps_per_run)

    @classmethod
    def made(
        cls,
        replay: tuple[Any, ...],
        result: object,
        sheet: Sheet,
        changes: tuple[Change, ...],
        warnings: tuple[Any, ...] = (),
        characters: tuple[CharacterOutcome, ...] = (),
        trace: Trace | None = None,
        steps: int = 0,
    ) -> Outcome:
        """An Outcome of these fields."""
        outcome = cls()
        outcome._replay = replay
        outcome.result, outcome.sheet, outcome.changes = result, sheet, changes
        outcome.warnings, outcome.characters = warnings, characters
        outcome._params, outcome._trace, outcome.steps = None, trace, steps
        return outcome

    @property
    def action(self) -> str:
        """The name of what was run."""
        name: str = self._replay[RUNNABLE].name
        return name

    @property
    def kind(self) -> str:
        """What was run: "action", "check", "opposed" or "roll"."""
        kind: str = self._replay[RUNNABLE].kind
        return kind

    @property
    def language(self) -> str:
        """The rulebook's language."""
        language: str = self._replay[ENGINE].language
        return language

    @property
    def before(self) -> Sheet:
        """The acting character's sheet as the run was given it."""
        sheet: Sheet = self._replay[BEFORE]
        return sheet

    @property
    def dice(self) -> tuple[int, ...]:
        """The faces drawn, in order."""
        return tuple(self._replay[FACES])  # (kept as the run's list of faces)

    @property
    def origin(self) -> str:
        """Where the dice came from."""
        origin: str = self._replay[ORIGIN]
        return origin

    @property
    def choices(self) -> tuple[Any, ...]:
        """The choices made (interpreter.choosers.Choice), in order."""
        made: tuple[Any, ...] = self._replay[MADE]
        return made

    @property
    def params(self) -> dict[str, Any]:
        """The parameters the run was given, as shown (defaults filled in)."""
        found: dict[str, Any] | None = getattr(self, "_params", None)  # (unset: none yet)
        if found is None:
            found = self._params = dict(self._replay[SHOWN])
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
        found: Trace | None = getattr(self, "_trace", None)  # (unset: none made yet)
        if found is None:
            engine, *arguments = self._replay
            found = self._trace = engine._trace(*arguments)
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
