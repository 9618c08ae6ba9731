"""The Monte Carlo fallback: the real engine run many times, for what is too complex to count."""

from __future__ import annotations

import math
import time
from collections import Counter
from fractions import Fraction

import attrs

from dsl.messages import tr
from interpreter.dice import SeededDice
from interpreter.errors import LimitExceeded
from interpreter.expression import roll
from interpreter.odds.answer import Odds, field_outcome, pick
from interpreter.odds.distribution import Dist
from interpreter.odds.worlds import STOPS, Failure, certain_limit, stopped
from interpreter.surface import option


class TimeUp(Exception):
    """The deadline passed in the middle of a trial: it is not counted."""


class TimedDice(SeededDice):
    """The sampler's dice: a look at the deadline every DRAWS_BETWEEN_CLOCKS draws, so that
    one trial of a hundred thousand dice (and their explosions) stops there too."""

    def __init__(self, seed: int, deadline):
        super().__init__(seed)
        self.deadline = deadline
        self.draws = 0

    def draw(self, die, position: int) -> int:
        self.draws += 1
        if not self.draws % DRAWS_BETWEEN_CLOCKS and self.deadline.passed():
            raise TimeUp
        return super().draw(die, position)


#: dice drawn between two looks at the clock (some tenths of a millisecond)
DRAWS_BETWEEN_CLOCKS = 1024
#: how often (a share of the sampling's time) the runs' own time bound is made again
BOUND_REMADE = 0.05


class RunBound:
    """What a trial's run may take: `run_seconds` at most the time left to the deadline
    (a run that passes it stops at its next look at the clock: interpreter.runtime), made
    again each time BOUND_REMADE of the time has passed. A run's seconds are wall-clock
    seconds, never fewer than the computing seconds a deadline counts: a run cut by its
    bound has not passed the deadline by more than that share."""

    def __init__(self, limits, deadline):
        self.limits, self.deadline = limits, deadline
        self.step = deadline.seconds * BOUND_REMADE
        self.bound = None
        self.made = limits
        self.until = -1.0  # the time left below which the bound is made again

    def now(self):
        """The limits of the next trial (its start: `self.started`)."""
        left = self.deadline.left()
        if left < self.until or self.bound is None:
            self.until = left - self.step
            if left < self.limits.run_seconds:
                self.bound = max(left, 1e-3)
                self.made = attrs.evolve(self.limits, run_seconds=self.bound)
            else:
                self.bound, self.made = math.inf, self.limits
        self.started = time.monotonic()
        return self.made

    def cut(self) -> bool:
        """Whether the run just ended may have been stopped by this bound (not its own)."""
        bound = self.bound  # (made by `now`, before any run)
        passed = bound is not None and time.monotonic() - self.started >= bound
        return passed or self.deadline.passed()


def sample_expression(text, trials, seed, limits, progress, deadline) -> tuple:
    """Monte Carlo over the real roller, for expressions too complex to count exactly:
    (counts, trials done), stopping at the deadline (a trial it cuts short is not
    counted)."""
    dice = TimedDice(seed, deadline)
    bound = RunBound(limits, deadline)
    counts: Counter = Counter()
    started = time.monotonic()
    done = 0
    for trial in range(trials):
        if deadline.passed():
            break
        try:
            counts[roll(text, dice, bound.now()).total] += 1
        except TimeUp:
            break
        except STOPS as error:  # the dice went past a limit: an outcome too
            if bound.cut():
                break
            counts[stopped(error)] += 1
        done += 1
        if progress is not None and trial % 1024 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts, done


def sample_action(
    engine, action, sheet, params, field, trials, seed, progress, deadline, choices=None
):
    """The same over real runs of an action (a check, an opposed check, a roll): (counts,
    trials done)."""
    dice = TimedDice(seed, deadline)
    bound = RunBound(engine.limits, deadline)
    engines: dict = {}  # limits → an engine of the same rulebook that runs under them
    counts: Counter = Counter()
    started = time.monotonic()
    book = engine.rulebook
    is_check, is_opposed = action in book.checks, action in book.opposed
    done = 0
    for trial in range(trials):
        if deadline.passed():
            break
        limits = bound.now()
        runner = engine if limits is engine.limits else engines.get(limits)
        if runner is None:
            engines.clear()
            runner = engines[limits] = type(engine)(engine.rulebook, limits)
        try:
            if action in book.rolls:
                outcome = runner.run_roll(action, sheet, params, dice).result
            elif is_check:
                outcome = pick(runner.run_check(action, sheet, params, dice).result, field)
            elif is_opposed:
                outcome = pick(runner.run(action, sheet, params, dice=dice).result, field)
            else:
                out = runner.run(action, sheet, params, dice=dice, choices=choices)
                outcome = field_outcome(
                    out.result, out.sheet, field, engine.compiler.action(action)
                )
        except TimeUp:
            break
        except STOPS as error:  # as the exact phase counts them: an outcome of its own
            if bound.cut():
                break
            outcome = stopped(error)
        counts[outcome] += 1
        done += 1
        if progress is not None and trial % 256 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts, done


def sampled(subject, field, counts, done: int, wanted: int, deadline, reason, orders=()) -> Odds:
    """The answer of a sample: its estimates, and a note saying why it is not exact and
    whether it stopped at the time limit; no trial at all within it is an error."""
    if done == 0:
        raise LimitExceeded(
            tr(
                "not one trial finished within the time limit of {seconds} seconds "
                "(limit odds_seconds)",
                seconds=deadline.shown,
            ),
            None,
            tr("give it more time with {timeout}", timeout=option("timeout")),
        )
    why = reason.args[0] if reason.args else tr("the exact computation is too large")
    if done < wanted:
        note = tr(
            "sampled: {why}; stopped at the time limit ({seconds} seconds) after {done} trials",
            why=why,
            seconds=deadline.shown,
            done=done,
        )
    else:
        note = tr("sampled: {why}", why=why)
    certain_limit(counts)
    found = Dist(dict(counts), done)  # each count over the trials (no Fraction made yet)
    return Odds(subject, field, found, False, Fraction(0), done, orders, note)


def sampled_fields(subject, names, counts, done: int, wanted: int, deadline, reason, orders=()):
    """Each of `names`, its answer from one sample of whole records (`counts`): the trials
    that served one field serve them all (a stop is an outcome of each)."""
    out = {}
    for name in names:
        marginal: Counter = Counter()
        for outcome, count in counts.items():
            marginal[outcome if isinstance(outcome, Failure) else pick(outcome, name)] += count
        out[name] = sampled(subject, name, marginal, done, wanted, deadline, reason, orders)
    return out
