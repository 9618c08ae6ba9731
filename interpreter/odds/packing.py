"""Counters' values packed into one whole number, and the rest of a world kept beside them.

interpreter.odds.carried keeps the worlds that agree on all but a loop's counters as one
group, the counters' joint distribution keyed by their values packed into one number
(`pack`): adding the amounts a pass adds, packed so, adds each to its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from interpreter.compiled import block_key
from interpreter.odds.drawn import Drawn
from interpreter.odds.order import whole
from interpreter.state import MISSING

if TYPE_CHECKING:
    from interpreter.odds.linear import Projection
    from interpreter.odds.worlds import Live

#: bits of a counter's value in a joint's key: the values packed into one whole number,
#: each at BITS more than the one before, offset by OFFSET (so that adding the amounts a
#: pass adds, packed so, adds each to its own)
BITS = 48
OFFSET = 1 << (BITS - 1)
MASK = (1 << BITS) - 1
#: the largest size of a counter's value carried (past it, worlds again)
LARGEST = 1 << (BITS - 4)
#: counter values moved in one unit of work (interpreter.odds.budget)
WORK_PER_UNIT = 64


def counts(env, counters: tuple, project: Projection | None = None) -> tuple | None:
    """(the counters' values packed, their largest size), or None where one is not a
    whole number, or is too large; `project`: as the representative of the sums they
    are read in (interpreter.odds.linear)."""
    return packed(tuple([env.get(name, MISSING) for name in counters]), project)


def packed(values: tuple, project: Projection | None = None) -> tuple | None:
    """counts, of the counters' values (in the counters' order)."""
    if not whole(values):
        return None
    if project is not None:
        values = project(values)
    size = max(map(abs, values))
    return None if size >= LARGEST else (pack(values), size)


def pack(values: tuple) -> int:
    """Whole numbers as one (BITS each, offset: adding two packed adds each pair)."""
    out = 0
    for i, value in enumerate(values):
        out |= (value + OFFSET) << (BITS * i)
    return out


def unpack(number: int, count: int) -> tuple:
    return tuple(((number >> (BITS * i)) & MASK) - OFFSET for i in range(count))


def rest_of(worlds: list, counters: tuple, live: Live) -> tuple:
    """The names the worlds (or groups) hold, still read, but the counters: sorted."""
    present = set().union(*[world.env for world in worlds])  # (then one intersection)
    present.intersection_update(live.needs)
    present.difference_update(counters)
    return tuple(sorted(present))


#: rest_kept's answers, by the names of the one world asked of, the counters and what is
#: read (asked at every statement a loop's groups go through), at most KEPT_RESTS
_KEPT: dict = {}
KEPT_RESTS = 4096


def rest_kept(worlds: list, counters: tuple, live: Live) -> tuple:
    """(rest_of the worlds, rest_cuts of it): of one world (or group), found once per
    the names it holds, the counters and what is read."""
    if len(worlds) != 1:
        names = rest_of(worlds, counters, live)
        return names, rest_cuts(names, live)
    key = (tuple(worlds[0].env), counters, live)
    found = _KEPT.get(key)
    if found is None:
        names = rest_of(worlds, counters, live)
        found = (names, rest_cuts(names, live))
        if len(_KEPT) >= KEPT_RESTS:  # (memory bounded)
            _KEPT.clear()
        _KEPT[key] = found
    return found


def given_in(explorer, body: tuple) -> frozenset:
    """The names a block's statements give a value to (found once per block)."""
    key = ("given", block_key(body))
    found = explorer.liveness.get(key)
    if found is None:
        found = frozenset().union(*[explorer.names_given(s.node) for s in body])
        explorer.liveness[key] = found
    return found


def unchanged_rest(env: dict, given: frozenset, counters: tuple, live: Live) -> tuple | None:
    """rest_of the worlds a pass from `env` ends in, known before it runs, where the pass
    gives no value to a name still read but its counters (`given`: the names its
    statements give one to) and the explorer draws none of them (a die's face, a world
    each): the names of `env` still read, each holding its value in every world; else
    None. (The names found once per the names `env` holds, `given`, the counters and
    what is read.)"""
    key = ("unchanged", tuple(env), given, counters, live)
    names = _KEPT.get(key, MISSING)
    if names is MISSING:
        names = _unchanged(env, given, counters, live)
        if len(_KEPT) >= KEPT_RESTS:  # (memory bounded)
            _KEPT.clear()
        _KEPT[key] = names
    if names is None:
        return None
    for name in names:
        if type(env[name]) is Drawn:
            return None
    return names


def _unchanged(env: dict, given: frozenset, counters: tuple, live: Live) -> tuple | None:
    needs = live.needs
    for name in given:
        if name in needs and name not in counters:
            return None
    return tuple(sorted(name for name in env if name in needs and name not in counters))


def rest_cuts(names: tuple, live: Live) -> tuple:
    """Of `names`, those of which only some fields are read: (index, those fields)."""
    needs = live.needs
    return tuple(
        (i, tuple(sorted(needs[name]))) for i, name in enumerate(names) if needs[name] is not None
    )


def convolved_joints(explorer, a: dict, b: dict) -> dict:
    """The sums of two joints' packed values (one offset at most), weights multiplied."""
    out: dict = {}
    get = out.get
    for ka, wa in a.items():
        for kb, wb in b.items():
            k = ka + kb
            out[k] = get(k, 0) + wa * wb
    roller = explorer.roller
    roller.work += len(a) * len(b) // WORK_PER_UNIT
    if len(a) * len(b) < WORK_PER_UNIT and roller.work < roller.budget:
        roller.work += 1  # (a unit, as `work` counts it; the clock left for larger ones)
    else:
        explorer.work()
    return out
