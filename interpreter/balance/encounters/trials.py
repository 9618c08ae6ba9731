"""An encounter sampled: real seeded runs, merged by their counts, the same on 1 worker or N.

Trial `j` rolls all its dice from its own seed (`task_seed(seed, j)`, the balance
package's), whatever task it falls in: the trials are split into tasks of `TASK_TRIALS`
(`map_tasks` hands them to a process pool or a Dask cluster) and the tasks' tallies
added, so any number of workers gives the same numbers. Each trial plays the turns exactly as
the chain counts them (interpreter.balance.encounters.turns), with `Engine.run` and real dice.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import dsl
from dsl.messages import tr
from interpreter.balance.encounters import turns
from interpreter.balance.encounters.description import encounter_from_data
from interpreter.balance.parallel import map_tasks, task_seed
from interpreter.dice import SeededDice
from interpreter.errors import ParameterError
from interpreter.expression import roll

#: trials an encounter may be sampled with
MAX_TRIALS = 10_000_000
#: trials in one task handed to a worker
TASK_TRIALS = 500
#: worker processes a sampled encounter may use
MAX_WORKERS = 64
#: sheets of states kept for the trials of a task (made again past it)
MAX_SHEETS = 10_000


def play(engine, encounter, dice, sheets=None) -> tuple:
    """One encounter played with real dice: (winner or None, rounds, final state).
    `sheets(index, held)` makes a combatant's sheet (a cache shared by trials)."""
    state = turns.start_state(encounter)
    order = encounter.order or encounter.order_of(_initiatives(engine, encounter, dice))
    people = encounter.combatants
    for round_number in range(1, encounter.rounds + 1):
        for index in order:
            if not turns.standing(encounter, state, index):
                continue
            actor = people[index]
            target = turns.target_of(encounter, state, index)
            if target is None:  # no rival stands: the encounter is decided
                return turns.winner(encounter, state), round_number, state
            sheet, params = turns.arguments(encounter, state, index, target, sheets)
            try:
                out = engine.run(actor.action, sheet, params, dice=dice)
            except turns.REFUSED:
                continue  # refused at the table: the turn changes nothing
            damage = (
                0 if actor.damage is None else turns.damage_of(actor, _field(out.result, actor))
            )
            target_held = None
            for other in out.characters:
                if other.role == actor.target and other.changes:
                    target_held = turns.held_of(people[target], other.after)
            actor_held = turns.held_of(actor, out.sheet) if out.changes else None
            state = turns.after_turn(
                encounter, state, index, target, actor_held, target_held, damage
            )
            if turns.ended(encounter, state):
                return turns.winner(encounter, state), round_number, state
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


def _initiatives(engine, encounter, dice) -> dict:
    """Each rolled initiative's value, rolled with the trial's dice, in the file's order."""
    out = {}
    for index, combatant in enumerate(encounter.combatants):
        if type(combatant.initiative) is str:
            out[index] = roll(combatant.initiative, dice, engine.limits).total
    return out


def play_trials(engine, encounter, seed: int, first: int, count: int) -> Counter:
    """The tally of trials first .. first + count - 1."""
    tally: Counter = Counter()
    made: dict = {}

    def sheets(index, held):
        found = made.get((index, held))
        if found is None:
            if len(made) > MAX_SHEETS:
                made.clear()
            found = made[index, held] = turns.sheet_of(encounter.combatants[index], held)
        return found

    for trial in range(first, first + count):
        tally[play(engine, encounter, SeededDice(task_seed(seed, trial)), sheets)] += 1
    return tally


def sample(
    engine, encounter, trials: int, seed: int, workers=1, source=None, scheduler=None, progress=None
) -> Counter:
    """{(winner or None, rounds, final state): count} of `trials` seeded trials. With the
    encounter's `source` (its plain data and folder: what a worker reads it again from),
    the tasks go to `workers` processes (None: one per core), or to the Dask cluster at
    `scheduler`; without it, they run here. `progress(done, total)` counts tasks."""
    if type(trials) is not int or not 1 <= trials <= MAX_TRIALS:
        raise ParameterError(tr("trials: from 1 to {count}", count=MAX_TRIALS))
    if workers is not None and (type(workers) is not int or not 1 <= workers <= MAX_WORKERS):
        raise ParameterError(tr("workers: from 1 to {count}", count=MAX_WORKERS))
    tasks = [(first, min(TASK_TRIALS, trials - first)) for first in range(0, trials, TASK_TRIALS)]
    tally: Counter = Counter()
    if source is None or not Path(engine.rulebook.path).is_file():
        # (Sheets given as objects, or a rulebook given as text: no worker can read them)
        for done, (first, count) in enumerate(tasks, 1):
            tally.update(play_trials(engine, encounter, seed, first, count))
            if progress is not None:
                progress(done, len(tasks))
        return tally
    data, folder = source
    jobs = [(type(engine), engine.rulebook.path, data, folder, seed, f, c) for f, c in tasks]
    for part in map_tasks(
        run_task, jobs, workers=workers, scheduler=scheduler, on_progress=progress
    ):
        tally.update(part)
    return tally


def run_task(job: tuple) -> Counter:
    """A worker's task: the encounter read again from its data, then its trials played."""
    engine_class, rulebook_path, data, folder, seed, first, count = job
    engine = engine_class.of(dsl.load(rulebook_path))
    encounter = encounter_from_data(data, engine, folder)
    return play_trials(engine, encounter, seed, first, count)
