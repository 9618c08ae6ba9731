"""Worlds alike but for the one distribution a value still holds, made one: the mixture.

A value not read yet may stay a distribution in a world (a rider inside a check's record,
`b.total`; a `set` read once later): the world stands for as many worlds as the value has
outcomes, each with its weight, and the value is independent of everything else the
world holds. Two worlds that agree on everything still read but hold different
distributions there (the total's distribution given `b.puntos` differs with the bonus
each world added to the roll) are then one world whose value is the mixture of the two,
each weighted by its world's weight: the same worlds, the same weights, summed. A world
holding two such values is left as it is (mixing each on its own would lose how the two
go together).
"""

from __future__ import annotations

from math import gcd
from typing import Any

from interpreter.odds.distribution import Dist
from interpreter.odds.keys import ordered
from interpreter.odds.weights import Mass, least_common
from interpreter.odds.worlds import Live, World, cuts_of, spread
from interpreter.state import MISSING
from interpreter.values import Record, cut_record


class Switch:
    """Whether worlds are mixed (tests switch it off: their distributions then keep them
    apart, as any other value); whether the mixtures of one merge share their outcomes'
    places (off: each mixture finds its own); whether each value is looked into once per
    merge (`seen`, off: once per world holding it); whether a merge whose worlds' keys
    hold no distribution is left as it is without looking into each world (`quick`)."""

    mixed = True
    shared = True
    seen = True  # (each value looked into once per merge: Seen)
    quick = True  # (no distribution in any key: nothing to mix, none looked for: rides)


SWITCH = Switch()

#: a distribution's place in a mixed world's key
RIDING = ("riding",)


def mixed_let(worlds: list, live: Live, sheet: Any, made: Any = None) -> list:
    """`mixed` of the worlds a `let` made (each keyed by every name still read); `made`:
    the worlds.LetWorlds that made them (where neither what else they hold nor a new
    value is a distribution or holds one, none is looked for world by world)."""
    if len(worlds) < 2 or not SWITCH.mixed:
        return worlds
    if made is not None and SWITCH.quick and not _let_rides(made):
        return worlds
    names = names_still_read(worlds, live)
    return mixed(worlds, names, cuts_of(names, live.needs), sheet)


def names_still_read(worlds: list, live: Live) -> tuple:
    """The names some world holds that a later statement still reads (a merge's key)."""
    needs = live.needs
    present: set = set()
    for world in worlds:
        present.update(world.env)
    return ordered(name for name in present if name in needs)


def rides(values) -> bool:
    """Whether one of a world's values (its key's: records cut to the fields read) is a
    distribution or a record holding one, as `mixed` looks for them: where no world's
    is, it has nothing to mix (a value of a key made hashable, odds.roller.hashable, is
    neither, as in `mixed`)."""
    for value in values:
        kind = type(value)
        if kind is Dist:
            return True
        if kind is Record:
            for inner in value.values():
                if type(inner) is Dist:
                    return True
    return False


def mixed_by_keys(worlds: list, keys, names: tuple, cuts: tuple, sheet: Any) -> list:
    """`mixed` of a merge's worlds, their keys (worlds.key_of's) beside them: where no
    key holds a distribution (SWITCH.quick), the worlds as they are, none looked into."""
    if SWITCH.quick and not any(rides(key[0]) for key in keys):
        return worlds
    return mixed(worlds, names, cuts, sheet)


def _let_rides(made) -> bool:
    """rides of each world a worlds.LetWorlds made: what else they hold (a key each of
    the worlds it was run from) and the new values (a dict of them each)."""
    return any(rides(prefix[0]) or rides(found[2]) for prefix, found in made.merged.items())


