"""Every result field of an action from one exploration: the worlds forked where fields differ.

A whole result too large to show is answered field by field (interpreter.odds.marginals).
Each field reads less than the whole result, so the worlds it needs merge more: asked on
its own, a field's exploration keeps only what it reads. Explored once per field, an
action runs everything the fields share (its requirements, what it spends, the actions
it calls) once per field. Here the action's body is explored once for all the fields:
one list of worlds, statement by statement, kept for what any field of the group reads
(a world that keeps more than a field reads is still that field's: the whole result's
exploration is one such group), as long as the fields would do the same with the
statement (what is read after it of the names it binds and of those whose values differ
between the worlds, and so how its worlds merge, what rides, what is kept whole). Where
fields would do differently, the worlds fork, each group of fields going on with its own
copy of them, merged on what that group reads. At the end each field's outcomes are read
in its own group's worlds, the failures met on the way (before the fork too) in every
field's.
"""

from __future__ import annotations

from functools import reduce

from dsl import nodes as n
from interpreter.compiled import Binding, block_key
from interpreter.odds.budget import SafetyStop
from interpreter.odds.carried import worlds_of
from interpreter.odds.compound import compound_run
from interpreter.odds.convolved import convolved_run
from interpreter.odds.deferred import deferrable
from interpreter.odds.die_loops import pool_loop_run
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.summed import summed_run
from interpreter.odds.weights import Mass
from interpreter.odds.worlds import Live, block_steps
from interpreter.state import MISSING


class Group:
    """Fields that share their worlds so far: the worlds, the failures met, the mass lost."""

    __slots__ = ("failures", "fields", "lost", "worlds")

    def __init__(self, fields: tuple, worlds: list, failures: list, lost: Mass):
        self.fields = fields
        self.worlds = worlds
        self.failures = failures
        self.lost = lost

    def fork(self, fields: tuple) -> Group:
        """A group of some of these fields, going on from here with worlds of its own."""
        return Group(fields, self.worlds, list(self.failures), copied(self.lost))


def copied(mass: Mass) -> Mass:
    out = Mass()
    out.parts = dict(mass.parts)
    return out


class Whole:
    """The whole result as the first, widest field of an exploration (`key`, in `wanted`
    first): its group explored within `work` units of its own (from `start`) and no
    `let` making more than `worlds` worlds, its outcomes at most `cap` (the caller's to
    count); past any, it leaves its group, which goes on for the fields (what it explored
    serves them: a world kept for more than a field reads is still that field's).
    `reason`: why it left, once it has."""

    __slots__ = ("cap", "key", "reason", "start", "work", "worlds")

    def __init__(self, key, work: int, worlds: int | None, cap: int | None = None):
        self.key, self.work, self.worlds, self.cap = key, work, worlds, cap
        self.start = 0
        self.reason: TooComplex | None = None


