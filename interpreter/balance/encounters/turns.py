"""One turn of an encounter, the same counted or rolled: who acts, on whom, what is left.

A state is the tuple of every combatant's health, in turn order. On its turn a standing
combatant takes its action on its own sheet (its health at the state's value) against the
first standing rival; the rival loses the action's `damage` result from its health (never
below the line it falls at). What else the action writes is not carried to the next turn:
health is what the encounter follows.
"""

from __future__ import annotations

from dsl.messages import tr
from interpreter.errors import ParameterError
from interpreter.sheets.character import Sheet


def standing(encounter, state: tuple, index: int) -> bool:
    return state[index] > encounter.combatants[index].falls_at


def target_of(encounter, state: tuple, index: int) -> int | None:
    """The rival a combatant strikes: the first of the other side still standing."""
    rival = encounter.rival_of(encounter.combatants[index].side)
    for other in encounter.of_side(rival):
        if standing(encounter, state, other):
            return other
    return None


def winner(encounter, state: tuple) -> str | None:
    """The side left standing once the other has fallen, else None."""
    up = {c.side for i, c in enumerate(encounter.combatants) if standing(encounter, state, i)}
    # (a turn strikes one rival: both sides never fall together)
    return next(iter(up)) if len(up) == 1 else None


def sheet_at(combatant, health: int) -> Sheet:
    """The combatant's sheet with its health at `health`."""
    sheet = combatant.sheet
    if sheet.get(combatant.health) == health:
        return sheet
    values = dict(sheet.values)
    values[combatant.health] = health
    return Sheet(sheet.rulebook, values, sheet.meta, sheet.path, sheet.text_format)


def arguments(encounter, state: tuple, index: int, target: int) -> tuple:
    """(the actor's sheet, the action's parameters) for its turn against `target`."""
    actor = encounter.combatants[index]
    params = dict(actor.params)
    if actor.target is not None:
        rival = encounter.combatants[target]
        params[actor.target] = sheet_at(rival, state[target])
    return sheet_at(actor, state[index]), params


def damage_of(combatant, value) -> int:
    """The damage a result gave: a whole number, at least 0."""
    if type(value) is bool or type(value) is not int or value < 0:
        raise ParameterError(
            tr(
                "{name}: damage {field} gave {value}; it must be a whole number, at least 0",
                name=combatant.name,
                field=repr(combatant.damage),
                value=repr(value),
            )
        )
    return value


def struck(encounter, state: tuple, target: int, damage: int) -> tuple:
    """The state after `target` loses `damage` from its health."""
    line = encounter.combatants[target].falls_at
    health = max(line, state[target] - damage)
    return (*state[:target], health, *state[target + 1 :])


def start_state(encounter) -> tuple:
    return tuple(c.start() for c in encounter.combatants)


def left_of(encounter, state: tuple) -> dict:
    """Each combatant's health, by name."""
    return {c.name: h for c, h in zip(encounter.combatants, state)}
