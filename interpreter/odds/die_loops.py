"""A loop over a pool's dice run die by die, the worlds merged after each (a Markov chain).

`let r = (n)d6` then `for each d in r.dice { if d = 6 { set s to s + 1 } ... }`: the
dice of a pool of one term (no explosion nor reroll) are independent and alike, and
the order rolled is the order the loop reads them. Where nothing but that loop reads
`r` (its body does not, nothing after it does, nothing between the two mentions it),
the `let` binds a pool not rolled yet (`Unrolled`: its die and how many dice are left),
and the loop takes one die at a time: each world becomes one world per face of the die,
the body runs, and the worlds that agree on what is still read are merged. The cost is
dice × states × faces, not the faces to the power of the dice that walking every way
the pool can fall (questions.rolls_of) costs.

`r.kept` is the same list where the pool keeps every die; `r.dice` lists the dropped
dice too, so a keep changes neither. A modifier that acts on each die alone and leaves
one die standing (a reroll, `!!`, `min`/`max`: PER_DIE), before any keep, leaves the
dice independent and alike too, each falling as one such die falls (`one_die`: one die
of the term counted, where nothing of it is left out and the term may not fail). An
explosion before any keep makes each die a list of dice (the die, then those it adds),
the lists independent and alike, the pool's list them one after another: each pass
that finds no die left of the last list draws a list (drawn.chains_of: every way one
die's draws go, walked, where they are few: `xo`, not `x`), its first die the pass's,
the rest held in the pool for the passes after it (`Unrolled.pending`). A sort, and
the `let` binds the pool as before. `r.kept` of a pool that keeps some is no list of
independent dice (which are kept depends on all of them), but the dice rolled are: its
kept dice are drawn by odds.kept_draws (`kept_die`: one keep, after the modifiers that
act on each die alone), the multiset first, then each kept die from what is left.
"""

from __future__ import annotations

from collections import Counter

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compiled import Loop, Plain
from interpreter.odds.carried import Group, Held, carried_loop, worlds_of
from interpreter.odds.distribution import Dist
from interpreter.odds.drawn import Chains, Drawn, OneDie, chains_of, starts
from interpreter.odds.kept_draws import WORLDS_PER_WORK, KeptDie, next_kept, passes, states_of
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.questions import is_term
from interpreter.odds.remembered import counted_distribution
from interpreter.odds.summed import remembered_plan
from interpreter.odds.weights import ONE, times
from interpreter.odds.worlds import Failure, World, plus
from interpreter.pool import Rolled

#: whether a loop over a pool's dice alone runs die by die (this module)
DIE_BY_DIE = True
#: whether the counters such a loop carries stay held as groups (odds.carried) through
#: the next pool's `let` into its loop, where that loop carries the same (_kept_on)
CARRIED_ON = True
#: whether a loop over a pool of no dice is skipped (the worlds as they were, the pool
#: dropped), not entered as a loop of none
NO_DICE = True
#: the modifiers that leave a pool's listed dice independent and alike, as rolled
#: (`keep` marks some dropped; the others count; none changes a face or the order)
ALIKE = frozenset({"keep", "successes", "fail_count", "failures"})
#: whether a pool whose modifiers act on each die alone runs die by die too (one_die)
PER_DIE_LOOPS = True
#: the modifiers that act on each die alone and leave it one die (not an explosion's
#: several): before any keep, the dice stay independent and alike
PER_DIE = frozenset({"reroll", "compound", "clamp"})
#: whether a loop over the kept dice of a pool that keeps some draws them as
#: odds.kept_draws does (kept_die)
KEPT_LOOPS = True
#: the modifiers that make each die a list of dice (one_die: drawn.chains_of)
GROWS = frozenset({"explode", "penetrate"})


