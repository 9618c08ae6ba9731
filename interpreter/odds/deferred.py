"""A value kept whole for the one statement reading it: counted there once, or over intervals.

`let force = d4 + d2` then `let c = against(force)`: the explorer would make a world per
value of `force` in every world it has, and run `against` once in each, though the
worlds differ only in what neither statement reads (an earlier roll, a sheet written
before). When the value is read by the next statement alone (a `let` that changes
nothing on the sheet), it is kept whole (Deferred) and that statement's outcomes are
counted over its values once, relative to a world's probability, for the values of the
other names it reads and of what it read of the sheet (interpreter.odds.reads), then
weighted into every world that holds the same.

Narrowing, where that statement only compares the value: `let m = tirada(...)` then `let
primero = if m.total > s.total then "teúrgo" else if m.total < s.total then "rival" else
"empate"`: counted value by value (Mixer, or a world per value), the statement runs once
per value of `m.total` in every world, though all it can tell of it is on which side of
`s.total` it falls. When every mention of the deferred name in the statement is the same
field path (`m.total`, or `m` itself) compared (<, <=, >, >=, =, !=) with a value the
run knows, and that path holds whole numbers, the value is kept as an interval of its
sorted distinct values (Narrowed): a comparison with a known number splits the interval
where the number falls, by running sums of the weights (a bisection), and the run
branches on the parts (two; three for `=`/`!=`: below, at, above, so that each part
stays an interval), each with its weight over the interval's; a part that is empty
decides the comparison without branching. The next comparison in the same run sees the
narrowed interval, so a ladder of comparisons makes as many worlds as it has answers,
not one per value. Compared with anything else (a distribution, a text, `none`), the
value is forced: a branch per value of the interval, as a `let` would make. Each run
starts from the whole interval again, its branches replayed from the roller's pins as
every run's are.
"""

from __future__ import annotations

import operator
from bisect import bisect_left, bisect_right
from itertools import accumulate
from math import gcd

import attrs

from dsl import nodes as n
from interpreter.compiled import Binding, Operation
from interpreter.odds.distribution import Dist
from interpreter.odds.order import ORDERINGS
from interpreter.odds.reads import ReadMemory
from interpreter.odds.roller import hashable
from interpreter.odds.weights import ONE, Mass, below, times
from interpreter.odds.worlds import Failure, World
from interpreter.runtime import Unknown, lift
from interpreter.state import MISSING
from interpreter.values import Record

#: the operators a narrowed value may stand on a side of
COMPARED = frozenset((">", ">=", "<", "<=", "=", "!="))
#: x OP y as y FLIPPED x, for a narrowed value standing on the right
FLIPPED = {operator.gt: operator.lt, operator.ge: operator.le}
FLIPPED.update({v: k for k, v in FLIPPED.items()})


def path_to(node, name: str):
    """The field path of `node` if it is `name` or a chain of fields of it, else None."""
    fields = []
    while isinstance(node, n.Field):
        fields.append(node.name)
        node = node.subject
    if isinstance(node, n.Name) and node.name == name:
        return tuple(reversed(fields))
    return None


def root_of(node):
    """The name a chain of fields starts from (`s.total`: s), else None."""
    while isinstance(node, n.Field):
        node = node.subject
    return node.name if isinstance(node, n.Name) else None


