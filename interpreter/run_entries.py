"""An action's entry: `Engine.run`'s untraced fast path made once for an engine and a runnable.

Once a runnable's generated function is made (`Runnable.fast`), `Engine.run` calls its
entry for a run with nothing around it (no targets, choices nor trace): a function
holding, as its own names, what the fast path reads on every run (the engine's rulebook,
limits, spare contexts, the runnable's span), and one binding of its parameters
(`Binder.prepared`'s), recognised in place: the very same values under the same names
(and, if the binding reads it, the same sheet) give the same arguments without a call.
It calls the function generated for its action under its limits, on a fresh context
(`Runnable.entered`: codegen.entry_body). It does what `fast_run` (`Engine.run`'s own
fast path: a traced run, or no entry) does, in the same order: the same results, dice,
steps, limits, errors and replays (tests/test_run_entries.py).
"""

from __future__ import annotations

from collections.abc import Callable
from sys import getrefcount
from typing import Any

from dsl.messages import tr
from interpreter.compile.actions import CompiledAction, too_deep
from interpreter.compile.codegen import safely
from interpreter.compile.codegen.entry_body import generated_entry_body
from interpreter.dice import SeededDice
from interpreter.errors import EvaluationError, SheetError
from interpreter.outcome import Change, Outcome
from interpreter.parameters import UNCHANGING
from interpreter.runtime import Run
from interpreter.state import State


class Switch:
    """Whether `Engine.run` makes and calls an entry for each runnable (else its own
    fast path, the binding recognised by `Binder.prepared`); read when an entry would be
    made: an engine that made its entries keeps them."""

    on = True
    #: an action's entry calls its function generated for its limits, on a fresh context
    #: (codegen.entry_body), else the action's own generated function (`Runnable.fast`)
    fresh = True


SWITCH = Switch()

#: the name and value an empty `params` is read as (a binding of no names recognised as
#: one of one name): no caller can give this object
_NONE = object()
_EMPTY = {_NONE: _NONE}
#: contexts an engine keeps for the next runs, at most (one for each thread running at once)
SPARES = 4
#: references to a finished run's context where nothing else holds it: the run's local
#: name, its roller (itself), `getrefcount`'s own argument (the same for its state: the
#: local, the context's `state`, the argument)
ALONE = 3
#: bindings recognised in place: of at most this many names (more: `Binder.prepared`)
NAMES = 3


