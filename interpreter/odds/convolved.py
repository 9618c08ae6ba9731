"""Several rolls read only through sums: each roll's part counted alone, the parts added.

`let pA = (a)d8  let pB = (b)d12` then `let success = count(pA, 2) + 2 * count(pA, 4) +
count(pB, 2)` and `let advantage = count(pA, 5) + count(pB, 6)`: the explorer would make
a world per value of `pA` (every joint of the counts asked of it) times a world per value
of `pB` before the first let reads them, then run the lets in each (1.3 million worlds
for 8 Genesys dice as six pools). But each let is a sum whose every part reads at most
one roll, so the names the lets leave are X(v₀) + Σᵣ (X(v₀ with r's value vᵣ) - X(v₀))
for the rolls' values v and any one value v₀ of each: the lets are run once with v₀ and
once per value of each roll (the others at v₀), and the joint of the sums is made by
adding each roll's part, roll after roll (a convolution: as many states as distinct
sums, not the product of the rolls' values; and where the names are read only as terms
of one sum, interpreter.odds.linear, as many as the distinct values of that sum).

The rule, checked on the statements (`plan_of`): from a `let` that rolls (a pool's, or a
pure value with dice), `let`s that change nothing, among them other rolls (two or more in
all) each reading none of the names the rolls and lets before it give, up to the last
one reading any of the rolls (and on, while the lets read what those gave: the sums of
the lets that name each face's count); each let that does not roll is, for every roll it
reads, a sum of a part of that roll and a part of the rest (interpreter.odds.summed's
rule, roll by roll), and no `if`'s condition or part of one roll reads another roll or
what the lets give. So every value but the sums across rolls is computed in some run
(one that fails: one by one), and those sums fail only where sums may
(failing.sums_may_fail: then every let must be one that cannot fail). At run time as
odds.summed: every run ends in one world, the values added are whole numbers, every run
takes the same steps. Anything else: the statements run one by one as before.
"""

from __future__ import annotations

from operator import add

from dsl import nodes as n
from interpreter.compiled import Plain
from interpreter.odds.linear import projection
from interpreter.odds.per_die import (
    Dice,
    dice_of,
    first_of,
    lets_shifts,
    linear,
    pool_shifts,
    shifted,
)
from interpreter.odds.summed import (
    DICE,
    added_worlds,
    alike_in,
    pure_let,
    question_reads,
    remembered_plan,
    roll_values,
    run_lets,
    separable,
    whole_sums,
)
from interpreter.odds.worlds import World


class Switch:
    """Whether several rolls read through sums are counted roll by roll (tests switch it
    off: then as before, a world per joint value)."""

    rolls = True


SWITCH = Switch()

#: the most states the sums may take while the parts are added (past it: one by one)
MOST_STATES = 1 << 20


class Plan:
    """What `plan_of` found: the rolls' statements' indices, the last statement reading
    any of them, the names whose sums are read after it (`out`), the lets run, the names
    they give (`bound`), and the world's names read by each roll (with its questions) and
    by the lets (`reads`)."""

    __slots__ = ("bound", "depends", "last", "out", "per_die", "reads", "rolls", "runs")

    def __init__(self, rolls: tuple, last: int, out: tuple, runs: tuple, reads: tuple):
        self.rolls, self.last, self.out, self.runs, self.reads = rolls, last, out, runs, reads
        self.bound = tuple(statement.node.name for statement in runs)
        #: each roll's lets: those reading it or a name such a let gives (the others
        #: keep their values of the first run whatever the roll shows)
        self.depends: tuple = ()
        #: for each roll, where it is a pool its lets read only as a sum of its answers,
        #: their forms (odds.per_die.linear), else None
        self.per_die: tuple = ()