def narrowing_of(expr, name: str):
    """(path, guards) if every mention of `name` in `expr` is `name.path` (one path) as
    an operand of a comparison whose other operand does not mention it; else None.
    Where the path stands on the right, the left operand is evaluated and lifted first:
    it must be a number literal, or a chain of fields of a name (`guards`: names that
    must hold a known value in the world, checked before each use)."""
    paths, guards = set(), set()
    stack = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend(item)
            continue
        if isinstance(item, n.Name):
            if item.name == name:
                return None  # read otherwise than compared
            continue
        if not attrs.has(type(item)):
            continue
        if isinstance(item, n.Binary) and item.op in COMPARED:
            left, right = path_to(item.left, name), path_to(item.right, name)
            if left is not None or right is not None:
                other = item.right if left is not None else item.left
                if (left is not None and right is not None) or name in n.field_paths(other):
                    return None
                if isinstance(other, n.Text) or (
                    isinstance(other, n.Literal) and type(other.value) is not int
                ):
                    return None  # `= "text"`, `= none`: may compare a field's name
                if right is not None and not isinstance(other, n.Literal):
                    root = root_of(other)
                    if root is None:
                        return None
                    guards.add(root)
                paths.add(left if left is not None else right)
                continue  # (the other side does not mention it)
        stack.extend(n.parts(item))
    if len(paths) != 1:
        return None
    return paths.pop(), frozenset(guards)


def projected(dist: Dist, path: tuple):
    """(sorted distinct values, running sums of their weights) of `path` read of each
    outcome, if every outcome is a record (or, for the empty path, a whole number) whose
    path holds a whole number; else None."""
    weights: dict = {}
    for outcome, weight in dist.weights.items():
        value = outcome
        for field in path:
            if type(value) is not Record:
                return None
            value = value.get(field)
        if type(value) is not int:
            return None
        weights[value] = weights.get(value, 0) + weight
    values = sorted(weights)
    return values, [0, *accumulate(weights[v] for v in values)]


class Interval:
    """One run's knowledge of a narrowed value: indices lo..hi of its sorted values."""

    __slots__ = ("hi", "lo", "roller", "running", "values")

    def __init__(self, values: list, running: list, roller):
        self.values, self.running, self.roller = values, running, roller
        self.reset()

    def reset(self) -> None:
        self.lo, self.hi = 0, len(self.values)

    def mass(self, lo: int, hi: int) -> int:
        return self.running[hi] - self.running[lo]

    def split(self, parts: tuple):
        """The part (lo, hi) the run is in, of parts that tile the interval: a branch over
        the non-empty ones, each with its weight (replayed from the roller's pins)."""
        kept = [(lo, hi) for lo, hi in parts if hi > lo]
        if len(kept) > 1:
            weights = {index: self.mass(*part) for index, part in enumerate(kept)}
            kept = [kept[self.roller.resolve(Dist(weights, self.mass(self.lo, self.hi)))]]
        self.lo, self.hi = kept[0]
        return kept[0]

    def cut(self, at: int) -> int:
        return min(max(at, self.lo), self.hi)

    def ordered(self, compare, y: int) -> bool:
        """compare(x, y) for x in the interval (>, >=, <, <=), narrowing it to the answer."""
        upper = compare in (operator.gt, operator.le)  # x > y: past the values at most y
        at = self.cut((bisect_right if upper else bisect_left)(self.values, y))
        lo, _hi = self.split(((self.lo, at), (at, self.hi)))
        below = lo < at  # the run is in the part under the cut
        return below if compare in (operator.lt, operator.le) else not below

    def equal(self, y: int) -> bool:
        """x = y for x in the interval: below, at or above y."""
        a = self.cut(bisect_left(self.values, y))
        b = self.cut(bisect_right(self.values, y))
        lo, hi = self.split(((self.lo, a), (a, b), (b, self.hi)))
        return lo == a and hi == b and b > a

    def forced(self):
        """The value itself: a branch per value of the interval."""
        lo, _hi = self.split(tuple((i, i + 1) for i in range(self.lo, self.hi)))
        return self.values[lo]


