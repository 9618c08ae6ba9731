"""Compiling pool values: their fields, the pool functions, and a `let` that holds a pool.

A real run asks a rolled pool (interpreter.pool) directly. The odds engine cannot branch on
every way a pool fell, so a `let` of a pool asks, there and then, every question the rest
of the definition will ask of that name (found in its text), and branches on the joint
answers alone (`ctx.roller.answers`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import attrs

from dsl import nodes as n
from dsl.messages import tr
from interpreter.bounds import cells
from interpreter.compile.arithmetic import as_number, as_whole
from interpreter.compile.builtin_functions import POOL_QUESTIONS
from interpreter.compile.host import CompilerHost
from interpreter.compile.step_texts import let_step, set_step
from interpreter.dice import PoolRoll, keep_dice
from interpreter.errors import EvaluationError
from interpreter.pool import (
    FIELDS,
    KEPT,
    Answers,
    Count,
    Highest,
    Lowest,
    MostSets,
    Question,
    Rolled,
    Sorted,
    Standing,
    Summed,
    Total,
    face_test,
    of_list,
)
from interpreter.roll_steps import dice_step
from interpreter.runtime import ChainRoll, Unknown, known, lift
from interpreter.values import Range, normalize

#: what a value is, where a number is wanted (a refusal says it)
A_ROLL_OF_A_GROUP = tr("a roll of a group")
A_DIE_IN_THE_LIST = tr("a die in the list")
HOW_MANY_TAKEN = tr("how many dice {function} takes")
AT_LEAST = tr("what a set adds up to")

#: whether a question written with constants (`count(b, 6)`, `count(b, 2..5)`,
#: `highest(b)`, `b.total`) is made once when compiled, the same object wherever it is
#: written, and a pool `let` all of whose questions are such asks them as one tuple
#: made once (not each question's closure run, and the tuple made, at every `let`)
CONSTANT_QUESTIONS = True

#: whether `sum(highest(r, n))` of a pool `r` asks the sum as one question (Summed), so
#: that the odds engine counts a number, not every way the n dice fall (a pool of
#: compounding dice, 5d10!!: seconds, then sampled, the other way)
SUMMED = True
#: `size(r.sorted)` (or `r.kept`) of a pool asked as how many dice it kept (a count of
#: every face), not as the whole list of its dice (an exploding pool's many multisets)
SIZED = True
#: that count: every kept die whatever its face
ALL_KEPT = Count(face_test(Range(None, None)))
#: `sum(r.sorted)`, `max(r.kept)`, `min(r.sorted)`, `count(r.sorted, 6)` and the same of
#: `r.dice` (`size(r.dice)` too) of a pool asked as one question, not as the whole list
#: of its dice (every multiset of an exploding pool's dice; every roll, for `r.dice`)
LISTED = True
#: the list functions asked so, and the order-free question each asks of the kept dice
#: (`count`'s is made from its test: question_of)
LISTED_FUNCTIONS = {"sum": Summed(Sorted()), "max": Highest(), "min": Lowest(), "size": ALL_KEPT}

#: the questions made from constants, by kind and value (and its type): one object per
#: question, so that answers are found by identity (at most MOST_INTERNED)
_INTERNED: dict = {}
MOST_INTERNED = 4096


def ask(ctx, subject, question, span=None):
    """The answer of a pool (or of a list, for the pool functions) to a question (`span`:
    where it is asked, for the error when the subject is neither)."""
    if isinstance(subject, Rolled):
        if type(subject) is ChainRoll and isinstance(subject.total, Unknown):
            return ask_chain(ctx, subject, question)
        return subject.answer(question)
    if type(subject) is tuple:
        return list_answer(question, subject)
    if isinstance(subject, Unknown):  # a list not known yet (odds)
        return lift(lambda items: list_answer(question, items), subject)
    if ctx.roller.lifts:  # odds: a dice term's distribution
        return ctx.roller.answers(subject, (question,)).map(first)
    raise EvaluationError(tr("{subject} is not a pool of dice or a list", subject=subject), span)


def ask_chain(ctx, chain: ChainRoll, question):
    """A named roll in odds mode: its total, or a question about its one dice term."""
    if type(question) is Total:
        return chain.total
    rolls = [roll for _, rolls, _ in chain.parts for roll in rolls]
    if len(rolls) == 1:
        return ask(ctx, rolls[0], question)
    return ctx.roller.answers(chain, (question,)).map(first)


def first(answers: tuple):
    return answers[0]


def list_answer(question, items: tuple):
    if question.__class__.__name__ == "Count":
        return question.of_kept(items)
    return of_list(question, tuple(as_number(i, None, A_DIE_IN_THE_LIST) for i in items))


#: a range's ends read from names, where numbers are wanted (a refusal says which)
RANGE_LOW, RANGE_HIGH = tr("a range's low end"), tr("a range's high end")


class PoolValues(CompilerHost):
    """How the Compiler compiles pools: fields, pool functions, `let` of a pool."""

    def is_pool(self, node) -> bool:
        """Whether a node gives a pool value (a dice term or a named roll)."""
        return self.type_of(node).kind == "roll"

    def pool_field(self, node: n.Field):
        subject = self.roll_object(node.subject)
        question = FIELDS[node.name]
        span = node.span
        return lambda ctx: ask(ctx, subject(ctx), question, span)

    def pool_function(self, node: n.Call):
        """`count(r, 6)`, `highest(r)`, `lowest(r, 2)`: of a pool, or of a list."""
        first_arg = node.args[0]
        subject = self.roll_object(first_arg) if self.is_pool(first_arg) else self.expr(first_arg)
        question = self.question_of(node)
        span = node.span
        fixed = question.question if type(question) is Constant else None
        binding = self.bindings.get(id(first_arg))
        named = type(first_arg) is n.Name and binding is not None and binding.kind == "roll"
        if CONSTANT_QUESTIONS and fixed is not None and named and self.is_pool(first_arg):
            name = first_arg.name

            def pool_named(ctx):  # `count(b, 6)` of a pool `b`: its answer read at once
                found = ctx.env[name]
                if type(found) is Answers:  # (the odds engine's pool: Answers.answer's
                    value = found.answers.get(fixed, found)  # first look, without the call)
                    return value if value is not found else found.answer(fixed)
                if type(found) is tuple:  # a list: sorted, gone through
                    ctx.count(cells(found, ctx.limits.value_size), span)
                return ask(ctx, found, fixed, span)

            return pool_named

        def pool_function(ctx):
            found = subject(ctx)
            if type(found) is tuple:  # a list: sorted, gone through
                ctx.count(cells(found, ctx.limits.value_size), span)
            return ask(ctx, found, question(ctx), span)

        return self.listed_pool(node, pool_function)  # (`count(r.sorted, 6)`: the odds')

    def question_of(self, node: n.Call):
        """A closure giving the Question a pool function call asks."""
        kind = POOL_QUESTIONS[node.function]
        span = node.span
        if node.function == "count":
            test_node = node.args[1]
            if CONSTANT_QUESTIONS and isinstance(test_node, n.Literal | n.Range):
                value = test_node.value if isinstance(test_node, n.Literal) else None
                if isinstance(test_node, n.Range):
                    value = Range(test_node.low, test_node.high)
                return Constant(interned(kind, value))
            test = self.expr(test_node)
            made: dict = {}  # by the test's value: the odds engine asks again and again

            def count_question(ctx):
                value = known(ctx, test(ctx))
                try:
                    return made[(type(value), value)]
                except KeyError:
                    found = kind(face_test(value))
                    if len(made) < 64:
                        made[(type(value), value)] = found
                    return found
                except TypeError:  # a value that cannot be a key: a new question
                    return kind(face_test(value))

            return count_question
        if node.function == "most_sets":
            return self.most_sets_question(node)
        if len(node.args) == 1:
            return Constant(interned(kind) if CONSTANT_QUESTIONS else kind())
        how_many = self.expr(node.args[1])

        def question(ctx):
            count = as_whole(ctx, how_many(ctx), span, HOW_MANY_TAKEN, function=node.function)
            if count < 0:
                raise EvaluationError(
                    tr("{function} of {count} dice", function=node.function, count=count), span
                )
            return kind(count)

        return question

    def most_sets_question(self, node: n.Call):
        """`most_sets(r, 10)`, `most_sets(r, [10, 15])`: the thresholds, rising, above 0."""
        at_least, span = self.expr(node.args[1]), node.args[1].span
        made: dict = {}

        def question(ctx):
            value = known(ctx, at_least(ctx))
            items = value if type(value) is tuple else (value,)
            numbers = tuple(as_number(i, span, AT_LEAST) for i in items)
            found = made.get(numbers)
            if found is None:
                if not numbers or any(a >= b for a, b in itertools.pairwise(numbers)):
                    raise EvaluationError(
                        tr("most_sets: the sizes of sets should rise ({sizes})", sizes=value),
                        span,
                    )
                if numbers[0] <= 0:
                    raise EvaluationError(
                        tr("most_sets: a set should add up to more than 0 ({sizes})", sizes=value),
                        span,
                    )
                found = MostSets(numbers)
                if len(made) < 64:
                    made[numbers] = found
            return found

        return question

    def range_value(self, node: n.Range):
        value = Range(node.low, node.high)
        return lambda ctx: value

    def range_of(self, node: n.RangeOf):
        """`..Skill`, `difficulty..`: a range whose ends are read as it is made (a die's
        value too, in the odds: each of its values makes its range)."""
        span = node.span
        low = self.expr(node.low) if node.low is not None else lambda ctx: None
        high = self.expr(node.high) if node.high is not None else lambda ctx: None

        def made(lo, hi):
            return Range(
                None if lo is None else as_number(lo, span, RANGE_LOW),
                None if hi is None else as_number(hi, span, RANGE_HIGH),
            )

        return lambda ctx: lift(made, low(ctx), high(ctx))

    # ── `let r = pool` ──

    def let_pool(self, node: n.Let):
        """A `let` holding a pool: in a real run, the roll itself; in odds, the joint answers
        to what the rest of the definition asks of it."""
        return self.bind_pool(node.name, node.expr, node.span, let_step)

    def set_pool(self, node: n.Set):
        """`set r to 2d6` of a name holding a pool: a new roll, asked what `r` is asked."""
        return self.bind_pool(node.place.name, node.expr, node.span, set_step)

    def bind_pool(self, name: str, expr, span, step: Callable):
        roll = self.roll_object(expr)
        questions = self.questions_about(name)
        fixed = constant_questions(questions)  # (None: asked anew at every `let`)
        source = expr.span.text

        def let_pool(ctx):
            trace = ctx.trace
            if trace is None:
                rolled = roll(ctx)
            else:
                steps = len(trace)
                rolled = roll(ctx)
                if len(trace) == steps:  # a pool picked, not rolled: its step says which
                    step(ctx, name, source, span, rolled.total)
            # (is_known, written out: a pool `let` is run for every world the odds see)
            if ctx.roller.lifts and (
                isinstance(rolled.total, Unknown)
                if type(rolled) is ChainRoll
                else not isinstance(rolled, Rolled)
            ):
                asked = fixed if fixed is not None else self.asked(ctx, questions)
                rolled = ctx.roller.settle(rolled, asked, ctx, name)
            ctx.env[name] = rolled

        return let_pool

    def asked(self, ctx, questions):
        """The questions, with their arguments as they are now; None when one cannot be
        computed yet (the odds engine then keeps the whole multiset of kept faces)."""
        if questions is None:
            return None
        out = []
        for question in questions:
            try:
                out.append(question(ctx))
            except (KeyError, EvaluationError):
                return None
        return tuple(dict.fromkeys(out))

    def summed_pool(self, node: n.Call, plain: Callable, adding: Callable):
        """`sum(highest(r, n))` of a pool: in the odds engine, the sum asked as one
        question (Summed; of a pool `r` bound by `let`, the one its `let` asked); else
        (a run, a list) `plain`, the dice added up (`adding(ctx, dice)` them)."""
        inner = summed_use(node)
        if inner is None or not self.is_pool(inner.args[0]):
            return self.listed_pool(node, plain)  # (`sum(r.sorted)`: the odds' one question)
        first, question, span = inner.args[0], self.question_of(inner), node.span
        asked = summed_question(question)
        fixed = asked.question if type(asked) is Constant else None
        binding = self.bindings.get(id(first))
        if type(first) is not n.Name or binding is None or binding.kind != "roll":
            subject = self.roll_object(first)

            def summed_term(ctx):  # `sum(highest(5d10!!, 3))`
                found = subject(ctx)
                if ctx.roller.lifts and not isinstance(found, Rolled | tuple | Unknown):
                    return ask(ctx, found, asked(ctx), span)
                return adding(ctx, ask(ctx, found, question(ctx), span))

            return summed_term
        name = first.name

        def summed(ctx):
            found = ctx.env[name]
            if type(found) is Answers:  # (the odds engine's pool: the sum it was asked)
                value = found.answers.get(fixed or asked(ctx), found)
                if value is not found:
                    return value
            return plain(ctx)

        return summed

    def listed_pool(self, node: n.Call, plain: Callable, empty: Callable | None = None):
        """`sum(r.sorted)`, `max(r.dice)`, `count(r.kept, 6)`, `size(r.sorted)` of a pool
        `r` bound by `let` (listed_use): in the odds engine, the answer to the one
        question its `let` asked (listed_question); else `plain`, the list's function.
        `empty(ctx)`: what an answer of none (`max` of no dice) gives (the list's error)."""
        inner = listed_use(node)
        if inner is None or type(inner.subject) is not n.Name or not self.is_pool(inner.subject):
            return plain
        binding = self.bindings.get(id(inner.subject))
        if binding is None or binding.kind != "roll":
            return plain
        name, question = inner.subject.name, self.listed_question(node)
        fixed = question.question if type(question) is Constant else None

        def listed(ctx):
            found = ctx.env[name]
            if type(found) is Answers:  # (the odds engine's pool: the answer it was asked)
                value = found.answers.get(fixed or question(ctx), found)
                if value is not found:
                    return empty(ctx) if value is None and empty is not None else value
            return plain(ctx)

        return listed

    def listed_question(self, node: n.Call) -> Callable[..., Question]:
        """The closure of the question a listed_use asks (Standing of the kept dice's
        question, for `r.dice`: the same where the pool drops none)."""
        field = listed_use(node)
        assert field is not None
        if node.function == "count":
            question = self.question_of(node)
        else:
            question = Constant(LISTED_FUNCTIONS[node.function])
        if field.name != "dice":
            return question
        if type(question) is Constant:
            return Constant(Standing(question.question))
        return lambda ctx: Standing(question(ctx))

    def questions_about(self, name: str) -> tuple | None:
        """Closures of the questions asked of `name` in the definition being compiled
        (None outside one: then every order-free question may be asked)."""
        if not self.bodies:
            return None
        out: list[Callable[..., Question]] = []
        for use in pool_uses(self.bodies[-1], name):
            binding = self.bindings.get(id(use))
            inner = summed_use(use)
            if inner is not None:
                out.append(summed_question(self.question_of(inner)))
            elif listed_use(use) is not None:
                out.append(self.listed_question(use))
            elif isinstance(use, n.Field) and use.name in FIELDS:
                out.append(Constant(FIELDS[use.name]))
            elif isinstance(use, n.Call) and binding is not None and binding.kind == "builtin":
                out.append(self.question_of(use))
            else:
                out.append(Constant(FIELDS["total"]))
        return tuple(out)


class Constant:
    """A question's closure that gives the same question whatever the context: the
    question kept, `.question`, for what reads it at once (`pool_function`,
    `constant_questions`)."""

    __slots__ = ("question",)

    def __init__(self, question: Question):
        self.question = question

    def __call__(self, ctx) -> Question:  # noqa: ARG002 (a question's closure)
        return self.question


def interned(kind, *value) -> Question:
    """The question kind() or, for `count`, kind(face_test(value)): one object for all
    made of the same value (keyed by its type too: `count(b, 1)` is not `count(b, yes)`,
    though 1 == yes; see _INTERNED)."""
    key = (kind, *((type(v), v) for v in value))
    found = _INTERNED.get(key)
    if found is None:
        found = kind(*(face_test(v) for v in value))
        if len(_INTERNED) < MOST_INTERNED:
            _INTERNED[key] = found
    return found


def constant_questions(questions: tuple | None) -> tuple | None:
    """The questions a pool `let` asks, when every one is a constant (as `asked` would
    give them: each once, in order), made once; else None."""
    if not CONSTANT_QUESTIONS or questions is None:
        return None
    if any(type(question) is not Constant for question in questions):
        return None
    return tuple(dict.fromkeys(question.question for question in questions))


def is_known(rolled) -> bool:
    if type(rolled) is ChainRoll:
        return not isinstance(rolled.total, Unknown)
    return isinstance(rolled, Rolled)


def pool_uses(body, name: str) -> list:
    """Each place `name` is used in `body`: the Field or pool-function Call around it, or
    the Name itself (used as a number)."""
    uses = []
    stack = [(body, None)]
    while stack:
        item, parent = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend((child, parent) for child in item)
            continue
        if not attrs.has(type(item)):
            continue
        inner = summed_use(item)
        if inner is not None and type(inner.args[0]) is n.Name and inner.args[0].name == name:
            uses.append(item)  # `sum(highest(r, 2))`: one question, the sum
            continue
        listed = listed_use(item)
        if listed is not None and type(listed.subject) is n.Name and listed.subject.name == name:
            uses.append(item)  # `size(r.sorted)`, `max(r.dice)`: one question each
            continue
        if isinstance(item, n.Name) and item.name == name:
            if isinstance(parent, n.Field) and parent.subject is item:
                uses.append(parent)
            elif isinstance(parent, n.Call) and parent.function in POOL_QUESTIONS and parent.args:
                uses.append(parent if parent.args[0] is item else item)
            else:
                uses.append(item)
            continue
        for field in attrs.fields(type(item)):
            if field.name not in ("span", "name_span", "op_span"):
                stack.append((getattr(item, field.name), item))
    return uses


def summed_question(question: Callable[..., Question]) -> Callable[..., Question]:
    """The closure of the Summed question of a `highest(r, n)` question's closure."""
    if type(question) is Constant:
        return Constant(Summed(question.question))
    return lambda ctx: Summed(question(ctx))


def listed_use(node) -> n.Field | None:
    """The `r.sorted` (`r.kept`, `r.dice`) a list function reads as one number: `size`
    of it (SIZED, but of `r.dice`), `sum`, `max`, `min` of it, `count(r.sorted, test)`
    (LISTED); else None."""
    if type(node) is not n.Call or not node.args or node.named:
        return None
    inner = node.args[0]
    if type(inner) is not n.Field or inner.name not in ("sorted", "kept", "dice"):
        return None
    arity = 2 if node.function == "count" else 1
    if len(node.args) != arity or (node.function not in LISTED_FUNCTIONS and arity == 1):
        return None
    if node.function == "size" and inner.name != "dice":
        return inner if SIZED else None
    return inner if LISTED else None


def summed_use(node) -> n.Call | None:
    """The `highest(r, n)` (or `lowest`) call that `sum(...)` adds up, else None."""
    if SUMMED and type(node) is n.Call and node.function == "sum" and len(node.args) == 1:
        inner = node.args[0]
        if type(inner) is n.Call and inner.function in ("highest", "lowest"):
            return inner if len(inner.args) == 2 else None
    return None


class RollGroups(CompilerHost):
    """`{1d20+5, 1d20+3}kh1` and `{4d6+3d8}k4`, compiled (part of the Compiler)."""

    def ex_rollgroup(self, node: n.RollGroup):
        group = self.roll_group(node)
        return lambda ctx: group(ctx).total

    def roll_group(self, node: n.RollGroup):
        """A closure rolling the group: a PoolRoll whose dice are the rolls' values (or, for
        one roll, the dice of its terms), kept as the group's keeps say."""
        keeps = tuple(self.modifier(m) for m in node.modifiers)
        label, span = node.span.text, node.span
        if len(node.items) == 1:
            terms = tuple(self.dice(d) for d in added(node.items[0]))

            def faces_of(ctx):
                rolls = [term(ctx) for term in terms]
                if any(not isinstance(r, Rolled) for r in rolls):  # odds: the terms' dice
                    return None, ctx.roller.group(rolls, steps_of(ctx, keeps), label)
                return [list(face) for r in rolls for face in r.faces if face[1] == KEPT], None

        else:
            items = tuple(self.expr(item) for item in node.items)

            def faces_of(ctx):
                values = [item(ctx) for item in items]
                if any(isinstance(v, Unknown) for v in values):
                    steps = steps_of(ctx, keeps)
                    total = ctx.roller.kept(values, steps, lambda *k: kept_total(k, steps))
                    return None, ChainRoll(label, [], total)
                return [[as_number(v, span, A_ROLL_OF_A_GROUP), KEPT, False] for v in values], None

        def group(ctx):
            faces, counted = faces_of(ctx)
            if counted is not None:
                return counted
            result = PoolRoll(label, faces, *group_value(faces, steps_of(ctx, keeps)))
            if ctx.trace is not None and not ctx.quiet and ctx.trace.wants():
                origin, length = ctx.roller.source.origin, ctx.limits.shown_length
                ctx.trace.append(dice_step(result, span, ctx.depth, origin, length))
            return result

        return group


def steps_of(ctx, keeps: tuple) -> tuple:
    return tuple(k(ctx, None) if callable(k) else k for k in keeps)


def kept_total(values: tuple, steps: tuple):
    return group_value([[v, KEPT, False] for v in values], steps)[0]


def group_value(faces: list, steps: tuple) -> tuple:
    """(total, successes, failures) of a group's rolls (faces), after its keeps: the kept
    rolls added up; or, when it counts (`{3d6, 3d6, 3d6}cs>=10`), the kept rolls meeting
    the condition (successes less those meeting `df`'s; `cf`: those meeting it)."""
    successes = failures = None  # as a dice term's: cs gives (s, s, 0), cf (f, None, f)
    for step in steps:
        if step[0] == "keep":
            keep_dice(faces, step[1], step[2])
            continue
        meeting = sum(1 for f in faces if f[1] == KEPT and step[1](f[0]))
        if step[0] == "successes":
            successes, failures = meeting, 0
        else:  # cf counts failures; df, after cs, takes one success away for each
            failures = meeting
    if failures is None:
        return normalize(sum(f[0] for f in faces if f[1] == KEPT)), None, None
    if successes is None:
        return failures, None, failures
    return successes - failures, successes, failures


def added(node) -> list:
    """The terms of a sum: `4d6+3d8` → [4d6, 3d8]."""
    if isinstance(node, n.Binary) and node.op == "+":
        return added(node.left) + added(node.right)
    return [node]
