"""An opposed check's verdict and sides, counted from each side's outcomes by their keys.

When what is read of an opposed check's record is its verdict (`won`, `tie`, `rerolls`)
and its sides (`ours`, `theirs`, each cut down to what is read of it: `r.ours.nivel`),
the record of a pair depends on the pair only through those. So each side's outcomes are
grouped into classes (the side as read) holding their keys (what the comparison looks
at), and for a class of ours and a class of theirs the mass where ours is ahead, level
and behind is counted by running sums over one class's sorted keys: a binary search per
key of the other, not a record per pair of outcomes.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from operator import itemgetter

from interpreter.odds.cuts import cut_record, names_of
from interpreter.odds.distribution import Dist
from interpreter.odds.keys import Same
from interpreter.odds.riders import rider_records
from interpreter.values import Record

#: the fields of an opposed check's record its sides decide alone (no author's field)
FIELDS = ("won", "tie", "rerolls", "ours", "theirs")
SIDED = frozenset(FIELDS)


class Sides:
    """Both sides of an opposed check: key → [mass, [(side record, weight)]] each."""

    __slots__ = ("negligible", "opposed", "pairs", "rerolling", "roller", "sides_a", "sides_b")

    def __init__(self, opposed, sides_a: dict, sides_b: dict, pairs: int, rerolling, roller,
                 negligible: int):  # fmt: skip
        self.opposed, self.sides_a, self.sides_b = opposed, sides_a, sides_b
        self.pairs, self.rerolling, self.roller = pairs, rerolling, roller
        # a record less likely than this (out of `pairs`) is left out, as the explorer
        # would prune it in the world the check is counted for (its omitted mass)
        self.negligible = negligible

    def dist(self, cut: tuple) -> Dist:
        """The decided pairs' records cut down to `cut` (fields of SIDED), with the weight
        of the pairs (ties left out when they are rerolled), out of every pair."""
        if not self.sides_a or not self.sides_b:
            return Dist({}, self.pairs)
        names = names_of(cut)
        pick = _picker(tuple(FIELDS.index(name) for name in names))
        # a record by what it holds (each side the one `shared` holds equal to it, its
        # hash kept), made once for every computation of this roller
        made = self.roller.records.setdefault(("opposed", names), {})
        found: dict = {}  # what a record holds → [record, weight]
        for parts, weight in self._parts(cut):
            holds = pick(parts)
            entry = found.get(holds)
            if entry is not None:
                entry[1] += weight
                continue
            record = made.get(holds)
            if record is None:
                record = made[holds] = Record(dict(zip(names, holds)), "opposed")
            found[holds] = [record, weight]
        weights = {record: weight for record, weight in found.values()}
        return Dist(weights, self.pairs)  # not reduced: see Contest.whole

    def ridden(self, cut: tuple, rider: str) -> Dist:
        """`dist(cut)` with the side `rider` (`ours` or `theirs`, kept by the cut) riding
        (interpreter.odds.riders): records that differ only in that side made one, the
        side holding its distribution given the rest (what riders.riding makes of
        `dist(cut)`: the same records, in the same order, with the same weights), each
        made once per class of the other side and verdict, not once per pair of classes."""
        if not self.sides_a or not self.sides_b:
            return Dist({}, self.pairs)
        others = tuple(name for name in names_of(cut) if name != rider)
        pick = _picker(tuple(FIELDS.index(name) for name in others))
        side = FIELDS.index(rider)  # (its place among the parts picked from)
        groups: dict = {}  # the rest → {the rider's value: weight}
        count = 0  # (the records dist(cut) would make)
        for parts, weight in self._parts(cut):
            found = groups.setdefault(pick(parts), {})
            value = parts[side]
            if value in found:
                found[value] += weight
            else:
                found[value] = weight
                count += 1
        if len(groups) == count:  # each record its own rider's value: nothing rides
            return self.dist(cut)
        kinded = {("opposed", tuple(zip(others, rest))): found for rest, found in groups.items()}
        return Dist(rider_records(kinded, rider), self.pairs)

    def _parts(self, cut: tuple):
        """(the parts of a record, as FIELDS: won, tie, rerolls, our side's class, their
        side's class; the mass of its pairs) for every two classes of the sides cut to
        `cut` and each verdict between them, a part less likely than `negligible` left
        out, as the explorer would prune a pair (and ties, when they are rerolled)."""
        inner = dict(cut)
        shared = self.roller.records  # equal records made once: later merges compare ids
        ours = _classes(self.sides_a, "ours" in inner, inner.get("ours"), shared)
        theirs = _classes(self.sides_b, "theirs" in inner, inner.get("theirs"), shared)
        key = next(iter(self.sides_a))
        won_level, tie_level = self.opposed.verdict(key, key)  # of a tie (not rerolled)
        level = not self.rerolling
        negligible = max(self.negligible, 1)
        for side_a, side_b, more, same, less in self.counted(ours, theirs):
            if more >= negligible:
                yield (True, False, 0, side_a, side_b), more
            if less >= negligible:
                yield (False, False, 0, side_a, side_b), less
            if same >= negligible and level:
                yield (won_level, tie_level, 0, side_a, side_b), same

    def counted(self, ours: dict, theirs: dict) -> list:
        """(class of ours, class of theirs, mass of pairs where ours is ahead, level,
        behind) for every two classes: the other side's keys searched in the sorted
        keys of the side with fewer searches to make."""
        searches_a = len(ours) * sum(len(keys) for keys in theirs.values())
        searches_b = len(theirs) * sum(len(keys) for keys in ours.values())
        flipped = searches_b < searches_a  # theirs sorted, ours searched in them
        sorted_side, searched = (theirs, ours) if flipped else (ours, theirs)
        others = [(side, keys, sum(keys.values())) for side, keys in searched.items()]
        share = min(searches_a, searches_b) // len(sorted_side)
        negligible = self.negligible  # two classes less likely than this together: no record
        out = []
        for side, keys in sorted_side.items():
            self.roller.charge(1 + share // 20)  # a class at a time: budget, deadline
            ordered = _ordered(keys)
            whole = ordered[2]
            for other, other_keys, mass in others:
                if whole * mass < negligible:
                    continue
                above, level, below = _against(ordered, other_keys)
                if flipped:  # the sorted side is theirs: ours is ahead where it is below
                    out.append((other, side, below, level, above))
                else:
                    out.append((side, other, above, level, below))
        return out


def _picker(indices: tuple):
    """The parts at `indices`, as a tuple (of one part, or none: a check read for whether
    it stops alone, one record holding nothing)."""
    if len(indices) > 1:
        return itemgetter(*indices)
    if indices:
        pick = itemgetter(indices[0])
        return lambda parts: (pick(parts),)
    return lambda parts: ()


def _classes(sides: dict, read: bool, cut, shared: dict) -> dict:
    """A side's outcomes as read (cut down to `cut`, each the one record `shared` holds
    equal to it; one class when it is not read), each with its keys: {side as read:
    {key: weight}}. Made once for a side (a check counted once for several modifiers of
    the other side: its records the same object each time)."""
    key = ("classes", Same(sides), read, cut)  # (the sides held in the key)
    found = shared.get(key)
    if found is not None:
        return found
    out = shared[key] = _grouped(sides, read, cut, shared)
    return out


def _grouped(sides: dict, read: bool, cut, shared: dict) -> dict:
    out: dict = {}
    for key, (mass, group) in sides.items():
        if not read:
            found = out.setdefault(None, {})
            found[key] = found.get(key, 0) + mass
            continue
        for side, weight in group:
            side = cut_record(side, cut)
            side = shared.setdefault(side, side)
            found = out.setdefault(side, {})
            found[key] = found.get(key, 0) + weight
    return out


def _ordered(keys: dict) -> tuple:
    """(sorted keys, running sums of their weights with a 0 in front, the whole)."""
    ordered = sorted(keys)
    sums = [0, *accumulate(keys[key] for key in ordered)]
    return ordered, sums, sums[-1]


def _against(ordered: tuple, others: dict) -> tuple:
    """Of pairs (x from the sorted side, y from `others`): the mass where x > y, x == y,
    x < y."""
    keys, sums, whole = ordered
    above = level = below = 0
    for key, weight in others.items():
        low = bisect_left(keys, key)
        high = bisect_right(keys, key, low)
        below += weight * sums[low]
        level += weight * (sums[high] - sums[low])
        above += weight * (whole - sums[high])
    return above, level, below
