"""A result whose one field is still a distribution, added as a distribution of results.

A value nobody had read before the result (a field riding in a record, `r.theirs.total`:
interpreter.odds.riders; a `let` read once, kept whole: roller.bind) reaches the result
as a distribution, independent of everything else the world holds. Made known there
(`known`), the run of the result would branch on it: run again once per value, each run
a unit of work. Here the record is made once, that field its distribution, and its
outcomes are the records with each value: the same records with the same weights (the
values as unlikely as the explorer prunes in that world left out, as it would have),
each charged as a world run directly. A second such field is made known as before.
"""

from __future__ import annotations

from interpreter.odds.distribution import Dist
from interpreter.odds.weights import pruned_up_to
from interpreter.odds.worlds import WORLDS_PER_WORK
from interpreter.runtime import known
from interpreter.values import Record

#: the records of a Spread made in one unit of work
RECORDS_PER_WORK = WORLDS_PER_WORK // 4


class Switch:
    """Whether a result field still a distribution is added as one (tests switch it off:
    then the run branches on its values)."""

    spread = True


SWITCH = Switch()


class Spread:
    """A result record (`values`) whose field `name` holds a distribution still."""

    __slots__ = ("name", "values")

    def __init__(self, values: dict, name: str):
        self.values, self.name = values, name

    def dist(self, roller) -> Dist:
        """The records, each with one value of the field, weighted by its probability:
        a value the explorer would prune in this world (roller.weight) left out, as
        missing mass (as Explorer.weighted and Explorer.branch leave it out)."""
        dist = self.values[self.name]
        total = dist.total
        cut = pruned_up_to(roller.prune, roller.weight, total)  # (as Explorer.weighted)
        kept = [(value, w) for value, w in dist.weights.items() if w > cut]
        roller.charge(1 + len(kept) // RECORDS_PER_WORK)  # (as the budget follows time)
        values, name = self.values, self.name
        out = {Record({**values, name: value}, kind="result"): w for value, w in kept}
        return Dist(out, total)


def field_value(ctx, fn, keep: bool):
    """The value of a result field (`fn(ctx)`), known (`known`: branching on an unknown
    value) unless it is a distribution and `keep`: then as it is."""
    value = fn(ctx)
    if type(value) is int:  # (the commonest: known, without the call)
        return value
    return value if keep and type(value) is Dist else known(ctx, value)


def spread_result(ctx, chosen: tuple, direct: bool):
    """The result record of a run (`chosen`: (name, run) of its fields), each field
    known, a distribution kept as it is where one field is asked for (`direct`: added up
    as it is); for the whole result, the first that is a distribution kept so too, the
    record then a Spread."""
    values: dict = {}
    left = None
    spread = SWITCH.spread
    for name, fn in chosen:
        value = fn(ctx)
        if type(value) is not int:  # (field_value, written out: a known number as it is)
            keep = direct or (left is None and spread)
            value = value if keep and type(value) is Dist else known(ctx, value)
            if not direct and type(value) is Dist:
                left = name
        values[name] = value
    if left is not None:
        return Spread(values, left)
    return Record(values, kind="result")
