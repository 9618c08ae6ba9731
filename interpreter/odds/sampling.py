"""The Monte Carlo fallback: the real engine run many times, for what is too complex to count."""

from __future__ import annotations

import time
from collections import Counter
from fractions import Fraction

from dsl.messages import tr
from interpreter.dice import SeededDice
from interpreter.errors import LimitExceeded
from interpreter.expression import roll
from interpreter.odds.answer import Odds, field_outcome, pick
from interpreter.odds.bounds import certain_limit
from interpreter.odds.worlds import STOPS, Failure, stopped


def sample_expression(text, trials, seed, limits, progress, deadline) -> tuple:
    """Monte Carlo over the real roller, for expressions too complex to count exactly:
    (counts, trials done), stopping at the deadline."""
    dice = SeededDice(seed)
    counts: Counter = Counter()
    started = time.monotonic()
    done = 0
    for trial in range(trials):
        if deadline.passed():
            break
        try:
            counts[roll(text, dice, limits).total] += 1
        except STOPS as error:  # the dice went past a limit: an outcome too
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
    dice = SeededDice(seed)
    counts: Counter = Counter()
    started = time.monotonic()
    book = engine.rulebook
    is_check, is_opposed = action in book.checks, action in book.opposed
    done = 0
    for trial in range(trials):
        if deadline.passed():
            break
        try:
            if action in book.rolls:
                outcome = engine.run_roll(action, sheet, params, dice).result
            elif is_check:
                outcome = pick(engine.run_check(action, sheet, params, dice).result, field)
            elif is_opposed:
                outcome = pick(engine.run(action, sheet, params, dice=dice).result, field)
            else:
                out = engine.run(action, sheet, params, dice=dice, choices=choices)
                outcome = field_outcome(
                    out.result, out.sheet, field, engine.compiler.action(action)
                )
        except STOPS as error:  # as the exact phase counts them: an outcome of its own
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
                "not one trial finished within the time limit of {seconds} s (limit odds_seconds)",
                seconds=deadline.seconds,
            ),
            None,
            tr("give it more time with --timeout SECONDS"),
        )
    why = reason.args[0] if reason.args else tr("the exact computation is too large")
    if done < wanted:
        note = tr(
            "sampled: {why}; stopped at the time limit ({seconds} s) after {done} trials",
            why=why,
            seconds=deadline.seconds,
            done=done,
        )
    else:
        note = tr("sampled: {why}", why=why)
    probabilities = {o: Fraction(c, done) for o, c in counts.items()}
    certain_limit(probabilities)
    return Odds(subject, field, probabilities, False, Fraction(0), done, orders, note)


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