class Narrowed(Unknown):
    """A deferred value read through `path`, known within an Interval (see the module)."""

    __slots__ = ("depth", "interval", "path")

    def __init__(self, interval: Interval, path: tuple, depth: int = 0):
        self.interval, self.path, self.depth = interval, path, depth

    def field(self, name: str, function):  # noqa: ARG002 (an Unknown value's interface: runtime.UnknownValue)
        if self.depth < len(self.path) and name == self.path[self.depth]:
            return Narrowed(self.interval, self.path, self.depth + 1)
        raise AssertionError("a narrowed value read through another path")  # narrowing_of

    def map(self, function):
        return Dist.point(function(self.value()))

    def project(self, fields: tuple):  # noqa: ARG002 (an Unknown value's interface: runtime.UnknownValue)
        raise AssertionError("a narrowed value kept whole")  # narrowing_of: only compared

    def value(self) -> int:
        if self.depth != len(self.path):
            raise AssertionError("a narrowed value read short of its path")
        return self.interval.forced()

    def lift(self, function, values: tuple):
        if len(values) == 2 and self.depth == len(self.path):
            mine = 0 if values[0] is self else 1
            other = values[1 - mine]
            if type(other) is int:
                compare = function.ints if type(function) is Operation else None
                if compare in ORDERINGS:
                    return self.interval.ordered(compare if mine == 0 else FLIPPED[compare], other)
                same = equality(function)
                if same is not None:
                    return self.interval.equal(other) is same
        forced = tuple(self.value() if v is self else v for v in values)
        return lift(function, *forced)


def equality(function):
    """True for `=`'s function, False for `!=`'s, else None: the only others a narrowed
    value meets (narrowing_of), told apart by what they answer for whole numbers."""
    same, other = function(0, 0), function(0, 1)
    if same is True and other is False:
        return True
    if same is False and other is True:
        return False
    return None


class Narrowing:
    """The narrowed runs of statements over deferred values, for one explorer."""

    def __init__(self, roller):
        self.roller = roller
        self.statements: dict = {}  # (statement's number, name) → narrowing_of
        self.sorted: dict = {}  # (the distribution's number, path) → projected

    def of(self, statement, name: str, world):
        """The statement's path and the projection of `world`'s deferred `name`, if the
        statement may count over it narrowed; else None."""
        key = (statement.number, name)
        how = self.statements.get(key, MISSING)
        if how is MISSING:
            how = self.statements[key] = narrowing_of(statement.node.expr, name)
        if how is None:
            return None
        path, guards = how
        env = world.env
        for guard in guards:
            if guard not in env or isinstance(env[guard], Unknown):
                return None
        dist = env[name].dist
        key = (dist.number, path)
        found = self.sorted.get(key, MISSING)
        if found is MISSING:
            found = self.sorted[key] = projected(dist, path)
        if found is None:
            return None
        return path, found

    def start(self, statement, path: tuple, sorted_values: tuple):
        """(the value to bind, a run of the statement that starts from the whole interval,
        the mass of the value kept: the world's weight is multiplied by it)."""
        values, running = sorted_values
        interval = Interval(values, running, self.roller)

        def run(ctx):
            interval.reset()
            return statement.run(ctx)

        return Narrowed(interval, path), run, running[-1]


class Deferred:
    """A `let`'s distribution not branched on yet: equal to another for the same one."""

    __slots__ = ("dist",)

    def __init__(self, dist):
        self.dist = dist

    def __eq__(self, other) -> bool:
        return type(other) is Deferred and other.dist is self.dist

    def __hash__(self) -> int:
        return hash(self.dist.number)


def deferrable(statements: tuple, index: int, live: list, explorer) -> bool:
    """Whether the value `statements[index]` (a `let`) binds is read by the next statement
    alone, a `let` whose value is read later and that changes nothing on the sheet, run
    as a `let` (not a called action's steps)."""
    name = statements[index].node.name
    if index + 1 >= len(statements) or name in live[index + 1].needs:
        return False
    following = statements[index + 1]
    node, shape = following.node, following.shape
    return (
        isinstance(node, n.Let)
        and type(shape) is Binding
        and node.name != name
        and node.name in live[index + 1].needs
        and shape.pure
        and shape.split is None
        and not explorer.calls_in(following)
        and name in explorer.names_read(node.expr).needs
    )


def deferred_in(world: World, reads: dict):
    """The name in `world` holding a Deferred value that a statement reads, or None."""
    for name in reads:
        if type(world.env.get(name)) is Deferred:
            return name
    return None