class Unrolled(Rolled):
    """A pool bound by `let` whose dice a loop alone reads (this module): its die, how
    many dice are still to come, and the dice of the last list drawn still to come
    (`pending`: an explosion's). Equal by those, so that worlds merge on them."""

    __slots__ = ("count", "die", "hashed", "key", "pending")

    def __init__(self, die, count: int, pending: tuple = ()) -> None:
        self.die, self.count, self.pending = die, count, pending
        self.key = (die.key, count, pending)
        try:  # (hashed in every key of a world holding it: once)
            self.hashed: int | None = hash(self.key)
        except TypeError:
            self.hashed = None

    def answer(self, question):  # noqa: ARG002 (as any Rolled answers)
        raise TooComplex(tr("a pool's dice read where only its loop should read them"))

    @property
    def total(self):
        return self.answer(None)

    @property
    def faces(self):  # type: ignore[override]  # (read by nothing: the loop alone reads it)
        return self.answer(None)

    def __eq__(self, other) -> bool:
        return type(other) is Unrolled and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key) if self.hashed is None else self.hashed


def pool_loop(explorer, statements: tuple, index: int, live: list) -> int | None:
    """The index of the `for each` over statements[index]'s pool that alone reads it
    (see the module's docstring), or None."""
    return remembered_plan(explorer, "die by die", _plan, statements, index, live)


def _plan(explorer, statements: tuple, index: int, live: list) -> int | None:
    first = statements[index]
    node = first.node
    if not isinstance(node, n.Let) or type(first.shape) is not Plain:
        return None
    if type(node.expr) is not n.Dice or explorer.calls_in(first):
        return None
    name = node.name
    for k in range(index + 1, len(statements)):
        statement = statements[k]
        if not _mentions(explorer, statement.node, name):
            continue
        loop = statement.node
        if type(statement.shape) is not Loop or not _over(loop.items, name):
            return None
        if loop.var == name or name in live[k].needs:
            return None
        if any(_mentions(explorer, inner, name) for inner in loop.body):
            return None
        return k
    return None


def _over(items, name: str) -> bool:
    """Whether a loop's items are `name.dice` or `name.kept`."""
    return (
        type(items) is n.Field
        and items.name in ("dice", "kept")
        and type(items.subject) is n.Name
        and items.subject.name == name
    )


def _mentions(explorer, node, name: str) -> bool:
    return name in explorer.names_read(node).needs or name in explorer.names_given(node)


def unrolled_let(explorer, statements: tuple, index: int, worlds, live: list):
    """statements[index], a pool's `let` that a loop alone reads: the pool bound not
    rolled (Unrolled) where its modifiers keep its dice alike, else as it is rolled:
    (worlds after, failures, index + 1), or None (run it as any)."""
    if not DIE_BY_DIE or not worlds:
        return None
    k = pool_loop(explorer, statements, index, live)
    if k is None:
        return None
    statement = statements[index]
    if type(worlds) is Held and explorer.names_read(statement.node).needs.keys() & set(
        worlds.counters
    ):
        worlds = worlds_of(explorer, worlds)  # (the pool's size read of a counter)
    name, roller = statement.node.name, explorer.roller
    # (`r.kept` lists the dice `r.dice` lists where the pool keeps every one)
    kept_items = statements[k].node.items.name == "kept"
    alike = ALIKE - {"keep"} if kept_items else ALIKE

    def caught(roll, questions, caught_name):  # noqa: ARG001 (as the roller calls it)
        if is_term(roll) and {step[0] for step in roll.steps} <= alike:
            return Unrolled(roll.die, roll.count)
        one: OneDie | Chains | KeptDie | None = None
        if is_term(roll) and PER_DIE_LOOPS and not roll.failure:
            one = one_die(roller, roll.die, roll.steps, alike)
        if one is None and is_term(roll) and kept_items and KEPT_LOOPS:
            one = kept_die(roller, roll)
        if one is not None:
            return Unrolled(one, roll.count)
        roller.capture = None  # (as any pool: rolled, asked what the loop asks)
        try:
            return roller.settle(roll, questions)
        finally:
            roller.capture = catch

    catch = {name: caught}
    roller.capture = catch
    try:
        if type(worlds) is Held:  # (counters held from the loop before: odds.carried)
            done, failed = _through(explorer, statement.run, worlds)
        else:
            done, failed = explorer.atomic(statement.run, worlds)
    finally:
        roller.capture = None
    return explorer.merge(done, live[index]), failed, index + 1


