"""A record's field read once, past what still runs, kept as a distribution inside it.

`let b = tirada_basica(...)` then statements reading `b.success` and `b.puntos`, and a
result reading `b.total`: branching on every record, the explorer would run the rest
of the action once per total (hundreds of worlds) though nothing there reads it. When a
field of the record is read exactly once after the let's block, and not in the rest of
that block, the worlds are made for the other fields alone, each record holding that
field as its distribution given the others (a rider). Read once, it is combined where it
is read, as a dice term written there would be (interpreter.odds.roller.bind), so that
the worlds it rides in stay as few as what the statements between read. A field read
once through its own fields rides too (`r.theirs.total`, of an opposed check's record:
`theirs` rides, a distribution of its records cut to `total`), and an opposed check's
record holds a rider as a check's does (Brujería's ataque_cuerpo_a_cuerpo: the rival's
total read by the result alone, its 120 values no longer a world each through the
damage's statements).
"""

from __future__ import annotations

from interpreter.odds.distribution import Dist, remembered
from interpreter.runtime import Unknown
from interpreter.values import Record


class Switch:
    """Whether a field read once through its own fields rides (`r.theirs.total`: the
    field `theirs`, a record, its distribution given the other fields), and whether an
    opposed check's record holds a rider as a check's does (interpreter.odds.roller.bind);
    tests switch them off: then such a field is a world per value."""

    paths = True
    contests = True
    sides = True  # (an opposed check's side riding made from its sides at once)


SWITCH = Switch()


def rider_of(statements: tuple, index: int, live_out, names_read, idle=None) -> str | None:
    """The field of the record `statements[index]` (a `let`) binds that may ride: read
    exactly once after the block (`live_out`, what is read after it: Live.once_field)
    and not mentioned by the block's later statements (neither it, nor the whole value,
    nor the name set again) that the explorer runs (`idle(j)`: statements[j] is skipped,
    as nothing it computes is read: it reads nothing either). None when there is none."""
    name = statements[index].node.name
    fields = live_out.needs.get(name)
    if not isinstance(fields, dict):
        return None
    found = {
        field
        for field in fields
        if live_out.once_field(name, field) and (SWITCH.paths or fields[field] is None)
    }
    for j in range(index + 1, len(statements)):
        later = statements[j]
        if not found:
            break
        if idle is not None and idle(j):
            continue
        reads = names_read(later.node).needs
        if name in reads:
            found = set() if reads[name] is None else found - set(reads[name])
    # (one alone: two fields riding apart would be read as two draws)
    return min(found) if found else None


def riding(value: Dist, field: str) -> Dist:
    """`value`, a distribution of records, with records that differ only in `field` made
    one: that field holding its distribution given the other fields (the field's value
    itself where it has one alone). Remembered, as lifts are, so that every world binding
    the same distribution holds the same riders (and worlds alike merge)."""
    return remembered(("rider", value.number, field), (value,), lambda: ridden(value, field))


def ridden(value: Dist, field: str) -> Dist:
    groups: dict = {}  # (kind, the other fields) → {the field's value: weight}
    for record, weight in value.weights.items():
        if type(record) is not Record or field not in record:
            return value
        inner = record[field]
        if isinstance(inner, Unknown):
            return value
        key = (record.kind, tuple(item for item in record.items() if item[0] != field))
        try:
            found = groups.get(key)
            if found is None:
                found = groups[key] = {}
            found[inner] = found.get(inner, 0) + weight
        except TypeError:  # a value only a record knows how to hash: as it is
            return value
    if len(groups) == len(value.weights):
        return value  # each record its own field's value: nothing rides
    return Dist(rider_records(groups, field), value.total)


def rider_records(groups: dict, field: str) -> dict:
    """{record: weight} of records grouped by (kind, their other fields' items) → {the
    field's value: weight}: one record a group, its `field` the value where it has one
    alone, else their distribution."""
    out: dict = {}
    for (kind, others), weights in groups.items():
        if len(weights) == 1:
            ((inner, weight),) = weights.items()
        else:
            weight = sum(weights.values())
            inner = Dist(weights, weight).reduced()
        out[Record({**dict(others), field: inner}, kind)] = weight
    return out