def others_of(world: World, name: str, reads: dict) -> tuple:
    """The values of the other names a statement reads, in `world`."""
    return tuple(hashable(world.env.get(other)) for other in reads if other != name)


def shared(worlds: list, reads: dict) -> dict:
    """How many worlds hold a deferred value with the same other values read: where that
    is one, counting over the value once serves no other world (it is branched on)."""
    counts: dict = {}
    for world in worlds:
        name = deferred_in(world, reads)
        if name is not None:
            key = (world.env[name], others_of(world, name, reads))
            counts[key] = counts.get(key, 0) + 1
    return counts


def expanded(world: World, name: str, explorer) -> list:
    """The worlds of each value of `world`'s deferred `name`, as a `let` makes them."""
    dist = world.env[name].dist
    return [
        World({**world.env, name: value}, world.state, weight, world.steps)
        for value, weight in explorer.weighted(dist, world.weight)
    ]


class Mixer:
    """The outcomes of a statement over a deferred value's distribution, remembered."""

    def __init__(self, explorer):
        self.explorer = explorer
        self.memory = ReadMemory()
        self.narrowing = Narrowing(explorer.roller)

    def outcomes(
        self, statement, world: World, name: str, reads: dict, values_of, how, narrowed=None
    ) -> tuple:
        """([(value, weight)], [(Failure, weight)], weight lost, steps) of running
        `statement` in `world` for each value of its deferred `name`, each weight relative
        to the world's; `steps`: (fewest, most) the runs took to end, counted from none,
        and the most any run reached (`Explorer.peak`). `values_of(after)` gives the
        (value, weight) pairs of one run's end, as `how` says (what is read after the
        statement, and whether its value is deferred).
        `narrowed` (Narrowing.of): the statement only compares the value, and is run over
        intervals of it (Narrowing), not once per value."""
        explorer = self.explorer
        ctx = explorer.ctx
        dist = world.env[name].dist
        others = tuple(world.env.get(other) for other in reads if other != name)
        key = (statement.number, dist.number, explorer.depth, how, others_of(world, name, reads))

        def starts(state):
            if narrowed is not None:
                value, run, kept = self.narrowing.start(statement, *narrowed)
                yield World({**world.env, name: value}, state, (kept, dist.total)), run
                return
            for value, weight in explorer.weighted(dist, ONE):
                yield World({**world.env, name: value}, state, weight), statement.run

        def compute(_cut):
            state = ctx.state  # the world's sheet, watched: what the runs read of it
            saved, explorer.lost = explorer.lost, Mass()
            peak, explorer.peak = explorer.peak, 0  # its runs' steps, from none
            values: dict = {}
            failures: list = []
            fewest, most = None, 0
            try:
                for start, run in starts(state):
                    for after, outcome in explorer.explore(start, run):
                        low, high = after.steps
                        fewest = low if fewest is None else min(fewest, low)
                        most = max(most, high)
                        if narrowed is not None:  # m1/kept × m2/m1 …: over the total, once
                            common = gcd(*after.weight)
                            after.weight = (after.weight[0] // common, after.weight[1] // common)
                        if isinstance(outcome, Failure):
                            failures.append((outcome, after.weight))
                            continue
                        for kept, w in values_of(after):
                            found = values.get(kept)
                            if found is None:
                                values[kept] = found = Mass()
                            found.add(w)
                pairs = [(kept, mass.weight()) for kept, mass in values.items()]
                steps = (fewest or 0, most, explorer.peak)
                return pairs, failures, explorer.lost.weight(), steps
            finally:
                explorer.lost = saved
                explorer.peak = peak

        ctx.state = world.state
        return self.memory.get(key, ctx, compute, 0, (dist, others))

    def weighted(self, relative: list, weight: tuple):
        """(value, weight × relative weight) of the outcomes likely enough to follow."""
        explorer = self.explorer
        prune = explorer.prune
        for value, w in relative:
            w = times(weight, *w)
            if below(w, prune):
                explorer.lost.add(w)
            else:
                yield value, w