def entry_of(engine: Any, runnable: Any) -> Callable[..., Any]:
    """The entry of `runnable` for `engine`: `(sheet, params, dice) → Outcome`."""
    span, binder = runnable.span, runnable.binder
    if runnable.entered is None:  # (once for the engines sharing the runnable: its limits)
        runnable.entered = entered(runnable, engine.limits)
    rulebook, limits, spares = engine.rulebook, engine.limits, engine._spares
    open_default, characters = engine._open_default, runnable.characters
    by_sheet = bool(binder.needs_sheet or binder.open_skills)
    #: the binding recognised: (how many names, three names, their three values, the sheet
    #: or None, (args, shown, warnings)), one tuple read once a run (a thread binding
    #: anew replaces it whole)
    last: tuple = (-1, *(None,) * 8)

    def bind(sheet: Any, params: Any) -> tuple:
        """The binding of `params`, the one recognised next if it can be (`binding`)."""
        nonlocal last
        got, made = binding(binder, sheet, params, last[0] < 0, by_sheet)
        if made is not None:
            last = made
        return got

    def entry(sheet: Any, params: Any, dice: Any) -> Any:
        if sheet.rulebook is not rulebook:
            raise SheetError(tr("this sheet was loaded for another rulebook"), path=sheet.path)
        size, a, b, c, x, y, z, keyed, bound = last
        if not params:
            params = _EMPTY
        try:  # (`again`'s `same`, in place)
            same = (
                len(params) == size
                and params[a] is x
                and params[b] is y
                and params[c] is z
                and (keyed is None or keyed is sheet)
            )
        except KeyError:  # a name given that was not given before
            same = False
        args, shown, warnings = bound if same else bind(sheet, params)
        # From here on, `Engine.run`'s fast path with no trace, written the same.
        source = dice if dice is not None else SeededDice()
        try:
            ctx = spares.pop() if spares else None
        except IndexError:  # (another thread took it first)
            ctx = None
        if ctx is None:
            state = State(sheet._values, open_default)
            ctx = Run(source, limits, state, None)
            room = ctx.deadline is None and len(spares) < SPARES
        else:
            state = ctx.state
            if state is None:
                state = ctx.state = State(sheet._values, open_default)
            else:
                state.values = sheet._values
            ctx.source, ctx.drawn, ctx.steps = source, [], 0
            room = True
        try:
            result = runnable.entered(ctx, args, span)  # (its context fresh: `entered`)
            if state.own or state.cast is not None:
                new_sheet, written = engine.commit(ctx, sheet)
                changes: tuple[Change, ...] = tuple(written)
                clean = False
            else:
                new_sheet, changes, clean = sheet, (), True
            if characters:
                others = engine.others_of(ctx, args)
                clean = clean and state.cast is None
            else:
                others = ()
            if type(source) is not SeededDice:
                source.finish()
        except EvaluationError as error:
            engine._failed(error, ctx, runnable, sheet, args, shown, source, None)
            raise
        made = tuple(ctx.choices) if ctx.choices else ()
        if state.cast is not None:
            state.cast.clear()
        outcome = Outcome()
        outcome._replay = (engine, runnable, sheet, args, ctx.drawn, shown, source.origin, made)
        outcome.result, outcome.sheet, outcome.changes = result, new_sheet, changes
        outcome.warnings, outcome.characters = warnings, others
        outcome.steps = ctx.steps
        if room and getrefcount(ctx) <= ALONE:
            if made:
                ctx.choices = []
            if ctx.env:
                ctx.env = {}
            ctx.source = None
            if clean and getrefcount(state) <= ALONE:
                state.values = None  # type: ignore[assignment]
                state.summary = ()
            else:
                ctx.state = None
            spares.append(ctx)
        else:
            ctx.roller = None
        return outcome

    return entry


def binding(binder: Any, sheet: Any, params: Any, first: bool, by_sheet: bool) -> tuple:
    """(args, shown, warnings) of `params` (an entry's `_EMPTY`: none), as
    `Binder.prepared` binds them (its first: by it, its own last binding of the runs
    before the entry recognised), and the entry's binding of them or None (`recognised`)."""
    given = {} if params is _EMPTY else params
    if first:
        got: tuple = binder.prepared(sheet, given)
    else:  # (`Binder.prepared`, written out: what it would remember, the entry does)
        args, shown = binder(sheet, given)
        got = (args, shown, binder.warnings(sheet, given) if binder.open_skills else ())
    return got, recognised(params, sheet if by_sheet else None, got)


def recognised(params: Any, keyed: Any, got: tuple) -> tuple | None:
    """An entry's binding (`entry_of`'s `last`) of `params` bound as `got` (`keyed`: the
    sheet, if the binding reads it), or None: more than NAMES names, or a value that may
    change."""
    names, values = tuple(params), tuple(params.values())
    if len(names) > NAMES:
        return None
    if params is not _EMPTY and not all(map(UNCHANGING.__contains__, map(type, values))):
        return None
    again = (*names, *names, *names)[:3]  # (fewer than three: a name read again)
    those = (*values, *values, *values)[:3]
    return (len(names), *again, *those, keyed, got)


def entered(runnable: Any, limits: Any) -> Callable[..., Any]:
    """The function an entry calls: an action's generated for its limits, on a fresh
    context (`SWITCH.fresh`), else its own generated function."""
    compiled = runnable.compiled
    if SWITCH.fresh and isinstance(compiled, CompiledAction):
        made = safely(generated_entry_body, compiled.compiler, compiled, too_deep, limits)
        if made is not None:
            function: Callable[..., Any] = made[0]
            return function
    fast: Callable[..., Any] = runnable.fast
    return fast


