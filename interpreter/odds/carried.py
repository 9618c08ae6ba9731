"""Counters a loop only adds to, carried as one distribution while the loop's passes run.

`repeat 64 times { let c = check()  if c.success { set hits to hits + 1 } }`: the worlds
before a pass differ only in `hits`, which the pass reads only to add to it. Run once
per world, the pass would cost as many runs as there are values of `hits`. Here the
pass's body runs once for each state of the rest (the names it reads, the sheet), with
the counters at 0 (relative to a world of probability 1), and every world of that state
takes each of its outcomes: its counters plus the amounts the outcome added, its
probability times the outcome's. The worlds of one state are kept as one group, its
counters a joint distribution of whole numbers ({counter values: weight}, over one
denominator), until the loop ends and they become worlds again. A pass's outcomes are
the same in every pass from the same state, and are found once.

A block's statements are held so too where the rest of the block only adds to some
names (interpreter.odds.passes: `held_run`), each statement a body of one pass.

A name is a counter of a loop when every statement of its body that mentions it is
`set x to x + e` or `set x to x - e` (or `e + x`) of a local name, `e` reading no
counter, and the loop's own header reads none. A counter's values are whole numbers;
where one is not (or a pass may pass the step limit from a group's steps), the groups
become worlds again and the loop goes on pass by pass as before.
"""

from __future__ import annotations

from math import gcd
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol

from dsl import nodes as n
from interpreter.compiled import Binding, Branches, Loop, Repeat, Statement, block_key
from interpreter.odds.cuts import kept_of
from interpreter.odds.drawn import starts
from interpreter.odds.linear import added_to, projection
from interpreter.odds.packing import (
    LARGEST,
    WORK_PER_UNIT,
    convolved_joints,
    counts,
    given_in,
    pack,
    packed,
    rest_cuts,
    rest_kept,
    rest_of,
    unchanged_rest,
    unpack,
)
from interpreter.odds.roller import hashable
from interpreter.odds.weights import ONE, Mass, below, least_common, times
from interpreter.odds.weights import plus as plus_weight
from interpreter.odds.worlds import NO_STEPS, Failure, Live, World, key_of, plus, spread
from interpreter.state import MISSING

if TYPE_CHECKING:
    from fractions import Fraction

    from interpreter.runtime import Context


class Explorer(Protocol):
    """What this module uses of interpreter.odds.explore.Explorer (its host)."""

    ctx: Context
    sums: dict[str, Any]
    prune: Fraction
    lost: Mass
    peak: int
    depth: int
    outer: Live | None
    calls: dict[Any, Any]
    roller: Any

    def work(self) -> None: ...
    def explore(self, world: World, run: Any) -> list[Any]: ...
    def block(
        self, statements: tuple[Any, ...], worlds: list[Any], live_out: Live, split: bool = False
    ) -> tuple[Any, ...]: ...
    def ends(self, statements: tuple[Any, ...], worlds: list[Any], live_out: Live) -> tuple: ...
    def pass_ends(self, body: tuple[Any, ...], worlds: list[Any], live_out: Live) -> tuple: ...
    def face_outcomes(self, body: tuple[Any, ...], start: World, live: Live, sums: tuple): ...


#: bits a group's denominator may reach before the common factor of its weights is taken out
TIDY_BITS = 2048


class Merged:
    """Whether a pass's ends that leave the same rest and add the same amounts are one
    outcome (their weights added) before the groups take them (tests switch it off:
    then each end moves every group's joint on its own)."""

    on = True


MERGED = Merged()


def counters_of(
    body: tuple[Statement, ...], header: tuple[Any, ...], names_read, bound: tuple = ()
) -> tuple:
    """The names a loop's passes only add to (see the module's docstring), its header
    (`header`: expressions; `bound`: the name a pass binds) reading none: sorted."""
    added: set[str] = set()
    other: set[str] = set(bound)
    for node in header:
        if node is not None:
            other.update(names_read(node).needs)
    _walk(body, added, other, names_read)
    return tuple(sorted(added - other))


