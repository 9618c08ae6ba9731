"""The odds engine's own bounds: a deadline, and the memory one step may take.

A real roll is bounded by `Limits` (dice, faces, steps); the odds engine honours the
same limits before any work (`interpreter.dice.check_term`) and adds its own, because
counting can cost far more than rolling: `odds_seconds` for the whole computation
(seconds of computing: the exact phase gets the first half, sampling the rest),
`odds_outcomes` for the outcomes one distribution may hold, `odds_bytes` for the big
integers of one convolution. Past a bound the exact phase gives up
(`TooComplex`) and the engine samples the real roller instead, until the deadline.
"""

from __future__ import annotations

import time

from dsl.messages import tr
from interpreter.errors import (
    EvaluationError,
    InsufficientResource,
    ParameterError,
    RequirementFailed,
)
from interpreter.odds.polynomials import TooComplex


def clock() -> float:
    """Seconds of computing by this thread: a loaded machine (or a busy server's other
    requests) does not cut an answer short, and no answer takes more than its time."""
    return time.thread_time()


class Deadline:
    """The moment an odds computation (or one phase of it) must stop, in `clock` time.

    A thread computes no faster than the wall clock runs: until the wall clock reaches
    `wall`, the thread's own clock (a system call of some microseconds, which a small
    answer would otherwise read several times) cannot have reached `at`."""

    __slots__ = ("at", "seconds", "wall")

    def __init__(self, seconds: float, at: float | None = None, now: float | None = None):
        self.seconds = seconds
        now = clock() if now is None else now
        self.at = now + seconds if at is None else at
        self.wall = time.perf_counter() + (self.at - now)

    @classmethod
    def answering(cls, seconds: float) -> Deadline:
        """The deadline of an answer of `seconds`: its computing stops ANSWER_SHARE of them
        early, kept for making the answer up (its table, its text or JSON)."""
        now = clock()
        return cls(seconds, now + seconds * (1 - ANSWER_SHARE), now)

    def part(self, share: float) -> Deadline:
        """A deadline `share` of the way from now to this one (the exact phase's). What
        is left of this one is taken as what is left of its wall-clock bound (at most the
        thread's time left): it is asked for as soon as this one is made."""
        left = max(0.0, self.wall - time.perf_counter())
        now = self.at - left
        return Deadline(self.seconds * share, now + left * share, now)

    def passed(self) -> bool:
        if time.perf_counter() < self.wall:
            return False
        now = clock()
        if now < self.at:
            self.wall = time.perf_counter() + (self.at - now)
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
        if self.passed():
            raise self.too_long()

    def afford(self, seconds: float) -> None:
        """TooComplex now when a step of `seconds`, which nothing can interrupt, would end
        past the deadline."""
        if seconds > self.left():
            raise self.too_long()

    def too_long(self) -> TooComplex:
        return TooComplex(
            tr("the exact computation would take more than {seconds} s", seconds=self.shown)
        )


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


def certain_limit(probabilities: dict) -> None:
    """An error every run meets (a die of more faces than faces_per_die, a division by
    zero whatever falls) is not a distribution but the error a real roll gives: raise
    it. (An error some runs meet is an outcome of its own, with its probability; a
    refusal at the table, a `require` or a short resource, is an outcome even when
    certain: Odds.refused.)"""
    if len(probabilities) == 1:
        (outcome,) = probabilities
        error = getattr(outcome, "error", None)
        if isinstance(error, EvaluationError) and not isinstance(error, REFUSED):
            raise error


#: the errors a run stops with that are refusals at the table (Odds.refused)
REFUSED = (RequirementFailed, InsufficientResource)


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
