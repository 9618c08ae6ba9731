"""A pool's part of several rolls' sums: a number per die added die by die, not a run per value.

interpreter.odds.convolved runs the lets once per value of each roll: of a pool, once
per joint answer to the questions asked of it (364 for 3d12 asked how many dice show each
of eleven faces), every let reading it run again each time. Where the lets read the pool
only as a sum of its answers (`linear`: `count(p, 6)`, `p.total`, added, negated, times a
number or a name of the world), each name they give is a number per question times the
answer, plus what the rest gives (`forms_of`: found once per world, reading the first
run's names, not running the lets again); and the answers of a pool are the sums over
its dice of each die's alone. So a value's part is a sum of products (no run), and where
the dice are alike and independent the pool's part is made by adding one die's at a time
(`Dice`: as many states as distinct partial sums; the joint answers never counted).

The rule, on the statements (`linear`, when planned); at run time (`dice_of`): the pool's
`let` rolls one dice term that may not fail (caught as the `let` settles it: the roller's
`capture`), asked only how many dice pass a test and its total; die by die where it has
no modifier, or only modifiers acting on each die alone (die_loops.one_die), and adding
die by die pairs fewer states with a die's shifts than the pool's joint answers times
its questions (`_die_by_die`; else those answers, each a sum of products). A name the
forms need that is no whole number in a world: the lets run once per value, or per kind
of face of one die, as convolved does.
"""

from __future__ import annotations

from collections import Counter
from math import comb
from operator import add, sub

from dsl import nodes as n
from interpreter.odds.die_loops import one_die
from interpreter.odds.drawn import OneDie
from interpreter.odds.questions import is_term, unasked
from interpreter.odds.roller import Branch
from interpreter.odds.summed import PAIRS_PER_WORK, alike_in, run_lets, whole_sums
from interpreter.odds.worlds import STOPS, entered
from interpreter.pool import Answers, Count, Total, face_test
from interpreter.state import MISSING
from interpreter.values import Range


class Switch:
    """Whether a pool read linearly is counted by its answers' sums (tests switch it
    off: then value by value, each value's lets run, as convolved does)."""

    dice = True


SWITCH = Switch()

#: the most kinds of face one die may show (past it: value by value)
MOST_CLASSES = 1 << 10
#: the question `p.total` asks
TOTAL = Total()


class Dice:
    """A pool as `dice_of` finds it: its term, the questions asked, the answers of no
    dice (`empty`: what the lets are first run with), and where its dice are alike and
    independent one die's kinds of face [(their answers, weight)] (`classes`, else
    None) and their weights' total."""

    __slots__ = ("classes", "empty", "questions", "roll", "total")

    def __init__(self, roll, questions: tuple, classes: list | None, total: int) -> None:
        self.roll, self.questions, self.classes, self.total = roll, questions, classes, total
        self.empty = Answers(dict.fromkeys(questions, 0), None, unasked)


def linear(explorer, lets: tuple, roll: str, derived: set) -> dict | None:
    """Each of the `lets` (those reading the pool `roll`, in order; `derived`: the names
    they give, and `roll`) as a sum of the pool's answers (see the module's docstring),
    by name: [(the question, or ("named", the name of its test), a number, the names it
    is multiplied by)]; None where one reads the pool otherwise."""
    forms: dict = {}
    for statement in lets:
        form = _linear(explorer, statement.node.expr, (roll, derived, forms))
        if form is None:
            return None
        forms[statement.node.name] = form
    return forms


