"""The public API: an Engine compiled once from a rulebook runs actions against sheets.

    book = dsl.load("arcana_mundi")
    engine = Engine(book)
    sheet = engine.load_sheet("rulebooks/characters/menecma.yaml")
    out = engine.run("usar_numina", sheet, {"numina": "Grito Báquico"}, dice=SeededDice(7))
    out.result, out.sheet, out.changes, out.trace
    engine.odds("usar_numina", sheet, {"numina": "Grito Báquico"}, field="éxito")

A run works on a copy of the sheet; if anything fails (a `require`, a `spend` of more
than the sheet holds, a limit) it raises and the caller still holds the untouched sheet.
The trace is built on demand by running again with the same dice, which the run recorded:
runs are deterministic given their dice, so the replay is the run. A caller that will read
it asks for it with the run instead (`run(..., trace=True)`: recorded as the run goes);
either way a step's text is written only when it is read (interpreter.trace.Later).

The Engine sits above both halves: it runs compiled rules (interpreter.compile, through
interpreter.runtime) and hands itself to the odds engine (interpreter.odds), which uses
only its public methods (`prepare`, `context`, `commit`, `run`, `run_check`, `run_roll`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dsl.bounded import Bounded
from dsl.errors import RulebookError, did_you_mean
from dsl.messages import book_language, tr
from dsl.rulebook import Rulebook, reads_sheet
from interpreter.balance.encounters.answering import EncounterOdds, encounter_odds
from interpreter.choosers import Chooser, Recorded, chooser_for
from interpreter.compile import Compiler
from interpreter.compile.codegen import SWITCH
from interpreter.describe import describe
from interpreter.dice import DiceSource, ForcedDice, SeededDice
from interpreter.errors import (
    ChoiceNotOpen,
    EvaluationError,
    ParameterError,
    SheetError,
)
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.odds import BUDGET, EPSILON, Odds, action_odds
from interpreter.odds.best_play import Goal, best_odds
from interpreter.outcome import Change, CharacterOutcome, Outcome, speaking, spoken
from interpreter.parameters import Binder, shared
from interpreter.run_entries import SWITCH as ENTRIES
from interpreter.run_entries import entry_of, fast_run
from interpreter.runnables import Params, RollCall, Runnable, with_targets
from interpreter.runtime import Context, Roller, RollerProtocol, Run
from interpreter.sheets.character import Sheet
from interpreter.sheets.rules import resource_bounds, settle
from interpreter.state import Character, State
from interpreter.trace import Trace, run_heading

#: characters of rulebook text whose engines are kept by `Engine.of`
ENGINES_TEXT = 1_000_000
#: an untraced run's context (`Run`) and working sheet (`State`) are those of a run that
#: finished, when nothing else holds them: the fields a run changes given again, fewer
#: objects made (False: each run makes its own)
REUSE_RUNS = True
#: a traced run goes the untraced one's way too (a context reused, `Outcome()`), calling
#: its compiled form (False: through `_run`, a context of its own)
TRACED_RUNS = True
_ENGINES = Bounded(ENGINES_TEXT, count=64)


def _state_of(ctx: Context) -> State:
    """The working sheet of a run's context (every context an Engine makes has one)."""
    state = ctx.state
    if state is None:
        raise AssertionError("a run's context without its working sheet")
    return state


def not_a_sheet(given: object) -> str:
    """What an app is told when it runs an action against something not a Sheet."""
    return (
        f"a run needs a Sheet, not {type(given).__name__}: make one with "
        "engine.sheet({...}) from its values, or engine.load_sheet(path) from a file"
    )


def not_dice(given: object) -> bool:
    """Whether what an app gave as `dice` cannot draw a die (a list of faces, a seed)."""
    return given is not None and not callable(getattr(type(given), "draw", None))


#: what an app is told when its `dice` cannot draw
NOT_DICE = (
    "dice must be a dice source, not {}: ForcedDice([6, 3]) for faces given, "
    "SeededDice(42) for a seed, TypedDice(ask) for dice typed in"
)


