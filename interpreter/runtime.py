"""The run side's seam: the context of one run, the roller protocol, unknown values.

Compiled rules (interpreter.compile) are closures of one argument, the `Context` of a
run. Everything they read or write goes through it: the working sheet (`State`, in
interpreter.state), the
local names (`env`), the trace, the limits, and the dice through `ctx.roller`.

Two rollers exist. `Roller` rolls for real, every die from a dice source. The odds
engine (interpreter.odds) brings its own roller, which answers a dice term with its
distribution instead of faces. That is the whole seam between running and counting:
the odds engine runs the very same closures, and the run side never imports it. What
every roller provides is `RollerProtocol`; what a roller that lifts (the odds engine's)
provides besides, `CountingRoller`.

An `Unknown` is a value only the odds roller makes (a distribution over values): what
it offers is `UnknownValue`, and `Unknown` is the class every such value is an instance
of (what `isinstance` asks, at the speed of a class check). The closures never look
inside one: they apply an operation over it with `lift`, or ask the roller to `resolve`
it. In a real run no value is ever unknown.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from dsl.errors import Span
from dsl.messages import Number, tr
from interpreter.dice import AskingDice, Die, PoolRoll, Tray, check_term, roll_pool
from interpreter.errors import DiceError, EvaluationError, LimitExceeded
from interpreter.limits import Limits
from interpreter.pool import Rolled
from interpreter.roll_steps import faces_text
from interpreter.state import State
from interpreter.symbols import roll_symbols
from interpreter.trace import Later, Step, Trace, new_step

# ─── the context ────────────────────────────────────────────────────────────

#: steps counted between two readings of the clock, when an evaluation has a time bound
STEPS_BETWEEN_CLOCKS = 1024


class Context:
    """Everything one evaluation reads and writes.

    It counts the evaluation's steps (its fuel: `steps`, against `limits.steps_per_run`):
    every compiled closure that does work adds what it does, in the same two lines,

        ctx.steps += cost
        if ctx.steps > ctx.step_bound:
            count_past_bound(ctx, span)

    where `cost` is known when the rules are compiled wherever it can be (a block's
    statements, a formula's body: one addition for all of them), and `span` is what the
    error points at. `step_bound` is the limit, or, when a clock must be read (a time
    bound, `run_seconds`; a check of the odds engine's, `on_clock`), the next count at
    which it is read: the common case costs one addition and one comparison.
    """

    __slots__ = (
        "calls",
        "capture",
        "choices",
        "chooser",
        "clock",
        "deadline",
        "depth",
        "env",
        "limits",
        "quiet",
        "roller",
        "state",
        "step_bound",
        "steps",
        "trace",
    )

    def __init__(
        self,
        roller: RollerProtocol,
        limits: Limits,
        state: State | None = None,
        trace: Trace | None = None,
    ):
        self.roller = roller
        self.limits = limits
        self.state = state
        self.trace = trace
        self.env: dict[str, Any] = {}
        self.steps = 0
        self.step_bound = limits.steps_per_run
        self.deadline: float | None = None
        self.clock: Callable[[], object] | None = (
            None  # called every STEPS_BETWEEN_CLOCKS steps (`on_clock`)
        )
        if limits.run_seconds != math.inf:
            self.deadline = time.monotonic() + limits.run_seconds
            self.step_bound = min(limits.steps_per_run, STEPS_BETWEEN_CLOCKS)
        self.depth = 0  # how deep the trace indents
        self.calls = 0  # definitions calling one another now (against call_depth)
        self.capture: list[Any] | None = None  # dice a roll procedure's rule is watching
        self.quiet = 0  # > 0 inside a roll procedure, which traces its dice itself
        self.chooser: Any = None  # who answers a `choose` (interpreter.choosers; None: nobody)
        self.choices: list[Any] | None = []  # the choices made, in order

    def step(
        self,
        kind: str,
        text: str | Later,
        span: Span | None,
        detail: str | Later | None = None,
        verbose: bool = False,
        **data: Any,
    ) -> None:
        """Note a step in the trace (`detail`, `verbose`: see `Step`); only while tracing."""
        trace = self.trace
        if trace is None:
            raise AssertionError("a step noted in a run that is not traced")
        # `Trace.append`, written out: a traced run's commonest call
        most = trace.most
        if most is None or len(trace) < most:
            length = trace.length  # (its parts cut to it when read: `Trace.bounded`)
            step = new_step(Step)
            step._r = (kind, text, None, data, self.depth, None, detail, verbose, span, length)
            list.append(trace, step)
        else:
            trace.omitted += 1

    def count(self, steps: int, span: Span | None) -> None:
        """Count `steps` more (where a closure has no faster way: see the class)."""
        self.steps += steps
        if self.steps > self.step_bound:
            count_past_bound(self, span)

    def recount(self, start: int = 0) -> int:
        """The steps counted since the count started, and a new count from `start`: for a
        caller that runs many evaluations in one context (the odds engine's worlds, each
        taking a run up at the steps it had counted)."""
        steps, self.steps = self.steps, start
        self.step_bound = self.limits.steps_per_run
        if self.deadline is not None or self.clock is not None:
            self.step_bound = min(self.step_bound, start + STEPS_BETWEEN_CLOCKS)
        return steps

    def on_clock(self, check: Callable[[], object]) -> None:
        """Call `check()` every STEPS_BETWEEN_CLOCKS steps from now on: a bound of the
        caller's own (the odds engine's time limit), which it enforces by raising."""
        self.clock = check
        self.step_bound = min(self.step_bound, self.steps + STEPS_BETWEEN_CLOCKS)


def count_past_bound(ctx: Context, span: Span | None) -> None:
    """The step count passed `ctx.step_bound`: past the limit, the error naming it; else
    the time to read the clock (`run_seconds`, and the caller's own: `on_clock`)."""
    limits = ctx.limits
    if ctx.steps > limits.steps_per_run:
        raise LimitExceeded(
            tr(
                "more than {limit} steps of evaluation (limit steps_per_run)",
                limit=limits.steps_per_run,
            ),
            span,
        )
    if ctx.deadline is not None and time.monotonic() > ctx.deadline:
        raise LimitExceeded(
            tr(
                "the run took longer than {seconds} seconds (limit run_seconds)",
                seconds=Number(limits.run_seconds, "g"),
            ),
            span,
        )
    if ctx.clock is not None:
        ctx.clock()
    if ctx.deadline is None and ctx.clock is None:
        ctx.step_bound = limits.steps_per_run
    else:
        ctx.step_bound = min(limits.steps_per_run, ctx.steps + STEPS_BETWEEN_CLOCKS)


# ─── rolling for real ───────────────────────────────────────────────────────


class ChainRoll(Rolled):
    """What a named roll showed: its base roll and each extra, with signs. As a pool
    value, its dice are the dice of all its rolls (in odds mode, `total` may be a
    distribution, and the parts' rolls the distributions of their terms)."""

    __slots__ = ("arithmetic", "concrete", "name", "parts", "total")

    def __init__(
        self,
        name: str,
        parts: list[tuple[int, list[Any], Any]],
        total: Any,
        arithmetic: str | Later | None = None,
        concrete: tuple[Any, Any] | None = None,
    ):
        self.name, self.parts, self.total = name, parts, total
        #: each step with its own arithmetic, `10 + (6−1) + (2−1)` (None: only faces)
        self.arithmetic = arithmetic
        #: counting: (a key, `run(tray)`: the procedure rolled for real through the tray),
        #: to walk every way its dice can fall when it is asked of them in order
        self.concrete = concrete

    @property
    def successes(self) -> Any:
        return self._counted("successes")

    @property
    def failures(self) -> Any:
        return self._counted("failures")

    def _counted(self, which: str) -> Any:
        rolls = [roll for _, rolls, _ in self.parts for roll in rolls]
        if len(self.parts) != 1 or len(rolls) != 1:
            return None
        return getattr(rolls[0], which)

    def all_faces(self) -> list[Any]:
        return [face for _, rolls, _ in self.parts for roll in rolls for face in roll.faces]

    def faces_text(self, length: int | None = None) -> str:
        """Each roll's faces, with signs (each cut to about `length` characters)."""
        out = []
        for i, (sign, rolls, _value) in enumerate(self.parts):
            faces = " ".join(faces_text(r, length) for r in rolls) or "[]"
            out.append(faces if i == 0 else f"{'+' if sign > 0 else '-'} {faces}")
        return " ".join(out)


class Rolling(Tray):
    """Rolls for real: every die from the dice source, through the tray it is (`Roller`,
    or a real run's context, `Run`)."""

    __slots__ = ()
    lifts = False  # never hands out unknown values (the odds engine's roller does)

    def pool(
        self, die: Die, count: int, steps: tuple[Any, ...], span: Span | None, label: str
    ) -> PoolRoll:
        return roll_pool(self, die, count, steps, span, label)

    def symbols(
        self,
        die: Any,
        count: int,
        span: Span | None,
        projection: object = None,  # noqa: ARG002 (the roller protocol: runtime.RollerProtocol)
    ) -> tuple[Any, ...]:
        """A pool of symbol dice: (its record, the faces' names in draw order); the odds'
        `projection` (the sums read of it) is for counting, and a real roll has no use."""
        return roll_symbols(self, die, count, span)

    def face(self, die: Die, span: Span | None) -> int:
        """One plain die's face (the tray's `draw`, without a pool around it)."""
        limits, drawn = self.limits, self.drawn
        if isinstance(self.source, AskingDice):  # a person is told what the die is for
            return self.draw(die, span)
        if die.size > limits.faces_per_die or len(drawn) >= limits.dice_per_evaluation:
            check_term(die, 1, limits, span)  # raises LimitExceeded for a die too large
            return self.draw(die, span)  # raises LimitExceeded for one die too many
        try:  # `draw`, written out: the commonest roll of all
            face = self.source.draw(die, len(drawn) + 1)
        except DiceError as error:
            if error.span is None:
                error.span = span
            raise
        drawn.append(face)
        return face

    def chain(self, procedure: Any, ctx: Context) -> ChainRoll:
        roll: ChainRoll = procedure.roll(ctx)
        return roll

    def resolve(self, value: object) -> Any:  # noqa: ARG002 (the roller protocol: runtime.RollerProtocol)
        raise AssertionError("an unknown value reached a real run")

    answers = settle = resolve  # a real pool answers its questions itself

    def bind(self, ctx: Context, name: str, value: Any, fields: object, once: object = None) -> Any:  # noqa: ARG002 (the roller protocol: runtime.RollerProtocol)
        return self.resolve(value)


class Roller(Rolling):
    """A real roller of its own (beside a context: the trace's replay, a sheet's rules)."""

    __slots__ = ("drawn", "limits", "source", "who", "why")


class Run(Context, Rolling):  # type: ignore[misc]  # (Tray has no slots of its own at run time)
    """A real run's context that is its own roller (`ctx.roller is ctx`): what
    `Engine.run` makes, one object where a context and a roller were two."""

    __slots__ = ("drawn", "source", "who", "why")

    def __init__(self, source: Any, limits: Limits, state: State, trace: Trace | None):
        # Context's and Tray's own, written out (made on every run)
        self.roller = self
        self.limits = limits
        self.state = state
        self.trace = trace
        self.env = {}
        self.steps = 0
        self.step_bound = limits.steps_per_run
        self.deadline = None
        self.clock = None
        if limits.run_seconds != math.inf:
            self.deadline = time.monotonic() + limits.run_seconds
            self.step_bound = min(limits.steps_per_run, STEPS_BETWEEN_CLOCKS)
        self.depth = 0
        self.calls = 0
        self.capture = None
        self.quiet = 0
        self.chooser = None
        self.choices = []
        self.source = source
        self.drawn = []
        self.who = None
        self.why = None


# ─── the roller protocol ────────────────────────────────────────────────────


@runtime_checkable
class RollerProtocol(Protocol):
    """What every roller gives the compiled closures (`ctx.roller`): `Roller` for real
    runs, `interpreter.odds.roller.OddsRoller` for counting."""

    #: True when it may hand out unknown values (the odds roller)
    lifts: bool

    #: one dice term: a PoolRoll (or, counting, its distribution)
    def pool(
        self, die: Die, count: int, steps: tuple[Any, ...], span: Span | None, label: str
    ) -> Any: ...
    #: a pool of symbol dice: (its record, the faces' names in draw order)
    def symbols(
        self, die: Any, count: int, span: Span | None, projection: object = None
    ) -> tuple[Any, ...]: ...
    #: one plain die's face (or its distribution)
    def face(self, die: Die, span: Span | None) -> Any: ...
    #: a roll procedure (`roll x = d10 then {...}`)
    def chain(self, procedure: Any, ctx: Context) -> ChainRoll: ...
    #: a concrete value where the rules need one (the odds engine branches there, running the
    #: statement once per value)
    def resolve(self, value: Any) -> Any: ...
    #: the value a `let` binds, known (the odds engine branches on it, cut down to the `fields` of
    #: it read later; `once`: a check's pool read once, the names its value reads: see
    #: interpreter.odds.roller's)
    def bind(self, ctx: Context, name: str, value: Any, fields: Any, once: Any = None) -> Any: ...


@runtime_checkable
class CountingRoller(RollerProtocol, Protocol):
    """What a roller that lifts (`lifts` True: the odds engine's) gives besides."""

    #: the joint answers of questions about a pool: a distribution of answer tuples
    #: (interpreter.pool)
    def answers(self, roll: Any, questions: tuple[Any, ...]) -> UnknownValue: ...
    #: a pool bound by `let` (of the name `name`, in `ctx`), as the world being explored
    #: has it
    def settle(
        self,
        roll: Any,
        questions: tuple[Any, ...] | None,
        ctx: Context | None = None,
        name: str | None = None,
    ) -> Any: ...
    #: several dice terms kept together (`{4d6+3d8}k4`)
    def group(self, rolls: list[Any], keeps: tuple[Any, ...], label: str) -> ChainRoll: ...
    #: several values kept together (`{1d8x, 1d6x}kh1`); each(*values) is one case
    def kept(self, values: list[Any], keeps: tuple[Any, ...], each: Callable[..., Any]) -> Any: ...
    #: the odds of a check's record at once, or None
    def check_records(
        self, check: Any, ctx: Context, args: tuple[Any, ...], totals: Any
    ) -> Any: ...
    #: the odds of an opposed check's record at once, or None
    def opposed_records(self, opposed: Any, ctx: Context, args: tuple[Any, ...]) -> Any: ...


# ─── values not known yet ───────────────────────────────────────────────────


@runtime_checkable
class UnknownValue(Protocol):
    """What a value not known yet offers (a distribution: interpreter.odds.Dist)."""

    #: the unknown value of function(value)
    def map(self, function: Callable[[Any], Any]) -> UnknownValue: ...
    #: the unknown value of function(*values), where `values` holds self (or, where the
    #: odds engine branches on the values there, the value in each world)
    def lift(self, function: Callable[..., Any], values: tuple[Any, ...]) -> Any: ...
    #: records cut down to some of their fields (what is left to read of them)
    def project(self, fields: tuple[str, ...]) -> UnknownValue: ...
    #: the one value it takes for sure, where it takes one (else itself)
    def certain(self) -> Any: ...
    #: the unknown value of the field `name` of each record, function(record)
    def field(self, name: str, function: Callable[[Any], Any]) -> UnknownValue: ...


class Unknown:
    """A value only the odds engine makes: a distribution over possible values, an
    `UnknownValue` (not a subclass of the Protocol: `isinstance(x, Unknown)`, asked on
    every value a closure meets, stays a plain class check).

    The subclass (interpreter.odds.Dist) says how an operation applies over it."""

    __slots__ = ()

    def map(self, function: Callable[[Any], Any]) -> UnknownValue:
        """The unknown value of function(value)."""
        raise NotImplementedError

    def lift(self, function: Callable[..., Any], values: tuple[Any, ...]) -> Any:
        """The unknown value of function(*values), where `values` holds self."""
        raise NotImplementedError

    def project(self, fields: tuple[str, ...]) -> UnknownValue:
        """Records cut down to some of their fields (what is left to read of them)."""
        raise NotImplementedError

    def certain(self) -> Any:
        """The one value it takes for sure, where it takes one (else itself)."""
        return self

    def field(self, name: str, function: Callable[[Any], Any]) -> UnknownValue:  # noqa: ARG002 (an Unknown value's interface: runtime.UnknownValue)
        """The unknown value of the field `name` of each record, function(record)."""
        return self.map(function)


def lift(function: Callable[..., Any], *values: Any) -> Any:
    """function(*values), where any value may be unknown (when computing odds)."""
    for value in values:
        if isinstance(value, Unknown):
            return value.lift(function, values)
    return function(*values)


def known(ctx: Context, value: Any) -> Any:
    """A value that must be known now: in odds mode, where the engine branches."""
    if isinstance(value, Unknown):
        return ctx.roller.resolve(value)
    return value


def as_bool(ctx: Context, value: Any, span: Span | None) -> bool:
    """A condition's value: yes or no, or an error at the condition."""
    if value is True or value is False:
        return value
    if isinstance(value, Unknown):
        return as_bool(ctx, ctx.roller.resolve(value), span)
    raise EvaluationError(tr("a condition must be yes or no, not {value}", value=value), span)


# What mypy checks of the protocols, at no cost at run time: the real roller is a
# RollerProtocol, and every Unknown an UnknownValue (interpreter.odds declares its
# own roller a CountingRoller, and Dist, an Unknown, in the same way).
_REAL_ROLLER: type[RollerProtocol] = Roller
_UNKNOWN: type[UnknownValue] = Unknown