def _linear(explorer, expr, given: tuple) -> list | None:
    roll, derived, forms = given
    reads = explorer.names_read
    if not set(reads(expr).needs) & derived:
        return []  # (nothing of the pool: the same whatever it shows)
    kind = type(expr)
    if kind is n.Name:
        return forms.get(expr.name)  # (a let of the pool's; not the pool itself)
    if kind is n.Unary:
        inner = _linear(explorer, expr.operand, given) if expr.op == "-" else None
        return None if inner is None else [(q, -k, names) for q, k, names in inner]
    if kind is n.Binary and expr.op in ("+", "-"):
        left, right = _linear(explorer, expr.left, given), _linear(explorer, expr.right, given)
        if left is None or right is None:
            return None
        sign = 1 if expr.op == "+" else -1
        return left + [(q, sign * k, names) for q, k, names in right]
    if kind is n.Binary and expr.op == "*":
        side, other = expr.left, expr.right
        if set(reads(side).needs) & derived:
            side, other = other, side
        if set(reads(side).needs) & derived or not _named(side):
            return None  # (a product of two parts of the pool, or by a number computed)
        inner = _linear(explorer, other, given)
        if inner is None:
            return None
        if type(side) is n.Literal:
            return [(q, side.value * k, names) for q, k, names in inner]
        source = _source(explorer, side)
        if source is None:
            return None
        return [(q, k, (*names, source)) for q, k, names in inner]
    if kind is n.Field and expr.name == "total" and _is(expr.subject, roll):
        return [(TOTAL, 1, ())]
    if kind is n.Call and _counted(explorer, expr, roll):
        test = expr.args[1]
        if type(test) is n.Range:
            return [(Count(face_test(Range(test.low, test.high))), 1, ())]
        if type(test) is n.Literal:
            return [(Count(face_test(test.value)), 1, ())]
        source = None if set(reads(test).needs) & derived else _source(explorer, test)
        return None if source is None else [(("named", source), 1, ())]
    return None


def _source(explorer, name):
    """Where a name's value is read in a world: ("env", name) for a name the action
    gives (not a place's), ("field" or "skill", name) for the sheet's; else None."""
    compiler = explorer.sheet.compiler
    binding = compiler.binding_of(name)
    if binding is None:
        return None
    if binding.kind == "local" and compiler.type_of(name).kind != "ref":
        return ("env", binding.name)
    if binding.kind == "field":
        skill = isinstance(binding.node, n.Stat) and binding.node.kind == "skill"
        return ("skill" if skill else "field", binding.name)
    return None


def _value(source: tuple, env: dict, state):
    """The value a name (_source) has in a world (its names `env`, its sheet `state`)."""
    where, name = source
    if where == "env":
        return env.get(name, MISSING)
    return state.read(name) if where == "skill" else state.values.get(name, MISSING)


def _counted(explorer, call, roll: str) -> bool:
    """Whether a call is the language's `count(roll, test)`, the test a number, a range
    or a name."""
    binding = explorer.sheet.compiler.binding_of(call)
    return (
        call.function == "count"
        and binding is not None
        and binding.kind == "builtin"
        and len(call.args) == 2
        and not call.named
        and _is(call.args[0], roll)
        and (_named(call.args[1]) or type(call.args[1]) is n.Range)
    )


def _named(expr) -> bool:
    """A whole number written, or a name (of the world: a whole number at run time)."""
    return type(expr) is n.Name or (type(expr) is n.Literal and type(expr.value) is int)


def _is(expr, name: str) -> bool:
    return type(expr) is n.Name and expr.name == name


def forms_of(forms: dict, out: tuple, world: tuple, asked: tuple, project) -> list | None:
    """What one of each question's answer adds to the names `out` (of `linear`'s
    `forms`, the world's names and sheet read in `world`), projected: a tuple per
    question `asked`; None where a name read is no whole number or a question is not
    one asked."""
    env, state = world
    where = {q: i for i, q in enumerate(asked)}
    rows = [[0] * len(out) for _ in asked]
    for j, name in enumerate(out):
        for question, k, names in forms.get(name, ()):
            if type(question) is tuple:  # (`count(p, x)`: the test read of the world)
                value = _value(question[1], env, state)
                if type(value) is not int:
                    return None
                question = Count(face_test(value))
            for factor in names:
                value = _value(factor, env, state)
                if type(value) is not int:
                    return None
                k *= value
            i = where.get(question)
            if i is None:
                return None
            rows[i][j] += k
    return [project(tuple(row)) for row in rows]


class _Caught(Exception):
    """The pool's term, caught as its `let` settles it."""


