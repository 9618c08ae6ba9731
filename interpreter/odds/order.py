"""Two independent whole-number distributions compared (`a > b`) by running sums."""

from __future__ import annotations

import operator
from bisect import bisect_left, bisect_right
from itertools import accumulate

#: the comparisons counted this way: how each counts b's values below a value x
ORDERINGS = {
    operator.gt: "below",  # a > b: b's values below x
    operator.ge: "at_most",  # a >= b: b's values at or below x
    operator.lt: "above",  # a < b: b's values above x
    operator.le: "at_least",  # a <= b: b's values at or above x
}


def compared(comparison, a, b) -> tuple:
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