def one_die(roller, die, steps: tuple, alike: frozenset) -> OneDie | Chains | None:
    """How one die of a term falls where its modifiers act on each die alone (PER_DIE
    or GROWS, each before any keep; the others in `alike`), counted as a term of one die
    with those modifiers (with an explosion, its lists walked: drawn.chains_of); None
    where they do not, or the count leaves anything out. (The caller's term may not
    fail at the roller's limit: that chance is the whole pool's, at its `let`.)"""
    kept = grows = False
    for step in steps:
        kind = step[0]
        if kind in PER_DIE or kind in GROWS:
            if kept:  # (a reroll after a keep rolls only the kept dice again)
                return None
            grows = grows or kind in GROWS
        elif kind not in alike:
            return None
        kept = kept or kind == "keep"
    own = tuple(step for step in steps if step[0] in PER_DIE or step[0] in GROWS)
    if grows:
        return chains_of(die, own, roller.limits)
    try:
        dist = counted_distribution(
            die, 1, own, roller.epsilon, roller.budget_of_term(), roller.extra_per_die
        )
    except TooComplex:
        return None
    if dist.missing():
        return None
    faces: dict = {}
    for (total, _, _), weight in dist.weights.items():
        faces[total] = faces.get(total, 0) + weight
    return OneDie(Dist(faces, dist.total))


def kept_die(roller, roll) -> KeptDie | None:
    """The die of a pool whose kept dice a loop reads, drawn as odds.kept_draws draws
    them: one keep, after the modifiers that act on each die alone (each die falling as
    one_die finds), the rest counting; None where it is not so, or where its dice may
    leave more than MOST_STATES states."""
    keeps = [step for step in roll.steps if step[0] == "keep"]
    if len(keeps) != 1 or roll.failure:
        return None
    at = roll.steps.index(keeps[0])
    before, after = roll.steps[:at], roll.steps[at + 1 :]
    if any(step[0] not in ALIKE for step in after):
        return None
    if any(step[0] in PER_DIE for step in before):
        own = one_die(roller, roll.die, before, ALIKE)
        if type(own) is not OneDie:
            return None
        weights = own.weights.weights
    elif all(step[0] in ALIKE for step in before):
        weights = dict(Counter(roll.die.faces()))
    else:
        return None
    die = KeptDie(weights, keeps[0][1], keeps[0][2])
    states = states_of(die, roll.count)
    if states is None:
        return None
    die.drawn = states  # (the states its multiset may leave: the first pass's)
    return die


def _through(explorer, run, held: Held) -> tuple:
    """run(ctx), which reads none of the counters, once per group: (the groups it
    leaves, each joint weighted by its outcome's chance, held; failed outcomes)."""
    groups: list = []
    failures: list = []
    for group in held.groups:
        weight = group.weight
        for after, outcome in explorer.explore(
            World(group.env, group.state, ONE, group.steps), run
        ):
            w, d = after.weight
            if isinstance(outcome, Failure):
                failures.append((World(after.env, after.state, times(weight, w, d)), outcome))
                continue
            joint = group.joint if w == 1 else {k: v * w for k, v in group.joint.items()}
            denominator = group.denominator * d
            groups.append(
                Group(after.env, after.state, after.steps, joint, denominator, group.size)
            )
    return Held(groups, held.counters), failures


def pool_loop_run(explorer, statements: tuple, index: int, worlds, live: list, live_out):
    """statements[index] run by this module (a pool's `let` bound Unrolled, a loop over
    such a pool die by die): (worlds after, failures, index + 1), or None."""
    return unrolled_let(explorer, statements, index, worlds, live) or die_by_die(
        explorer, statements, index, worlds, live, live_out
    )


