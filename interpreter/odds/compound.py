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
run is only such lets, never a pool. At run time (`compound_run`), per world: the
run's statements are run once with every pool answering 0 to every question, each
pool's dice term and questions caught as its `let` rolls (the roller's `capture`); then
the statements reading a pool (`readers`) once more for each answer one of its dice may
give (a linear function is known by its value at zero and along each direction): the
numbers of dependent dice one base die asks for, and what one die adds to each let read
after the run (a number of dice that falls as a face shows, `n - count(b, 6)`, is n
dice given out one per die of `b` and taken back: `_shifted`). Anything else (modified
dice, a question that is not a count, a run that branches or fails, more than
MOST_PER_DIE dice asked for by one die, fewer than none) and the statements run as
before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import compress, count
from operator import add, itemgetter, sub

from dsl import nodes as n
from interpreter.compiled import Plain
from interpreter.odds.multiset import added
from interpreter.odds.questions import is_term
from interpreter.odds.roller import Branch
from interpreter.odds.summed import pure_let, remembered_plan
from interpreter.odds.weights import times
from interpreter.odds.worlds import STOPS, World, plus
from interpreter.pool import Answers, Count

#: whether pools rolled again die by die are counted as compound dice (this module)
COMPOUND = True
#: the most dice of a dependent pool one die may ask for (its compound outcomes multiply)
MOST_PER_DIE = 4
#: compound outcomes of one die, at most (each is a product of the dice it holds)
MOST_OUTCOMES = 4096
#: whether one die (a pool of 1, the smallest question) is taken as it is, not added up
#: by multiset.added (which sets up its rows and classes to add one die to nothing)
ONE_DIE = True
#: pools of at most this many dice (above one) added up die by die, each a convolution
#: of the amounts (a few dice: multiset.added's rows and classes cost more than they
#: save); 0: every pool of more than one die by multiset.added
FEW_DICE = 4
#: worlds made in one unit of work (interpreter.odds.budget), besides each run's unit
WORLDS_PER_WORK = 64


class Plan:
    """What `plan_of` found: the run's statements (those not idle) and their kinds
    ("base", "dependent" or "let"), the names read after it (`out`), the index of its
    last statement, by pool the statements reading it, or reading what reads it
    (`readers`, in order), the dependent pools (`dependent`, in order), and the other
    names read after it (`kept`: each world's, as it was before the run or as the run
    left it)."""

    __slots__ = ("dependent", "kept", "kinds", "last", "out", "readers", "statements")

    def __init__(self, steps: list, out: tuple, last: int, readers: dict, after) -> None:
        self.statements = tuple(statement for _, statement in steps)
        self.kinds = {statement.node.name: kind for kind, statement in steps}
        self.out, self.last = out, last
        self.readers = {name: tuple(found) for name, found in readers.items()}
        self.kept = tuple(name for name in after if name not in out)
        self.dependent = tuple(name for name, kind in self.kinds.items() if kind == "dependent")