def explore_fields(explorer, body: tuple, worlds: list, wanted: dict, ended, whole=None) -> None:
    """Explore `body` (an action's statements) over `worlds` once for all the fields of
    `wanted` (field → what it reads after the body: a Live); `ended(group)` is given each
    group of fields at the end, with its worlds, failures and mass lost, as soon as it
    gets there. A fork goes on with its first part; the other parts wait their turn
    (so that, past the budget, the groups done before it keep their exact answers).
    `whole` (a Whole): the field of `wanted` that is the whole result, within its own
    bounds (past them, its group goes on without it)."""
    fields = tuple(wanted)
    lives = {field: explorer.live_after(body, wanted[field]) for field in fields}
    shared: dict = {}  # a group's fields → (what they read after the body, after each)

    def of_group(part: tuple) -> tuple:
        found = shared.get(part)
        if found is None:
            reads = tuple(map(wanted.__getitem__, part))
            out = explorer.liveness.get(("either", reads))  # (the same in every call)
            if out is None:
                out = explorer.liveness[("either", reads)] = reduce(Live.either, reads)
            found = shared[part] = (out, explorer.live_after(body, out))
        return found

    entry = block_steps(body)
    worlds = explorer.counting(worlds, entry, entry)  # (as Explorer.block)
    waiting = [(Group(fields, worlds, [], copied(explorer.lost)), 0)]
    if whole is not None:
        whole.start = explorer.roller.work
    parted = None  # where the fields would first part (where they go on, RESUMED off)
    while waiting:
        group, index = waiting.pop()
        while index < len(body) and group.fields:
            joint = whole is not None and whole.key in group.fields
            if joint and parted is not None:  # (where they part is known: not sought)
                parts = [group.fields]
            else:
                parts = partition(explorer, body, index, group, lives, wanted)
            if joint:  # (its worlds serve every field: they part only once it has left)
                if len(parts) > 1 and parted is None:
                    others = tuple(f for f in group.fields if f != whole.key)
                    parted = (group.fork(others), index)
                parts = [group.fields]
            if len(parts) > 1:  # the others from the worlds before this statement
                parts = widest_first(body, index, parts, of_group)
                waiting.extend((group.fork(part), index) for part in reversed(parts[1:]))
                group = group.fork(parts[0])
            out, live = of_group(group.fields)
            explorer.lost = copied(group.lost) if joint else group.lost
            roller = explorer.roller
            budget = roller.budget
            if joint:  # (within its share of the work, its worlds)
                explorer.most_worlds = whole.worlds
                roller.budget = min(budget, whole.start + whole.work)
            explorer.widest = widest(explorer, body, index, group.fields, fields, of_group)
            try:  # (compound dice, rolls read only through sums: odds.compound, convolved, summed)
                done = (
                    pool_loop_run(explorer, body, index, group.worlds, live, out)
                    or compound_run(explorer, body, index, group.worlds, live)
                    or convolved_run(explorer, body, index, group.worlds, live)
                    or summed_run(explorer, body, index, group.worlds, live)
                )
                worlds, failed, after = done or (
                    *explorer.step(body, index, group.worlds, live, out),
                    index + 1,
                )
            except TooComplex as reason:
                if not joint or isinstance(reason, SafetyStop) or roller.work > budget:
                    raise
                whole.reason = reason  # (past its bounds: the fields go on from its worlds)
                if not RESUMED:
                    group, index = parted or (group.fork(_without(group.fields, whole.key)), index)
                    continue
                parts = resumed(
                    explorer, body, index, group, whole.key, (lives, wanted), of_group, parted
                )
                waiting.extend(reversed(parts[1:]))
                group, index = parts[0]
                continue
            finally:
                explorer.most_worlds = explorer.widest = None
                roller.budget = budget
            group.lost = explorer.lost
            group.worlds = worlds_of(explorer, worlds)  # (a list: fields read each world)
            group.failures.extend(failed)
            index = after
        if group.fields:
            ended(group)


def widest(explorer, body: tuple, index: int, part: tuple, fields: tuple, of_group):
    """At `let x = action(...)` (body[index]) run for some of the fields only (`part`):
    (the call, what all the fields read after it, their rider), so that the action is
    summarised once for every part (interpreter.odds.called.Calls.widened); else None."""
    shape = body[index].shape
    if len(part) == len(fields) or type(shape) is not Binding or shape.call is None:
        return None
    if shape.local:
        return None
    out, live = of_group(fields)
    return shape.call, live[index], explorer.rider(body, index, out)


#: whether the fields go on from the whole result's worlds where it stopped, once they
#: have parted before it (else from where they parted, each part exploring again the
#: statements between: with Grito Báquico and sacrificium, Arcana Mundi's usar_numina
#: ran the failing branch of its last `if` once per field; issue 24)
RESUMED = True


def resumed(explorer, body: tuple, index: int, group: Group, key, reads: tuple, of_group, parted):
    """The fields of the whole result's group (`key` left out) going on from its worlds
    before `body[index]`, where it stopped: in the parts they would take there (widest
    first), each part's worlds merged on what the part reads from there on. A world kept
    for more than a field reads is still that field's, so each part's worlds are those it
    would have had from where the fields parted: the statements between are not explored
    again for each part. Unless (`parted`: the group of the fields where they parted, and
    where; None if not yet) a part reads fewer fields of a record bound between than the
    whole result did, its worlds here, merged for it, fewer than the whole result's and
    yet more than there: its own exploration would have merged that record's values
    (read only through those fields) before they made worlds, keeping fewer all along.
    Then every part with more worlds here than there goes on from where they parted, in
    one group (the statements between explored once for them until they part again);
    the others from here. (Arcana Mundi's combate_teurgico: most parts read only the
    `bono` of `su_maniobra`, 26 worlds here against 1 there, later 2,326 against 200:
    resumed, 31,100 units counted; from where they parted, 18,900.) Returns
    [(group, index)], the first to go on first."""
    rest = group.fork(_without(group.fields, key))
    parts = partition(explorer, body, index, rest, *reads)  # (lives, wanted)
    parts = widest_first(body, index, parts, of_group)
    forked = []
    for part in parts:
        one = rest.fork(part)
        if index:  # (what the part reads before the statement: after the one before it)
            one.worlds = explorer.merge(rest.worlds, of_group(part)[1][index - 1])
        forked.append(one)
    again: set = set()  # the fields going on from where they parted
    if parted is not None:
        fewer, at = len(parted[0].worlds), parted[1]
        joint = of_group(group.fields)[1]
        more = [one for one in forked if len(one.worlds) > fewer]
        if any(
            len(one.worlds) < len(rest.worlds)
            and narrower(body, at, index, of_group(one.fields)[1], joint)
            for one in more
        ):
            again = {field for one in more for field in one.fields}
    out = [(one, index) for one in forked if not again.intersection(one.fields)]
    if again:
        start, at = parted
        out.append((start.fork(tuple(f for f in start.fields if f in again)), at))
    return out


