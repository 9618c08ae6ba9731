"""Records cut down to the fields read of them, along chains of fields (`r.ours.total`).

A cut is what dsl.nodes.path_cut makes of what is still read of a name (field_paths):
((field, its own cut, or None where the field's value is read whole), ...) in the
fields' order. A record cut down to it keeps only those fields, and of a field holding
a record only what is read of that, so that values differing only where nothing reads
them are one value (one world) for the odds engine.
"""

from __future__ import annotations

from interpreter.odds.distribution import Dist, remembered
from interpreter.values import Record
from interpreter.values import cut_record as cut_fields


def names_of(cut: tuple) -> tuple:
    """The fields a cut keeps, in order."""
    return tuple(name for name, _inner in cut)


def flat(names) -> tuple:
    """The cut keeping each of `names` whole."""
    return tuple((name, None) for name in sorted(names))


def deep(cut: tuple) -> bool:
    """Whether the cut keeps some field only in part."""
    return any(inner is not None for _name, inner in cut)


def cut_record(value, cut: tuple | None):
    """`value` cut down to `cut` (None: whole); a value that is not a record stays whole."""
    if cut is None or type(value) is not Record:
        return value
    return Record({name: cut_record(value.get(name), inner) for name, inner in cut}, value.kind)


def project(value, cut: tuple):
    """A Dist (or a Contest: its own `project`) of records cut down to `cut`."""
    if type(value) is not Dist:
        return value.project(cut)
    if not deep(cut):
        return value.project(names_of(cut))
    return remembered(
        ("cut", value.number, cut), (value,), lambda: value.map(lambda v: cut_record(v, cut))
    )


def kept_of(env: dict, names: tuple, cuts: tuple) -> dict:
    """What a world keeps of `env` where no other world is to be told apart from it (no
    key made): the values of `names`, records cut to the fields still read (`cuts`, of
    worlds.cuts_of), as worlds.key_of keeps them."""
    kept = {name: env[name] for name in names if name in env}
    for i, fields in cuts:
        value = kept.get(names[i])
        if type(value) is Record and len(value) > len(fields):
            kept[names[i]] = cut_fields(value, fields)
    return kept
