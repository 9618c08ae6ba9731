"""The odds engine's own bounds: the exact phase's safety stop, sampling's deadline, memory.

A real roll is bounded by `Limits` (dice, faces, steps); the odds engine honours the
same limits before any work (`interpreter.dice.check_term`) and adds its own, because
counting can cost far more than rolling. Whether an answer is exact is decided by
counted work only, so that the same question gets the same form of answer on any
machine under any load: the `budget` (units of work: runs, steps, outcomes combined,
interpreter.odds.roller), `odds_outcomes` for the outcomes one distribution may hold,
`odds_bytes` for the big integers of one convolution. Past one, the exact phase gives up
(`TooComplex`) and the engine samples the real roller instead, until the deadline:
`odds_seconds` (seconds of computing) bounds sampling. The exact phase is watched by a
clock only as a last resort (`SafetyStop`, at SAFETY_SHARE of the time): work the budget
did not count; an answer it cuts short says so.
"""

from __future__ import annotations

import time

from dsl.messages import tr
from interpreter.errors import (
    ParameterError,
)
from interpreter.odds.polynomials import TooComplex


def clock() -> float:
    """Seconds of computing by this thread: a loaded machine (or a busy server's other
    requests) does not cut an answer short, and no answer takes more than its time."""
    return time.thread_time()


def wall() -> float:
    """Seconds of the wall clock, which a thread's computing cannot outrun. `clock` and
    `wall` are the odds engine's only clocks: tests replace both with a counted one."""
    return time.perf_counter()


class Deadline:
    """The moment an odds computation (or one phase of it) must stop, in `clock` time.

    A thread computes no faster than the wall clock runs: until the wall clock reaches
    `wall`, the thread's own clock (a system call of some microseconds, which a small
    answer would otherwise read several times) cannot have reached `at`."""

    __slots__ = ("at", "safety", "seconds", "wall")

    def __init__(
        self, seconds: float, at: float | None = None, now: float | None = None, safety=False
    ):
        self.seconds = seconds
        self.safety = safety  # the exact phase's last resort (SafetyStop), not sampling's
        now = clock() if now is None else now
        self.at = now + seconds if at is None else at
        self.wall = wall() + (self.at - now)

    @classmethod
    def answering(cls, seconds: float) -> Deadline:
        """The deadline of an answer of `seconds`: its computing stops ANSWER_SHARE of them
        early, kept for making the answer up (its table, its text or JSON)."""
        now = clock()
        return cls(seconds, now + seconds * (1 - ANSWER_SHARE), now)

    def safety_stop(self, share: float | None = None) -> Deadline:
        """The exact phase's safety stop: a deadline `share` (SAFETY_SHARE) of the way from
        now to this one, past which it raises SafetyStop. What is left of this one is taken
        as what is left of its wall-clock bound (at most the thread's time left): it is
        asked for as soon as this one is made."""
        share = SAFETY_SHARE if share is None else share
        left = max(0.0, self.wall - wall())
        now = self.at - left
        return Deadline(self.seconds * share, now + left * share, now, safety=True)

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


#: the share of the time limit after which the exact phase stops as a last resort, leaving
#: sampling a tenth of the time when it does. The default budget (100,000 units) took up
#: to 3.8 s of this thread's CPU (mago's absorber_quintaesencia and pentagrama's
#: atacar_zona, on a 2-core machine at load 10), within the 4.5 s of the default limit
#: but not by much: a slower machine, a heavier load (seen once at load 12) or a --timeout
#: below the default may meet this stop first, and the answer says so (the units are not
#: yet of equal cost: issue 24)
SAFETY_SHARE = 0.9


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
