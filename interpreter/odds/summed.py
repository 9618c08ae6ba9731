"""A roll read only through sums: the lets after it counted by adding, not world by world.

`let pushed = (count(b, 2..5))d6` then `let hits = count(b, 6) + count(pushed, 6)` and
`let ones = count(b, 1) + count(pushed, 1)`: the explorer would make a world per value of
`pushed` in every world it has (n⁴/24 worlds for n dice pushed) and run both lets in
each. But each let adds a part that reads only the world (`count(b, 6)`) to a part that
reads only the roll (`count(pushed, 6)`), so its value in a world W for a value v of the
roll is A(W) + B(v) = X(W, v₀) + X(R, v) - X(R, v₀), for any world R and value v₀: the
lets are run once per world (with one value of the roll) and once per value of the roll
(in one world), and the worlds after them are made by adding whole numbers.

The rule, checked on the statements (`plan_of`): `let p = e` is followed by `let`s that
change nothing and cannot fail, up to the last one reading `p`; a let reading `p`, or a
name such a let binds, is a sum (`+`, `-`, unary `-`, `if c then … else …`) of parts
that read only the roll's names (`p` and the lets reading only them: any expression of
them), or a let reading the world too (one such name whole), or neither; what those
parts and the `if`s' conditions read of the world (`keys`) is the same in the worlds a
value's run stands for. At run time (`summed_run`): every run ends in one world (no
dice, no branch), the values added are whole numbers, the runs of one value of the roll
take the same steps, and the worlds whose `let p` raises the same distribution share its
values (a value bound is the distribution's outcome, or a pool's answers to the same
questions: the roller remembers one distribution per term and questions). Anything else:
the statements run one by one as before.
"""

from __future__ import annotations

from operator import add, sub
from typing import Any

from dsl import nodes as n
from interpreter.compiled import Binding, Plain, block_key
from interpreter.odds.roller import Branch, Letting, hashable
from interpreter.odds.weights import ONE, TIDY_BITS, Mass, times
from interpreter.odds.worlds import STOPS, Failure, World, cuts_of, entered, key_of, plus, spread
from interpreter.state import MISSING

#: the nodes that roll dice (a let after the roll holding one is not counted by adding)
DICE = (n.Dice, n.RollGroup, n.SymbolDice)
#: the fewest worlds worth it (one world: as many runs either way)
FEWEST_WORLDS = 2
#: pairs of (world, value) added up in one unit of work (interpreter.odds.budget)
PAIRS_PER_WORK = 64


class Plan:
    """What `plan_of` found: the last statement reading the roll, the names whose sums
    are read after it (`out`), the world's names the roll's parts depend on (`keys`),
    the statements to run (those not idle), the names they give a value (`bound`), and
    the world's names the roll and they read (`reads`: worlds alike in them and in
    their sheet have the same runs)."""

    __slots__ = ("bound", "keys", "last", "out", "reads", "runs")

    def __init__(self, last: int, out: tuple, keys: tuple, runs: tuple, reads: tuple) -> None:
        self.last, self.out, self.keys, self.runs = last, out, keys, runs
        self.bound = tuple(statement.node.name for statement in runs)
        self.reads = reads  # (of the roll's `let`, of the lets after it)