def fast_run(
    engine: Any,
    runnable: Any,
    fast: Callable[..., Any],
    sheet: Any,
    params: Any,
    dice: Any,
    trace: bool,
    reuse: bool,
) -> Outcome:
    """`Engine.run` with nothing around it but a recorded trace, once its generated
    function is made (or with no entry: `SWITCH.on`): nothing made that the run does not
    need; `reuse`: `engine.REUSE_RUNS`."""
    if sheet.rulebook is not engine.rulebook:
        raise SheetError(tr("this sheet was loaded for another rulebook"), path=sheet.path)
    args, shown, warnings = runnable.binder.prepared(sheet, params or {})
    source = dice if dice is not None else SeededDice()
    steps = engine._heading(runnable, shown) if trace else None
    spares = engine._spares
    try:  # a context an earlier run left, as a new one (`reuse`)
        ctx = spares.pop() if spares else None
    except IndexError:  # (another thread took it first)
        ctx = None
    if ctx is None:
        state = State(sheet._values, engine._open_default)
        ctx = Run(source, engine.limits, state, steps)  # (its own roller)
        # (kept when it is over: no clock, and room for it among the spares)
        room = reuse and ctx.deadline is None and len(spares) < SPARES
    else:
        state = ctx.state  # (None: made just below)
        if state is None:  # (the last run wrote: a new working sheet)
            state = ctx.state = State(sheet._values, engine._open_default)
        else:  # (no other name for it: nothing but the run holds it when it is over)
            state.values = sheet._values
        ctx.source, ctx.drawn, ctx.steps, ctx.trace = source, [], 0, steps
        room = reuse  # (no clock: its own place among the spares)
    try:
        result = fast(ctx, args, runnable.span)  # (`compiled`'s own first test)
        if state.own or state.cast is not None:
            new_sheet, written = engine.commit(ctx, sheet)
            changes: tuple[Change, ...] = tuple(written)
            clean = False  # (its working sheet is not the next run's)
        else:  # nothing was written: the same sheet, nothing to check again
            new_sheet, changes, clean = sheet, (), True
        if runnable.characters:
            others = engine.others_of(ctx, args)
            clean = clean and state.cast is None
        else:
            others = ()
        if type(source) is not SeededDice:  # (whose `finish` has nothing to do)
            source.finish()
    except EvaluationError as error:
        engine._failed(error, ctx, runnable, sheet, args, shown, source, steps)
        raise
    made = tuple(ctx.choices) if ctx.choices else ()
    if state.cast is not None:
        state.cast.clear()
    outcome = Outcome()  # (`Outcome.made`, written out)
    # (the run's own list of faces, which nothing draws into any more: the
    # Outcome gives it as a tuple when read)
    outcome._replay = (engine, runnable, sheet, args, ctx.drawn, shown, source.origin, made)
    outcome.result, outcome.sheet, outcome.changes = result, new_sheet, changes
    outcome.warnings, outcome.characters = warnings, others
    outcome.steps = ctx.steps  # (its `_params` and `_trace` left unset: none yet)
    if steps is not None:
        outcome._trace = steps.close()
        ctx.trace = None  # (the next run's given, if it records one)
    # The run is over. Its context is kept for the next run if nothing else holds
    # it (nor its working sheet, unless written: the next run makes its own) and
    # it has no clock; else no cycle is left for the garbage collector (its
    # roller is itself), so that all it made is freed at once.
    if room and getrefcount(ctx) <= ALONE:
        if made:
            ctx.choices = []
        if ctx.env:
            ctx.env = {}
        ctx.source = None  # (given on its next run)
        if clean and getrefcount(state) <= ALONE:
            state.values = None  # type: ignore[assignment]  # (given on its next run)
            state.summary = ()
        else:
            ctx.state = None
        spares.append(ctx)
    else:
        ctx.roller = None  # (nothing rolls any more)
    return outcome