def mixed(worlds: list, names: tuple, cuts: tuple, sheet: Any) -> list:
    """The worlds, those that agree on everything still read (`names`, cut to `cuts`; of
    the sheet, `sheet(state)`, or every change) but the one distribution each holds made
    one, holding the mixture of their distributions."""
    if len(worlds) < 2 or not SWITCH.mixed:
        return worlds
    out: list = []
    groups: dict = {}
    riding = _riding if not SWITCH.seen else Seen(names, cuts).riding
    for world in worlds:
        found = riding(world.env, names, cuts)
        if found is None:
            out.append(world)
            continue
        values, place, dist = found
        state = world.state
        key = (values, state.snapshot() if sheet is None else sheet(state))
        try:
            group = groups.get(key)
        except TypeError:  # (a value only compared by identity: left as it is)
            out.append(world)
            continue
        if group is None:
            groups[key] = [world, place, [(world.weight, dist)], world.steps]
            continue
        group[2].append((world.weight, dist))
        group[3] = spread(group[3], world.steps)
    if len(groups) == sum(len(group[2]) for group in groups.values()):
        return worlds  # (nothing to mix)
    places = Places()
    for world, place, parts, steps in groups.values():
        if len(parts) == 1:
            out.append(world)
            continue
        dist, weight = mixture(parts, places if SWITCH.shared else Places())
        out.append(World(_placed(world.env, names, place, dist), world.state, weight, steps))
    return out


def _riding(env: dict, names: tuple, cuts: tuple) -> tuple | None:
    """(the values still read, the one distribution among them replaced by RIDING, where
    it is: (index, field or None), the distribution), or None where there is not exactly
    one."""
    values = [env.get(name, MISSING) for name in names]
    for i, fields in cuts:
        value = values[i]
        if type(value) is Record and len(value) > len(fields):
            values[i] = cut_record(value, fields)
    found: tuple | None = None
    for i, value in enumerate(values):
        if type(value) is Dist:
            if found is not None:
                return None
            found = (i, None, value)
        elif type(value) is Record:
            for field, inner in value.items():
                if type(inner) is Dist:
                    if found is not None:
                        return None
                    found = (i, field, inner)
    if found is None:
        return None
    i, field, dist = found
    value = values[i]
    values[i] = RIDING if field is None else Record({**value, field: RIDING}, value.kind)
    return tuple(values), (i, field), dist


class Seen:
    """_riding over the worlds of one merge, each value looked into once at its place
    among the names (found by the value itself: the worlds of a merge share most of their
    values, whose hash a record keeps, so a record's fields are scanned and cut once, not
    once per world; a value that cannot be hashed is looked into each time)."""

    __slots__ = ("cuts", "places")

    def __init__(self, names: tuple, cuts: tuple):
        self.places: list = [{} for _ in names]  # a place → {value: what it holds}
        self.cuts = dict(cuts)

    def _seen(self, i: int, value) -> tuple:
        """(the value, cut to the fields read; how many distributions it holds, 0, 1 or 2
        for more; its field holding the one (None: the value itself); that distribution;
        the value with RIDING in its place)."""
        fields = self.cuts.get(i)
        if fields is not None and type(value) is Record and len(value) > len(fields):
            value = cut_record(value, fields)
        if type(value) is Dist:
            return value, 1, None, value, RIDING
        if type(value) is Record:
            found = [(field, inner) for field, inner in value.items() if type(inner) is Dist]
            if len(found) == 1:
                field, dist = found[0]
                return value, 1, field, dist, Record({**value, field: RIDING}, value.kind)
            return value, min(len(found), 2), None, None, None
        return value, 0, None, None, None

    def riding(self, env: dict, names: tuple, _cuts: tuple) -> tuple | None:
        """_riding(env, names, cuts), its values looked into once per merge."""
        values = []
        found = None
        for i, name in enumerate(names):
            value = env.get(name, MISSING)
            place = self.places[i]
            try:
                seen = place.get(value)
                if seen is None:
                    seen = place[value] = self._seen(i, value)
            except TypeError:  # (a value only compared by identity: looked into here)
                seen = self._seen(i, value)
            cut, count, field, dist, replaced = seen
            if count:
                if count > 1 or found is not None:
                    return None
                found = (i, field, dist, replaced)
            values.append(cut)
        if found is None:
            return None
        i, field, dist, replaced = found
        values[i] = replaced
        return tuple(values), (i, field), dist


