"""An encounter sampled: real seeded runs, merged by their counts, the same on 1 worker or N.

Trial `j` rolls all its dice from its own seed (`trial_seed(seed, j)`), whatever task it
falls in: the trials are split into tasks of `TASK_TRIALS` and the tasks' tallies added,
so any number of workers gives the same numbers. Each trial plays the turns exactly as
the chain counts them (interpreter.balance.turns), with `Engine.run` and real dice.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import dsl
from dsl.messages import tr
from interpreter.balance import turns
from interpreter.balance.encounter_file import encounter_from_data
from interpreter.dice import SeededDice
from interpreter.errors import ParameterError

#: trials an encounter may be sampled with
MAX_TRIALS = 10_000_000
#: trials in one task handed to a worker
TASK_TRIALS = 500
#: worker processes a sampled encounter may use
MAX_WORKERS = 64


def trial_seed(seed: int, trial: int) -> int:
    """The seed of one trial: a hash of the run's seed and the trial's number."""
    digest = hashlib.blake2b(f"{seed}/{trial}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def play(engine, encounter, dice) -> tuple:
    """One encounter played with real dice: (winner or None, rounds, final state)."""
    state = turns.start_state(encounter)
    for round_number in range(1, encounter.rounds + 1):
        for index, actor in enumerate(encounter.combatants):
            if not turns.standing(encounter, state, index):
                continue
            target = turns.target_of(encounter, state, index)
            sheet, params = turns.arguments(encounter, state, index, target)
            out = engine.run(actor.action, sheet, params, dice=dice)
            value = _field(out.result, actor)
            state = turns.struck(encounter, state, target, turns.damage_of(actor, value))
            side = turns.winner(encounter, state)
            if side is not None:
                return side, round_number, state
    return None, encounter.rounds, state


def _field(result, actor):
    try:
        return result[actor.damage]
    except (KeyError, TypeError):
        raise ParameterError(
            tr(
                "{name}: {action} gives no result field {field}",
                name=actor.name,
                action=actor.action,
                field=repr(actor.damage),
            )
        ) from None


def play_trials(engine, encounter, seed: int, first: int, count: int) -> Counter:
    """The tally of trials first .. first + count - 1."""
    tally: Counter = Counter()
    for trial in range(first, first + count):
        tally[play(engine, encounter, SeededDice(trial_seed(seed, trial)))] += 1
    return tally


def sample(engine, encounter, trials: int, seed: int, workers: int = 1, source=None) -> Counter:
    """{(winner or None, rounds, final state): count} of `trials` seeded trials. With
    `workers` > 1 and the encounter's `source` (its plain data and folder: what a worker
    reads it again from), the tasks run in that many processes."""
    if type(trials) is not int or not 1 <= trials <= MAX_TRIALS:
        raise ParameterError(tr("trials: from 1 to {count}", count=MAX_TRIALS))
    if type(workers) is not int or not 1 <= workers <= MAX_WORKERS:
        raise ParameterError(tr("workers: from 1 to {count}", count=MAX_WORKERS))
    tasks = [(first, min(TASK_TRIALS, trials - first)) for first in range(0, trials, TASK_TRIALS)]
    tally: Counter = Counter()
    if workers == 1 or source is None or len(tasks) == 1:
        for first, count in tasks:
            tally.update(play_trials(engine, encounter, seed, first, count))
        return tally
    data, folder = source
    jobs = [(type(engine), engine.rulebook.path, data, folder, seed, f, c) for f, c in tasks]
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
        for part in pool.map(run_task, jobs):
            tally.update(part)
    return tally


def run_task(job: tuple) -> Counter:
    """A worker's task: the encounter read again from its data, then its trials played."""
    engine_class, rulebook_path, data, folder, seed, first, count = job
    engine = engine_class.of(dsl.load(rulebook_path))
    encounter = encounter_from_data(data, engine, folder)
    return play_trials(engine, encounter, seed, first, count)