def plan_of(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    """The plan for statements[index] (see the module's docstring), or None where the
    rule does not hold."""
    return remembered_plan(explorer, "compound", _plan, statements, index, live)


def _pool_let(explorer, statement) -> bool:
    node = statement.node
    return (
        isinstance(node, n.Let)
        and type(statement.shape) is Plain
        and type(node.expr) is n.Dice
        and not node.expr.modifiers
        and not explorer.calls_in(statement)
    )


def _kind(explorer, statement, base: set, dependent: set, lets: set) -> str | None:
    """What a statement of the run is, or None (the run ends short of it)."""
    node, reads = statement.node, explorer.names_read
    window = base | dependent | lets
    if not isinstance(node, n.Let) or node.name in window:
        return None
    read = _reads(reads, node.expr)
    if _pool_let(explorer, statement):
        if not read & window:
            return "base"
        if (
            not read & (dependent | lets)
            and not _reads(reads, node.expr.sides) & window
            and _linear(node.expr.count, base, set(), reads)
        ):
            return "dependent"
        return None
    if not pure_let(explorer, statement) or not explorer.safe(node.expr):
        return None
    if any(isinstance(part, n.Dice | n.RollGroup | n.SymbolDice) for part in n.walk(node)):
        return None
    return "let" if _linear(node.expr, base | dependent, lets, reads) else None


def _plan(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    first = statements[index]
    if not _pool_let(explorer, first) or first.node.name not in live[index].needs:
        return None
    kinds: dict = {"base": set(), "dependent": set(), "let": set()}
    steps = []
    readers: dict = {}  # pool → the statements reading it, or reading what reads it
    last = None
    for k in range(index, len(statements)):
        statement = statements[k]
        if k > index and explorer.idle(statement, live[k]):
            continue
        kind = _kind(explorer, statement, kinds["base"], kinds["dependent"], kinds["let"])
        if kind is None:
            return None
        read = _reads(explorer.names_read, statement.node.expr)
        for pool, found in readers.items():
            if pool in read or any(other.node.name in read for other in found):
                found.append(statement)
        kinds[kind].add(statement.node.name)
        if kind != "let":
            readers[statement.node.name] = []
        steps.append((kind, statement))
        if not set(readers) & set(live[k].needs):
            last = k
            break
    if last is None or not kinds["dependent"]:
        return None
    after = live[last].needs
    out = tuple(sorted(name for name in kinds["let"] if name in after))
    if any(after[name] is not None for name in out):
        return None
    return Plan(steps, out, last, readers, after)


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
    if len(worlds) > 1:  # (the worlds of one world differ in the sums: none to merge)
        made = explorer.merge(made, live[plan.last])
    return made, [], plan.last + 1


class _Runner:
    """Runs of the plan's statements in one world, directly on the context, every pool
    `let` caught as it rolls (`pools`: its dice term and questions, by name) and bound
    to its answers of 0 (a pool probed is given its answers in `env`, not run)."""

    def __init__(self, explorer, plan: Plan, world: World) -> None:
        self.explorer, self.world = explorer, world
        self.state = world.state.copy()  # (shared: the statements write nothing on it)
        self.pools: dict = {}
        self.catch = dict.fromkeys(plan.kinds, self.caught)
        self.zeros: dict = {}  # pool → (its questions, its answers of 0): run after run

    def caught(self, roll, questions, name: str):
        self.pools[name] = (roll, questions)
        found = self.zeros.get(name)
        if found is None or found[0] is not questions:
            found = self.zeros[name] = (questions, _answers(questions or (), None))
        return found[1]

    def run(self, statements: tuple, env: dict):
        """The statements run from `env`: (env after, steps taken), or None."""
        explorer, world = self.explorer, self.world
        ctx, roller = explorer.ctx, explorer.roller
        explorer.work()
        ctx.env = env
        ctx.state = self.state
        ctx.depth = ctx.calls = explorer.depth
        roller.pins, roller.cursor = (), 0
        roller.weight = world.weight
        start = world.steps[1]
        ctx.recount(start)
        self.pools = {}
        roller.capture = self.catch
        try:
            for statement in statements:
                statement.run(ctx)
        except (Branch, Unasked, *STOPS):
            return None
        finally:
            roller.capture = None
            explorer.counted(start)
        return ctx.env, ctx.steps - start


def _plain(roll, questions) -> bool:
    """Whether a pool caught is a term of plain dice asked only counts."""
    if not is_term(roll) or roll.steps != () or questions is None:
        return False
    return set(map(type, questions)) <= _COUNTS  # (in C: asked of every pool caught)


_COUNTS = frozenset({Count})
_INTS = frozenset({int})


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


class Unasked(Exception):
    """A question of a pool that its `let` was not told would be asked."""


def _unasked(question):
    raise Unasked(question)


def _outs(env: dict, out: tuple) -> tuple | None:
    values = tuple(map(env.get, out))  # (a name missing: None, not a number)
    return values if set(map(type, values)) <= _INTS else None


class _Dice:
    """What the probes found in one world: each pool's term, questions and answers by
    face (`pools`), the dice of each dependent pool asked for by the world alone and by
    one base die of each answers (`asks`), and what one die of each answers adds to the
    names read after the run (`moves`)."""

    def __init__(self, pools: dict, out: tuple) -> None:
        self.pools = pools  # name → (roll, questions, classes)
        self.asks: dict = {}  # dependent pool → (dice at zero, {(base, answers): more})
        self.moves: dict = {}  # (pool, answers) → amounts added
        self.out = out
        self.active = tuple(range(len(out)))  # the names some die moves
        self.zero = (0,) * len(out)

    def narrowed(self) -> int:
        """The amounts cut to the names some die moves (skill dice never rolled, say:
        their successes stay as they are at zero), their number."""
        moves = self.moves
        columns = map(any, zip(*moves.values()))  # (each name's amounts; none without moves)
        active = self.active = tuple(compress(count(), columns))  # (in C: run once, cold)
        if len(active) < len(self.out):
            pick: Callable[..., tuple]
            if len(active) > 1:
                pick = itemgetter(*active)  # (a tuple of them)
            else:
                pick = (lambda m: ()) if not active else (lambda m, i=active[0]: (m[i],))
            self.moves = dict(zip(moves, map(pick, moves.values())))
        self.zero = (0,) * len(active)
        return len(active)


def _counted(explorer, plan: Plan, world: World) -> list | None:
    """The worlds the run makes from `world`, or None."""
    runner = _Runner(explorer, plan, world)
    ran = runner.run(plan.statements, dict(world.env))
    if ran is None or world.steps[1] + ran[1] > explorer.ctx.limits.steps_per_run:
        return None  # (and a run stopping at the limit: one statement at a time)
    env0, taken = ran
    origin = _outs(env0, plan.out)
    if origin is None or runner.pools.keys() != plan.readers.keys():
        return None
    pools = {}  # (one loop, no comprehension: this runs once per world, seldom warm)
    for name, (roll, questions) in runner.pools.items():
        if not _plain(roll, questions):
            return None
        pools[name] = (roll, questions, _classes(roll.die, questions))
    dice = _Dice(pools, plan.out)
    asks = dice.asks
    for name in plan.dependent:
        asks[name] = (pools[name][0].count, {})
    for name in plan.readers:  # (in order: the base pools before the pools they give rise to)
        roll, _, classes = pools[name]
        if not roll.count and not (name in asks and asks[name][1]):
            continue  # (no dice, whatever the others show: their answers are all 0)
        for answers in classes:
            if any(answers) and not _probe(runner, plan, dice, env0, origin, name, answers):
                return None
    kept = {name: env0[name] for name in plan.kept if name in env0}
    return _worlds(explorer, world, dice, (origin, kept, taken))


def _probe(runner, plan: Plan, dice: _Dice, env0: dict, origin: tuple, name: str, answers):
    """The statements reading pool `name` run again, it answering `answers`: what one
    such die adds, and the dependent dice it asks for; False where that fails."""
    _, questions, _ = dice.pools[name]
    ran = runner.run(plan.readers[name], {**env0, name: _answers(questions, answers)})
    values = None if ran is None else _outs(ran[0], plan.out)
    if values is None:
        return False
    dice.moves[(name, answers)] = tuple(map(sub, values, origin))
    for other, (roll, _) in runner.pools.items():
        first = dice.pools[other][0]
        more = roll.count - first.count
        if roll.die.key != first.die.key or abs(more) > MOST_PER_DIE:
            return False
        if more:
            dice.asks[other][1][(name, answers)] = more
    return True


def _worlds(explorer, world: World, dice: _Dice, at_zero: tuple) -> list | None:
    """The compound dice added up, and the worlds they make."""
    if not _shifted(dice) or not _within(explorer.ctx.limits.dice_per_term, dice):
        return None  # (and a run rolling more than a term may: one statement at a time)
    width = dice.narrowed()
    work = explorer.roller.budget_of_term()
    blocks = []  # (amounts → weight, denominator) of independent sets of dice
    per_die = {}  # dependent pool → (what one of its dice adds → weight, denominator)
    moves, zero = dice.moves, dice.zero
    for name, (at_start, more) in dice.asks.items():
        if not at_start and not more:
            continue  # (no dice, however the others fall)
        classes = dice.pools[name][2]
        amounts: dict = {}
        for answers, w in classes.items():
            moved = moves.get((name, answers), zero)
            amounts[moved] = amounts.get(moved, 0) + w
        per_die[name] = (amounts, sum(classes.values()))
        if at_start:  # (dice the world asks for, whatever the base dice show)
            blocks.append(_added(per_die[name], at_start, work, width))
    for name, (roll, _, classes) in dice.pools.items():
        if name not in dice.asks and roll.count:  # (a base pool)
            die = _compound(name, classes, dice, per_die, work)
            if die is None:
                return None
            blocks.append(_added(die, roll.count, work, width))
    total: dict = {dice.zero: 1}
    denominator = 1
    for weights, den in blocks:
        if len(total) == 1 and total.get(dice.zero) == 1:  # (nothing added yet: as it is)
            work.spend(len(weights))  # (what the convolution with nothing charges)
            total = weights
        else:
            total = _convolved(total, weights, work)
        denominator *= den
    return _made(explorer, world, dice, (total, denominator), at_zero)


def _shifted(dice: _Dice) -> bool:
    """The dice a face takes back given out anew: `(n - count(b, 6) - count(b, 1))d6`
    with `b` of n dice asks n dice at zero and one fewer for a 6 or a 1, that is one die
    for each face of `b` but 6 and 1 (n·e dice of those asked at zero moved to the n dice
    of `b`, e each, e the most one face takes back). False where a face would take back
    more than the dice asked at zero, or ask for more than MOST_PER_DIE."""
    for name, (at_start, more) in dice.asks.items():
        if min(more.values(), default=0) >= 0:  # (no face takes dice back: the commonest)
            if at_start < 0:
                return False
            continue
        for base in sorted({base for base, _ in more}):
            roll, _, classes = dice.pools[base]
            least = min(more.get((base, answers), 0) for answers in classes)
            if least >= 0:
                continue
            at_start += least * roll.count
            for answers in classes:
                extra = more.get((base, answers), 0) - least
                if extra > MOST_PER_DIE:
                    return False
                more[(base, answers)] = extra
        if at_start < 0:
            return False
        dice.asks[name] = (at_start, more)
    return True


def _within(most: int, dice: _Dice) -> bool:
    """Whether every dependent pool has at most `most` dice, however the others fall."""
    for at_start, more in dice.asks.values():
        top: dict = {}
        for (base, _), extra in more.items():
            if extra > top.get(base, 0):
                top[base] = extra
        dice_at_most = at_start
        for base, m in top.items():
            dice_at_most += dice.pools[base][0].count * m
        if dice_at_most > most:
            return False
    return True


def _compound(name: str, classes: dict, dice: _Dice, per_die: dict, work) -> tuple | None:
    """One die of base pool `name` with the dependent dice its faces ask for: what it
    adds → weight, over a common denominator; None past MOST_OUTCOMES."""
    denominator = sum(classes.values())
    asks = []  # (its asks, the most one face asks, what one die adds, its denominator)
    for p, (_, more) in dice.asks.items():
        if p not in per_die:
            continue
        most = 0
        for answers in classes:
            extra = more.get((name, answers), 0)
            if extra > most:
                most = extra
        if most:  # (else no face of this pool asks for its dice)
            amounts, den = per_die[p]
            denominator *= den**most
            asks.append((more, most, amounts, den))
    moves, zero = dice.moves, dice.zero
    outcomes: dict = {}
    for answers, w in classes.items():
        held = {moves.get((name, answers), zero): w}
        for more, most, amounts, den in asks:
            extra = more.get((name, answers), 0)
            if extra < most:  # (to the common denominator)
                scale = den ** (most - extra)
                held = {a: x * scale for a, x in held.items()}
            for _ in range(extra):
                held = _convolved(held, amounts, work)
                if len(held) > MOST_OUTCOMES:
                    return None
        for a, x in held.items():
            outcomes[a] = outcomes.get(a, 0) + x
    return outcomes, denominator


def _added(die: tuple, count: int, work, width: int) -> tuple:
    """`count` dice each adding amounts with these weights, added up (multiset.added)."""
    weights, den = die
    if 0 in weights.values():
        weights = {a: w for a, w in weights.items() if w}
    if count == 1 and ONE_DIE:
        work.spend(len(weights))  # (what added charges, about)
        return weights, den
    if 1 < count <= FEW_DICE:
        out = weights
        for _ in range(count - 1):
            out = _convolved(out, weights, work)
        return out, den**count
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


def _convolved(one: dict, other: dict, work) -> dict:
    """Two independent sets of amounts added: amounts → weight."""
    work.spend(len(one) * len(other))
    out: dict = {}
    for a, x in one.items():
        for b, y in other.items():
            key = tuple(map(add, a, b))
            out[key] = out.get(key, 0) + x * y
    return out


def _made(explorer, world: World, dice: _Dice, counted: tuple, at_zero: tuple) -> list:
    """A world per sum of amounts (pruned as the explorer prunes): the names read after
    the run, the lets' values at zero moved by the amounts."""
    total, denominator = counted
    origin, kept, taken = at_zero
    start = kept.copy()
    start.update(zip(dice.out, origin))  # (each world's: these, the names moved moved)
    names = tuple(map(dice.out.__getitem__, dice.active))
    at = tuple(map(start.__getitem__, names))
    numerator, den = world.weight
    den *= denominator
    prune = explorer.prune
    scale, least = numerator * prune.denominator, prune.numerator * den
    steps = plus(world.steps, taken)
    explorer.peak = max(explorer.peak, steps[1])
    explorer.roller.work += len(total) // WORLDS_PER_WORK
    explorer.work()
    made = []
    for amounts, w in total.items():
        if w * scale < least:
            explorer.lost.add((numerator * w, den))
            continue
        env = start.copy()
        env.update(zip(names, map(add, at, amounts)))
        made.append(World(env, world.state, times(world.weight, w, denominator), steps))
    return made