def _walk(statements, added: set, other: set, names_read) -> None:
    for statement in statements:
        node, shape = statement.node, statement.shape
        kind = type(shape)
        if kind is Binding and shape.local and shape.split is None and shape.call is None:
            name = added_to(node)
            if name is not None:
                added.add(name)
                left = node.expr.left
                own = isinstance(left, n.Name) and left.name == name
                operand = node.expr.right if own else left
                other.update(names_read(operand).needs)
                continue
        if kind is Branches and isinstance(node, n.If):
            for condition, _ in node.branches:
                other.update(names_read(condition).needs)
            for branch in shape.branches:
                _walk(branch.body, added, other, names_read)
            _walk(shape.otherwise, added, other, names_read)
        elif kind is Loop and isinstance(node, n.ForEach):
            other.update(names_read(node.items).needs)
            other.add(node.var)
            _walk(shape.body, added, other, names_read)
        elif kind is Repeat and isinstance(node, n.Repeat):
            for part in (node.count, node.until):
                if part is not None:
                    other.update(names_read(part).needs)
            _walk(shape.body, added, other, names_read)
        else:  # whatever else: every name it mentions or gives a value is not a counter
            other.update(names_read(node).needs)
            if isinstance(node, n.Let):
                other.add(node.name)
            elif isinstance(node, n.Set) and isinstance(node.place, n.Name):
                other.add(node.place.name)


class Group:
    """Worlds that agree on all but the counters: the rest (`env`, counters left out),
    the sheet, the steps, and the counters' joint distribution, {values (packed):
    weight} over `denominator` (the group's probability: their sum over it); `size`:
    the largest size of a counter's value in it, at most."""

    __slots__ = ("denominator", "env", "joint", "size", "state", "steps")

    def __init__(self, env, state, steps, joint: dict, denominator: int, size: int) -> None:
        self.env, self.state, self.steps = env, state, steps
        self.joint, self.denominator, self.size = joint, denominator, size

    @property
    def weight(self) -> tuple:
        return (sum(self.joint.values()), self.denominator)


