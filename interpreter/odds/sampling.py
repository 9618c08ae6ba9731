"""The Monte Carlo fallback: the real engine run many times, for what is too complex to count."""

from __future__ import annotations

import time
from collections import Counter
from fractions import Fraction

from interpreter.dice import SeededDice
from interpreter.errors import InsufficientResource, LimitExceeded, RequirementFailed
from interpreter.expression import roll
from interpreter.odds.answer import Odds, field_outcome, pick
from interpreter.odds.explore import Failure


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
        counts[roll(text, dice, limits).total] += 1
        done += 1
        if progress is not None and trial % 1024 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts, done


def sample_action(engine, action, sheet, params, field, trials, seed, progress, deadline):
    """The same over real runs of an action (a check, a roll): (counts, trials done)."""
    dice = SeededDice(seed)
    counts: Counter = Counter()
    started = time.monotonic()
    book = engine.rulebook
    is_check = action in book.checks
    done = 0
    for trial in range(trials):
        if deadline.passed():
            break
        try:
            if action in book.rolls:
                outcome = engine.run_roll(action, sheet, params, dice)
            elif is_check:
                outcome = pick(engine.run_check(action, sheet, params, dice), field)
            else:
                out = engine.run(action, sheet, params, dice=dice)
                outcome = field_outcome(
                    out.result, out.sheet, field, engine.compiler.action(action)
                )
        except (RequirementFailed, InsufficientResource) as error:
            outcome = Failure(error.message)
        counts[outcome] += 1
        done += 1
        if progress is not None and trial % 256 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts, done


def sampled(subject, field, counts, done: int, wanted: int, deadline, reason) -> Odds:
    """The answer of a sample: its estimates, and a note saying why it is not exact and
    whether it stopped at the time limit; no trial at all within it is an error."""
    if done == 0:
        raise LimitExceeded(
            f"not one trial finished within the time limit of {deadline.seconds:g} s "
            "(limit odds_seconds)",
            None,
            "give it more time with --timeout SECONDS",
        )
    note = f"sampled: {reason}" if str(reason) else "sampled"
    if done < wanted:
        note += f"; stopped at the time limit ({deadline.seconds:g} s) after {done} trials"
    probabilities = {o: Fraction(c, done) for o, c in counts.items()}
    return Odds(subject, field, probabilities, False, Fraction(0), done, note)
