"""The Monte Carlo fallback: the real engine run many times, for what is too complex to count."""

from __future__ import annotations

import time
from collections import Counter

from interpreter.dice import SeededDice
from interpreter.errors import InsufficientResource, RequirementFailed
from interpreter.expression import roll
from interpreter.odds.answer import field_outcome, pick
from interpreter.odds.worlds import Failure


def sample_expression(text, trials, seed, limits, progress) -> Counter:
    """Monte Carlo over the real roller, for expressions too complex to count exactly."""
    dice = SeededDice(seed)
    counts: Counter = Counter()
    started = time.monotonic()
    for trial in range(trials):
        counts[roll(text, dice, limits).total] += 1
        if progress is not None and trial % 1024 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts


def sample_action(engine, action, sheet, params, field, trials, seed, progress) -> Counter:
    dice = SeededDice(seed)
    counts: Counter = Counter()
    started = time.monotonic()
    book = engine.rulebook
    is_check = action in book.checks
    for trial in range(trials):
        try:
            if action in book.rolls:
                outcome = engine.run_roll(action, sheet, params, dice).result
            elif is_check:
                outcome = pick(engine.run_check(action, sheet, params, dice).result, field)
            else:
                out = engine.run(action, sheet, params, dice=dice)
                outcome = field_outcome(
                    out.result, out.sheet, field, engine.compiler.action(action)
                )
        except (RequirementFailed, InsufficientResource) as error:
            outcome = Failure(error.message)
        counts[outcome] += 1
        if progress is not None and trial % 256 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts
