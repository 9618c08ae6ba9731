"""A statement's ends, run once for worlds alike, taken by each world and merged as made.

interpreter.odds.alike runs a statement once for the worlds alike in what it reads; each
world of that kind then takes each of the run's ends (its weight times theirs, its steps
after the world's, the values the statement gives, its own of the rest). Those worlds
were made one by one and merged after (Explorer.merge): a World, a dict of names and a
key each, though most of them go into few merged worlds (Arcana Mundi's `if tributo > 0
{ do acumular_tributo(...) }` made 35,858 worlds that merged into 347). Here each one is
keyed as it is made, from its world's part of the key (found once per world) and its
end's (once per end), and only the merged worlds are made: the same worlds, weights,
steps, probability left out and units of work as made one by one, then merged. So too
the worlds a called action makes (interpreter.odds.called: each world making the call
takes each of its ends, `called_merged`).
"""

from __future__ import annotations

from interpreter.odds.keys import ordered
from interpreter.odds.mixing import mixed_by_keys
from interpreter.odds.roller import hashable
from interpreter.odds.weights import Mass, below, times
from interpreter.odds.worlds import World, cuts_of, plus, spread
from interpreter.state import MISSING
from interpreter.values import Record, cut_record

#: worlds made from the outcomes of one run in one unit of work (interpreter.odds.budget;
#: worlds made one by one elsewhere: worlds.WORLDS_PER_WORK)
ALIKE_WORLDS_PER_WORK = 64


class Switch:
    """Whether the ends taken by the worlds alike are merged as they are made (off: every
    world made, then merged); tests switch it off."""

    merged = True


SWITCH = Switch()


def spread_merged(explorer, ends_of: list, given, own_sheet: bool, live) -> list:
    """The merged worlds of the ends of a run taken by every world of
    its kind, merged on what is read after the statement (`live`, as Explorer.merge).
    `ends_of`: (the kind's worlds, their ends, failures, probability left out) for each
    kind, in order; `given`: the names the ends give; the sheet each end's where not
    `own_sheet`. The worlds are made one by one (`spread_worlds`) where the switch is
    off."""
    if not SWITCH.merged:
        out, billed = spread_worlds(explorer, ends_of, given, own_sheet, live)
        _charged(explorer, len(out), billed)
        return explorer.merge(out, live)
    keys = Keys(explorer, _present(ends_of, given, live.needs), given, live)
    names, part, state_key = keys.names, keys.part, keys.state_key
    places = keys.places
    merged: dict = {}
    made = 0
    billed = 0
    prune, lost = explorer.prune, explorer.lost
    for alike, ends, _failed, gone in ends_of:
        # each end's part: the values it gives, its sheet's key (where the world takes it)
        parts = []
        for end in ends:
            env = end.env
            gives = [(i, part(env.get(name, MISSING) if name in given else MISSING, i))
                     for i, name in places]  # fmt: skip
            parts.append((gives, None if own_sheet else state_key(end.state)))
        for world in alike:
            if gone[0]:
                lost.add(times(world.weight, *gone))
            env = world.env
            own = [
                MISSING if name in given else part(env.get(name, MISSING), i)
                for i, name in enumerate(names)
            ]
            own_key = state_key(world.state) if own_sheet else None
            for end, (gives, end_key) in zip(ends, parts):
                weight = times(world.weight, *end.weight)
                if below(weight, prune):
                    lost.add(weight)
                    continue
                values = own
                if gives:
                    values = own.copy()
                    for i, value in gives:
                        values[i] = value
                steps = plus(world.steps, *end.steps)
                if steps[1] > explorer.peak:
                    explorer.peak = steps[1]
                made += 1
                key = (tuple(values), own_key if own_sheet else end_key)
                state = world.state if own_sheet else end.state
                _merge_into(merged, key, names, state, weight, steps)
            billed = _billed(explorer, made, billed)  # (past the budget: stops here)
    _charged(explorer, made, billed)
    if made < 2:  # (one world or none: as made, unmerged, as Explorer.merge leaves it)
        return spread_worlds(explorer, ends_of, given, own_sheet, live, False)[0]
    return _merged_worlds(merged, names, keys)


def _present(ends_of: list, given, needs: dict) -> set:
    """The names the worlds spread_merged makes hold that are read after the statement."""
    present: set = set()
    for alike, ends, _failed, _lost in ends_of:
        for world in alike:
            present.update(k for k in world.env if k in needs and k not in given)
        for end in ends:
            present.update(k for k in end.env if k in given)
    return present