def dice_of(explorer, statement, worlds: list, reads: tuple):
    """The pool of `statement` (a pool's `let`) in each world, as roll_values gives a
    roll's values, each group's a Dice: ({group: Dice}, each world's (group, steps of
    the let)); None where the term is not caught so. (`reads`: what the `let` reads of a
    world.)"""
    if not SWITCH.dice or explorer.roller.capture is not None:
        return None
    groups: dict = {}
    of_world = []
    probes: dict = {}
    for world in worlds:
        alike = alike_in(world, reads)
        probed = probes.get(alike, MISSING)
        if probed is MISSING:
            probed = probes[alike] = _caught(explorer, statement, world)
        if probed is None:
            return None
        roll, questions, taken = probed
        key = ("dice", roll.number, questions)
        of_world.append((key, taken))
        if key not in groups:
            groups[key] = _dice(explorer, roll, questions)
    return groups, of_world


def _caught(explorer, statement, world):
    """The `let` run in `world` up to where it settles its pool: (the term, the
    questions asked of it, the steps taken), or None."""
    ctx, roller = explorer.ctx, explorer.roller
    name = statement.node.name
    found: list = []

    def catch(roll, questions, caught_name):  # noqa: ARG001 (as the roller calls it)
        if ctx.depth != explorer.depth:  # (a `let` of that name in a call: as any)
            roller.capture = None
            try:
                return roller.settle(roll, questions)
            finally:
                roller.capture = caught
        found.append((roll, questions))
        raise _Caught

    caught = {name: catch}

    start = entered(explorer, world)
    roller.capture = caught
    try:
        statement.run(ctx)
    except (_Caught, Branch, *STOPS):
        pass  # (caught, or none: a run that stopped or branched first)
    finally:
        roller.capture = None
    explorer.counted(start)
    if not found:
        return None
    roll, questions = found[0]
    if not is_term(roll) or roll.failure or questions is None:
        return None
    if not all(type(q) is Count or type(q) is Total for q in questions):
        return None
    return roll, questions, ctx.steps - start


def _dice(explorer, roll, questions: tuple) -> Dice:
    """The term's dice, one die's faces told apart by the questions' answers, where its
    dice are alike and independent (no classes where not, or where one die shows too
    many kinds)."""
    if not roll.steps:
        weights: dict = Counter(roll.die.faces())
    else:
        one = one_die(explorer.roller, roll.die, roll.steps, frozenset())
        weights = one.weights.weights if type(one) is OneDie else {None: 0}
    if any(type(face) is not int for face in weights):
        return Dice(roll, questions, None, 0)
    classes: dict = {}
    tests = [None if type(q) is Total else q.test for q in questions]
    for face, weight in weights.items():
        answers = tuple(face if t is None else int(t(face)) for t in tests)
        classes[answers] = classes.get(answers, 0) + weight
        if len(classes) > MOST_CLASSES:
            return Dice(roll, questions, None, 0)
    return Dice(roll, questions, list(classes.items()), sum(classes.values()))


def first_of(values) -> object:
    """The value of a roll the lets are first run with: a pool read as sums of its
    answers, with no dice; else its first value."""
    return values.empty if type(values) is Dice else values[0][0][0]


def pool_shifts(explorer, dice: Dice, name: str, lets: tuple, forms: dict, first: tuple):
    """What the pool adds to the sums read after the lets (`forms`: linear's; `first`:
    the first run's names, its sums projected with the pool empty, its world, the names
    summed, the projection, the most states): ({shift: weight}, the weights' total), or
    None."""
    env, base, world, out, project, most = first
    rows = forms_of(forms, out, (env, world.state), dice.questions, project)
    one: dict | None = None
    if dice.classes is not None:  # (one die's shifts: by the rows, or each run)
        if rows is None:
            values = [(_answers(dice, a), w) for a, w in dice.classes]
            one = lets_shifts(explorer, values, name, lets, first)
        else:
            one = {}
            for answers, weight in dice.classes:
                shift = _dot(rows, answers, len(base))
                one[shift] = one.get(shift, 0) + weight
        if one is None:
            return None
    count = dice.roll.count
    if one is not None and _die_by_die(one, dice, count):
        return _added(explorer, one, count, len(base), most), dice.total**count
    joint = explorer.roller.pool_values(dice.roll, dice.questions, False)
    if joint.missing():
        return None
    if rows is None:
        shifts = lets_shifts(explorer, list(joint.weights.items()), name, lets, first)
        return None if shifts is None else (shifts, joint.total)
    shifts = {}
    for value, weight in joint.weights.items():
        answers = value.answers
        shift = _dot(rows, [answers[q] for q in dice.questions], len(base))
        shifts[shift] = shifts.get(shift, 0) + weight
    return shifts, joint.total