def grouped(worlds: list, counters: tuple, live: Live, sums: dict) -> list | None:
    """The worlds as groups (None where a counter is not a whole number in one); `sums`:
    the sums the action reads its counters in (interpreter.odds.linear.sums_read)."""
    names, cuts = rest_kept(worlds, counters, live)
    project = projection(sums, counters)
    if len(worlds) == 1:  # (the commonest: one world before the loop, a group alone)
        world, values = worlds[0], counts(worlds[0].env, counters, project)
        if values is None:
            return None
        env, (w, d) = kept_of(world.env, names, cuts), world.weight
        return [Group(env, world.state, world.steps, {values[0]: w}, d, values[1])]
    parts: dict = {}
    for world in worlds:
        values = counts(world.env, counters, project)
        if values is None:
            return None
        key = key_of(world.env, names, cuts, world.state)
        found = parts.get(key)
        if found is None:
            found = parts[key] = [world, [], world.steps, 0]
        found[1].append((values[0], world.weight))
        found[2] = spread(found[2], world.steps)
        found[3] = max(found[3], values[1])
    groups = []
    for key, (first, pairs, steps, size) in parts.items():
        common = 1
        for _, (_, d) in pairs:
            common = least_common(common, d)
        joint: dict = {}
        for values, (w, d) in pairs:
            joint[values] = joint.get(values, 0) + w * (common // d)
        env = {k: v for k, v in zip(names, key[0]) if v is not MISSING}
        groups.append(Group(env, first.state, steps, joint, common, size))
    return groups


def ungrouped(explorer: Explorer, groups: list, counters: tuple) -> list:
    """The groups as worlds again, one per value of their counters (those too unlikely
    to follow left out, as a branch leaves them)."""
    out = []
    prune = explorer.prune
    count = len(counters)
    for group in groups:
        for values, w in group.joint.items():
            weight = (w, group.denominator)
            if below(weight, prune):
                explorer.lost.add(weight)
                continue
            env = {**group.env, **dict(zip(counters, unpack(values, count)))}
            out.append(World(env, group.state, weight, group.steps))
    return out


def carried_pass(explorer: Explorer, body, groups: list, counters: tuple, live: Live, entry):
    """One pass of a loop's `body` over the groups (`entry`: the names the pass binds
    and the steps it counts before its body): (groups after, failures), or None where
    it cannot go on so (a counter not a whole number after it, a pass that may pass the
    step limit from a group's steps)."""
    bound, counted = entry
    limit = explorer.ctx.limits.steps_per_run
    zero = dict.fromkeys(counters, 0)
    parts: dict = {}  # key of the rest after → [env, state, steps, [(group, added, weight)]]
    failures: list = []
    found_all = []
    for group in groups:  # (every group's outcomes first: none is taken unless all are)
        env = {**group.env, **bound, **zero}
        found = _outcomes(explorer, body, env, group.state, counters, live, counted)
        if found is None or group.steps[1] + found[3] > limit:
            return None
        found_all.append(found)
    for group, (ends, failed, missing, peak) in zip(groups, found_all):
        explorer.peak = max(explorer.peak, group.steps[1] + peak)
        weight = group.weight
        if missing[0]:
            explorer.lost.add(times(weight, *missing))
        for state, failure, q in failed:
            failures.append((World(group.env, state, times(weight, *q)), failure))
        for key, env_after, state, (added, size), q, taken in ends:
            if group.size + size >= LARGEST:
                return None
            steps = plus(group.steps, *taken)
            part = parts.get(key)
            if part is None:
                part = parts[key] = [env_after, state, steps, []]
            else:
                part[2] = spread(part[2], steps)
            part[3].append((group, added, q, group.size + size))
    after = []
    for env_after, state, steps, sources in parts.values():
        group = _mixed(explorer, env_after, state, steps, sources)
        if group is not None:
            after.append(group)
    return after, failures


def _mixed(explorer: Explorer, env, state, steps, sources: list) -> Group | None:
    """The group the outcomes `sources` ((group before, amounts added, weight relative to
    it)) make together: each group's joint moved by the amounts, weighted, added up."""
    common = 1
    size = 0
    for group, _, (_, d), most in sources:
        common = least_common(common, group.denominator * d)
        size = max(size, most)
    joint: dict = {}
    work = 0
    get = joint.get
    for group, added, (w, d), _ in sources:
        scale = w * (common // (group.denominator * d))
        if not scale:
            continue
        if added:
            for values, weight in group.joint.items():
                moved = values + added
                joint[moved] = get(moved, 0) + weight * scale
        else:
            for values, weight in group.joint.items():
                joint[values] = get(values, 0) + weight * scale
        work += len(group.joint)
    explorer.roller.work += work // WORK_PER_UNIT
    if not joint:
        return None
    mixed = Group(env, state, steps, joint, common, size)
    if below(mixed.weight, explorer.prune):
        explorer.lost.add(mixed.weight)
        return None
    if common.bit_length() > TIDY_BITS:
        _tidy(mixed)
    return mixed


def _tidy(group: Group) -> None:
    """The common factor of a group's weights and its denominator taken out."""
    common = group.denominator
    for w in group.joint.values():
        common = gcd(common, w)
        if common == 1:
            return
    group.denominator //= common
    group.joint = {k: w // common for k, w in group.joint.items()}


def _outcomes(explorer: Explorer, body, env, state, counters: tuple, live: Live, counted: int):
    """A pass's outcomes from one state, relative to it (found once for that state):
    ([(key of the rest, rest, sheet, amounts added, weight, steps taken)], [(sheet,
    Failure, weight)], weight lost, the most steps a run reached), or None (a counter
    not a whole number after it)."""
    names = tuple(sorted(env))  # (the rest, cut to what is read before the body: all)
    key = (
        "pass",
        block_key(body),
        live,
        key_of(env, names, (), state),
        counted,
        explorer.depth,
        explorer.outer,  # (inside a call, what its callers read: what its merges keep)
    )
    memory = explorer.calls
    if key in memory:
        return memory[key]
    saved, explorer.lost = explorer.lost, Mass()
    peak, explorer.peak = explorer.peak, 0
    project = projection(explorer.sums, counters)
    try:
        start = World(env, state, ONE, plus(NO_STEPS, counted))  # (a die drawn: a world a face)
        rest = unchanged_rest(env, given_in(explorer, body), counters, live) if MERGED.on else None
        unchanged = rest is not None  # (every end keeps the rest as it was: its key known)
        first = key_of(env, rest, rest_cuts(rest, live), state) if rest is not None else None
        # (run once per face, nothing made of its worlds: odds.one_roll; else as ever)
        sums = (counters, project, rest, first)
        quick = explorer.face_outcomes(body, start, live, sums) if unchanged else None
        if type(quick) is list or quick is False:
            found: tuple | None = None
            if quick:
                found = (quick, [], explorer.lost.weight(), explorer.peak)
            memory[key] = found
            return found
        explorer.lost, explorer.peak = Mass(), 0  # (what it found dropped; a run asking more:
        worlds = starts(explorer, start)  # the worlds explored, not run once per face again)
        ends, failed = (explorer.ends if quick else explorer.pass_ends)(body, worlds, live)
        rest = rest_of(ends, counters, live) if rest is None else rest
        cuts = rest_cuts(rest, live)
        out: list = []
        whole = True  # (every counter a whole number after the pass)
        zero = pack((0,) * len(counters))
        alike: dict = {}  # (key after, amounts) → its index in `out` (the first key's: amounts)
        amounts: dict = {}  # the counters' values after → counted_to (ends share a few)
        read = itemgetter(*counters) if len(counters) > 1 else None
        for end in ends:
            # (the amounts as the sums they add to: a sum's counters added to as the sum)
            try:
                values = read(end.env) if read is not None else (end.env[counters[0]],)
            except KeyError:
                values = tuple([end.env.get(name, MISSING) for name in counters])
            try:
                counted_to = amounts[values]
            except KeyError:
                counted_to = amounts[values] = packed(values, project)
            except TypeError:  # (a value that is no key: no whole number either)
                counted_to = None
            if counted_to is None:
                whole = False
                break
            added = (counted_to[0] - zero, counted_to[1])  # (the amounts, packed)
            if first is not None and (end.state is state or end.state.snapshot() == first[1]):
                key_after, alike_key = first, added[0]
            else:
                key_after = key_of(end.env, rest, cuts, end.state)
                alike_key = (key_after, added[0])
            if MERGED.on:  # (ends alike, as one: each mixed into the groups once)
                at = alike.get(alike_key)
                if at is not None:
                    same = out[at]
                    size = max(same[3][1], added[1])
                    out[at] = (*same[:3], (added[0], size), plus_weight(same[4], end.weight),
                               spread(same[5], end.steps))  # fmt: skip
                    continue
                alike[alike_key] = len(out)
            kept = {k: v for k, v in zip(rest, key_after[0]) if v is not MISSING}
            out.append((key_after, kept, end.state, added, end.weight, end.steps))
        found = None
        if whole:
            failures = [(world.state, failure, world.weight) for world, failure in failed]
            found = (out, failures, explorer.lost.weight(), explorer.peak)
    finally:
        explorer.lost = saved
        explorer.peak = peak
    memory[key] = found
    return found


def regrouped(explorer: Explorer, groups: list, counters: tuple, live: Live) -> list:
    """Groups that agree on what is still read (`live`) made one: their joints added up
    (worlds merged by their full state, the counters mixed), the rest of each cut to
    what is read."""
    names, cuts = rest_kept(groups, counters, live)
    if len(groups) == 1:  # (none to make one with: its rest cut to what is read)
        one = groups[0]
        env = kept_of(one.env, names, cuts)
        return [Group(env, one.state, one.steps, one.joint, one.denominator, one.size)]
    parts: dict = {}
    for group in groups:
        key = key_of(group.env, names, cuts, group.state)
        found = parts.get(key)
        if found is None:
            found = parts[key] = [group.state, group.steps, []]
        else:
            found[1] = spread(found[1], group.steps)
        found[2].append(group)
    out = []
    for key, (state, steps, sources) in parts.items():
        env = {k: v for k, v in zip(names, key[0]) if v is not MISSING}
        if len(sources) == 1:  # (its rest cut to what is read: a pass from it found once)
            one = sources[0]
            out.append(Group(env, one.state, one.steps, one.joint, one.denominator, one.size))
            continue
        mixed = _mixed(explorer, env, state, steps, [(g, 0, ONE, g.size) for g in sources])
        if mixed is not None:
            out.append(mixed)
    return out


class Held:
    """Worlds kept as groups from one loop to the next that adds to the same counters."""

    __slots__ = ("counters", "groups")

    def __init__(self, groups: list, counters: tuple) -> None:
        self.groups, self.counters = groups, counters


def worlds_of(explorer: Explorer, worlds) -> list:
    """Worlds, whether held as groups or not."""
    if type(worlds) is Held:
        return ungrouped(explorer, worlds.groups, worlds.counters)
    return worlds


def carried_loop(explorer: Explorer, held: Held, header, lives, rest, keep: bool):
    """A loop over groups (`held`): its header (`header`: (the ends of a world's run
    giving what the passes go over, as Explorer.explore gives them, entries of its
    passes)) once per group, then the passes carried; where a pass cannot be,
    `rest(what, worlds, passes done)` goes on pass by pass. Returns (worlds after, or
    Held where `keep` and every pass was carried, failures)."""
    ends_of, entries_of = header
    counters = held.counters
    failures: list = []
    by_header: dict = {}
    for group in held.groups:
        weight = group.weight
        for after, value in ends_of(World(group.env, group.state, ONE, group.steps)):
            n_, d = after.weight
            if isinstance(value, Failure):
                failures.append((World(after.env, after.state, times(weight, n_, d)), value))
                continue
            joint = group.joint if n_ == 1 else {k: w * n_ for k, w in group.joint.items()}
            denominator = group.denominator * d
            part = Group(group.env, after.state, after.steps, joint, denominator, group.size)
            by_header.setdefault(hashable(value), (value, []))[1].append(part)
    done_groups: list = []
    done_worlds: list = []
    for value, groups in by_header.values():
        entries = entries_of(value)
        groups, failed, done = carried_passes(explorer, groups, counters, lives, entries)
        failures.extend(failed)
        if done < len(entries):
            worlds, failed = rest(value, ungrouped(explorer, groups, counters), done)
            failures.extend(failed)
            done_worlds.extend(worlds)
        else:
            done_groups.extend(groups)
    if keep and not done_worlds:
        return Held(done_groups, counters), failures
    return ungrouped(explorer, done_groups, counters) + done_worlds, failures


def carried_passes(explorer: Explorer, groups: list, counters: tuple, lives, entries):
    """Passes of a loop's body (`lives`: (body, what is read after a pass, and before
    one)) over groups; `entries`: each pass's names bound and steps counted before its
    body: (groups after, failures, the passes done); the passes not done cannot be
    carried (the groups before them returned)."""
    body, loop, entering = lives
    failures: list = []
    done = 0
    before = None  # the one group a pass began from, where there was one
    index = 0
    alike_from = _alike(entries)
    while index < len(entries):
        entry = entries[index]
        groups = regrouped(explorer, groups, counters, entering)
        alone = groups[0] if len(groups) == 1 else None
        first = index == 0 or entries[index - 1] != entry  # (of passes entered alike)
        alike = alike_from[index] if first else 1
        if alone is not None and alike > 1:
            # passes that leave their group as they found it (but for its counters), to
            # the last (what it leaves is read after the loop as it is): all at once
            powered = _powered(explorer, body, alone, counters, (loop, entry), alike, True)
            if powered is not None:
                groups = [powered]
                done += alike
                index += alike
                explorer.work()
                continue
        if alone is not None and before is not None and not first:
            # the passes entered as this one (the loop's last as any: what it leaves is read)
            more = alike_from[index]
            more -= index + more == len(entries)
            if more > 1 and _same(before, alone):
                powered = _powered(explorer, body, alone, counters, (loop, entry), more)
                if powered is not None:
                    groups = [powered]
                    done += more
                    index += more
                    before = alone
                    explorer.work()
                    continue  # (the next pass may be entered otherwise)
        before = alone
        step = carried_pass(explorer, body, groups, counters, loop, entry)
        if step is None:
            break
        groups, failed = step
        failures.extend(failed)
        done += 1
        index += 1
        explorer.work()
    return groups, failures, done


def _same(a: Group, b: Group) -> bool:
    """Whether two groups hold the same rest and sheet (a pass from either does the same)."""
    return a.env == b.env and a.state.snapshot() == b.state.snapshot()


def _alike(entries: list) -> list[int]:
    """For each pass, how many from it on are entered alike (the same names bound, the
    same steps counted)."""
    if entries and entries.count(entries[0]) == len(entries):  # (a repeat's: all alike)
        return list(range(len(entries), 0, -1))
    counts = [1] * len(entries)
    for index in range(len(entries) - 2, -1, -1):
        if entries[index] == entries[index + 1]:
            counts[index] = counts[index + 1] + 1
    return counts


def _powered(
    explorer: Explorer, body, group: Group, counters: tuple, pass_, count: int, alone=False
):
    """`count` passes from a group that a pass leaves as it found it (but for its
    counters): the amounts one pass adds, as a distribution, to the `count`th power (by
    squaring), added to the counters at once. None where a pass stops some runs or
    loses weight, or the steps or the counters may pass their limits; and, where
    `alone` (not known from a pass before), where a pass from the group may leave its
    rest (what `pass_`'s live reads after it) or its sheet otherwise than it found them."""
    live, (bound, counted) = pass_
    env = {**group.env, **bound, **dict.fromkeys(counters, 0)}
    found = _outcomes(explorer, body, env, group.state, counters, live, counted)
    if found is None:
        return None
    ends, failed, missing, peak = found
    if failed or missing[0] or not ends:
        return None
    if alone:
        sheet = group.state.snapshot()
        for _key, kept, state, _added, _weight, _taken in ends:
            if kept != group.env or state.snapshot() != sheet:
                return None
    (fewest, most), largest, common = ends[0][5], 0, 1
    for end in ends:  # (the steps, the sizes and the denominators of the outcomes)
        fewest, most = min(fewest, end[5][0]), max(most, end[5][1])
        largest, common = max(largest, end[3][1]), least_common(common, end[4][1])
    last = group.steps[1] + (count - 1) * most  # (the steps the last pass starts from)
    size = group.size + count * largest
    if last + peak > explorer.ctx.limits.steps_per_run or size >= LARGEST:
        return None
    one: dict = {}
    for _key, _env, _state, (added, _size), (w, d), _taken in ends:
        one[added] = one.get(added, 0) + w * (common // d)
    powered: dict | None = None  # (none yet: the sum of no passes)
    left = count
    while left:  # (by squaring: the passes left to add, bit by bit)
        if left & 1:
            powered = one if powered is None else convolved_joints(explorer, powered, one)
        left >>= 1
        if left:
            one = convolved_joints(explorer, one, one)
    assert powered is not None  # (count > 1)
    joint = convolved_joints(explorer, group.joint, powered)
    explorer.peak = max(explorer.peak, last + peak)
    denominator = group.denominator * common**count
    steps = (group.steps[0] + count * fewest, group.steps[1] + count * most)
    mixed = Group(group.env, group.state, steps, joint, denominator, size)
    if denominator.bit_length() > TIDY_BITS:
        _tidy(mixed)
    return mixed