def plan_of(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    """The plan for statements[index] (see the module's docstring), or None where the
    rule does not hold."""
    return remembered_plan(explorer, "summed", _plan, statements, index, live)


def remembered_plan(explorer, shortcut: str, make, statements: tuple, index: int, live: list):
    """What `make(explorer, statements, index, live)` plans for statements[index] under
    `shortcut`, made once per block and liveness: remembered with the blocks' liveness."""
    key = (shortcut, block_key(statements), index, live[-1])
    found = explorer.liveness.get(key, MISSING)
    if found is MISSING:
        found = explorer.liveness[key] = make(explorer, statements, index, live)
    return found


def pure_let(explorer, statement) -> bool:
    """Whether a statement is a `let` that changes nothing and calls no action."""
    shape = statement.shape
    return (
        isinstance(statement.node, n.Let)
        and type(shape) is Binding
        and shape.pure
        and shape.split is None
        and not explorer.calls_in(statement)
    )


def _plan(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    first = statements[index]
    plain = isinstance(first.node, n.Let) and type(first.shape) is Plain  # (a pool's)
    if not plain and not pure_let(explorer, first):
        return None
    roll = first.node.name
    if roll not in live[index].needs:
        return None
    reads = explorer.names_read
    pure: set = {roll}  # the roll and the lets reading only it
    mixed: set = set()  # the lets adding a part of the world to a part of the roll
    keys: set = set()
    bound: set = set()  # names the statements after the roll give a value
    runs = []
    last = None
    for k in range(index + 1, len(statements)):
        statement = statements[k]
        if explorer.idle(statement, live[k]):
            if roll not in live[k].needs:
                last = k
                break
            continue
        if not pure_let(explorer, statement) or not explorer.safe(statement.node.expr):
            return None
        if any(isinstance(part, DICE) for part in n.walk(statement.node.expr)):
            return None  # (a let rolling dice: its worlds are made one by one)
        name, expr = statement.node.name, statement.node.expr
        if name in pure or name in mixed or name in bound:
            return None
        read = set(reads(expr).needs)
        if read & (pure | mixed):
            if read <= pure:
                pure.add(name)
            elif separable(expr, pure, mixed, keys, reads):
                mixed.add(name)
            else:
                return None
        bound.add(name)
        runs.append(statement)
        if roll not in live[k].needs:
            last = k
            break
    if last is None or not runs or keys & bound:
        return None
    after = live[last].needs
    out = tuple(sorted(name for name in (pure | mixed) - {roll} if name in after))
    if any(after[name] is not None for name in out):
        return None
    of_runs: set = set()
    for statement in runs:
        of_runs.update(reads(statement.node.expr).needs)
    asked = question_reads(explorer, statements[index + 1 : last + 1], roll)
    of_roll = set(reads(first.node.expr).needs) | asked
    world = (tuple(sorted(of_roll)), tuple(sorted(of_runs - bound - {roll})))
    return Plan(last, out, tuple(sorted(keys)), tuple(runs), world)


def separable(expr, pure: set, mixed: set, keys: set, reads) -> bool:
    """Whether `expr` is A(world) + B(roll) (see the module's docstring); what its roll's
    parts and conditions read of the world added to `keys`."""
    read = set(reads(expr).needs)
    if not read & (pure | mixed) or isinstance(expr, n.Name):
        return True  # (a part of the world, or a name of the roll's, whole)
    more: set = set()
    parts: tuple = ()
    if isinstance(expr, n.Binary) and expr.op in ("+", "-"):
        parts = (expr.left, expr.right)
    elif isinstance(expr, n.Unary) and expr.op == "-":
        parts = (expr.operand,)
    elif isinstance(expr, n.IfExpr):
        tested = set(reads(expr.condition).needs)
        if not tested & (pure | mixed):
            more.update(tested)
            parts = (expr.then, expr.otherwise)
    if parts and all(separable(part, pure, mixed, more, reads) for part in parts):
        keys.update(more)
        return True
    if read & mixed:
        return False
    keys.update(read - pure)  # a part of the roll alone (what else it reads: the same)
    return True


def question_reads(explorer, statements: tuple, name: str) -> set:
    """The names the questions asked of the pool `name` in `statements` read (a pool's
    `let` asks them as it rolls: interpreter.compile.pools.questions_about)."""
    out: set = set()
    for statement in statements:
        for part in n.walk(statement.node):
            if type(part) is n.Call and part.args and _is(part.args[0], name):
                for other in (*part.args[1:], *(value for _, value in part.named)):
                    out.update(explorer.names_read(other).needs)
    return out


def _is(expr, name: str) -> bool:
    return type(expr) is n.Name and expr.name == name


def summed_run(explorer, statements: tuple, index: int, worlds, live: list):
    """statements[index] and the lets after it up to the last reading its value, counted
    by adding (see the module's docstring): (worlds after, failures, the index of the
    next statement), or None (run them one by one)."""
    if type(worlds) is not list or len(worlds) < FEWEST_WORLDS:
        return None
    plan = plan_of(explorer, statements, index, live)
    if plan is None:
        return None
    first = statements[index]
    most = explorer.most_steps(first.node) + sum(explorer.most_steps(s.node) for s in plan.runs)
    limit = explorer.ctx.limits.steps_per_run
    if any(world.steps[1] + most > limit for world in worlds):
        return None  # (a run that may stop at the limit: one by one)
    found = roll_values(explorer, first, worlds, plan.reads[0], live[index])
    if found is None:
        return None
    groups, of_world = found
    sums = _sums(explorer, plan, worlds, groups, of_world, first.node.name)
    if sums is None:
        return None
    after = added_worlds(explorer, plan.out, worlds, groups, of_world, sums, live[plan.last])
    return after, [], plan.last + 1


def _probe(explorer, statement, world: World, binding):
    """The first run of `let p` in `world`: (what its value's worlds are shared by, the
    steps it took), or None (a failure, a stop, a distribution not whole). A pool's
    `let` (`binding`: its Letting) raises the distribution of the values it binds
    ("bound": not run again value by value)."""
    ctx, roller = explorer.ctx, explorer.roller
    start = entered(explorer, world)
    roller.binding = binding
    try:
        statement.run(ctx)
    except Branch as branch:
        explorer.counted(start)
        dist = branch.dist
        if branch.stops or dist.missing():
            return None
        if branch.bound is None:
            return ("dist", dist.number, dist), ctx.steps - start
        if binding is None or branch.bound != binding.name:
            return None
        return ("bound", dist.number, dist), ctx.steps - start
    except STOPS:
        explorer.counted(start)
        return None
    finally:
        roller.binding = None
    explorer.counted(start)
    return ("value", hashable(ctx.env.get(statement.node.name))), ctx.steps - start


def roll_values(explorer, statement, worlds: list, reads: tuple, live):
    """The roll's values for each world's group ({group key: ([(value, weight)], total)}:
    each value's weight over the total), and each world's (group key, steps of the let);
    None where they cannot be shared. (The let is run once for the worlds alike in what
    it `reads` and their sheet; `live`: what is read after it.)"""
    of_world = []
    groups: dict = {}
    probes: dict = {}
    binding = None
    if type(statement.shape) is Plain:  # (a pool's let: its values given at once)
        binding = Letting(statement.node.name, live, explorer.depth, False, None)
    for world in worlds:
        alike = alike_in(world, reads)
        probed = probes.get(alike, MISSING)
        if probed is MISSING:
            probed = probes[alike] = _probe(explorer, statement, world, binding)
        if probed is None:
            return None
        shared, taken = probed
        key = shared[:2]
        of_world.append((key, taken))
        if key in groups:
            continue
        if shared[0] == "value":
            groups[key] = ([(shared[1], 1)], 1)
            continue
        dist = shared[2]
        if shared[0] == "bound":
            groups[key] = (list(dist.weights.items()), dist.total)
            continue
        values = _pinned(explorer, statement, world, dist, taken)
        if values is None:
            return None
        groups[key] = (values, dist.total)
    return groups, of_world


def _pinned(explorer, statement, world: World, dist, taken: int):
    """`let p` run in `world` once per outcome of the distribution its first run raised:
    [(value bound, the outcome's weight)], or None where a run raises another, stops, or
    takes other steps."""
    ctx, roller = explorer.ctx, explorer.roller
    name = statement.node.name
    start = world.steps[1]
    state = world.state.copy()
    out = []
    for outcome, weight in dist.weights.items():
        explorer.work()
        ctx.env = dict(world.env)
        ctx.state = state
        ctx.depth = ctx.calls = explorer.depth
        roller.pins, roller.cursor = (outcome,), 0
        roller.weight = world.weight
        ctx.recount(start)
        try:
            statement.run(ctx)
        except (Branch, *STOPS):
            explorer.counted(start)
            return None
        explorer.counted(start)
        if ctx.steps - start != taken or roller.cursor != 1:
            return None
        out.append((ctx.env.get(name, MISSING), weight))
    return out


def run_lets(explorer, runs: tuple, env: dict, world: World):
    """The lets run once from `env` on `world`'s sheet: (names after, steps taken), or
    None where they branch or stop."""

    def run(ctx):
        for statement in runs:
            statement.run(ctx)

    outs = explorer.explore(World(env, world.state, ONE, world.steps), run)
    if len(outs) != 1:
        return None
    after, outcome = outs[0]
    if isinstance(outcome, Failure) or after.weight != ONE:
        return None
    return after.env, after.steps[1] - world.steps[1]


def alike_in(world: World, names: tuple) -> tuple:
    """What a run reading `names` reads of a world: their values and its sheet."""
    values = tuple(map(world.env.get, names, [MISSING] * len(names)))
    try:
        hash(values)
    except TypeError:  # (a value compared by identity)
        values = tuple(map(hashable, values))
    return (values, world.state.snapshot())


def whole_sums(env: dict, out: tuple):
    values = tuple(env.get(name, MISSING) for name in out)
    return values if all(type(v) is int for v in values) else None


def _sums(explorer, plan: Plan, worlds: list, groups: dict, of_world: list, roll: str):
    """Each world's run with its group's first value ([(names after, steps, sums)]), and
    each class's (worlds alike in `keys` and sheet) sums for every value of the roll
    its worlds take ({class: {value: sums}}), or None."""
    out = plan.out
    by_world = []
    by_class: dict = {}
    bound = plan.bound
    ran_by: dict = {}  # (the runs of worlds alike in what they read, and the value)
    firsts: dict = {}  # group → (its first value, as a key)
    for world, (group, _) in zip(worlds, of_world):
        first = firsts.get(group)
        if first is None:
            value = groups[group][0][0][0]
            first = firsts[group] = (value, hashable(value))
        alike = (alike_in(world, plan.reads[1]), first[1])
        ran = ran_by.get(alike, MISSING)
        if ran is MISSING:
            ran = run_lets(explorer, plan.runs, {**world.env, roll: first[0]}, world)
            if ran is not None:
                sums = whole_sums(ran[0], out)
                given = {name: ran[0].get(name, MISSING) for name in bound}
                ran = None if sums is None else ({roll: first[0], **given}, ran[1], sums)
            ran_by[alike] = ran
        if ran is None:
            return None
        given, taken, sums = ran
        env = {**world.env, **given}
        cls = alike_in(world, plan.keys)
        by_world.append((env, taken, sums, cls))
        found = by_class.get(cls)
        if found is None:
            found = by_class[cls] = [world, {}, None, {}]
        reference, values, steps, of_group = found
        if group in of_group:
            continue
        for value, _ in groups[group][0]:
            seen = hashable(value)
            if seen in values:
                continue
            ran = run_lets(explorer, plan.runs, {**reference.env, roll: value}, reference)
            if ran is None or (steps is not None and ran[1] != steps):
                return None
            found[2] = steps = ran[1]
            sums = whole_sums(ran[0], out)
            if sums is None:
                return None
            values[seen] = sums
        # (each value's weight and sums, in the group's order: its first value's first)
        of_group[group] = [(w, values[hashable(value)]) for value, w in groups[group][0]]
    return by_world, by_class


def added_worlds(
    explorer, out: tuple, worlds: list, groups: dict, of_world: list, sums, live
) -> list:
    """The worlds after the lets: each world's sums (of the names `out`) moved by each
    value's, weighted, merged by what is read after them. (Worlds are merged first by what
    else they hold, the `prefix`, hashed once per world; then by the whole numbers added,
    hashed per pair.)"""
    by_world, by_class = sums
    needs = live.needs
    prune = explorer.prune
    of_prefix: dict = {}  # prefix → (kept, state, {added: [mass, steps]})
    of_shape: dict = {}  # the names of an env (in its order) → (names kept, their cuts)
    pairs = 0
    for world, (group, let_steps), (env, taken, first, cls) in zip(worlds, of_world, by_world):
        relative = by_class[cls][3][group]
        total = groups[group][1]
        base = tuple(map(sub, first, relative[0][1]))
        shape = tuple(env)
        shaped = of_shape.get(shape)
        if shaped is None:
            names = tuple(sorted(k for k in env if k in needs and k not in out))
            shaped = of_shape[shape] = (names, cuts_of(names, needs))
        names, cuts = shaped
        prefix = (names, key_of(env, names, cuts, world.state))
        entry = of_prefix.get(prefix)
        if entry is None:
            kept = {k: v for k, v in zip(names, prefix[1][0]) if v is not MISSING}
            entry = of_prefix[prefix] = (kept, world.state, {})
        merged: dict[tuple, list[Any]] = entry[2]
        steps = plus(world.steps, let_steps + taken)
        explorer.peak = max(explorer.peak, steps[1])
        numerator, denominator = world.weight
        denominator *= total
        # (the weight of a value w: numerator × w / denominator; below prune where less)
        scale, least = numerator * prune.denominator, prune.numerator * denominator
        tidy = denominator.bit_length() > TIDY_BITS
        for w, sums in relative:
            if w * scale < least:
                explorer.lost.add((numerator * w, denominator))
                continue
            added = tuple(map(add, base, sums))
            found = merged.get(added)
            if found is None:
                found = merged[added] = [Mass(), steps]
            elif found[1] != steps:
                found[1] = spread(found[1], steps)
            if tidy:
                found[0].add(times(world.weight, w, total))
            else:
                parts = found[0].parts
                parts[denominator] = parts.get(denominator, 0) + numerator * w
        pairs += len(relative)
        if pairs >= PAIRS_PER_WORK:
            explorer.roller.work += pairs // PAIRS_PER_WORK
            pairs %= PAIRS_PER_WORK
            explorer.work()
    result: list[Any] = []
    for kept, state, merged in of_prefix.values():
        for added, (mass, steps) in merged.items():
            env = {**kept, **dict(zip(out, added))}
            result.append(World(env, state, mass.weight(), steps))
    return result
