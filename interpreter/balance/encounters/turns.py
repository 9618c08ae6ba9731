"""One turn of an encounter, the same counted or rolled: who acts, on whom, what is left.

A state is, for every combatant in the file's order, (its health, what else its sheet
holds that differs from the sheet it started with: `delta`, frozen). On its turn a
standing combatant takes its action on its own sheet (as the state has it) against the
first standing rival (its sheet given as the `target` parameter, if named). Everything
the run writes to either sheet is carried to the next turn (a resource spent, a condition
set, a health lost); then the rival loses the action's `damage` result, if one is named,
from its health (never below the line it falls at). A run refused at the table (a failed
`require`, a resource too short to pay) is a turn that changes nothing.
"""

from __future__ import annotations

from dsl.messages import tr
from interpreter.errors import InsufficientResource, ParameterError, RequirementFailed
from interpreter.sheets.character import Sheet

#: the errors that refuse a turn (it changes nothing) rather than stop the encounter
REFUSED = (RequirementFailed, InsufficientResource)
#: a value missing from a sheet
_ABSENT = object()


def standing(encounter, state: tuple, index: int) -> bool:
    return state[index][0] > encounter.combatants[index].falls_at


def target_of(encounter, state: tuple, index: int) -> int | None:
    """The rival a combatant strikes: the first of the other side still standing."""
    rival = encounter.rival_of(encounter.combatants[index].side)
    for other in encounter.of_side(rival):
        if standing(encounter, state, other):
            return other
    return None


def ended(encounter, state: tuple) -> bool:
    """Whether a side has no one standing (an action may fell its own side too)."""
    up = {c.side for i, c in enumerate(encounter.combatants) if standing(encounter, state, i)}
    return len(up) < 2


def winner(encounter, state: tuple) -> str | None:
    """The side left standing once the other has fallen; None while both stand, or when
    both have fallen."""
    up = {c.side for i, c in enumerate(encounter.combatants) if standing(encounter, state, i)}
    return next(iter(up)) if len(up) == 1 else None


def freeze(value):
    """A sheet's value as a hashable, plain one (`thaw` gives it back)."""
    if isinstance(value, dict):
        return ("{}", tuple((k, freeze(v)) for k, v in sorted(value.items())))
    if isinstance(value, list):
        return ("[]", tuple(freeze(v) for v in value))
    if isinstance(value, tuple):
        return ("()", tuple(freeze(v) for v in value))
    return value


def thaw(value):
    if type(value) is tuple and len(value) == 2 and value[0] in ("{}", "[]", "()"):
        kind, items = value
        if kind == "{}":
            return {k: thaw(v) for k, v in items}
        return [thaw(v) for v in items] if kind == "[]" else tuple(thaw(v) for v in items)
    return value


def sheet_of(combatant, held: tuple) -> Sheet:
    """The combatant's sheet as a state holds it: `held` is (health, delta)."""
    health, delta = held
    sheet = combatant.sheet
    if not delta and sheet.get(combatant.health) == health:
        return sheet
    values = dict(sheet.values)
    for name, value in delta:
        values[name] = thaw(value)
    values[combatant.health] = health
    return Sheet(sheet.rulebook, values, sheet.meta, sheet.path, sheet.text_format)


def held_of(combatant, sheet: Sheet) -> tuple:
    """(health, delta) of a combatant's sheet after a run: its health kept at or above
    the line it falls at."""
    start = combatant.sheet.values
    health = sheet.get(combatant.health)
    if type(health) is not int:
        raise ParameterError(
            tr(
                "{name}: its health {field} is not a whole number on its sheet",
                name=combatant.name,
                field=repr(combatant.health),
            )
        )
    delta = tuple(
        (name, freeze(value))
        for name, value in sorted(sheet.values.items())
        if name != combatant.health and start.get(name, _ABSENT) != value
    )
    return max(combatant.falls_at, health), delta


def arguments(encounter, state: tuple, index: int, target: int, sheets=None) -> tuple:
    """(the actor's sheet, the action's parameters) for its turn against `target`;
    `sheets(index, held)` makes a sheet (a cache of sheet_of)."""
    make = sheets or (lambda i, held: sheet_of(encounter.combatants[i], held))
    actor = encounter.combatants[index]
    params = dict(actor.params)
    if actor.target is not None:
        params[actor.target] = make(target, state[target])
    return make(index, state[index]), params


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


def after_turn(encounter, state: tuple, index, target, actor_held, target_held, damage) -> tuple:
    """The state after a turn: the actor's and the rival's sheets as the run left them
    (None: unchanged), then `damage` off the rival's health."""
    held = list(state)
    if actor_held is not None:
        held[index] = actor_held
    if target is not None:
        if target_held is not None:
            held[target] = target_held
        if damage:
            health, delta = held[target]
            line = encounter.combatants[target].falls_at
            held[target] = (max(line, health - damage), delta)
    return tuple(held)


def start_state(encounter) -> tuple:
    return tuple((c.start(), ()) for c in encounter.combatants)


def left_of(encounter, state: tuple) -> dict:
    """Each combatant's health, by name."""
    return {c.name: held[0] for c, held in zip(encounter.combatants, state)}
