"""Whole-number distributions as shapes moved: compared by running sums, moved once.

Two independent distributions compared (`a > b`) are counted by running sums. Within
one computation the same comparison meets many pairs that are the same two shapes
moved (`2d10 + bono` against `2d10 + defensa`, one pair per world): a > b depends only
on the shapes and on how far apart they stand, so each distribution's shape (its values
less its least, with their weights) is noted once, and the count is remembered by the
two shapes and the gap between their least values. Likewise a roll plus a chain of
numbers (`capicua + Dignitas + maniobra + extra + ...`, each world its own `maniobra`)
is made once per place it ends at: a distribution moved by a number remembers what it
was moved from, and adding 0 gives it back.
"""

from __future__ import annotations

import itertools
import operator
from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import Any

#: the comparisons counted this way: how each counts b's values below a value x
ORDERINGS = {
    operator.gt: "below",  # a > b: b's values below x
    operator.ge: "at_most",  # a >= b: b's values at or below x
    operator.lt: "above",  # a < b: b's values above x
    operator.le: "at_least",  # a <= b: b's values at or above x
}


def compared(comparison: Any, a: Any, b: Any, memory: Any, make: Any) -> Any:
    """The distribution of comparison(x, y) (`make(weights, total)`, reduced) if a and b
    both hold whole numbers alone, else None; remembered in `memory` (the computation's
    LiftMemory, or None) by the shapes of a and b and the gap between them."""
    if memory is None:
        if not all(type(x) is int for x in a.weights) or not all(type(y) is int for y in b.weights):
            return None
        return make(*counted(comparison, a, b)).reduced()
    shape_a, least_a = shape_of(a, memory)
    shape_b, least_b = shape_of(b, memory)
    if shape_a is None or shape_b is None:
        return None
    key = ("compared", comparison, shape_a, shape_b, least_a - least_b)
    found = memory.get(key)
    if found is None:
        found = memory[key] = make(*counted(comparison, a, b)).reduced()
    return found


def compared_already(comparison: Any, a: Any, b: Any, memory: Any) -> Any:
    """What `compared` found before for the shapes of a and b at the same gap (each
    distribution's shape noted, charged once per distribution), or None."""
    shape_a, least_a = shape_of(a, memory)
    shape_b, least_b = shape_of(b, memory)
    if shape_a is None or shape_b is None:
        return None
    return memory.get(("compared", comparison, shape_a, shape_b, least_a - least_b))


def shape_of(dist, memory) -> tuple:
    """(the number of the distribution's shape, its least value), or (None, None) where
    it holds something else than whole numbers: noted once per distribution."""
    found = memory.get(("shape", dist.number))
    if found is None:
        memory.work((dist,))  # charged: a sort of its values
        if whole(dist.weights):
            least = min(dist.weights)
            values = sorted((v - least, w) for v, w in dist.weights.items())
            key = ("shape of", dist.total, tuple(values))
            shape = memory.get(key)  # the first such shape's number stands for all
            if shape is None:
                shape = memory[key] = next(_SHAPES)
            found = (shape, least)
        else:
            found = (None, None)
        memory[("shape", dist.number)] = found
    return found[0], found[1]


def whole(values) -> bool:
    """Whether every one of `values` is a whole number (not a bool: a type of its own)."""
    return {*map(type, values)} <= _INT  # (the types at once: no Python step per value)


_INT = {int}


def counted(comparison, a, b) -> tuple:
    """The weights of no/yes of comparison(x, y) for x ~ a and y ~ b independent, both
    Dists of whole numbers, and their total: for each x, the weight of the y's on its
    side, from running sums over b's sorted values (n log m, where pair by pair is n × m)."""
    side = ORDERINGS[comparison]
    values = sorted(b.weights)
    running = [0, *accumulate(b.weights[y] for y in values)]
    whole = running[-1]
    # b's values below x (bisect_left) or at most x (bisect_right); above/at least: the rest
    cut = bisect_left if side in ("below", "at_least") else bisect_right
    upper = side in ("above", "at_least")
    yes = no = 0
    for x, wa in a.weights.items():
        count = running[cut(values, x)]
        if upper:
            count = whole - count
        yes += wa * count
        no += wa * (whole - count)
    weights = {}
    if no:
        weights[False] = no
    if yes:
        weights[True] = yes
    return weights, a.total * b.total


#: the whole-number operations that move a distribution (`x + n`, `x - n`)
MOVES = {operator.add: 1, operator.sub: -1}
#: the numbers of distinct shapes of distributions (shape_of)
_SHAPES = itertools.count(1)


def moved(dist: Any, by: int, ints: Any, move: Any, memory: Any, make: Any) -> Any:
    """`dist` ⊕ `by` for `ints` (the whole-number version of `+` or `-`: `move`, the
    operation it is, interpreter.compiled.Operation), remembered in `memory` by the
    distribution first moved and the place it ends at; None where `dist` holds something
    else than whole numbers, or `ints` is not a move. The extremes go through `ints`
    first: past the limits on numbers, it refuses as it would for any value.
    `make(weights, total)` builds a distribution."""
    sign = MOVES.get(move) if move is not None else None
    if sign is None or memory is None:
        return None
    found = memory.get(("moved", dist.number))
    if found is None:
        if not whole(dist.weights):
            memory[("moved", dist.number)] = found = (None, 0, 0, 0)
        else:
            memory.work((dist,))  # charged: a pass over its values
            found = (dist, 0, min(dist.weights), max(dist.weights))
            memory[("moved", dist.number)] = found
    base, offset, least, most = found
    if base is None:
        return None
    ints(least, by), ints(most, by)  # the limits, as every value would meet them
    if by == 0:
        return dist
    place = offset + sign * by
    key = ("moved to", base.number, place)
    result = memory.get(key)
    if result is None:
        memory.work((base,))
        weights = base.weights  # (its values moved in one pass each: no Python step per value)
        result = make(dict(zip(map(place.__add__, weights), weights.values())), base.total)
        memory[key] = result
        memory[("moved", result.number)] = (base, place, least + sign * by, most + sign * by)
    return result