def called_merged(explorer, taken: list, name, live) -> list:
    """The worlds of a call (interpreter.odds.called) taken by every world making it,
    merged on what is read after it (`live`, as Explorer.merge) as they are made:
    `taken`, (the world after its arguments, the call's ends: (sheet, result, weight,
    steps), the steps its ends count on from) for each; `name`, the name the result
    goes to (None: none read). The same worlds, weights, steps and probability left out
    (the ends too unlikely to follow) as made one by one, then merged."""
    needs = live.needs
    present: set = set()
    for after, _ends, _steps in taken:
        present.update(k for k in after.env if k in needs)
    if name is not None:
        present.add(name)
    keys = Keys(explorer, present, () if name is None else (name,), live)
    names, part, state_key = keys.names, keys.part, keys.state_key
    at = next((i for i, _ in keys.places), None)  # (the result's place among the names)
    merged: dict = {}
    made: list = []  # (the first worlds made, while fewer than two: as made, unmerged)
    prune, lost = explorer.prune, explorer.lost
    for after, ends, steps in taken:
        env, weight = after.env, after.weight
        own = [part(env.get(k, MISSING), i) for i, k in enumerate(names)]
        for state, record, w, taken_steps in ends:
            w = times(weight, *w)
            if below(w, prune):  # too unlikely to follow
                lost.add(w)
                continue
            world_steps = plus(steps, *taken_steps)
            if len(made) < 2:
                made.append(World(env if name is None else {**env, name: record}, state, w,
                                  world_steps))  # fmt: skip
            values = own
            if at is not None:
                values = own.copy()
                values[at] = part(record, at)
            _merge_into(merged, (tuple(values), state_key(state)), names, state, w, world_steps)
    if len(made) < 2:  # (one world or none: as made, unmerged, as Explorer.merge leaves it)
        return made
    return _merged_worlds(merged, names, keys)


def _merge_into(merged: dict, key: tuple, names, state, weight, steps) -> None:
    """A world made (its values and sheet's `key`) merged into the one alike, or kept."""
    try:
        found = merged.get(key)
    except TypeError:  # an unhashable value: compared by identity (key_of)
        key = (tuple(hashable(v) for v in key[0]), key[1])
        found = merged.get(key)
    if found is None:
        kept = {k: v for k, v in zip(names, key[0]) if v is not MISSING}
        merged[key] = [World(kept, state, weight, steps), None]
        return
    first = found[0]
    first.steps = spread(first.steps, steps)
    if found[1] is None:
        found[1] = Mass(first.weight)
    found[1].add(weight)


def _merged_worlds(merged: dict, names, keys) -> list:
    """The worlds merged, each with its summed weight, mixed as Explorer.merge mixes."""
    out = []
    for world, mass in merged.values():
        if mass is not None:
            world.weight = mass.weight()
        out.append(world)
    return mixed_by_keys(out, merged, names, keys.cuts, keys.sheet)


class Keys:
    """How a world is keyed as Explorer.merge keys it (key_of): the names `present` in
    some world that are read after the statement (`names`), records cut to the fields
    read (`part`), the sheet's key (`state_key`); `places`: (index, name) of the names
    the ends give."""

    __slots__ = ("cut", "cuts", "names", "places", "sheet")

    def __init__(self, explorer, present: set, given, live) -> None:
        needs = live.needs
        self.names = ordered(name for name in present if name in needs)
        self.cuts, self.sheet = cuts_of(self.names, needs), explorer.kept(live)
        self.cut = dict(self.cuts)
        self.places = [(i, name) for i, name in enumerate(self.names) if name in given]

    def part(self, value, i: int):
        """The value at place i, a record cut to the fields still read (key_of's)."""
        fields = self.cut.get(i)
        if fields is not None and type(value) is Record and len(value) > len(fields):
            return cut_record(value, fields)
        return value

    def state_key(self, state):
        return state.snapshot() if self.sheet is None else self.sheet(state)


def spread_worlds(explorer, ends_of: list, given, own_sheet: bool, live, bill=True) -> tuple:
    """(the worlds of spread_merged made one by one, unmerged; the units of work charged
    for them so far) (`bill`: their work charged and their probability left out counted,
    else only made again)."""
    needs = live.needs
    out: list = []
    billed = 0
    for alike, ends, _failed, gone in ends_of:
        gave = [{k: v for k, v in end.env.items() if k in given} for end in ends]
        for world in alike:
            if gone[0] and bill:
                explorer.lost.add(times(world.weight, *gone))
            kept = {k: v for k, v in world.env.items() if k in needs and k not in given}
            for end, gives in zip(ends, gave):
                weight = times(world.weight, *end.weight)
                if below(weight, explorer.prune):
                    if bill:
                        explorer.lost.add(weight)
                    continue
                env = {**kept, **gives} if gives else kept
                steps = plus(world.steps, *end.steps)
                explorer.peak = max(explorer.peak, steps[1])
                out.append(World(env, world.state if own_sheet else end.state, weight, steps))
            if bill:
                billed = _billed(explorer, len(out), billed)
    return out, billed


def _charged(explorer, made: int, billed: int) -> None:
    """The rest of the `made` worlds' work charged, the budget checked."""
    explorer.roller.work += made // ALIKE_WORLDS_PER_WORK - billed
    explorer.work()


def _billed(explorer, made: int, billed: int) -> int:
    """The `made` worlds so far charged (`billed` units of them already), so that a let
    making millions of worlds stops at the budget, not after making them: in all the
    same units as charged at once after them (the same answers)."""
    charged = made // ALIKE_WORLDS_PER_WORK
    if charged > billed:
        roller = explorer.roller
        roller.work += charged - billed
        if roller.work > roller.budget:
            explorer.work()  # (raises: past the budget)
    return charged
