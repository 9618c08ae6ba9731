"""The odds engine's own bounds: the exact phase's safety stop, sampling's deadline, memory.

A real roll is bounded by `Limits` (dice, faces, steps); the odds engine honours the
same limits before any work (`interpreter.dice.check_term`) and adds its own, because
counting can cost far more than rolling. Whether an answer is exact is decided by
counted work only, so that the same question gets the same form of answer on any
machine under any load: the `budget` (units of work: runs, steps, outcomes combined,
interpreter.odds.roller), `odds_outcomes` for the outcomes one distribution may hold,
`odds_bytes` for the big integers of one convolution. Past one, the exact phase gives up
(`TooComplex`) and the engine samples the real roller instead, until the deadline:
`odds_seconds` (seconds of computing) bounds sampling, and only sampling. The exact
phase is watched by a clock only as a last resort against work the budget would count
too cheaply (`SafetyStop`): at SAFETY_SECONDS_PER_UNIT per unit of its budget, far past
what any counted work takes, or at the time limit when that is later; an answer it cuts
short says so.
"""

from __future__ import annotations

import time

from dsl.messages import tr
from interpreter.errors import (
    ParameterError,
)
from interpreter.odds.polynomials import TooComplex

#: clock(): seconds of computing by this thread: a loaded machine (or a busy server's
#: other requests) does not cut an answer short, and no answer takes more than its time
clock = time.thread_time
#: wall(): seconds of the wall clock, which a thread's computing cannot outrun. `clock`
#: and `wall` are the odds engine's only clocks: tests replace both with a counted one.
#: (Each the time module's own function, not a function calling it: `wall` is read at
#: every unit of work, a call in Python more each time.)
wall = time.perf_counter


class Deadline:
    """The moment an odds computation (or one phase of it) must stop, in `clock` time.

    A thread computes no faster than the wall clock runs: until the wall clock reaches
    `wall`, the thread's own clock (a system call of some microseconds, which a small
    answer would otherwise read several times) cannot have reached `at`."""

    __slots__ = ("at", "safety", "seconds", "started", "wall", "wall_started")

    def __init__(
        self,
        seconds: float,
        at: float | None = None,
        now: float | None = None,
        safety=False,
        wall_now: float | None = None,
    ):
        self.seconds = seconds
        self.safety = safety  # the exact phase's last resort (SafetyStop), not sampling's
        self.started = now = clock() if now is None else now
        self.wall_started = wall() if wall_now is None else wall_now
        self.at = now + seconds if at is None else at
        self.wall = self.wall_started + (self.at - now)

    @classmethod
    def answering(cls, seconds: float) -> Deadline:
        """The deadline of an answer of `seconds`: its computing stops ANSWER_SHARE of them
        early, kept for making the answer up (its table, its text or JSON)."""
        now = clock()
        return cls(seconds, now + seconds * (1 - ANSWER_SHARE), now)

    def exact_stop(self, budget: int) -> Deadline:
        """The exact phase's safety stop for a budget of `budget` units: a deadline
        SAFETY_SECONDS_PER_UNIT per unit from this one's start (or this one's seconds, when longer),
        past which it raises SafetyStop. The load of the machine, or a short time limit,
        does not decide whether an answer is exact: its counted work does."""
        seconds = max(self.seconds, budget * SAFETY_SECONDS_PER_UNIT)
        # (from this one's start: made just after it, and the clocks read once, not again)
        return Deadline(seconds, now=self.started, safety=True, wall_now=self.wall_started)

    def for_sampling(self) -> Deadline:
        """The deadline sampling keeps to: this one, or SAMPLING_SHARE of its seconds
        from now when less is left (an exact phase that gave up late, its budget spent
        after the time limit: sampling still has some time, and says how much it took)."""
        if self.left() >= self.seconds * SAMPLING_SHARE:
            return self
        now = clock()
        return Deadline(self.seconds, now + self.seconds * SAMPLING_SHARE, now)

    def passed(self) -> bool:
        if wall() < self.wall:
            return False
        now = clock()
        if now < self.at:
            self.wall = wall() + (self.at - now)
            return False
        return True

    @property
    def shown(self) -> float:
        """The seconds as a message says them: three digits (0.205, not 0.20505652)."""
        return float(f"{self.seconds:.3g}")

    def left(self) -> float:
        """Seconds of computing left (0 once passed)."""
        return max(0.0, self.at - clock())

    def check(self) -> None:
        """TooComplex once the deadline has passed (the exact phase gives up there)."""
        if wall() < self.wall:  # (`passed` written out: read at every unit of work)
            return
        now = clock()
        if now < self.at:
            self.wall = wall() + (self.at - now)
            return
        raise self.too_long()

    def too_long(self) -> TooComplex:
        if self.safety:
            return SafetyStop(
                tr(
                    "the exact computation reached its safety stop after {seconds} seconds of "
                    "computing, before its budget of work ran out: on another machine, "
                    "or under another load, this answer may come out exact",
                    seconds=self.shown,
                )
            )
        return TooComplex(
            tr("the exact computation would take more than {seconds} seconds", seconds=self.shown)
        )


def watch(ctx, check) -> None:
    """Bound an exact phase's run context as the exact phase is bounded: by counted work,
    and by the clock only through `check` (its safety stop, read every few thousand
    steps). A run's own wall-clock bound (`run_seconds`, a server's) is lifted: read over
    a whole exploration, it would make "the run took longer" an outcome of the odds."""
    ctx.deadline = None
    ctx.on_clock(check)


class SafetyStop(TooComplex):
    """The exact phase stopped by the clock, not by its budget: the one answer whose form
    depends on the machine, and that says so (work the budget counts too cheaply, or a
    slow machine)."""


#: seconds of this thread's computing per unit of budget after which the exact phase
#: stops as a last resort (SafetyStop). Counted work took at most about 52 microseconds a
#: unit (usar_numina with La fortaleza, 97,815 units in 3.8-5.1 s of CPU, on a 2-core
#: machine at load 10): six times that leaves room for a slower machine and a heavier
#: load, and still bounds work the budget might count too cheaply (30 s for the default
#: budget of 100,000 units)
SAFETY_SECONDS_PER_UNIT = 0.0003

#: the share of the time limit sampling has at least, when the exact phase gave up after
#: the time limit
SAMPLING_SHARE = 0.1

#: the share of an answer's time kept for making it up once the computing stops (some
#: tens of milliseconds for the largest tables: outcomes sorted, 200 of them written)
ANSWER_SHARE = 0.05


def check_size(size: int, limits) -> None:
    """TooComplex when a distribution (or one step's combinations) would hold more than
    `odds_outcomes` entries: its memory, bounded before it is built."""
    if size > limits.odds_outcomes:
        raise TooComplex(too_many_outcomes(limits.odds_outcomes))


def too_many_outcomes(limit: int):
    return tr("more than {limit} outcomes in one distribution (limit odds_outcomes)", limit=limit)


def checked(budget: int, trials: int, seconds: float) -> float:
    """The odds options an app or a person gave, refused when they cannot mean anything;
    returns `seconds`."""
    if not isinstance(budget, int) or budget < 1:
        raise ParameterError(tr("budget: {value} is not a whole number above 0", value=budget))
    if not isinstance(trials, int) or trials < 1:
        raise ParameterError(tr("trials: {value} is not a whole number above 0", value=trials))
    if not seconds > 0:
        raise ParameterError(
            tr("time limit: {value} is not a number of seconds above 0", value=seconds)
        )
    return seconds