def die_by_die(explorer, statements: tuple, index: int, worlds, live: list, live_out):
    """statements[index], a `for each` over a pool bound Unrolled, die by die (see the
    module's docstring): (worlds after, failures, index + 1), or None."""
    if not DIE_BY_DIE:
        return None
    plan = remembered_plan(explorer, "pool loop", _loop_plan, statements, index, live)
    if plan is None:
        return None
    name, counters, loop, entering, kept_on = plan
    statement = statements[index]
    shape, after = statement.shape, live[index]
    if NO_DICE and _no_dice(worlds, name):  # (no pass: the worlds as they are, pool dropped)
        return explorer.merge(worlds, after), [], index + 1
    failures: list = []
    done: list = []
    ours: list | Held = worlds
    if not _held_for(worlds, name, counters):
        worlds = worlds_of(explorer, worlds)
        ours = [w for w in worlds if type(w.env.get(name)) is Unrolled]
        if not ours:
            return None
        others = [w for w in worlds if type(w.env.get(name)) is not Unrolled]
        if others:  # (a pool rolled as any: the loop as any)
            done, failures = explorer.step(statements, index, others, live, live_out)
            done = worlds_of(explorer, done)
    # (a pool of lists of dice: passes the dice decide, one world at a time)
    carried = isinstance(ours, Held) or all(_carried(w.env[name]) for w in ours)
    held = explorer.held(ours, counters, loop) if counters and carried else None
    if held is None:
        worlds, failed = _chain(explorer, shape, name, worlds_of(explorer, ours), loop)
    else:  # (counters the body only adds to: a pass found once per state, odds.carried)

        def entries(pool: Unrolled) -> list:
            return [({shape.var: Drawn(pool.die)}, 1)] * pool.count

        def rest(pool: Unrolled, worlds: list, passes: int = 0) -> tuple:
            left = Unrolled(pool.die, pool.count - passes)
            worlds = [World({**w.env, name: left}, w.state, w.weight, w.steps) for w in worlds]
            return _chain(explorer, shape, name, worlds, loop)

        def pool_of(world: World) -> list:
            """The pool held by its name, as explore gives a run of no steps reading it
            (within the limit: explored past it), no run made."""
            if world.steps[1] > explorer.ctx.limits.steps_per_run:
                return explorer.explore(world, lambda ctx: ctx.env[name])
            explorer.work()
            explorer.peak = max(explorer.peak, world.steps[1])
            return [(world, world.env[name])]

        header = (pool_of, entries)
        lives = (shape.body, loop, entering)
        keep = not done and CARRIED_ON and kept_on
        worlds, failed = carried_loop(explorer, held, header, lives, rest, keep)
        if type(worlds) is Held:  # (into the next pool's loop: odds.carried's groups)
            return explorer.merge(worlds, after), failures + failed, index + 1
    failures.extend(failed)
    return explorer.merge(done + worlds_of(explorer, worlds), after), failures, index + 1


def _no_dice(worlds, name: str) -> bool:
    """Whether every world holds the pool Unrolled with no die left (a loop of no pass)."""
    worlds = worlds.groups if type(worlds) is Held else worlds
    for world in worlds:
        pool = world.env.get(name)
        if type(pool) is not Unrolled or pool.count:
            return False
    return bool(worlds)


def _held_for(worlds, name: str, counters: tuple) -> bool:
    """Whether worlds are groups carrying the loop's counters, each holding the pool
    Unrolled (from the loop before: carried on as they are)."""
    return (
        type(worlds) is Held
        and worlds.counters == counters
        and all(_carried(group.env.get(name)) for group in worlds.groups)
    )


def _carried(pool) -> bool:
    """Whether a pool Unrolled has as many passes left as dice (no list of dice may
    come: odds.carried's passes, one per die)."""
    return type(pool) is Unrolled and type(pool.die) not in (Chains, KeptDie)