def _placed(env: dict, names: tuple, place: tuple, dist: Dist) -> dict:
    """The world's values with the mixture in the distribution's place."""
    i, field = place
    name = names[i]
    value = env[name]
    return {**env, name: dist if field is None else Record({**value, field: dist}, value.kind)}


class Places:
    """The outcomes of the distributions mixed, each by its place in one list: a
    distribution's outcomes (by its number) looked up once however many mixtures of one
    merge hold it (an outcome is mostly a record, whose hash is a Python call; a place is
    a whole number). `looked`: the outcomes looked up."""

    __slots__ = ("index", "looked", "of", "outcomes")

    def __init__(self):
        self.index: dict = {}  # an outcome → its place
        self.outcomes: list = []  # a place → its outcome
        self.of: dict = {}  # a distribution's number → its outcomes' places, in its order
        self.looked = 0

    def places(self, dist: Dist) -> tuple:
        found = self.of.get(dist.number)
        if found is None:
            index, outcomes = self.index, self.outcomes
            made = []
            for outcome in dist.weights:
                place = index.setdefault(outcome, len(outcomes))
                if place == len(outcomes):
                    outcomes.append(outcome)
                made.append(place)
            self.looked += len(made)
            found = self.of[dist.number] = tuple(made)
        return found


def mixture(parts: list, places: Places | None = None) -> tuple:
    """(the mixture of distributions, the sum of their weights): each (weight, Dist) with
    its weight (numerator, denominator); what a distribution leaves out, left out too.
    Each distribution is weighted by its world's weight over its own total, reduced first
    (a world's weight is mostly its distribution's own mass: the factors meet there, and
    the common denominator stays that of the worlds, not the product of the totals)."""
    same: dict = {}  # a distribution (the same one in many worlds: once) → its weights
    mass = Mass()
    for weight, dist in parts:
        mass.add(weight)
        found = same.get(dist.number)
        if found is None:
            same[dist.number] = (dist, Mass(weight))
        else:
            found[1].add(weight)
    by_denominator: dict = {}  # a reduced coefficient's denominator → [(numerator, Dist)]
    for dist, weights_of in same.values():
        numerator, denominator = weights_of.weight()
        denominator *= dist.total
        common = gcd(numerator, denominator)
        by_denominator.setdefault(denominator // common, []).append((numerator // common, dist))
    common = 1
    for denominator in by_denominator:
        common = least_common(common, denominator)
    if places is None:
        places = Places()
    rows = []  # (a distribution's places, its weights, its scale)
    total = 0
    for denominator, scaled in by_denominator.items():
        factor = common // denominator
        for numerator, dist in scaled:
            scale = numerator * factor
            total += scale * dist.total
            rows.append((places.places(dist), dist.weights.values(), scale))
    outcomes = places.outcomes
    if len(outcomes) > 2 * sum(len(held) for held, _, _ in rows):
        # (the merge's outcomes mostly of other mixtures: summed by place in a dict)
        found_of: dict = {}
        for held, weights_of, scale in rows:
            for place, w in zip(held, weights_of):
                found_of[place] = found_of.get(place, 0) + w * scale
        weights = {outcomes[place]: w for place, w in found_of.items()}
        return Dist(weights, total).reduced(), mass.weight()
    sums: list = [None] * len(outcomes)  # a place → its weight, None where none yet
    order = []  # the places in the order their outcomes first come
    for held, weights_of, scale in rows:
        for place, w in zip(held, weights_of):
            found = sums[place]
            if found is None:
                order.append(place)
                sums[place] = w * scale
            else:
                sums[place] = found + w * scale
    weights = {outcomes[place]: sums[place] for place in order}
    return Dist(weights, total).reduced(), mass.weight()
