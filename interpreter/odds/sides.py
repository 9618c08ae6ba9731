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

from dsl.messages import tr
from interpreter.odds.cuts import cut_record, names_of
from interpreter.odds.distribution import Dist
from interpreter.odds.polynomials import TooComplex
from interpreter.values import Record

#: the fields of an opposed check's record its sides decide alone (no author's field)
SIDED = frozenset(("won", "tie", "rerolls", "ours", "theirs"))


class Sides:
    """Both sides of an opposed check: key → [mass, [(side record, weight)]] each."""

    __slots__ = ("opposed", "pairs", "rerolling", "roller", "sides_a", "sides_b")

    def __init__(self, opposed, sides_a: dict, sides_b: dict, pairs: int, rerolling, roller):
        self.opposed, self.sides_a, self.sides_b = opposed, sides_a, sides_b
        self.pairs, self.rerolling, self.roller = pairs, rerolling, roller

    def dist(self, cut: tuple) -> Dist:
        """The decided pairs' records cut down to `cut` (fields of SIDED), with the weight
        of the pairs (ties left out when they are rerolled), out of every pair."""
        inner = dict(cut)
        names = names_of(cut)
        ours = _classes(self.sides_a, "ours" in inner, inner.get("ours"))
        theirs = _classes(self.sides_b, "theirs" in inner, inner.get("theirs"))
        if not self.sides_a or not self.sides_b:
            return Dist({}, self.pairs)
        key = next(iter(self.sides_a))
        level = self.opposed.verdict(key, key)  # (won, tie) of a tie (not rerolled)
        ahead, behind = (True, False), (False, False)
        weights: dict = {}

        def add(side_a, side_b, verdict, weight):
            if not weight:
                return
            won, tie = verdict
            found = {"won": won, "tie": tie, "rerolls": 0, "ours": side_a, "theirs": side_b}
            record = Record({name: found[name] for name in names}, "opposed")
            weights[record] = weights.get(record, 0) + weight

        for side_a, side_b, masses in self.counted(ours, theirs):
            more, same, less = masses
            add(side_a, side_b, ahead, more)
            add(side_a, side_b, behind, less)
            if not self.rerolling:
                add(side_a, side_b, level, same)
        return Dist(weights, self.pairs).reduced()

    def counted(self, ours: dict, theirs: dict):
        """(class of ours, class of theirs, (mass of pairs where ours is ahead, level,
        behind)) for every two classes: the other side's keys searched in the sorted
        keys of the side with fewer searches to make."""
        searches_a = len(ours) * sum(len(keys) for keys in theirs.values())
        searches_b = len(theirs) * sum(len(keys) for keys in ours.values())
        charge(self.roller, min(searches_a, searches_b))
        if searches_a <= searches_b:
            for side_a, keys_a in ours.items():
                ordered = _ordered(keys_a)
                for side_b, keys_b in theirs.items():
                    yield side_a, side_b, _against(ordered, keys_b)
        else:
            for side_b, keys_b in theirs.items():
                ordered = _ordered(keys_b)
                for side_a, keys_a in ours.items():
                    more, same, less = _against(ordered, keys_a)  # theirs against ours
                    yield side_a, side_b, (less, same, more)


def charge(roller, searches: int) -> None:
    """Count `searches` against the roller's budget (and its deadline) before making them."""
    roller.work += 1 + searches // 20
    if roller.work > roller.budget:
        raise TooComplex(tr("more than {budget} units of work", budget=roller.budget))
    roller.deadline.check()


def _classes(sides: dict, read: bool, cut) -> dict:
    """A side's outcomes as read (cut down to `cut`; one class when it is not read), each
    with its keys: {side as read: {key: weight}}."""
    out: dict = {}
    for key, (mass, group) in sides.items():
        if not read:
            found = out.setdefault(None, {})
            found[key] = found.get(key, 0) + mass
            continue
        for side, weight in group:
            found = out.setdefault(cut_record(side, cut), {})
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
    more = same = less = 0
    for key, weight in others.items():
        low = bisect_left(keys, key)
        high = bisect_right(keys, key, low)
        less += weight * sums[low]
        same += weight * (sums[high] - sums[low])
        more += weight * (whole - sums[high])
    return more, same, less