def plan_of(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    """The plan for statements[index] (see the module's docstring), or None."""
    if not SWITCH.rolls:
        return None
    return remembered_plan(explorer, "convolved", _plan, statements, index, live)


def _rolling(explorer, statement) -> bool:
    """Whether a statement is a `let` of a pool, or a pure `let` rolling dice."""
    if not isinstance(statement.node, n.Let):
        return False
    if type(statement.shape) is Plain:
        return True
    expr = statement.node.expr
    return pure_let(explorer, statement) and any(isinstance(p, DICE) for p in n.walk(expr))


def _plan(explorer, statements: tuple, index: int, live: list) -> Plan | None:
    if not _rolling(explorer, statements[index]):
        return None
    reads = explorer.names_read
    rolls: list = []  # the rolls' names, and their statements' indices
    at: list = []
    pure: dict = {}  # each roll and the lets reading it alone
    mixed: dict = {}  # the lets adding a part of a roll to the rest
    keys: set = set()
    bound: set = set()
    runs: list = []
    ends = None  # (last, rolls, runs, keys) where the rolls were last all read no more
    for k in range(index, len(statements)):
        statement = statements[k]
        if _new_roll(explorer, statement, live[k], rolls, bound):
            name = statement.node.name
            rolls.append(name)
            at.append(k)
            pure[name], mixed[name] = {name}, set()
        elif not explorer.idle(statement, live[k]):
            more = _taken(explorer, statement, rolls, (pure, mixed, bound))
            if more is None:
                break  # (the lets up to the end found, if any)
            keys |= more
            bound.add(statement.node.name)
            runs.append(statement)
        if not any(roll in live[k].needs for roll in rolls):
            # the rolls read no more: on while the lets go on adding what they gave
            ends = (k, len(rolls), len(runs), set(keys))
            derived = set().union(*pure.values(), *mixed.values())
            if not derived & set(live[k].needs):
                break
    if ends is None or ends[1] < 2 or not ends[2]:
        return None
    last, rolls, runs, keys = ends[0], rolls[: ends[1]], runs[: ends[2]], ends[3]
    if keys & (bound | set(rolls)):
        return None
    derived = set().union(*pure.values(), *mixed.values()) - set(rolls)
    after = live[last].needs
    out = tuple(sorted(name for name in derived if name in after))
    if any(after[name] is not None for name in out):
        return None
    part = statements[index : last + 1]
    of_rolls = tuple(
        tuple(sorted(set(reads(statements[k].node.expr).needs) | question_reads(explorer, part, r)))
        for k, r in zip(at, rolls)
    )
    of_runs: set = set()
    for statement in runs:
        of_runs.update(reads(statement.node.expr).needs)
    lets = tuple(sorted(of_runs - bound - set(rolls)))
    plan = Plan(tuple(at[: len(rolls)]), last, out, tuple(runs), (of_rolls, lets))
    plan.depends = tuple(tuple(s for s in runs if s.node.name in pure[r] | mixed[r]) for r in rolls)
    plan.per_die = tuple(
        linear(explorer, lets, r, pure[r] | mixed[r])
        if type(statements[k].shape) is Plain
        else None
        for k, r, lets in zip(at, rolls, plan.depends)
    )
    return plan


def _new_roll(explorer, statement, live, rolls: list, bound: set) -> bool:
    """Whether a statement rolls anew, independent of the rolls before it and of the lets
    after them (it reads none of their names), its value read after it."""
    if not _rolling(explorer, statement):
        return False
    name = statement.node.name
    if name not in live.needs or name in rolls or name in bound:
        return False
    return not set(explorer.names_read(statement.node.expr).needs) & (bound | set(rolls))


def _taken(explorer, statement, rolls: list, sets: tuple) -> set | None:
    """What the rolls' parts and conditions in a pure let read of the rest (the `keys`),
    the let's name added to each roll's pure or mixed names; None where the let is not
    one of the plan's (see the module's docstring)."""
    pure, mixed, bound = sets
    if not pure_let(explorer, statement):
        return None
    name, expr = statement.node.name, statement.node.expr
    if explorer.sums_fail and not explorer.safe(expr):
        return None  # (a sum of parts of several rolls, never computed, may fail)
    if any(isinstance(part, DICE) for part in n.walk(expr)):
        return None
    if name in bound or name in rolls:
        return None
    reads = explorer.names_read
    read = set(reads(expr).needs)
    keys: set = set()
    adds = []
    for roll in rolls:
        if not read & (pure[roll] | mixed[roll]):
            continue
        if read <= pure[roll]:
            adds.append(pure[roll])
        elif separable(expr, pure[roll], mixed[roll], keys, reads):
            adds.append(mixed[roll])
        else:
            return None
    for names in adds:
        names.add(name)
    return keys


def convolved_run(explorer, statements: tuple, index: int, worlds, live: list):
    """statements[index], the rolls after it and the lets reading them, counted roll by
    roll (see the module's docstring): (worlds after, failures, the index of the next
    statement), or None (run them one by one)."""
    if type(worlds) is not list or not worlds:
        return None
    plan = plan_of(explorer, statements, index, live)
    if plan is None:
        return None
    rolls = [statements[k] for k in plan.rolls]
    most = sum(explorer.most_steps(s.node) for s in (*rolls, *plan.runs))
    limit = explorer.ctx.limits.steps_per_run
    if any(world.steps[1] + most > limit for world in worlds):
        return None  # (a run that may stop at the limit: one by one)
    valued = []  # each roll's (groups, each world's (group, steps))
    for statement, k, reads, die_by_die in zip(rolls, plan.rolls, plan.reads[0], plan.per_die):
        found = None
        if die_by_die is not None:
            found = dice_of(explorer, statement, worlds, reads)
        if found is None:
            found = roll_values(explorer, statement, worlds, reads, live[k])
        if found is None:
            return None
        valued.append(found)
    names = [statement.node.name for statement in rolls]
    parts: dict = {}  # worlds alike in what the lets read and the rolls' groups → joint
    by_world, of_world, groups = [], [], {}
    for i, world in enumerate(worlds):
        of_rolls = tuple(found[1][i][0] for found in valued)
        key = (alike_in(world, plan.reads[1]), of_rolls)
        joint = parts.get(key)
        if joint is None:
            values = [found[0][group] for found, group in zip(valued, of_rolls)]
            joint = parts[key] = _joint(explorer, plan, world, names, values)
        if joint is None:
            return None
        given, taken, relative, total = joint
        groups[key] = (None, total)
        let_steps = sum(found[1][i][1] for found in valued)
        of_world.append((key, let_steps))
        env = {**world.env, **given}
        by_world.append((env, taken, relative[0][1], key))
    by_class = {key: (None, None, None, {key: joint[2]}) for key, joint in parts.items()}
    after = added_worlds(
        explorer, plan.out, worlds, groups, of_world, (by_world, by_class), live[plan.last]
    )
    return after, [], plan.last + 1


def _joint(explorer, plan: Plan, world: World, names: list, values: list):
    """The lets run in `world` with each roll's first value, then the roll's own lets
    once per value of each roll (from the first run's names: the others at their first):
    (the names they give, their steps, [(weight, the sums read after)] of the rolls'
    joint, its total), or None."""
    out = plan.out
    if any(name in world.env for name in (*plan.bound, *names)):
        return None  # (a name given anew: a let run again would read the later value)
    firsts = {name: first_of(found) for name, found in zip(names, values)}
    ran = run_lets(explorer, plan.runs, {**world.env, **firsts}, world)
    if ran is None:
        return None
    base = whole_sums(ran[0], out)
    if base is None:
        return None
    # names read only as terms of one sum (odds.linear): the sum alone told apart
    project = projection(explorer.sums, out) or _itself
    base = project(base)
    given = {**firsts, **{name: ran[0].get(name) for name in plan.bound if name in ran[0]}}
    taken = ran[1]
    states: dict = {tuple(0 for _ in out): 1}
    total = 1
    pairs = 0
    first_env = ran[0]
    for name, found, runs, forms in zip(names, values, plan.depends, plan.per_die):
        first = (first_env, base, world, out)
        if type(found) is Dice:  # (a pool read as sums of its answers: odds.per_die)
            made = pool_shifts(explorer, found, name, runs, forms, (*first, project, MOST_STATES))
        else:
            made = _shifts(explorer, found, name, runs, first, project)
        if made is None or made[0] is None:
            return None
        shifts, of_total = made
        joined, pairs = shifted(explorer, states, shifts, pairs)
        if len(joined) > MOST_STATES:
            return None
        states, total = joined, total * of_total
    relative = [(weight, tuple(map(add, base, state))) for state, weight in states.items()]
    return given, taken, relative, total


def _shifts(explorer, found: tuple, name: str, runs: tuple, first: tuple, project):
    """The roll's lets run once per value of the roll (`first`: the first run's names,
    its sums projected, its world, the names summed): ({shift of the sums: weight}, the
    weights' total), or None."""
    weighted, of_total = found
    shifts = lets_shifts(explorer, weighted, name, runs, (*first, project))
    return None if shifts is None else (shifts, of_total)


def _itself(values: tuple) -> tuple:
    return values
