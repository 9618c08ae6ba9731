"""An encounter's description (a YAML file, or the same plain data): sides, actions, order.

    rulebook: ../dnd5e.rules        # a path (from this file's folder) or a shipped name
    rounds: 20                      # the encounter stops undecided after this many
    health: Hit Points              # the field a combatant falls by (at or below `falls_at`)
    sides:
      party:
        - sheet: ../characters/fighter.yaml
          action: attack            # the action it takes on its turn
          params: {damage_die: 8}
          target: target            # the action's parameter the rival is given as
          damage: damage            # the result field the rival loses from its health
      monster:
        - sheet: ../characters/ogre.yaml
          ...

Everything an untrusted file could make large is bounded by a named limit below.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import attrs

from dsl.messages import tr
from interpreter.errors import ParameterError
from interpreter.expression import compile_expression
from interpreter.sheets.character import Sheet, shipped_characters_folder

#: rounds an encounter may last before it stops undecided
MAX_ROUNDS = 1000
#: combatants on both sides together
MAX_COMBATANTS = 12
#: parameters one combatant's action may be given
MAX_PARAMS = 32
#: characters of a rolled initiative's dice expression
MAX_INITIATIVE_TEXT = 200

_TOP = {"rulebook", "rounds", "health", "falls_at", "sides"}
_COMBATANT = {
    "name",
    "sheet",
    "action",
    "params",
    "target",
    "damage",
    "health",
    "falls_at",
    "initiative",
}


@attrs.frozen
class Combatant:
    """One character of a side: its sheet, the action it takes, and what it falls by."""

    name: str
    side: str
    sheet: Sheet
    action: str
    params: tuple  # of (name, value): plain values, never a character
    target: str | None  # the action's parameter the rival is given as
    damage: str | None  # the result field the rival loses from its health (None: none)
    health: str  # its field that falls
    falls_at: int  # it is down when its health is at or below this
    initiative: int | str  # higher acts first, ties in the file's order; a dice
    # expression's text is rolled once when the encounter starts
    listed: int = 0  # its place in the file (a rival strikes the first listed standing)

    def start(self) -> int:
        """Its health when the encounter starts."""
        value = self.sheet.get(self.health)
        if type(value) is not int:
            raise ParameterError(
                tr(
                    "{name}: its health {field} is not a whole number on its sheet",
                    name=self.name,
                    field=repr(self.health),
                )
            )
        if value <= self.falls_at:
            raise ParameterError(
                tr(
                    "{name} starts down: its {field} is {value}, at or below {line}",
                    name=self.name,
                    field=self.health,
                    value=value,
                    line=self.falls_at,
                )
            )
        return value


@attrs.frozen
class Encounter:
    """Two sides of combatants, the turn order, and the most rounds it may last."""

    sides: tuple  # the two sides' names, in the file's order
    combatants: tuple  # of Combatant, in the file's order (a state's order too)
    rounds: int
    order: tuple = ()  # the combatants' indexes in turn order, by fixed initiatives

    @property
    def rolled(self) -> bool:
        """Whether some initiative is rolled (the order is then each encounter's own)."""
        return any(type(c.initiative) is str for c in self.combatants)

    def order_of(self, rolls: dict) -> tuple:
        """The turn order given each rolled initiative's value ({index: value})."""
        people = self.combatants
        for i, value in rolls.items():
            if type(value) not in (int, Fraction):
                raise ParameterError(
                    tr(
                        "{name}: initiative {text} gave {value}; a number was expected",
                        name=people[i].name,
                        text=people[i].initiative,
                        value=repr(value),
                    )
                )

        def key(i):
            return -(rolls[i] if type(people[i].initiative) is str else people[i].initiative), i

        return tuple(sorted(range(len(people)), key=key))

    def of_side(self, side: str) -> tuple:
        """The indexes of a side's combatants, in the file's order (whom a rival targets
        first)."""
        found = [i for i, c in enumerate(self.combatants) if c.side == side]
        return tuple(sorted(found, key=lambda i: self.combatants[i].listed))

    def rival_of(self, side: str) -> str:
        return self.sides[1] if side == self.sides[0] else self.sides[0]


def rulebook_reference(data, folder: Path | None) -> str:
    """The rulebook an encounter's data names: a path from its folder, or a shipped name."""
    if not isinstance(data, dict) or not isinstance(data.get("rulebook"), str):
        raise ParameterError(tr("an encounter names its rulebook (rulebook: NAME or path)"))
    reference = data["rulebook"]
    if folder is not None and (folder / reference).is_file():
        return str(folder / reference)
    return reference


def encounter_from_data(data, engine, folder: Path | None = None) -> Encounter:
    """An encounter from plain data (a YAML file's); sheets are paths from `folder`,
    shipped characters' names, or Sheets already loaded."""
    if not isinstance(data, dict):
        raise ParameterError(tr("an encounter is a mapping of rulebook, rounds, health, sides"))
    _known_keys(data, _TOP, tr("the encounter"))
    rounds = _whole(data.get("rounds", 20), "rounds", 1, MAX_ROUNDS)
    health = data.get("health")
    falls_at = _whole(data.get("falls_at", 0), "falls_at", -(10**9), 10**9)
    sides = data.get("sides")
    if not isinstance(sides, dict) or len(sides) != 2:
        raise ParameterError(tr("an encounter has exactly two sides (sides: A: [...], B: [...])"))
    combatants: list[Combatant] = []
    for side, members in sides.items():
        if not isinstance(members, list) or not members:
            raise ParameterError(tr("side {side}: a list of combatants", side=repr(side)))
        for member in members:
            if len(combatants) >= MAX_COMBATANTS:
                raise ParameterError(
                    tr("more than {count} combatants", count=MAX_COMBATANTS),
                )
            found = _combatant(member, str(side), health, falls_at, engine, folder)
            combatants.append(attrs.evolve(found, listed=len(combatants)))
    names = [c.name for c in combatants]
    for name in names:
        if names.count(name) > 1:
            raise ParameterError(tr("two combatants are named {name}", name=repr(name)))
    encounter = Encounter(tuple(str(s) for s in sides), tuple(combatants), rounds)
    return attrs.evolve(encounter, order=encounter.order_of({}) if not encounter.rolled else ())


def _combatant(data, side: str, health, falls_at: int, engine, folder) -> Combatant:
    if not isinstance(data, dict):
        raise ParameterError(tr("side {side}: each combatant is a mapping", side=repr(side)))
    _known_keys(data, _COMBATANT, tr("a combatant of {side}", side=repr(side)))
    sheet = _sheet(data.get("sheet"), engine, folder)
    name = data.get("name") or (Path(sheet.path).stem if sheet.path else None)
    if not isinstance(name, str):
        raise ParameterError(tr("side {side}: a combatant needs a name", side=repr(side)))
    action = data.get("action")
    if not isinstance(action, str) or action not in engine.rulebook.actions:
        raise ParameterError(
            tr("{name}: action: not an action of the rulebook", name=name),
            None,
            tr("actions: {names}", names=", ".join(engine.rulebook.actions)),
        )
    params = data.get("params") or {}
    scalar = (str, int, bool)
    if (
        not isinstance(params, dict)
        or len(params) > MAX_PARAMS
        or not all(isinstance(v, scalar) for v in params.values())
    ):
        raise ParameterError(tr("{name}: params: a mapping of plain values", name=name))
    texts = {"target": data.get("target"), "damage": data.get("damage")}
    texts["health"] = data.get("health", health)
    for key, value in texts.items():
        if value is not None and not isinstance(value, str):
            raise ParameterError(tr("{name}: {key}: a name", name=name, key=key))
    health_name = texts["health"]
    if health_name is None:
        raise ParameterError(tr("{name}: {key}: a name", name=name, key="health"))
    return Combatant(
        name,
        side,
        sheet,
        action,
        tuple((str(k), v) for k, v in params.items()),
        texts["target"],
        texts["damage"],
        health_name,
        _whole(data.get("falls_at", falls_at), "falls_at", -(10**9), 10**9),
        _initiative(data.get("initiative", 0)),
    )


def _initiative(value) -> int | str:
    """A fixed initiative (a whole number) or a dice expression's text, rolled."""
    if isinstance(value, str) and 0 < len(value) <= MAX_INITIATIVE_TEXT:
        compile_expression(value)  # (a text that is no dice expression: refused here)
        return value
    return _whole(value, "initiative", -(10**6), 10**6)


def _sheet(reference, engine, folder) -> Sheet:
    if isinstance(reference, Sheet):
        return reference
    if not isinstance(reference, str):
        raise ParameterError(tr("a combatant's sheet: a file or a shipped character's name"))
    for candidate in (
        (folder or Path.cwd()) / reference,
        shipped_characters_folder() / f"{reference}.yaml",
    ):
        if candidate.is_file():
            return engine.load_sheet(candidate)
    raise ParameterError(
        tr("sheet: no file or shipped character named {name}", name=repr(reference))
    )


def _whole(value, key: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ParameterError(
            tr("{key}: a whole number from {low} to {high}", key=key, low=low, high=high)
        )
    return value


def _known_keys(data: dict, known: set, where) -> None:
    for key in data:
        if key not in known:
            raise ParameterError(
                tr("{where}: unknown key {key}", where=where, key=repr(key)),
                None,
                tr("keys: {keys}", keys=", ".join(sorted(known))),
            )
