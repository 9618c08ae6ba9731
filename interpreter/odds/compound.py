"""Pools whose dice are rolled again die by die, counted as one compound die per die.

`let b = (n)d6`, `let p = (count(b, 2..5))d6` (Year Zero's push: every die showing 2 to
5 rolled again), then lets that add up counts of them (`count(b, 6) + count(p, 6)`): a
die of `b` and the die of `p` it gives rise to depend on nothing but each other, so the
counts are n independent copies of one compound die (a face of `b`, and the dice of `p`
that face asks for), added up (multiset.added: by the amounts each compound outcome
adds), never a world per way `b` fell and then per way `p` did.

The rule, checked on the statements (`plan_of`): from `let b`, a run of `let`s up to the
last reading a pool of the run; each is a pool of plain dice (no modifiers) whose number
reads the world alone (a base pool) or is linear in counts of base pools (a dependent
pool: its dice are given out to the base dice whose faces ask for them), or a let linear
in counts of the pools and in such lets: sums, differences, negations, products by a
part of the world, `if`s whose condition reads the world alone. What is read after the
run is only such lets, never a pool. At run time (`compound_run`), per world: each
pool's dice term and the questions asked of it are caught as its `let` rolls (the
roller's `capture`), the numbers of dependent dice and the lets' values are found by
running them with each pool answering one die's answers (a linear function is known by
its value at zero and along each direction), then added up; anything else (modified
dice, a question that is not a count or a total, a run that branches, fails or takes
other steps) and the statements run as before.
"""

from __future__ import annotations

from collections import Counter
from operator import add, sub

from dsl import nodes as n
from interpreter.compiled import Plain, block_key
from interpreter.odds.multiset import added
from interpreter.odds.questions import Captured
from interpreter.odds.roller import Branch
from interpreter.odds.summed import _let
from interpreter.odds.weights import times
from interpreter.odds.worlds import STOPS, World, plus
from interpreter.pool import Answers, Count
from interpreter.state import MISSING

#: whether pools rolled again die by die are counted as compound dice (this module)
COMPOUND = True
#: the most dice of a dependent pool one die may ask for (its compound outcomes multiply)
MOST_PER_DIE = 4
#: compound outcomes of one die, at most (each is a product of the dice it holds)
MOST_OUTCOMES = 4096


class Plan:
    """What `plan_of` found: the statements of the run by kind, in order (`steps`: each
    (kind, statement), kind "base", "dependent" or "let"), the names read after the run
    (`out`), the index of its last statement, and by pool the lets that read it (or a
    let reading it: `readers`) and the base pools a dependent pool's number reads."""

    __slots__ = ("last", "out", "readers", "steps", "uses")

    def __init__(self, steps: tuple, out: tuple, last: int, readers: dict, uses: dict) -> None:
        self.steps, self.out, self.last = steps, out, last
        self.readers, self.uses = readers, uses