def _loop_plan(explorer, statements: tuple, index: int, live: list):
    """What die_by_die needs of statements[index], a `for each` over `name.dice` (or
    `.kept`), found once per block and liveness: (the pool's name, the counters the loop
    carries, what is read before a pass, and entering one, whether the next statement
    binds a pool that a loop carrying the same counters alone reads: the groups then
    held through both, a kind of die after another), or None."""
    statement = statements[index]
    node, shape = statement.node, statement.shape
    if type(shape) is not Loop or not isinstance(node, n.ForEach):
        return None
    subject = node.items.subject if type(node.items) is n.Field else None
    if type(subject) is not n.Name:
        return None
    after = live[index]
    counters = explorer.loop_counters(node, shape, after)
    loop = explorer.loop_live(node, shape, after)
    entering = explorer.block_before(shape.body, loop).without(shape.var)
    following = index + 1
    kept_on = False
    if following < len(statements):
        k = pool_loop(explorer, statements, following, live)
        kept_on = k is not None and explorer.carries(statements[k], live[k]) == counters
    return subject.name, counters, loop, entering, kept_on


def _chain(explorer, shape: Loop, name: str, worlds: list, loop) -> tuple:
    """The loop's passes over worlds holding the pool Unrolled, a die at a time, the
    worlds merged after each statement: (worlds after, failures)."""
    var, failures = shape.var, []
    done: list = []
    going = worlds
    while going:
        explorer.work()
        passing = []
        for world in going:
            pool = world.env[name]
            steps = plus(world.steps, 1)
            if type(pool.die) is KeptDie:  # (its kept dice: odds.kept_draws)
                passing.extend(_kept_pass(explorer, world, name, var, done))
                continue
            if pool.pending:  # (the next die of the list drawn last)
                left = Unrolled(pool.die, pool.count, pool.pending[1:])
                env = {**world.env, name: left, var: pool.pending[0]}
                passing.append(World(env, world.state, world.weight, steps))
                continue
            if not pool.count:
                env = dict(world.env)
                del env[name]
                done.append(World(env, world.state, world.weight, world.steps))
                continue
            if type(pool.die) is Chains:  # (a list of dice drawn: its first, the pass's)
                for dice, weight in explorer.weighted(pool.die.weights, world.weight):
                    left = Unrolled(pool.die, pool.count - 1, dice[1:])
                    env = {**world.env, name: left, var: dice[0]}
                    passing.append(World(env, world.state, weight, steps))
                continue
            env = {**world.env, name: Unrolled(pool.die, pool.count - 1), var: Drawn(pool.die)}
            passing.extend(starts(explorer, World(env, world.state, world.weight, steps)))
        if not passing:
            break
        going, failed = explorer.block(shape.body, passing, loop)
        going = worlds_of(explorer, going)
        failures.extend(failed)
    return done, failures


def _kept_pass(explorer, world: World, name: str, var: str, done: list) -> list:
    """The worlds a pass over a pool's kept dice begins from (odds.kept_draws): the
    multiset drawn first (a world per state it leaves), then the next kept die; a world
    whose kept dice are all drawn goes to `done`."""
    pool = world.env[name]
    die = pool.die
    if not pool.pending:  # (the multiset not drawn yet: a world per state)
        explorer.roller.work += len(die.drawn) // WORLDS_PER_WORK
        drawn = Dist(die.drawn, sum(die.weights) ** pool.count)
        worlds = []
        for state, weight in explorer.weighted(drawn, world.weight):
            env = {**world.env, name: Unrolled(die, passes(die, state), state)}
            worlds.append(World(env, world.state, weight, world.steps))
    else:
        worlds = [world]
    out = []
    for each in worlds:
        pool = each.env[name]
        if not pool.count:
            env = dict(each.env)
            del env[name]
            done.append(World(env, each.state, each.weight, each.steps))
            continue
        ways, denominator = next_kept(die, pool.pending)
        after = Dist({(face, state): w for face, state, w in ways}, denominator)
        steps = plus(each.steps, 1)
        for (face, state), weight in explorer.weighted(after, each.weight):
            env = {**each.env, name: Unrolled(die, pool.count - 1, state), var: face}
            out.append(World(env, each.state, weight, steps))
    return out