def _answers(dice: Dice, answers: tuple) -> Answers:
    return Answers(dict(zip(dice.questions, answers)), None, unasked)


def _die_by_die(one: dict, dice: Dice, count: int) -> bool:
    """Whether adding the dice one at a time pairs fewer states with one die's shifts
    than the pool has joint answers times questions (the states after i dice: at most
    the multisets of i shifts, and the sums within i times each shift's span)."""
    assert dice.classes is not None
    most = comb(count + len(dice.classes) - 1, len(dice.classes) - 1) * len(dice.questions)
    kinds = len(one)
    spans = [max(column) - min(column) for column in zip(*one)]
    pairs = 0
    multisets: int | None = 1  # (of i shifts: C(i + kinds - 1, i), while below the box)
    for i in range(count):
        box = 1
        for span in spans:
            box *= i * span + 1
        if multisets is not None and multisets > box:
            multisets = None  # (past the box: it grows faster, the box bounds from here)
        pairs += kinds * (box if multisets is None else multisets)
        if pairs > most:
            return False
        if multisets is not None:
            multisets = multisets * (i + kinds) // (i + 1)
    return True


def _dot(rows: list, answers, width: int) -> tuple:
    """The sum of each question's row times its answer."""
    out = [0] * width
    for row, a in zip(rows, answers):
        if a:
            for j, k in enumerate(row):
                out[j] += a * k
    return tuple(out)


def lets_shifts(explorer, values, name: str, lets: tuple, first: tuple) -> dict | None:
    """The lets run once per value of a roll [(value, weight)] (`first`: the first run's
    names, its sums projected, its world, the names summed, the projection): {shift of
    the sums: weight}, or None (a run failed, stopped, took other steps, or gave sums
    not whole). convolved's way for a roll, and this module's for a pool's values."""
    env, base, world, out, project = first[:5]
    steps = None  # (of the lets: the same for every value)
    shifts: dict = {}
    for value, weight in values:
        ran = run_lets(explorer, lets, {**env, name: value}, world)
        if ran is None or (steps is not None and ran[1] != steps):
            return None
        steps = ran[1]
        sums = whole_sums(ran[0], out)
        if sums is None:
            return None
        shift = tuple(map(sub, project(sums), base))
        shifts[shift] = shifts.get(shift, 0) + weight
    return shifts


def shifted(explorer, states: dict, shifts: dict, pairs: int) -> tuple[dict, int]:
    """Every state moved by every shift ({state: weight}), and the pairs made so far
    (`pairs`, with these), their work counted in whole PAIRS_PER_WORK."""
    joined: dict = {}
    for state, weight in states.items():
        for shift, times in shifts.items():
            moved = tuple(map(add, state, shift))
            joined[moved] = joined.get(moved, 0) + weight * times
    pairs += len(states) * len(shifts)
    if pairs >= PAIRS_PER_WORK:
        explorer.roller.work += pairs // PAIRS_PER_WORK
        pairs %= PAIRS_PER_WORK
        explorer.work()
    return joined, pairs


def _added(explorer, one: dict, count: int, width: int, most: int) -> dict | None:
    """`count` dice each moving the sums by `one`'s shifts: the shifts of all of them,
    added one die at a time ({shift: weight}), or None past `most` states."""
    states: dict = {(0,) * width: 1}
    pairs = 0
    for _ in range(count):
        states, pairs = shifted(explorer, states, one, pairs)
        if len(states) > most:
            return None
    return states