def narrower(body: tuple, start: int, end: int, live: list, joint: list) -> bool:
    """Whether a record bound among `body[start:end]` (`let x = action(...)`, say) has
    fewer of its fields read after it by `live` (a part's) than by `joint`."""
    for at in range(start, end):
        shape = body[at].shape
        if type(shape) is not Binding:
            continue
        part = live[at].needs.get(shape.name, MISSING)
        whole = joint[at].needs.get(shape.name, MISSING)
        if part is MISSING or whole is MISSING:
            continue
        if part is not None and (whole is None or len(part) < len(whole)):
            return True
    return False


def _without(fields: tuple, key) -> tuple:
    return tuple(field for field in fields if field != key)


def widest_first(body: tuple, index: int, parts: list, of_group) -> list:
    """Parts of a fork at a call of an action (`let x = action(...)`: body[index]), those
    reading more fields of its result first (`of_group(part)[1][index]`: what the part
    reads after the statement):
    the called action's summary of more fields, explored first, serves a later part
    reading fewer (interpreter.odds.called.Calls.summary) instead of being explored
    again. Any other statement's parts as they are."""
    shape = body[index].shape
    if type(shape) is not Binding or shape.call is None:
        return parts

    def width(part: tuple) -> int:
        wanted = of_group(part)[1][index].needs.get(shape.name, MISSING)
        return 0 if wanted is MISSING else -(1 << 30) if wanted is None else -len(wanted)

    return sorted(parts, key=width)  # (stable: of equal width, in the group's order)


def partition(explorer, body: tuple, index: int, group: Group, lives: dict, wanted: dict):
    """The group's fields in parts that do the same with `body[index]` (each part a tuple
    of fields, in the group's order): the same of what is read after it of the names it
    binds and of those whose values differ between the group's worlds (a name holding
    one value in every world, kept for one field and not another, merges them alike),
    the same decisions for a `let`."""
    if len(group.fields) == 1:
        return [group.fields]
    statement = body[index]
    names = explorer.names_given(statement.node) | varying(group.worlds)
    reads = tuple(map(wanted.__getitem__, group.fields))
    remembered = ("parts", block_key(body), index, group.fields, reads, names)
    found = explorer.liveness.get(remembered)  # (the same in every computation)
    if found is None:
        parts: dict = {}
        for field in group.fields:
            live = lives[field]
            key = (
                restricted(live[index], names),
                decisions(explorer, body, index, live, wanted[field]),
            )
            parts.setdefault(key, []).append(field)
        found = explorer.liveness[remembered] = [tuple(part) for part in parts.values()]
    return list(found)


def decisions(explorer, body: tuple, index: int, live: list, live_out: Live) -> tuple:
    """What else the explorer decides for a `let` from what is read later: the field of
    its record that rides, whether its value is kept whole for the next statement."""
    statement = body[index]
    shape = statement.shape
    if type(shape) is not Binding or shape.local:
        return ()
    rider = explorer.rider(body, index, live_out)
    defer = isinstance(statement.node, n.Let) and deferrable(body, index, live, explorer)
    return (rider, defer)


def varying(worlds: list) -> frozenset:
    """The names whose values are not the same in every world."""
    if len(worlds) < 2:
        return frozenset()
    present: set = set()
    for world in worlds:
        present.update(world.env)
    first = worlds[0].env
    out = set()
    for name in present:
        value = first.get(name, MISSING)
        for world in worlds:
            other = world.env.get(name, MISSING)
            if other is value:
                continue
            try:
                same = bool(other == value)
            except Exception:  # (a value that cannot say: taken as differing)
                same = False
            if not same:
                out.add(name)
                break
    return frozenset(out)


def restricted(live: Live, names: set) -> Live:
    """What `live` says of `names` alone (how often each is read, which fields)."""
    needs = {name: fields for name, fields in live.needs.items() if name in names}
    counts: dict = {name: live.counts[name] for name in needs}
    counts.update((path, times) for path, times in live.paths.items() if path[0] in needs)
    return Live(needs, counts)