def plan_of(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    key = ("compound", block_key(statements), index, live[-1])
    found = explorer.liveness.get(key, MISSING)
    if found is MISSING:
        found = explorer.liveness[key] = _plan(explorer, statements, index, live)
    return found


def _pool_let(explorer, statement) -> bool:
    node = statement.node
    return (
        isinstance(node, n.Let)
        and type(statement.shape) is Plain
        and type(node.expr) is n.Dice
        and not node.expr.modifiers
        and not explorer.calls_in(statement)
    )


def _plan(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    first = statements[index]
    if not _pool_let(explorer, first) or first.node.name not in live[index].needs:
        return None
    reads = explorer.names_read
    base: set = set()
    dependent: set = set()
    lets: set = set()
    steps = []
    last = None
    readers: dict = {}  # pool → the lets reading it, or a let reading it
    uses: dict = {}  # dependent pool → the base pools its number reads
    for k in range(index, len(statements)):
        statement = statements[k]
        if k > index and explorer.idle(statement, live[k]):
            continue
        node = statement.node
        window = base | dependent | lets
        if not isinstance(node, n.Let) or node.name in window:
            return None
        if _pool_let(explorer, statement):
            read = _reads(reads, node.expr)
            if not read & window:
                kind = "base"
            elif (
                not read & (dependent | lets)
                and not _reads(reads, node.expr.sides) & window
                and _linear(node.expr.count, base, set(), reads)
            ):
                kind = "dependent"
            else:
                return None
            (base if kind == "base" else dependent).add(node.name)
            readers[node.name] = []
            if kind == "dependent":
                uses[node.name] = tuple(sorted(read & base))
        elif _let(explorer, statement) and explorer.safe(node.expr):
            if any(isinstance(part, n.Dice | n.RollGroup | n.SymbolDice) for part in n.walk(node)):
                return None
            if not _linear(node.expr, base | dependent, lets, reads):
                return None
            kind = "let"
            read = _reads(reads, node.expr)
            for pool, found in readers.items():
                if pool in read or any(other.node.name in read for other in found):
                    found.append(statement)
            lets.add(node.name)
        else:
            return None
        steps.append((kind, statement))
        if not (base | dependent) & set(live[k].needs):
            last = k
            break
    if last is None or not dependent:
        return None
    after = live[last].needs
    out = tuple(sorted(name for name in lets if name in after))
    if any(after[name] is not None for name in out):
        return None
    readers = {name: tuple(found) for name, found in readers.items()}
    return Plan(tuple(steps), out, last, readers, uses)


def _reads(reads, expr) -> set:
    return set(reads(expr).needs)


def _linear(expr, pools: set, lets: set, reads) -> bool:
    """Whether `expr` is linear in counts of `pools` and in `lets` (see the docstring)."""
    read = _reads(reads, expr)
    if not read & (pools | lets):
        return True  # (a part of the world)
    kind = type(expr)
    if kind is n.Name:
        return expr.name in lets
    if kind is n.Binary and expr.op in ("+", "-"):
        return _linear(expr.left, pools, lets, reads) and _linear(expr.right, pools, lets, reads)
    if kind is n.Binary and expr.op == "*":
        sides = (expr.left, expr.right)
        return any(
            not _reads(reads, side) & (pools | lets) and _linear(other, pools, lets, reads)
            for side, other in (sides, sides[::-1])
        )
    if kind is n.Unary and expr.op == "-":
        return _linear(expr.operand, pools, lets, reads)
    if kind is n.IfExpr:
        return (
            not _reads(reads, expr.condition) & (pools | lets)
            and _linear(expr.then, pools, lets, reads)
            and _linear(expr.otherwise, pools, lets, reads)
        )
    if kind is n.Call and expr.function == "count" and len(expr.args) == 2 and not expr.named:
        subject, test = expr.args
        return (
            type(subject) is n.Name
            and subject.name in pools
            and not _reads(reads, test) & (pools | lets)
        )
    return False


def compound_run(explorer, statements: tuple, index: int, worlds, live: list):
    """statements[index] and the run of lets after it counted by compound dice (see the
    module's docstring): (worlds after, failures, the index of the next statement), or
    None (run them one by one)."""
    if not COMPOUND or type(worlds) is not list or not worlds:
        return None
    plan = plan_of(explorer, statements, index, live)
    if plan is None:
        return None
    made: list = []
    for world in worlds:
        found = _counted(explorer, plan, world)
        if found is None:
            return None
        made.extend(found)
    return explorer.merge(made, live[plan.last]), [], plan.last + 1


class _Runner:
    """Runs of the plan's statements in one world, directly on the context."""

    def __init__(self, explorer, world: World) -> None:
        self.explorer, self.world = explorer, world
        self.state = world.state.copy()  # (shared: the statements write nothing on it)

    def start(self, env: dict):
        explorer, world = self.explorer, self.world
        ctx, roller = explorer.ctx, explorer.roller
        explorer.work()
        ctx.env = env
        ctx.state = self.state
        ctx.depth = ctx.calls = explorer.depth
        roller.pins, roller.cursor = (), 0
        roller.weight = world.weight
        ctx.recount(world.steps[1])
        return ctx

    def capture(self, statement, env: dict):
        """The dice term and questions of a pool's `let` (None: not a plain term), and the
        steps to the roll."""
        ctx = self.start(env)
        roller = self.explorer.roller
        roller.capture = statement.node.name
        start = self.world.steps[1]
        try:
            statement.run(ctx)
            return None  # (a pool known at once)
        except Captured as caught:
            roll, questions = caught.roll, caught.questions
        except (Branch, *STOPS):
            return None
        finally:
            roller.capture = None
            self.explorer.counted(start)
        if (
            not hasattr(roll, "die")
            or getattr(roll, "steps", ()) != ()
            or questions is None
            or not all(type(q) is Count for q in questions)
        ):
            return None
        return roll, questions, ctx.steps - start

    def lets(self, lets: tuple, env: dict):
        """The lets run from `env`: (env after, steps), or None."""
        ctx = self.start(env)
        start = self.world.steps[1]
        try:
            for statement in lets:
                statement.run(ctx)
        except (Branch, *STOPS):
            return None
        finally:
            self.explorer.counted(start)
        return ctx.env, ctx.steps - start


def _classes(die, questions: tuple) -> dict:
    """One die's answers to the questions, by face: {answers: weight} (remembered, a
    few: the same dice are asked the same questions run after run)."""
    key = (die.key, questions)
    found = _CLASSES.get(key)
    if found is None:
        out: Counter = Counter()
        for face, w in Counter(die.faces()).items():
            out[tuple(q.of_kept((face,)) for q in questions)] += w
        found = dict(out)
        if len(_CLASSES) >= MOST_REMEMBERED:
            _CLASSES.clear()
        _CLASSES[key] = found
    return found


#: dice's answers by face, by die and questions (`_classes`), at most MOST_REMEMBERED
_CLASSES: dict = {}
MOST_REMEMBERED = 256


def _answers(questions: tuple, values: tuple | None) -> Answers:
    return Answers(dict(zip(questions, values or (0,) * len(questions))), None, _unasked)


def _unasked(question):
    raise KeyError(question)


def _counted(explorer, plan: Plan, world: World) -> list | None:
    """The worlds the run makes from `world`, or None."""
    runner = _Runner(explorer, world)
    pools: dict = {}  # name → [kind, roll, questions, classes]
    taken = 0
    lets = tuple(statement for kind, statement in plan.steps if kind == "let")
    for kind, statement in plan.steps:
        if kind != "base":
            continue
        caught = runner.capture(statement, dict(world.env))
        if caught is None:
            return None
        roll, questions, steps = caught
        pools[statement.node.name] = ["base", roll, questions, _classes(roll.die, questions)]
        taken += steps
    zero = {name: _answers(pool[2], None) for name, pool in pools.items()}
    asks: dict = {}  # dependent pool → its dice at zero, and per (base, answers) the more
    for kind, statement in plan.steps:
        if kind != "dependent":
            continue
        caught = runner.capture(statement, {**world.env, **zero})
        if caught is None:
            return None
        roll, questions, steps = caught
        name = statement.node.name
        pools[name] = ["dependent", roll, questions, _classes(roll.die, questions)]
        taken += steps
        more: dict = {}
        for base in plan.uses[name]:
            _, base_roll, asked, classes = pools[base]
            if not base_roll.count:
                continue  # (no dice: their answers are all 0)
            for answers in classes:
                if not any(answers):
                    continue
                env = {**world.env, **zero, base: _answers(asked, answers)}
                again = runner.capture(statement, env)
                if again is None or again[2] != steps or again[0].die.key != roll.die.key:
                    return None
                extra = again[0].count - roll.count
                if not 0 <= extra <= MOST_PER_DIE:
                    return None
                if extra:
                    more[(base, answers)] = extra
        asks[name] = (roll.count, more)
    for name, pool in pools.items():
        if pool[0] == "dependent":
            zero[name] = _answers(pool[2], None)
    ran = runner.lets(lets, {**world.env, **zero})
    if ran is None:
        return None
    env0, steps = ran
    taken += steps
    if world.steps[1] + taken > explorer.ctx.limits.steps_per_run:
        return None  # (the run stops at the limit: one statement at a time, as it does)
    origin = tuple(env0.get(name, MISSING) for name in plan.out)
    if not all(type(v) is int for v in origin):
        return None
    moves: dict = {}  # (pool, answers) → what one such die adds to the names read after
    for name, (kind, roll, asked, classes) in pools.items():
        if not (roll.count if kind == "base" else roll.count or asks[name][1]):
            continue  # (no dice, whatever the others show: their answers are all 0)
        for answers in classes:
            if not any(answers):
                continue
            # (the lets reading the pool alone, from the others' values: they take the
            # steps they took at zero, their `if`s reading the world alone)
            ran = runner.lets(plan.readers[name], {**env0, name: _answers(asked, answers)})
            if ran is None:
                return None
            values = tuple(ran[0].get(out, MISSING) for out in plan.out)
            if not all(type(v) is int for v in values):
                return None
            moves[(name, answers)] = tuple(map(sub, values, origin))
    return _worlds(explorer, plan, world, pools, asks, moves, origin, env0, taken)


def _moved(moves: dict, name: str, answers: tuple, width: int) -> tuple:
    return moves.get((name, answers), (0,) * width)


def _worlds(explorer, plan, world, pools, asks, moves, origin, env0, taken) -> list | None:
    """The compound dice added up, and the worlds they make."""
    width = len(plan.out)
    zero = (0,) * width
    work = explorer.roller.budget_of_term()
    blocks = []  # (amounts → weight, denominator) of independent sets of dice
    per_die = {}  # dependent pool → (what one of its dice adds → weight, denominator)
    for name, (kind, roll, _, classes) in pools.items():
        if kind == "dependent":
            amounts: Counter = Counter()
            for answers, w in classes.items():
                amounts[_moved(moves, name, answers, width)] += w
            per_die[name] = (dict(amounts), sum(classes.values()))
            if asks[name][0]:  # (dice the world asks for, whatever the base dice show)
                blocks.append(_added(per_die[name], asks[name][0], work, width))
    for name, (kind, roll, _, classes) in pools.items():
        if kind != "base" or not roll.count:
            continue
        most = {p: max((more.get((name, a), 0) for a in classes), default=0) for p, (_, more) in asks.items()}
        outcomes: Counter = Counter()
        denominator = sum(classes.values())
        for p in asks:
            denominator *= per_die[p][1] ** most[p]
        for answers, w in classes.items():
            held = {_moved(moves, name, answers, width): w}
            for p, (_, more) in asks.items():
                extra = more.get((name, answers), 0)
                scale = per_die[p][1] ** (most[p] - extra)
                held = {a: x * scale for a, x in held.items()}
                for _ in range(extra):
                    held = _convolved(held, per_die[p][0])
                    if len(held) > MOST_OUTCOMES:
                        return None
            for a, x in held.items():
                outcomes[a] += x
        blocks.append(_added((dict(outcomes), denominator), roll.count, work, width))
    total: dict = {zero: 1}
    denominator = 1
    for weights, den in blocks:
        total = _convolved(total, weights)
        denominator *= den
    return _made(explorer, plan, world, total, denominator, origin, env0, taken)


def _added(die: tuple, count: int, work, width: int) -> tuple:
    """`count` dice each adding amounts with these weights, added up (multiset.added)."""
    weights, den = die
    weights = {a: w for a, w in weights.items() if w}
    out, _ = added(weights, count, [_Part(i) for i in range(width)], work)
    return out, den**count


class _Part:
    """An amount's i-th number, as multiset.added reads an evaluator's."""

    additive = True
    start = 0

    def __init__(self, i: int) -> None:
        self.i = i

    def step(self, state, face, c):  # noqa: ARG002 (an evaluator's step)
        return face[self.i]


def _convolved(one: dict, other: dict) -> dict:
    out: dict = {}
    for a, x in one.items():
        for b, y in other.items():
            key = tuple(map(add, a, b))
            out[key] = out.get(key, 0) + x * y
    return out


def _made(explorer, plan, world, total, denominator, origin, env0, taken) -> list:
    """A world per sum of amounts (pruned as the explorer prunes)."""
    kept = {k: v for k, v in env0.items() if k not in plan.out}
    numerator, den = world.weight
    den *= denominator
    prune = explorer.prune
    scale, least = numerator * prune.denominator, prune.numerator * den
    steps = plus(world.steps, taken)
    explorer.peak = max(explorer.peak, steps[1])
    out = []
    for amounts, w in total.items():
        if w * scale < least:
            explorer.lost.add((numerator * w, den))
            continue
        env = {**kept, **dict(zip(plan.out, map(add, origin, amounts)))}
        out.append(World(env, world.state, times(world.weight, w, denominator), steps))
    return out