class Engine:
    """A rulebook compiled once; reusable and safe to share between threads."""

    def __init__(self, rulebook: Rulebook, limits: Limits = DEFAULT_LIMITS):
        self.rulebook = rulebook
        self.limits = limits
        #: the language of its texts (the rulebook's `language`, if it has a catalogue)
        self.language = book_language(rulebook.language)
        self.compiler = Compiler.of(rulebook)
        #: name → Runnable (an action, check or roll, and its binder): made once for the
        #: engines of this rulebook of one class under equal limits (parameters.shared)
        self._runnables: dict[str, Runnable] = shared(self.compiler, type(self), limits)
        self._open_default = self.compiler.open_default  # (read by every run)
        #: contexts of finished runs, each made again into a new run's (`REUSE_RUNS`)
        self._spares: list[Run] = []
        #: name → the entry of a runnable whose generated function is made (`ENTRIES`)
        self._entries: dict[str, Callable[..., Outcome]] = {}

    @classmethod
    def of(cls, rulebook: Rulebook) -> Engine:
        """The engine of a rulebook, compiled once and kept while it is among the engines
        used last (`ENGINES_TEXT` characters of their rulebooks' texts: a server given a
        new text on every edit keeps only the last ones)."""
        engine: Engine = _ENGINES.of(rulebook, cls)
        return engine

    # ─── running actions ────────────────────────────────────────────────────

    def run(
        self,
        action: str,
        sheet: Sheet,
        params: Params | None = None,
        dice: DiceSource | None = None,
        *,
        targets: Mapping[str, Sheet] | None = None,
        choices: Mapping[str, Any] | Callable[..., Any] | Sequence[Any] | Chooser | None = None,
        trace: bool = False,
    ) -> Outcome:
        """Run an action (or a check, an opposed check, a named roll); return its Outcome,
        or raise with nothing changed. An EvaluationError raised carries the trace up to
        it (`.trace`).

        The trace is made by running again when it is first read; with `trace`, it is
        recorded as the run goes (for a caller that will read it: the server, the
        command line), which costs the run what recording costs, and spares the replay.

        `targets` are the other characters of the run, by the name of the action's
        parameter they are (`{"objetivo": orc_sheet}`; a Sheet given in `params` is the
        same); the Outcome has each one's new sheet and changes (`characters`).

        `choices` answers the run's `choose` statements: a mapping of answers by the
        choice's name (`{"invocar": "sí"}`), a callback `ask(question) → option` (a
        person at the table: interpreter.choosers.Question), a sequence of the choices of
        an earlier run, or a Chooser. Without, a choice with one option open takes it,
        and one with several is a ParameterError. The Outcome's `choices` says what was
        chosen, by whom and how."""
        # The hot path of the API: `speaking` written out, and nothing made that the run
        # does not need. A run with nothing around it (no targets, choices nor trace)
        # whose generated function is made calls it here; any other goes through `_run`.
        try:  # (an entry made: its own fast path, `interpreter.run_entries`)
            if not (trace or targets or choices is not None) and SWITCH.generated and REUSE_RUNS:
                entry = self._entries.get(action) if type(action) is str else None
                if entry is not None:
                    return entry(sheet, params, dice)
            runnable = self._runnables.get(action) if type(action) is str else None
            if runnable is None:
                runnable = self.runnable(action)
            alone = not (trace or targets or choices is not None) and SWITCH.generated
            if alone and REUSE_RUNS and runnable.fast is not None and ENTRIES.on:
                # (its generated function made: its entry, made now, for every run after)
                made: Callable[..., Outcome] = entry_of(self, runnable)
                entry = self._entries[action] = made
                return entry(sheet, params, dice)
            # (traced: its compiled form, which calls the generated traced code itself; or
            # that code's whole function straight, once made: `SWITCH.traced_straight`)
            fast = runnable.fast if not trace else (TRACED_RUNS and runnable.compiled) or None
            if trace and fast is not None and SWITCH.traced_straight and runnable.compiled.whole:
                fast = runnable.compiled.whole
            if fast is None or targets or choices is not None or not SWITCH.generated:
                return self._run(runnable, sheet, params, dice, targets, choices, trace)
            return fast_run(self, runnable, fast, sheet, params, dice, trace, REUSE_RUNS)
        except (RulebookError, RecursionError) as error:
            raise spoken(error, self.language) from None
        except AttributeError:
            if not isinstance(sheet, Sheet):  # (checked only once a run has failed)
                raise TypeError(not_a_sheet(sheet)) from None
            if not_dice(dice):
                raise TypeError(NOT_DICE.format(type(dice).__name__)) from None
            raise

    def _run(
        self,
        runnable: Runnable,
        sheet: Sheet,
        params: Params | None,
        dice: DiceSource | None,
        targets: Mapping[str, Sheet] | None,
        choices: Any,
        trace: bool,
    ) -> Outcome:
        """`run` with whatever is around the run: targets, choices, a recorded trace, or
        the closures (before the generated function is made, or where it cannot be)."""
        if targets:
            params = with_targets(params, targets)
        chooser = chooser_for(choices) if choices is not None else None
        if sheet.rulebook is not self.rulebook:
            raise SheetError(tr("this sheet was loaded for another rulebook"), path=sheet.path)
        args, shown, warnings = runnable.binder.prepared(sheet, params or {})
        source = dice if dice is not None else SeededDice()
        steps = self._heading(runnable, shown) if trace else None
        state = State(sheet._values, self._open_default)
        ctx = Run(source, self.limits, state, steps)  # (its own roller)
        if chooser is not None:
            ctx.chooser = chooser
        changes: tuple[Change, ...]
        try:
            fast = runnable.fast
            if fast is not None and steps is None and SWITCH.generated:
                result = fast(ctx, args, runnable.span)
            else:
                result = runnable.compiled(ctx, args, runnable.span)
                if steps is None and SWITCH.generated:  # made by now, if it can be
                    runnable.fast = getattr(runnable.compiled, "fast", None) or None
            if state.own or state.cast is not None:
                new_sheet, written = self.commit(ctx, sheet)
                changes = tuple(written)
            else:
                new_sheet, changes = sheet, ()
            others = self.others_of(ctx, args) if runnable.characters else ()
            if type(source) is not SeededDice:
                source.finish()
        except EvaluationError as error:
            self._failed(error, ctx, runnable, sheet, args, shown, source, steps)
            raise
        made = tuple(ctx.choices) if ctx.choices else ()
        ctx.roller = None  # type: ignore[assignment]  # (no cycle left: as in `run`)
        if state.cast is not None:
            state.cast.clear()
        return Outcome.made(
            (self, runnable, sheet, args, ctx.drawn, shown, source.origin, made),
            result,
            new_sheet,
            changes,
            warnings,
            others,
            steps.close() if steps is not None else None,
            ctx.steps,
        )

    def _failed(
        self,
        error: EvaluationError,
        ctx: Run,
        runnable: Runnable,
        sheet: Sheet,
        args: tuple[Any, ...],
        shown: Params,
        source: DiceSource,
        steps: Trace | None,
    ) -> None:
        """A run failed with `error`: give it the steps counted and its trace (recorded up
        to the error, or made by running again with the dice and choices up to it)."""
        faces, made = tuple(ctx.drawn), tuple(ctx.choices or ())
        if isinstance(error, ChoiceNotOpen) and error.refused is not None:
            made += (error.refused,)  # the replay is refused there again
        if steps is not None:  # recorded up to the error
            error.replay = steps.close
        else:
            error.replay = functools.partial(
                self._trace, runnable, sheet, args, faces, shown, source.origin, made
            )
        error.steps = ctx.steps
        ctx.roller = None  # type: ignore[assignment]  # (no cycle left: as in `run`)
        state = ctx.state
        if state is not None and state.cast is not None:
            state.cast.clear()

    def runnable(self, name: str) -> Runnable:
        """The action, check, opposed check or named roll of that name, compiled (once)."""
        if type(name) is not str:  # from an app or a journal entry: never hashed or compared
            raise ParameterError(
                tr("an action is named by a text, not {given}", given=type(name).__name__)
            )
        found = self._runnables.get(name)
        if found is not None:
            return found
        book = self.rulebook
        if name in book.actions:
            kind, compiled = "action", self.compiler.action(name)
        elif name in book.checks:
            kind, compiled = "check", self.compiler.check(name)
        elif name in book.opposed:
            kind, compiled = "opposed", self.compiler.opposed(name)
        elif name in book.rolls:
            kind, compiled = "roll", RollCall(self.compiler.roll_definition(name))
        else:
            every = [*book.actions, *book.checks, *book.opposed, *book.rolls]
            raise self._no_such("runnable", name, every)
        found = Runnable(kind, name, compiled, Binder(self, compiled.node))
        self._runnables[name] = found
        return found

    def _no_such(self, kind: str, name: str, among: Iterable[str]) -> ParameterError:
        """The error for a name the rulebook has no `kind` of ("runnable": no action,
        check, opposed check nor roll), hinted with the closest of the names `among`
        (for actions, else the list of them)."""
        title = self.rulebook.title
        if kind == "check":
            message = tr("{title} has no check {check}", title=title, check=repr(name))
        elif kind == "roll":
            message = tr("{title} has no roll {roll_name}", title=title, roll_name=repr(name))
        elif kind == "action":
            message = tr("{title} has no action {action}", title=title, action=repr(name))
        else:
            message = tr(
                (
                    "{rulebook} has no action {name!r} "
                    "(nor a check, opposed check or roll of that name)"
                ),
                rulebook=title,
                name=name,
            )
        hint = did_you_mean(name, list(among))
        if not hint and kind in ("action", "runnable"):
            hint = tr("actions: {names}", names=", ".join(self.rulebook.actions))
        return ParameterError(message, None, hint)

    def context(self, roller: RollerProtocol, sheet: Sheet, trace: Trace | None = None) -> Context:
        """A fresh run context over a sheet, with this roller (real, or the odds one)."""
        state = State(sheet._values, self.compiler.open_default)
        return Context(roller, self.limits, state, trace)

    def _trace(
        self,
        runnable: Runnable,
        sheet: Sheet,
        args: tuple[Any, ...],
        faces: tuple[int, ...],
        shown: Params,
        origin: str,
        made: tuple[Any, ...],
    ) -> Trace:
        """The run again with its own dice and choices, traced; up to the error, if it
        failed."""
        steps = self._heading(runnable, shown)
        replayed = ForcedDice(faces)
        replayed.origin = origin  # the trace says where the dice came from, not the replay
        ctx = self.context(Roller(replayed, self.limits), sheet, steps)
        if made:  # (none made: nobody chooses, as in the run)
            ctx.chooser = Recorded(made)
        try:
            runnable(ctx, args)
            self.commit(ctx, sheet)
        except (EvaluationError, ParameterError):
            # A failed run's trace ends where it failed (a choice nobody answered: there).
            pass
        return steps.close()

    def _heading(self, runnable: Runnable, shown: Params) -> Trace:
        """A run's trace, begun: its heading (what was run, with what)."""
        limits = self.limits
        # (what was run and with what, by reference: read when shown, `run_heading`)
        heading = (run_heading, runnable, shown, self.rulebook.path, limits.shown_length)
        flat = SWITCH.lazy_steps and SWITCH.flat_steps  # (else: made now)
        return Trace.headed(heading, self.language, limits, flat)

    def prepare(self, action: str, sheet: Sheet, params: Params) -> tuple[Any, ...]:
        """(compiled action, its arguments, the parameters as shown) for a run."""
        if action not in self.rulebook.actions:
            raise self._no_such("action", action, self.rulebook.actions)
        args, shown = self._arguments(self.rulebook.actions[action], sheet, params)
        return self.compiler.action(action), args, shown

    def _arguments(self, node: Any, sheet: Sheet, params: Params) -> tuple[Any, Params]:
        """Parameter values in declaration order (defaults filled in), and how to show
        them; unknown, missing or ill-typed parameters are ParameterErrors."""
        if sheet.rulebook is not self.rulebook:
            raise SheetError(tr("this sheet was loaded for another rulebook"), path=sheet.path)
        args, shown = self.runnable(node.name).binder(sheet, params)
        return args, shown

    def check_arguments(self, check: str, sheet: Sheet, params: Params) -> Any:
        """A check's (or an opposed check's) arguments, in declaration order (for the
        odds engine)."""
        book = self.rulebook
        node = book.checks.get(check) or book.opposed.get(check)
        if node is None:
            raise self._no_such("check", check, [*book.checks, *book.opposed])
        return self._arguments(node, sheet, params)[0]

    def roll_arguments(self, roll_name: str, sheet: Sheet, params: Params) -> Any:
        """A named roll's arguments, in declaration order (for the odds engine)."""
        return self._arguments(self.rulebook.rolls[roll_name], sheet, params)[0]

    @speaking
    def run_roll(
        self,
        roll_name: str,
        sheet: Sheet,
        params: Params | None = None,
        dice: DiceSource | None = None,
    ) -> Outcome:
        """Roll one of the rulebook's named rolls (`abierta`, `capicua`); its Outcome,
        whose result is the roll's total."""
        if roll_name not in self.rulebook.rolls:
            raise self._no_such("roll", roll_name, self.rulebook.rolls)
        return self.run(roll_name, sheet, params, dice)

    @speaking
    def run_check(
        self,
        check: str,
        sheet: Sheet,
        params: Params | None = None,
        dice: DiceSource | None = None,
    ) -> Outcome:
        """Roll one check (no action around it); its Outcome, whose result is the check's
        record (total, success, margin and the check's own fields)."""
        if check not in self.rulebook.checks:
            raise self._no_such("check", check, self.rulebook.checks)
        return self.run(check, sheet, params, dice)

    # ─── the sheet ──────────────────────────────────────────────────────────

    def commit(self, ctx: Context, sheet: Sheet) -> tuple[Sheet, list[Change]]:
        """End of a run: (the new sheet, its changes); resources kept within their new
        maximum, `ensure` rules checked (a broken one raises, and nothing changes), on
        every character's sheet (the others' new sheets: `others_of`)."""
        state = _state_of(ctx)
        for other in state.others() if state.cast is not None else ():
            if other.own:
                ctx.state = other
                try:
                    settle(self.compiler, ctx)
                finally:
                    ctx.state = state
        if not state.own:  # nothing was written: the same sheet
            return sheet, []
        settle(self.compiler, ctx)
        changes = [Change(*c) for c in state.changes()]
        new = Sheet(self.rulebook, state.values, sheet.meta, sheet.path, sheet.text_format)
        return new, changes

    def empty_sheet(self, name: str) -> Sheet | None:
        """A sheet with nothing on it, for an action, check or roll that reads none (a roll
        such as Brujería's open d10); None when `name` reads the character's sheet."""
        definition = self.rulebook.definition(name)
        if definition is None or reads_sheet(self.rulebook, definition):
            return None
        return Sheet(self.rulebook, {})

    def others_of(self, ctx: Context, args: tuple[Any, ...]) -> tuple[CharacterOutcome, ...]:
        """After `commit`: each other character given to the run, its new sheet and its
        changes (a character the run never changed keeps its sheet)."""
        cast = _state_of(ctx).cast
        if cast is None and not any(type(v) is Character for v in args):
            return ()
        out = []
        for value in args:
            if not isinstance(value, Character):
                continue
            state = (cast or {}).get(value.role)
            before = value.sheet
            if state is None or not state.own:
                out.append(CharacterOutcome(value.role, value.label, before, before, ()))
                continue
            after = Sheet(self.rulebook, state.values, before.meta, before.path, before.text_format)
            changes = tuple(Change(*c) for c in state.changes())
            out.append(CharacterOutcome(value.role, value.label, before, after, changes))
        return tuple(out)

    @speaking
    def sheet(
        self, data: dict[str, Any], path: str | None = None, text_format: str = "yaml"
    ) -> Sheet:
        """A sheet from plain data (as a YAML or JSON file would give)."""
        return Sheet.from_data(
            data, self.rulebook, path, text_format, self.limits, compiler=self.compiler
        )

    @speaking
    def load_sheet(self, path: str | Path) -> Sheet:
        """A sheet file (YAML, or JSON by its suffix), checked against the rulebook."""
        return Sheet.load(path, self.rulebook, self.limits)

    def resources(self, sheet: Sheet) -> list[tuple[Any, ...]]:
        """The sheet's resources as (path, value, minimum, maximum), maxima computed."""
        return resource_bounds(self.compiler, sheet._values, self.limits)

    # ─── other questions an app may ask ─────────────────────────────────────

    def describe(self) -> dict[str, Any]:
        """Actions, parameters, checks, rolls, tables and the sheet, as plain data."""
        return describe(self.rulebook)

    @speaking
    def encounter(
        self, description: str | Path | Mapping[str, Any], **options: Any
    ) -> EncounterOdds:
        """A whole encounter's odds (who wins, in how many rounds, with what left): exact
        where its states are few, else sampled, saying why: interpreter.balance.encounters.answering
        (`description`: a file, its data, or an Encounter; `options`: encounter_odds's)."""
        return encounter_odds(self, description, **options)

    def counting(self) -> Any:
        """Exact counts a whole encounter needs: interpreter.odds.joint_writes.Counting."""
        from interpreter.odds.joint_writes import Counting

        return Counting(self)

    @speaking
    def odds(
        self,
        action: str,
        sheet: Sheet,
        params: Params | None = None,
        field: str | None = None,
        *,
        choices: Mapping[str, Any] | None = None,
        best: Goal | str | None = None,
        **options: Any,
    ) -> Odds:
        """The distribution of an action's (check's, roll's) result field: `interpreter.odds`.

        The action's choices (`choose`) are answered by `choices` (a mapping of answers
        by name), and the rest, with `best`, by the best choice for that goal (a
        `Goal`, or its text: `"success"`, `"degree=critical"`, `"mean damage"`), found
        exactly: the odds under optimal play (`Odds.decisions`: how often each option is
        taken)."""
        if not isinstance(sheet, Sheet):  # (an odds question is dear: one check costs nothing)
            raise TypeError(not_a_sheet(sheet))
        if best is None:
            return action_odds(self, action, sheet, params or {}, field, choices=choices, **options)
        goal = best if isinstance(best, Goal) else Goal.parse(best)
        for sampling_only in ("trials", "seed"):  # the best play is exact, or refused
            options.pop(sampling_only, None)  # (past its budget or its time): never sampled
        epsilon, budget = options.pop("epsilon", EPSILON), options.pop("budget", BUDGET)
        return best_odds(
            self,
            action,
            sheet,
            params or {},
            field,
            goal,
            answers=dict(choices or {}),
            epsilon=epsilon,
            budget=budget,
            **options,
        )

    def sweep(
        self,
        action: str,
        characters: Sheet | Sequence[Any],
        *,
        compare: Sequence[Rulebook] = (),
        **options: Any,
    ) -> list[dict[str, Any]]:
        """The odds of `action` over a grid (interpreter.balance.sweep): a list of rows,
        one dict per case (`pandas.DataFrame(rows)` reads it), for `characters` (Sheets,
        or (label, Sheet) pairs), the `params` and sheet values (`vary`) given as lists,
        in this rulebook and each of `compare` (Rulebooks such as house rules)."""
        from interpreter.balance.sweep import engines_of, labelled, sweep

        return sweep(engines_of(self, compare), action, labelled(characters), **options)
