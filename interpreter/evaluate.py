"""Evaluation: a checked rulebook compiled once into Python closures, then run.

Every expression becomes a function of one argument, the `Context` of the run: its dice,
its working sheet, its local names, its trace. The checker has already resolved every
name (`rulebook.bindings`) and typed every node (`rulebook.types`), so nothing is looked
up by name while running.

All randomness goes through `ctx.roller`: `pool(...)` rolls one dice term and `chain(...)`
one custom roll procedure. The odds engine runs these same closures with a roller that
answers from distributions, so a rule has one meaning, whichever way it is run.
"""

from __future__ import annotations

import math
import operator
from bisect import bisect_right
from contextvars import ContextVar
from fractions import Fraction

import attrs

from dsl import nodes as n
from dsl import types as t
from dsl.check import Rulebook, names_a_field
from dsl.errors import Span
from interpreter.dice import FUDGE, DiceTray, Die, PoolRoll, predicate, roll_pool
from interpreter.distribution import Dist
from interpreter.errors import (
    EvaluationError,
    InsufficientResource,
    LimitExceeded,
    RequirementFailed,
)
from interpreter.limits import Limits
from interpreter.trace import WORDS, Step, dice_step, faces_text, origin_mark
from interpreter.values import Record, is_number, normalize, show, type_name

_MISSING = object()


# ─── the state of one run ───────────────────────────────────────────────────


class State:
    """The working sheet of one run: the sheet's values, copied on the first write."""

    __slots__ = ("before", "copied", "open_default", "own", "values")

    def __init__(self, values: dict, open_default: int = 0):
        self.values = values
        self.own = False
        self.before: dict = {}
        self.copied: set = set()
        self.open_default = open_default

    def read(self, place):
        if place is None:
            return 0
        if type(place) is str:
            value = self.values.get(place, _MISSING)
            return self.open_default if value is _MISSING else value
        return self.values[place[0]][place[1]]

    def write(self, place, value) -> None:
        if not self.own:
            self.values = dict(self.values)
            self.own = True
        if type(place) is str:
            path = place
            old = self.values.get(place, self.open_default)
            self.values[place] = value
        else:
            name, key = place
            if name not in self.copied:
                self.values[name] = dict(self.values[name])
                self.copied.add(name)
            path = f"{name}.{key}"
            old = self.values[name].get(key)
            self.values[name][key] = value
        self.before.setdefault(path, old)

    def changes(self) -> list[tuple]:
        out = []
        for path, before in self.before.items():
            name, _, key = path.partition(".")
            after = self.values[name].get(key) if key else self.values[name]
            if after != before:
                out.append((path, before, after))
        return out

    def snapshot(self) -> tuple:
        """A hashable summary of what changed (the odds engine merges equal worlds)."""
        return tuple(sorted((path, _freeze(self.read(_place_of(path)))) for path in self.before))

    def copy(self) -> State:
        other = State(self.values, self.open_default)
        if self.own:
            other.values = {k: (dict(v) if k in self.copied else v) for k, v in self.values.items()}
            other.own = True
            other.copied = set(self.copied)
        other.before = dict(self.before)
        return other


def _place_of(path: str):
    name, _, key = path.partition(".")
    return (name, key) if key else name


def _freeze(value):
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value


class Roller(DiceTray):
    """Rolls for real: every die from the dice source, through the tray it is."""

    __slots__ = ()
    lifts = False  # never hands out distributions (the odds engine's roller does)

    def pool(self, die: Die, count: int, steps: tuple, span, label: str) -> PoolRoll:
        return roll_pool(self, die, count, steps, span, label)

    def face(self, die: Die, span) -> int:
        """One plain die's face (the tray's `draw`, without a pool around it)."""
        return self.draw(die, span)

    def chain(self, procedure, ctx) -> ChainRoll:
        return procedure.roll(ctx)

    def resolve(self, value):  # only the odds engine's roller hands out distributions
        raise AssertionError("a distribution reached a real run")


class Context:
    """Everything one evaluation reads and writes."""

    __slots__ = (
        "capture",
        "depth",
        "env",
        "limits",
        "quiet",
        "roller",
        "state",
        "steps",
        "trace",
        "words",
    )

    def __init__(
        self,
        roller,
        limits: Limits,
        state: State | None = None,
        trace: list | None = None,
        words: dict | None = None,
    ):
        self.roller = roller
        self.limits = limits
        self.state = state
        self.trace = trace
        self.env: dict = {}
        self.steps = 0
        self.depth = 0
        self.capture: list | None = None  # dice a roll procedure's rule is watching
        self.quiet = 0  # > 0 inside a roll procedure, which traces its dice itself
        self.words = words or WORDS["en"]

    def step(self, kind: str, text: str, span: Span | None, **data) -> None:
        self.trace.append(Step.at(kind, text, span, data, self.depth))


class ChainRoll:
    """What a custom roll procedure showed: its base roll and each extra, with signs."""

    __slots__ = ("name", "parts", "total")

    def __init__(self, name: str, parts: list, total):
        self.name, self.parts, self.total = name, parts, total

    def faces_text(self) -> str:
        out = []
        for i, (sign, rolls, _value) in enumerate(self.parts):
            faces = " ".join(faces_text(r) for r in rolls) or "[]"
            out.append(faces if i == 0 else f"{'+' if sign > 0 else '-'} {faces}")
        return " ".join(out)


# ─── arithmetic with exact numbers ──────────────────────────────────────────


def _number(value, span: Span | None, what: str):
    if type(value) is int or type(value) is Fraction:
        return value
    if isinstance(value, PoolRoll | ChainRoll):
        return value.total
    raise EvaluationError(
        f"{what} should be a number, not {type_name(value)} ({show(value)})", span
    )


def _whole(ctx, value, span: Span | None, what: str) -> int:
    if type(value) is Dist:
        value = ctx.roller.resolve(value)
    value = _number(value, span, what)
    if type(value) is not int:
        raise EvaluationError(
            f"{what} should be a whole number, not {show(value)}",
            span,
            "round it explicitly with floor, ceil or round",
        )
    return value


def _value(ctx, value):
    """A value that must be known now: in odds mode, where the engine branches."""
    if type(value) is Dist:
        return ctx.roller.resolve(value)
    return value


class Branch(Exception):
    """Odds: a concrete value is needed where only its distribution is known."""

    def __init__(self, dist: Dist):
        super().__init__()
        self.dist = dist


#: the odds engine's memory of distributions already combined, while it computes
LIFTS: ContextVar = ContextVar("lifts", default=None)


def lift(function, *values):
    """function(*values), where any value may be a distribution (when computing odds):
    then the result is the distribution of function over the independent values."""
    for value in values:
        if type(value) is Dist:
            break
    else:
        return function(*values)
    # The odds engine runs a statement again for each value it branches on, so the same
    # distributions meet the same operations again: remember what each one gave.
    memory = LIFTS.get()
    key = None
    if memory is not None:
        key = (function, *((id(v), None) if type(v) is Dist else (v, type(v)) for v in values))
        try:
            found = memory.get(key)
        except TypeError:  # an unhashable operand: compute, do not remember
            found, key = None, None
        if found is not None:
            return found[0]
    result = _lift(function, values)
    if key is not None:
        memory[key] = (result, values)  # the operands are kept, so their ids stay theirs
        memory.work(values)
    return result


def remembered(key: tuple, keep: tuple, compute):
    """Odds: compute(), or what it gave before for the same key, within one computation.
    `keep` holds the objects whose ids are in the key, so that their ids stay theirs."""
    memory = LIFTS.get()
    if memory is None:
        return compute()
    try:
        found = memory.get(key)
    except TypeError:  # something unhashable in the key: compute, do not remember
        return compute()
    if found is None:
        found = memory[key] = (compute(), keep)
        memory.work(keep)  # charged to the odds engine's budget, by the sizes involved
    return found[0]


def _lifted1(function, operand):
    """A closure applying `function` to a value: directly, or lifted over a distribution."""

    def apply(ctx):
        value = operand(ctx)
        if type(value) is Dist:
            return lift(function, value)
        return function(value)

    return apply


def _lifted2(function, left, right):
    """The same for two operands (a real run never meets a distribution: one test each)."""

    def apply(ctx):
        a, b = left(ctx), right(ctx)
        if type(a) is Dist or type(b) is Dist:
            return lift(function, a, b)
        return function(a, b)

    return apply


def _lift(function, values: tuple):
    if len(values) == 1:
        return values[0].map(function)
    if len(values) == 2:
        a, b = values
        if type(a) is Dist:
            if type(b) is Dist:
                return a.combine(b, function)
            return a.map(lambda x: function(x, b))
        return b.map(lambda y: function(a, y))
    joint = Dist.point(())
    for v in values:
        joint = joint.combine(v if type(v) is Dist else Dist.point(v), lambda t, x: (*t, x))
    return joint.map(lambda t: function(*t))


def _arith(op: str, left_span, right_span, op_span):
    def compute(a, b):
        if type(a) is Dist or type(b) is Dist:
            return lift(compute, a, b)
        if op == "+" and type(a) is tuple and type(b) is tuple:
            return a + b  # lists are joined
        if type(a) is not int and type(a) is not Fraction:
            a = _number(a, left_span, f"the left side of {op}")
        if type(b) is not int and type(b) is not Fraction:
            b = _number(b, right_span, f"the right side of {op}")
        if op == "+":
            return normalize(a + b)
        if op == "-":
            return normalize(a - b)
        if op == "*":
            return normalize(a * b)
        if b == 0:
            raise EvaluationError("division by zero", op_span)
        return normalize(Fraction(a) / b)

    return compute


def round_half_away(value):
    """`round`: halves go away from zero (2.5 → 3, -2.5 → -3), as people round."""
    if type(value) is int:
        return value
    floor = math.floor(abs(value) + Fraction(1, 2))
    return floor if value >= 0 else -floor


def _minmax(function, args, span, name):
    if any(type(a) is Dist for a in args):
        return lift(lambda *values: _minmax(function, list(values), span, name), *args)
    if len(args) == 1:
        items = args[0]
        if not isinstance(items, tuple):
            raise EvaluationError(f"{name} of one value needs a list", span)
        if not items:
            raise EvaluationError(f"{name} of an empty list", span)
        args = items
    return function(_number(a, span, f"an argument of {name}") for a in args)


# ─── the compiler ───────────────────────────────────────────────────────────


class Compiler:
    """Compiles a checked rulebook's definitions into closures, each once."""

    def __init__(self, rulebook: Rulebook):
        self.book = rulebook
        self.bindings = rulebook.bindings
        self.types = rulebook.types
        self.compiled: dict[tuple, object] = {}
        self.reads: list[dict] = []  # what the callable being compiled reads, innermost last
        skills = rulebook.open_skills
        self.open_default = 0
        if skills is not None:
            if isinstance(skills.default, n.Literal):
                self.open_default = skills.default.value
            elif skills.range.low is not None:
                self.open_default = skills.range.low

    def type_of(self, node) -> t.Type:
        return self.types.get(id(node), t.ANY)

    def memo(self, key: tuple, build):
        found = self.compiled.get(key)
        if found is None:
            found = build()
            self.compiled[key] = found
        return found

    # ─── expressions, by node class ─────────────────────────────────────────

    def expr(self, node):
        """A closure computing the node's value (reading the sheet through any ref)."""
        handler = _EXPRESSIONS[type(node)]
        return handler(self, node)

    def ref(self, node):
        """A closure computing the place a ref-typed node names (a field, or (family, key))."""
        if isinstance(node, n.Literal):
            value = node.value
            return lambda ctx: value
        if isinstance(node, n.Name):
            binding = self.bindings[id(node)]
            if binding.kind == "field":
                name = binding.name
                return lambda ctx: name
            if binding.kind == "group":
                members = self.book.groups[binding.name].members
                return lambda ctx: members
            name = node.name
            return lambda ctx: ctx.env[name]
        if isinstance(node, n.Index) and self.bindings[id(node)].kind == "family":
            family = self.bindings[id(node)].name
            key_fn = (
                self.ref(node.keys[0])
                if self.type_of(node.keys[0]).kind == "ref"
                else self.expr(node.keys[0])
            )
            return lambda ctx: (family, _value(ctx, key_fn(ctx)))
        if isinstance(node, n.Field):
            subject = self.expr(node.subject)
            name = node.name
            return lambda ctx: subject(ctx).get(name)
        if isinstance(node, n.IfExpr):
            condition, then, otherwise = (
                self.expr(node.condition),
                self.ref(node.then),
                self.ref(node.otherwise),
            )
            return lambda ctx: then(ctx) if condition(ctx) else otherwise(ctx)
        return self.expr(node)

    def value_or_ref(self, node, wanted: t.Type):
        return self.ref(node) if wanted.kind == "ref" else self.expr(node)

    def naming(self, node):
        """The name of the field a value names (`atributo` → "Fuerza"), else its value.
        Used where a name is what a person means: texts, table keys, `in`."""
        type_ = self.type_of(node)
        if type_.kind == "ref" and names_a_field(node, self.bindings):
            place = self.ref(node)
            return lambda ctx: _place_text(p) if (p := place(ctx)) is not None else None
        if type_.kind == "list" and type_.item is not None and type_.item.kind == "ref":
            return self.ref(node)  # a group: its members' names
        return self.expr(node)

    def ex_literal(self, node: n.Literal):
        value = node.value
        return lambda ctx: value

    def ex_text(self, node: n.Text):
        parts = tuple(p if isinstance(p, str) else self.naming(p) for p in node.parts)
        span = node.span

        def text(ctx):
            out = "".join(p if isinstance(p, str) else show(_value(ctx, p(ctx))) for p in parts)
            if len(out) > ctx.limits.text_length:
                raise LimitExceeded(
                    f"a text longer than {ctx.limits.text_length} characters (limit text_length)",
                    span,
                )
            return out

        return text

    def ex_listliteral(self, node: n.ListLiteral):
        items = tuple(self.expr(i) for i in node.items)
        return lambda ctx: tuple(_value(ctx, i(ctx)) for i in items)

    def ex_name(self, node: n.Name):
        binding = self.bindings[id(node)]
        kind, name = binding.kind, binding.name
        if kind == "local":
            if self.type_of(node).kind == "ref":

                def read_named(ctx):
                    place = ctx.env[name]
                    if type(place) is str:
                        state = ctx.state
                        value = state.values.get(place, _MISSING)
                        return state.open_default if value is _MISSING else value
                    return ctx.state.read(place)

                return read_named
            return lambda ctx: ctx.env[name]
        if kind == "roll":
            return lambda ctx: ctx.env[name].total
        if kind == "key":
            return lambda ctx: ctx.state.read(ctx.env[name])
        if kind == "field":
            if isinstance(binding.node, n.Stat) and binding.node.kind == "skill":
                return lambda ctx: ctx.state.read(name)
            return lambda ctx: ctx.state.values[name]
        if kind == "derived":
            derived = self.derived(name)
            return derived
        if kind == "group":
            members = self.book.groups[name].members
            return lambda ctx: tuple(ctx.state.read(m) for m in members)
        if kind == "catalog":
            return lambda ctx: tuple(ctx.state.values[name])
        if kind == "rolldef":
            procedure = self.roll_definition(name)
            return lambda ctx: procedure.call(ctx, ()).total
        raise AssertionError(kind)

    def derived(self, name: str):
        def build():
            body = self.expr(self.book.derived[name].expr)

            def derived(ctx):
                saved, ctx.env = ctx.env, {}
                try:
                    return body(ctx)
                finally:
                    ctx.env = saved

            return derived

        return self.memo(("derived", name), build)

    def ex_field(self, node: n.Field):
        binding = self.bindings.get(id(node))
        name = node.name
        if binding is not None and binding.kind == "resource_bound":
            place = self.ref(node.subject)
            bound = self.resource_bound
            return lambda ctx: bound(ctx, place(ctx), name)
        subject_type = self.type_of(node.subject)
        if subject_type.kind == "roll":
            subject = self.roll_object(node.subject)
            return lambda ctx: getattr(subject(ctx), name)
        subject = self.expr(node.subject)
        span = node.span
        if self.type_of(node).kind == "ref":
            return lambda ctx: ctx.state.read(_get_field(subject(ctx), name, span))

        subject_binding = self.bindings.get(id(node.subject))
        if (
            isinstance(node.subject, n.Name)
            and subject_binding is not None
            and subject_binding.kind == "local"
        ):
            local = node.subject.name

            def local_field(ctx):  # `c.total`: the commonest field access, in one step
                record = ctx.env[local]
                if type(record) is Record:
                    return record._fields.get(name)
                return _get_field(record, name, span)

            return local_field

        def field(ctx):
            record = subject(ctx)
            if type(record) is Record:
                return record._fields.get(name)
            return _get_field(record, name, span)

        return field

    def roll_object(self, node):
        """The PoolRoll itself (not just its total), for `.successes` and the trace."""
        if isinstance(node, n.Name) and self.bindings[id(node)].kind == "roll":
            name = node.name
            return lambda ctx: ctx.env[name]
        if isinstance(node, n.Dice):
            return self.dice(node)
        value = self.expr(node)
        return value

    def ex_index(self, node: n.Index):
        binding = self.bindings[id(node)]
        span = node.span
        if binding.kind == "table":
            # A value naming a field looks up a table of texts by the field's name, and
            # a table of numbers by the field's value.
            texts = _text_keyed(binding.node)
            keys = tuple(
                self.naming(k) if texts[min(i, len(texts) - 1)] else self.expr(k)
                for i, k in enumerate(node.keys)
            )
            lookup = self.table(binding.name)
            key_values = _tuple_of(keys)
            return lambda ctx: lookup(ctx, key_values(ctx), span)
        if binding.kind == "family":
            place = self.ref(node)
            return lambda ctx: ctx.state.read(place(ctx))
        if binding.kind == "catalog_entry":
            catalog = binding.name
            key = self.expr(node.keys[0])

            def entry(ctx):
                name = _value(ctx, key(ctx))
                found = ctx.state.values[catalog].get(name)
                if found is None:
                    raise EvaluationError(f"the sheet has no {catalog} entry named {name!r}", span)
                return found

            return entry
        raise AssertionError(binding.kind)

    def ex_call(self, node: n.Call):
        binding = self.bindings[id(node)]
        if binding.kind == "builtin":
            return self.builtin(node)
        definition = binding.node
        values = _tuple_of(self.arguments(node, definition.params))
        span = node.span
        if binding.kind == "formula":
            body = self.formula(binding.name)
            return lambda ctx: body(ctx, values(ctx))
        if binding.kind == "check":
            check = self.check(binding.name)
            return lambda ctx: check(ctx, values(ctx), span)
        if binding.kind == "opposed":
            opposed = self.opposed(binding.name)
            return lambda ctx: opposed(ctx, values(ctx), span)
        if binding.kind == "action":
            action = self.action(binding.name)
            return lambda ctx: action(ctx, values(ctx), span)
        if binding.kind == "roll":
            procedure = self.roll_definition(binding.name)
            return lambda ctx: procedure.call(ctx, values(ctx)).total
        raise AssertionError(binding.kind)

    def arguments(self, node: n.Call, params) -> tuple:
        """One closure per parameter, in order: the argument given, or the default."""
        given = dict(zip((p.name for p in params), node.args))
        given.update(dict(node.named))
        out = []
        for param in params:
            wanted = self.param_type(param)
            arg = given.get(param.name)
            if arg is None:
                arg = param.default
            out.append(self.value_or_ref(arg, wanted))
        return tuple(out)

    def param_type(self, param: n.Param) -> t.Type:
        """Whether a parameter takes a field's name (a ref) or a plain value."""
        type_node = param.type
        if isinstance(type_node, n.NamedType):
            name = type_node.name
            if name in ("attribute", "skill", "resource", "counter", "stat"):
                return t.ref(name)
            if name in self.book.groups:
                return t.ref("stat", name)
        return t.ANY

    def builtin(self, node: n.Call):
        name = node.function
        span = node.span
        if name == "step":
            ladder = self.book.ladders[node.args[0].name]
            steps = [s.sides if isinstance(s, n.Dice) else s.value for s in ladder.steps]
            start, count = self.naming(node.args[1]), self.expr(node.args[2])

            def step(ctx):
                value = _value(ctx, start(ctx))
                if value not in steps:
                    raise EvaluationError(
                        f"{show(value)} is not a step of ladder "
                        f"{ladder.name} ({', '.join(map(show, steps))})",
                        span,
                    )
                moved = steps.index(value) + _whole(ctx, count(ctx), span, "the number of steps")
                return steps[min(max(moved, 0), len(steps) - 1)]

            return step
        args = tuple(self.expr(a) for a in node.args)
        if name == "default":
            value, fallback = args
            return lambda ctx: v if (v := _value(ctx, value(ctx))) is not None else fallback(ctx)
        if name == "size":
            (items,) = args
            return lambda ctx: len(_value(ctx, items(ctx)))
        if name in ("min", "max"):
            function = min if name == "min" else max
            return lambda ctx: _minmax(function, [a(ctx) for a in args], span, name)
        if name == "sum":
            (items,) = args

            def total(ctx):
                values = tuple(_value(ctx, v) for v in _value(ctx, items(ctx)))
                if not isinstance(values, tuple):
                    raise EvaluationError("sum(...) adds up a list", span)
                return normalize(sum(_number(v, span, "an item of sum") for v in values))

            return total
        if name == "clamp":
            value, low, high = args

            def clamp_values(v, lo, hi):
                v = _number(v, span, "the value to clamp")
                lo = _number(lo, span, "clamp's lower bound")
                hi = _number(hi, span, "clamp's upper bound")
                if lo > hi:
                    raise EvaluationError(
                        f"clamp between {show(lo)} and {show(hi)}: the "
                        "lower bound is above the upper",
                        span,
                    )
                return min(max(v, lo), hi)

            return lambda ctx: lift(clamp_values, value(ctx), low(ctx), high(ctx))
        (value,) = args
        function = {"floor": math.floor, "ceil": math.ceil, "abs": abs, "round": round_half_away}[
            name
        ]

        def apply(v):
            return function(_number(v, span, f"the argument of {name}"))

        return _lifted1(apply, value)

    def ex_unary(self, node: n.Unary):
        operand = self.expr(node.operand)
        span = node.operand.span
        if node.op == "not":

            def negate(value):
                if value is True or value is False:
                    return not value
                raise EvaluationError(f"`not` needs yes or no, not {show(value)}", span)

            return _lifted1(negate, operand)

        def minus(value):
            return -_number(value, span, "what `-` negates")

        return _lifted1(minus, operand)

    def ex_binary(self, node: n.Binary):
        op = node.op
        if op in ("and", "or"):
            left, right = self.expr(node.left), self.expr(node.right)
            lspan, rspan = node.left.span, node.right.span
            if op == "and":
                return lambda ctx: _bool(ctx, left(ctx), lspan) and _bool(ctx, right(ctx), rspan)
            return lambda ctx: _bool(ctx, left(ctx), lspan) or _bool(ctx, right(ctx), rspan)
        if op in ("=", "!="):
            ltype, rtype = self.type_of(node.left), self.type_of(node.right)
            by_name = (
                (ltype.kind == "ref") != (rtype.kind == "ref")
                and "text" in (t.value_of(ltype).kind, t.value_of(rtype).kind)
                and (ltype.kind == "text" or rtype.kind == "text")
            )
            left = self.ref(node.left) if by_name else self.expr(node.left)
            right = self.ref(node.right) if by_name else self.expr(node.right)
            if op == "=":
                return _lifted2(_equal, left, right)
            return _lifted2(_unequal, left, right)
        if op == "in":
            left, right = self.naming(node.left), self.naming(node.right)
            span = node.right.span

            def contains(ctx):
                container = _value(ctx, right(ctx))
                if not isinstance(container, tuple | str):
                    raise EvaluationError(f"`in` looks in a list, not in {show(container)}", span)
                return _value(ctx, left(ctx)) in container

            return contains
        left, right = self.expr(node.left), self.expr(node.right)
        if op in (">=", "<=", ">", "<"):
            compare = _COMPARISONS[op]
            lspan, rspan = node.left.span, node.right.span

            def compare_values(a, b):
                if type(a) is not int:
                    a = _number(a, lspan, f"the left side of {op}")
                if type(b) is not int:
                    b = _number(b, rspan, f"the right side of {op}")
                return compare(a, b)

            def comparison(ctx):
                a, b = left(ctx), right(ctx)
                if type(a) is int and type(b) is int:
                    return compare(a, b)
                return lift(compare_values, a, b)

            return comparison
        compute = _arith(op, node.left.span, node.right.span, node.op_span)
        if op == "+":

            def add(ctx):
                a, b = left(ctx), right(ctx)
                if type(a) is int and type(b) is int:
                    return a + b
                return compute(a, b)

            return add
        if op == "-":

            def subtract(ctx):
                a, b = left(ctx), right(ctx)
                if type(a) is int and type(b) is int:
                    return a - b
                return compute(a, b)

            return subtract
        if op == "*":

            def multiply(ctx):
                a, b = left(ctx), right(ctx)
                if type(a) is int and type(b) is int:
                    return a * b
                return compute(a, b)

            return multiply
        return lambda ctx: compute(left(ctx), right(ctx))

    def ex_ifexpr(self, node: n.IfExpr):
        condition = self.expr(node.condition)
        then, otherwise = self.expr(node.then), self.expr(node.otherwise)
        span = node.condition.span
        return lambda ctx: then(ctx) if _bool(ctx, condition(ctx), span) else otherwise(ctx)

    def ex_dice(self, node: n.Dice):
        roll = self.dice(node)
        single = (
            not node.modifiers
            and isinstance(node.sides, int)
            and (
                node.count is None or (isinstance(node.count, n.Literal) and node.count.value == 1)
            )
        )
        if single:  # one plain die, the commonest term: no pool to keep, when untraced
            die, span = Die.of(node.sides), node.span

            def face(ctx):
                if ctx.trace is None and ctx.capture is None:
                    return ctx.roller.face(die, span)
                return roll(ctx).total

            return face
        return lambda ctx: roll(ctx).total

    # ─── dice ───────────────────────────────────────────────────────────────

    def dice(self, node: n.Dice):
        """A closure rolling the term through `ctx.roller` and returning its PoolRoll."""
        span, label = node.span, node.span.text
        count = self.expr(node.count) if node.count is not None else None
        sides = node.sides
        if isinstance(sides, int):
            fixed_die = Die.of(sides)
            die_of = None
        elif sides == "F":
            fixed_die, die_of = FUDGE, None
        else:
            fixed_die, sides_fn = None, self.expr(sides)

            def die_of(ctx):
                faces = _whole(ctx, sides_fn(ctx), span, "the number of faces")
                if faces < 1:
                    raise EvaluationError(f"a die needs at least one face, not {faces}", span)
                if faces > ctx.limits.faces_per_die:
                    raise LimitExceeded(
                        f"a die of {faces} faces is more than "
                        f"{ctx.limits.faces_per_die} (limit faces_per_die)",
                        span,
                    )
                return Die.of(faces)

        modifier_fns = tuple(self.modifier(m) for m in node.modifiers)
        dynamic = any(callable(m) for m in modifier_fns)
        describe = None
        if dynamic or fixed_die is None or not (count is None or isinstance(node.count, n.Literal)):
            describe = self.term_as_rolled(node)
        has_top = any(len(m) > 2 and m[2] is _TOP for m in modifier_fns if not callable(m))
        fixed_steps = None
        if not dynamic:
            fixed_steps = _bind_tops(modifier_fns, fixed_die) if fixed_die else modifier_fns

        def roll(ctx):
            die = fixed_die if fixed_die is not None else die_of(ctx)
            if count is None:
                how_many = 1
            else:
                how_many = count(ctx)
                if type(how_many) is not int:
                    how_many = _whole(ctx, how_many, span, "the number of dice")
                if how_many < 0:
                    raise EvaluationError(f"cannot roll {how_many} dice", span)
            if fixed_steps is not None and (fixed_die is not None or not has_top):
                steps = fixed_steps
            else:
                steps = _bind_tops(
                    tuple(m(ctx, die) if callable(m) else m for m in modifier_fns), die
                )
            result = ctx.roller.pool(die, how_many, steps, span, label)
            if ctx.capture is not None:
                ctx.capture.append(result)
            if ctx.trace is not None and not ctx.quiet:
                if describe is not None:
                    result.label = describe(ctx, how_many, die, steps)
                origin = ctx.roller.source.origin
                ctx.trace.append(dice_step(result, span, ctx.depth, ctx.words, origin))
            return result

        return roll

    def term_as_rolled(self, node: n.Dice):
        """A term written with expressions, shown as it was rolled:
        `(dados)d(dado)` → `(dados)d(dado) = 5d8`."""
        values = []
        for modifier in node.modifiers:
            condition = getattr(modifier, "condition", None)
            count = getattr(modifier, "count", None)
            text = modifier.span.text
            value = condition.value if condition is not None else count
            if value is None:
                values.append((text, None))
            else:
                prefix = text[: value.span.start - modifier.span.start].rstrip("(")
                values.append((prefix, self.expr(value)))
        text = node.span.text

        def describe(ctx, how_many, die, steps):
            parts = [f"{how_many}{die.label}"]
            for prefix, value in values:
                shown = "" if value is None else show(_value(ctx, value(ctx)))
                parts.append(f"{prefix.rstrip('(')}{shown}")
            return f"{text} = {''.join(parts)}"

        return describe

    def modifier(self, modifier):
        """A dice modifier: a constant step, or a closure(ctx, die) computing the step."""
        span = modifier.span
        if isinstance(modifier, n.Keep):
            if modifier.count is None:
                return ("keep", modifier.mode, 1, span)
            if isinstance(modifier.count, n.Literal):
                return ("keep", modifier.mode, modifier.count.value, span)
            count = self.expr(modifier.count)
            mode = modifier.mode

            def keep(ctx, die):
                k = _whole(ctx, count(ctx), span, "how many dice to keep or drop")
                if k < 0:
                    raise EvaluationError(f"cannot keep or drop {k} dice", span)
                return ("keep", mode, k, span)

            return keep
        condition = modifier.condition
        if isinstance(modifier, n.Explode):
            kind, once = "explode", modifier.once
        elif isinstance(modifier, n.Reroll):
            kind, once = "reroll", modifier.once
        elif isinstance(modifier, n.CountSuccesses):
            kind, once = "successes", None
        else:
            kind, once = "failures", None
        if condition is None:  # `x` alone: the die's top face
            return (kind, once, _TOP, span)
        if isinstance(condition.value, n.Literal):
            test = predicate(condition.op, condition.value.value)
            return (kind, once, test, span) if once is not None else (kind, test)
        value = self.expr(condition.value)
        op = condition.op

        def step(ctx, die):
            test = predicate(op, _number(_value(ctx, value(ctx)), span, "a face to compare with"))
            return (kind, once, test, span) if once is not None else (kind, test)

        return step

    # ─── tables ─────────────────────────────────────────────────────────────

    def table(self, name: str):
        return self.memo(("table", name), lambda: self._table(self.book.tables[name]))

    def _table(self, table: n.Table):
        levels = max(1, len(table.keys))
        root = self._rows(table, table.rows, 0, levels)
        keys = table.keys
        title = table.name

        def lookup(ctx, key_values: tuple, span):
            if ctx.roller.lifts:
                key_values = tuple(_value(ctx, k) for k in key_values)
            node = root
            for depth, key in enumerate(key_values):
                row = node.find(key)
                if row is None:
                    raise EvaluationError(
                        f"table {title} has no row for {show(key)}"
                        + (f" (at {keys[depth]})" if len(keys) > 1 else ""),
                        span,
                    )
                node = row
            if type(node) is _Cell:
                value = node.cached
                if value is _MISSING:
                    value = node.value(ctx, dict(zip(keys, key_values)))
            else:
                value = node.summary(ctx, dict(zip(keys, key_values)))
            if ctx.trace is not None:
                shown = ", ".join(show(k) for k in key_values)
                ctx.step(
                    "lookup",
                    f"{title}[{shown}] → {show(value)}",
                    span,
                    table=title,
                    key=list(key_values),
                    value=value,
                )
            return value

        return lookup

    def _rows(self, table: n.Table, rows, depth: int, levels: int, records=None):
        if records is None:  # one rule for the whole table: records if any leaf has fields
            records = _has_fields(table.rows, levels)
        built = []
        for row in rows:
            if depth < levels - 1:
                label = self.expr(row.value) if row.value is not None else None
                built.append(
                    (
                        row.key,
                        _SubTable(self._rows(table, row.rows, depth + 1, levels, records), label),
                    )
                )
            else:
                built.append((row.key, self._cell(row, records)))
        return _Rows(built)

    def _cell(self, row: n.Row, record: bool):
        value = self.expr(row.value) if row.value is not None else None
        fields = tuple((name, self.expr(expr)) for name, expr in row.fields)
        constant = _constant(row.value) and all(_constant(e) for _, e in row.fields)
        return _Cell(value, fields, record, constant)

    # ─── definitions ────────────────────────────────────────────────────────

    def formula(self, name: str):
        def build():
            formula = self.book.formulas[name]
            names = tuple(p.name for p in formula.params)
            body = self.expr(formula.body)

            def call(ctx, args):
                if ctx.roller.lifts:
                    args = tuple(_value(ctx, a) for a in args)
                saved, ctx.env = ctx.env, dict(zip(names, args))
                try:
                    return body(ctx)
                finally:
                    ctx.env = saved

            return call

        return self.memo(("formula", name), build)

    def check(self, name: str):
        return self.memo(("check", name), lambda: CompiledCheck(self, self.book.checks[name]))

    def opposed(self, name: str):
        return self.memo(("opposed", name), lambda: CompiledOpposed(self, self.book.opposed[name]))

    def action(self, name: str):
        return self.memo(("action", name), lambda: CompiledAction(self, self.book.actions[name]))

    def roll_definition(self, name: str):
        return self.memo(("roll", name), lambda: Procedure(self, self.book.rolls[name]))

    def resource_bound(self, ctx, place, which: str):
        name, key = (place, None) if type(place) is str else place
        resource = self.book.fields[name]
        bound = self.memo(("bound", name, which), lambda: self._bound(resource, which))
        return bound(ctx, key)

    def _bound(self, resource: n.Resource, which: str):
        expr = resource.maximum if which == "max" else resource.minimum
        if expr is None:
            return lambda ctx, key: 0
        body = self.expr(expr)
        var = resource.key_var

        def bound(ctx, key):
            saved, ctx.env = ctx.env, ({var: key} if var else {})
            try:
                return body(ctx)
            finally:
                ctx.env = saved

        return bound

    # ─── statements ─────────────────────────────────────────────────────────

    def block(self, statements) -> tuple:
        return tuple(self.statement(s) for s in statements if not isinstance(s, n.Result))

    def statement(self, node):
        compiled = _STATEMENTS[type(node)](self, node)
        compiled.node = node  # the odds engine walks statements by their nodes
        return compiled

    def st_let(self, node: n.Let):
        name = node.name
        span = node.span
        if isinstance(node.expr, n.Dice):
            roll = self.dice(node.expr)

            def let_roll(ctx):
                rolled = roll(ctx)
                if type(rolled) is not PoolRoll:  # odds: the term's distribution
                    rolled = ctx.roller.resolve_roll(rolled)
                ctx.env[name] = rolled

            return let_roll
        declared = self.types.get(id(node))
        value = (
            self.ref(node.expr)
            if declared is not None and declared.kind == "ref"
            else self.expr(node.expr)
        )
        # Of a record bound here, the fields the rest of the callable reads: when the odds
        # engine must branch on a record, it branches on those alone.
        read = self.reads[-1].get(name, None) if self.reads else None
        keep = tuple(sorted(read)) if read else None
        quiet = isinstance(node.expr, n.Literal)
        source = node.expr.span.text

        def let(ctx):
            result = value(ctx)
            if type(result) is Dist:
                if keep is not None:
                    whole = result
                    result = remembered(
                        ("project", id(whole), keep),
                        (whole,),
                        lambda: whole.map(lambda r: _project(r, keep)),
                    )
                result = ctx.roller.resolve(result)
            ctx.env[name] = result
            # A record (a check's, a table row) has its own step already.
            if ctx.trace is not None and not quiet and not isinstance(result, Record):
                text = (
                    f"{name} = {show(result)}"
                    if source == show(result)
                    else f"{name} = {source} = {show(result)}"
                )
                ctx.step("let", text, span, name=name, value=result)

        return let

    def st_set(self, node: n.Set):
        value = self.expr(node.expr)
        span = node.span
        if isinstance(node.place, n.Name) and self.bindings[id(node.place)].kind == "local":
            name = node.place.name

            def set_local(ctx):
                ctx.env[name] = _value(ctx, value(ctx))

            return set_local
        place = self.ref(node.place)
        bounds = self.bounds_of(node.place)

        def set_field(ctx):
            where = place(ctx)
            new = _value(ctx, value(ctx))
            if is_number(new):
                new = _whole(ctx, new, span, "a value on the sheet")
                low, high = bounds(ctx, where)
                clamped = min(
                    max(new, low if low is not None else new), high if high is not None else new
                )
            else:
                clamped = new
            before = ctx.state.read(where)
            ctx.state.write(where, clamped)
            if ctx.trace is not None:
                note = "" if clamped == new else f" (kept within its bounds, not {show(new)})"
                ctx.step(
                    "change",
                    f"set {_place_text(where)}: {show(before)} → {show(clamped)}{note}",
                    span,
                    path=_place_path(where),
                    before=before,
                    after=clamped,
                )

        return set_field

    def bounds_of(self, place_node):
        """A closure giving (low, high) for a place: a resource's min/max, a stat's range."""

        def bounds(ctx, where):
            name = where if type(where) is str else where[0]
            field = self.book.fields.get(name)
            if isinstance(field, n.Resource):
                return (
                    self.resource_bound(ctx, where, "min"),
                    self.resource_bound(ctx, where, "max"),
                )
            if isinstance(field, n.Stat):
                return field.range.low, field.range.high
            if isinstance(field, n.Counter):
                if field.range is None:
                    return 0, None
                return field.range.low, field.range.high
            skills = self.book.open_skills
            if field is None and skills is not None:
                return skills.range.low, skills.range.high
            return None, None

        return bounds

    def st_change(self, node: n.Change):
        amount_fn = self.expr(node.amount)
        place = self.ref(node.place)
        bounds = self.bounds_of(node.place)
        span = node.span
        verb = node.verb

        def change(ctx):
            where = place(ctx)
            amount = _whole(ctx, amount_fn(ctx), node.amount.span, f"the amount to {verb}")
            if amount < 0:
                raise EvaluationError(
                    f"cannot {verb} a negative amount ({amount})", node.amount.span
                )
            before = ctx.state.read(where)
            low, high = bounds(ctx, where)
            note = ""
            if verb == "spend":
                after = before - amount
                if low is not None and after < low:
                    raise InsufficientResource(
                        f"cannot spend {amount} {_place_text(where)}: it has {before}"
                        + (f" and cannot go below {low}" if low else ""),
                        span,
                    )
            elif verb == "gain":
                after = before + amount
                if high is not None and after > high:
                    after, note = high, f" (capped at its maximum {high})"
            else:
                after = before - amount
                if low is not None and after < low:
                    after, note = low, f" (stops at its minimum {low})"
            ctx.state.write(where, after)
            if ctx.trace is not None:
                ctx.step(
                    "cost" if verb == "spend" else "change",
                    f"{verb} {amount} {_place_text(where)}: {show(before)} → {show(after)}{note}",
                    span,
                    path=_place_path(where),
                    before=before,
                    after=after,
                )

        return change

    def st_require(self, node: n.Require):
        condition = self.expr(node.condition)
        message = self.expr(node.message)
        span = node.span
        cspan = node.condition.span

        def require(ctx):
            if not _bool(ctx, condition(ctx), cspan):
                raise RequirementFailed(str(_value(ctx, message(ctx))), span)

        return require

    def st_if(self, node: n.If):
        branches = tuple((self.expr(c), self.block(body), c.span) for c, body in node.branches)
        otherwise = self.block(node.otherwise) if node.otherwise is not None else ()
        span = node.span

        def if_(ctx):
            for condition, body, cspan in branches:
                decided = _bool(ctx, condition(ctx), cspan)
                if ctx.trace is not None:
                    ctx.step("if", f"if {cspan.text} → {show(decided)}", cspan)
                if decided:
                    run_block(ctx, body, span)
                    return
            run_block(ctx, otherwise, span)

        if_.branches, if_.otherwise = branches, otherwise  # for the odds engine
        return if_

    def st_match(self, node: n.Match):
        subject = self.expr(node.subject)
        ltype = self.type_of(node.subject)
        if ltype.kind == "ref":
            subject = self.ref(node.subject)
        cases = tuple(
            (tuple(self.expr(v) for v in values), self.block(body)) for values, body in node.cases
        )
        otherwise = self.block(node.otherwise) if node.otherwise is not None else ()
        span = node.subject.span

        def match(ctx):
            value = _value(ctx, subject(ctx))
            for values, body in cases:
                if any(_equal(value, _value(ctx, v(ctx))) for v in values):
                    if ctx.trace is not None:
                        ctx.step("match", f"match {span.text} = {show(value)}", span)
                    run_block(ctx, body, span)
                    return
            if ctx.trace is not None:
                ctx.step("match", f"match {span.text} = {show(value)} → else", span)
            run_block(ctx, otherwise, span)

        return match

    def st_foreach(self, node: n.ForEach):
        items = self.naming(node.items)
        body = self.block(node.body)
        name = node.var
        span = node.items.span

        def for_each(ctx):
            values = _value(ctx, items(ctx))
            if not isinstance(values, tuple):
                raise EvaluationError(f"`for each` goes over a list, not {show(values)}", span)
            for value in values:
                ctx.env[name] = value
                run_block(ctx, body, span)

        return for_each

    def st_repeat(self, node: n.Repeat):
        count = self.expr(node.count)
        until = self.expr(node.until) if node.until is not None else None
        body = self.block(node.body)
        span = node.count.span

        def repeat(ctx):
            times = _whole(ctx, count(ctx), span, "a repeat count")
            if times > ctx.limits.repeat_count:
                raise LimitExceeded(
                    f"repeat {times} times is more than "
                    f"{ctx.limits.repeat_count} (limit repeat_count)",
                    span,
                )
            for _ in range(times):
                if until is not None and _bool(ctx, until(ctx), node.until.span):
                    break
                run_block(ctx, body, span)

        return repeat

    def st_note(self, node: n.Note):
        text = self.expr(node.text)
        span = node.span

        def note(ctx):
            value = _value(ctx, text(ctx))
            if ctx.trace is not None:
                ctx.step("note", show(value), span, note=value)

        return note

    def st_add(self, node: n.Add):
        item = self.expr(node.item)
        span = node.span
        place_node = node.place
        binding = self.bindings.get(id(place_node))
        if binding is not None and binding.kind == "catalog":
            catalog = binding.name
            fields = tuple((name, self.expr(e)) for name, e in node.fields or ())

            def add_entry(ctx):
                name = _value(ctx, item(ctx))
                if not isinstance(name, str):
                    raise EvaluationError(
                        f"a catalog entry's name is a text, not {show(name)}", node.item.span
                    )
                if name in ctx.state.values[catalog]:
                    raise EvaluationError(f"the sheet already has a {catalog} entry {name!r}", span)
                entry = Record(
                    {"name": name, **{k: _value(ctx, f(ctx)) for k, f in fields}}, kind=catalog
                )
                ctx.state.write((catalog, name), entry)
                if ctx.trace is not None:
                    ctx.step(
                        "change",
                        f"add {name} to {catalog}: {show(entry)}",
                        span,
                        path=f"{catalog}.{name}",
                        before=None,
                        after=entry,
                    )

            return add_entry
        if isinstance(place_node, n.Name) and binding is not None and binding.kind == "local":
            local = place_node.name

            def add_local(ctx):
                ctx.env[local] = (*ctx.env[local], _value(ctx, item(ctx)))

            return add_local
        place = self.ref(place_node)

        def add_item(ctx):
            where = place(ctx)
            value = _value(ctx, item(ctx))
            before = ctx.state.read(where)
            after = (*before, value)
            ctx.state.write(where, after)
            if ctx.trace is not None:
                ctx.step(
                    "change",
                    f"add {show(value)} to {_place_text(where)}",
                    span,
                    path=_place_path(where),
                    before=before,
                    after=after,
                )

        return add_item

    def st_do(self, node: n.Do):
        call = self.expr(node.call)
        return lambda ctx: call(ctx) and None


def run_block(ctx, body: tuple, span) -> None:
    """Run statements, counting them against `steps_per_run` (loops count every pass)."""
    steps = ctx.steps + len(body)
    ctx.steps = steps
    if steps > ctx.limits.steps_per_run:
        raise LimitExceeded(
            f"more than {ctx.limits.steps_per_run} statements in one run (limit steps_per_run)",
            span,
        )
    for statement in body:
        statement(ctx)


# ─── compiled definitions ───────────────────────────────────────────────────


class _Callable:
    """Shared by checks, opposed checks, actions and roll procedures: frames and depth."""

    def enter(self, ctx, args: tuple, span):
        if ctx.depth >= ctx.limits.call_depth:
            raise LimitExceeded(
                f"more than {ctx.limits.call_depth} calls inside one another (limit call_depth)",
                span,
            )
        if ctx.roller.lifts:  # odds: arguments are values, not distributions
            args = tuple(_value(ctx, a) for a in args)
        saved = ctx.env
        ctx.env = dict(zip(self.names, args))
        ctx.depth += 1
        return saved

    def leave(self, ctx, saved) -> None:
        ctx.env = saved
        ctx.depth -= 1


def _terms(node, sign: int = 1) -> list:
    """A sum flattened into signed terms: `a + b - c` → [(+1, a), (+1, b), (-1, c)]."""
    if isinstance(node, n.Binary) and node.op in ("+", "-"):
        right_sign = sign if node.op == "+" else -sign
        return _terms(node.left, sign) + _terms(node.right, right_sign)
    return [(sign, node)]


class CompiledCheck(_Callable):
    """`check`: a roll plus modifiers against a target; the result is a record."""

    def __init__(self, compiler: Compiler, node: n.Check):
        self.node = node
        self.names = tuple(p.name for p in node.params)
        compiler.reads.append(n.field_reads((node.lets, node.roll, node.target, node.fields)))
        try:
            self.lets = tuple((let.name, compiler.st_let(let)) for let in node.lets)
        finally:
            compiler.reads.pop()
        self.roll = compiler.expr(node.roll)
        self.target = compiler.expr(node.target) if node.target is not None else None
        self.fields = tuple((name, compiler.expr(e)) for name, e in node.fields)
        self.terms = tuple(_explain(compiler, sign, term) for sign, term in _terms(node.roll))
        self.label = node.label or node.name
        self.comparison = node.comparison
        self.compare = _COMPARISONS.get(node.comparison)
        self.upward = node.comparison in (">=", ">")

    def __call__(self, ctx, args: tuple, span) -> Record:
        # `enter`, written out: a check is the commonest call of all
        if ctx.depth >= ctx.limits.call_depth or ctx.roller.lifts:
            saved = self.enter(ctx, args, span)
        else:
            saved = ctx.env
            ctx.env = dict(zip(self.names, args))
            ctx.depth += 1
        trace = ctx.trace
        mark = len(trace) if trace is not None else 0
        try:
            for _, let in self.lets:
                let(ctx)
            if trace is None:
                total = self.roll(ctx)
                shown = None
            else:
                total, shown = _explained_sum(ctx, self.terms)
            if type(total) is Dist:  # odds: the record for each total, if fields allow
                key = ("check", id(self), id(total), args)
                records = remembered(key, (total,), lambda: self.records(ctx, total))
                if records is not None:
                    return records
            if type(total) is not int:
                total = _number(_value(ctx, total), self.node.roll.span, "a check's roll")
            env = ctx.env
            env["total"] = total
            if self.target is not None:
                target = self.target(ctx)
                if type(target) is not int:
                    target = _number(_value(ctx, target), self.node.target.span, "a check's target")
                success = self.compare(total, target)
                margin = total - target if self.upward else target - total
                env["target"], env["success"], env["margin"] = target, success, margin
                fields = {"total": total, "target": target, "success": success, "margin": margin}
            else:
                fields = {"total": total}
            for name, value in self.fields:
                result = value(ctx)
                if type(result) is Dist:
                    result = ctx.roller.resolve(result)
                env[name] = fields[name] = result
            if ctx.trace is not None:
                ctx.depth -= 1
                ctx.trace.insert(
                    mark,
                    Step.at(
                        "check",
                        self.describe(ctx, shown, fields),
                        self.node.span,
                        {"check": self.node.name, **fields},
                        ctx.depth,
                    ),
                )
                ctx.depth += 1
            return Record(fields, kind="check")
        finally:
            self.leave(ctx, saved)

    def records(self, ctx, totals: Dist):
        """Odds: the distribution of the check's record, computed once per total, so that
        a caller branches on the records (a few: success, points) and not on every total.
        None when a field or the target needs dice of its own (then the caller branches
        on the total, as a real run would see it)."""
        roller = ctx.roller
        saved = roller.pins, roller.cursor
        roller.pins, roller.cursor = (), 0  # nothing here may take a pinned value
        env = ctx.env
        try:
            target = self.target(ctx) if self.target is not None else None
            if type(target) is Dist:
                return None

            def record(total):
                if type(total) is not int:
                    total = _number(total, self.node.roll.span, "a check's roll")
                env["total"] = total
                fields = {"total": total}
                if target is not None:
                    success = self.compare(total, target)
                    margin = total - target if self.upward else target - total
                    env["target"], env["success"], env["margin"] = target, success, margin
                    fields.update(target=target, success=success, margin=margin)
                for name, value in self.fields:
                    result = value(ctx)
                    if type(result) is Dist:
                        raise Branch(result)
                    env[name] = fields[name] = result
                return Record(fields, kind="check")

            return totals.map(record)
        except Branch:
            return None
        finally:
            roller.pins, roller.cursor = saved

    def describe(self, ctx, shown: str, fields: dict) -> str:
        words = ctx.words
        text = f"{self.label}: {shown} = {show(fields['total'])}"
        if self.target is not None:
            comparison = "" if self.comparison == ">=" else f" ({self.comparison})"
            verdict = words["success"] if fields["success"] else words["failure"]
            text += f" {words['vs']} {show(fields['target'])}{comparison} → {verdict}"
        extra = [f"{name} {show(fields[name])}" for name, _ in self.fields]
        if extra:
            text += (", " if self.target is not None else " → ") + ", ".join(extra)
        return text


def _explain(compiler: Compiler, sign: int, node):
    """A term of a check's roll, with how to name it in the trace."""
    binding = compiler.bindings.get(id(node))
    type_ = compiler.type_of(node)
    if isinstance(node, n.Dice):
        return (sign, "roll", compiler.dice(node), None)
    if isinstance(node, n.Name) and binding is not None and binding.kind == "roll":
        name = node.name
        return (sign, "roll", lambda ctx: ctx.env[name], name)
    if isinstance(node, n.Name) and binding is not None and binding.kind == "rolldef":
        procedure = compiler.roll_definition(binding.name)
        return (sign, "chain", lambda ctx: procedure.call(ctx, ()), binding.name)
    if type_.kind == "ref":
        return (sign, "ref", compiler.ref(node), None)
    if isinstance(node, n.Name) and binding is not None and binding.kind in ("field", "derived"):
        return (sign, "value", compiler.expr(node), binding.name)
    return (sign, "value", compiler.expr(node), _label(compiler, node))


def _label(compiler: Compiler, node):
    """A term's source text, with each value that names something replaced by the name
    (`2 * attr` → `2 * Wits`, `Difficulty[difficulty]` → `Difficulty[Hard]`)."""
    text, base = node.span.text, node.span.start
    holes = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, n.Name | n.Field):
            type_ = compiler.type_of(item)
            value = t.value_of(type_)
            named = type_.kind == "ref" and names_a_field(item, compiler.bindings)
            binding = compiler.bindings.get(id(item))
            local_text = (
                value.kind == "text"
                and isinstance(item, n.Name)
                and binding is not None
                and binding.kind == "local"
            )
            if named or local_text:
                holes.append((item.span.start - base, item.span.end - base, compiler.naming(item)))
                continue
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif attrs.has(type(item)):
            stack.extend(
                getattr(item, f.name)
                for f in attrs.fields(type(item))
                if f.name not in ("span", "name_span", "op_span")
            )
    if not holes:
        return text
    holes.sort(key=lambda h: h[0])

    def label(ctx):
        out, last = [], 0
        for start, end, fn in holes:
            out.append(text[last:start])
            out.append(show(fn(ctx)))
            last = end
        out.append(text[last:])
        return "".join(out)

    return label


def _explained_sum(ctx, terms) -> tuple:
    """Evaluate a check's roll term by term, naming each: `Hierofanía 3 + 2d10 [3, 4]`."""
    total = 0
    parts = []
    for sign, kind, fn, label in terms:
        if kind == "roll":
            roll = fn(ctx)
            value = roll.total
            text = f"{label} {faces_text(roll)}" if label else f"{roll.label} {faces_text(roll)}"
        elif kind == "chain":
            roll = fn(ctx)
            value = roll.total
            text = f"{label} {roll.faces_text()}"
        elif kind == "ref":
            place = fn(ctx)
            if place is None:  # an optional skill not given: nothing to add, nothing to show
                continue
            value = ctx.state.read(place)
            text = f"{_place_text(place)} {show(value)}"
        else:
            value = fn(ctx)
            if callable(label):
                label = label(ctx)
            text = f"{label} {show(value)}" if label != show(value) else show(value)
        value = _number(value, None, f"the term {label}")
        total = normalize(total + value if sign > 0 else total - value)
        if parts:
            parts.append(("+ " if sign > 0 else "- ") + text)
        else:
            parts.append(text if sign > 0 else "-" + text)
    return total, " ".join(parts)


class CompiledOpposed(_Callable):
    """`opposed`: two rolls compared by keys; ties broken as the rule says."""

    def __init__(self, compiler: Compiler, node: n.Opposed):
        self.node = node
        self.names = tuple(p.name for p in node.params)
        self.ours = compiler.expr(node.ours)
        self.theirs = compiler.expr(node.theirs)
        self.fields = tuple((name, compiler.expr(e)) for name, e in node.fields)
        self.label = node.label or node.name

    def __call__(self, ctx, args: tuple, span) -> Record:
        saved = self.enter(ctx, args, span)
        mark = len(ctx.trace) if ctx.trace is not None else 0
        try:
            rerolls = 0
            while True:
                ours = _side(_value(ctx, self.ours(ctx)), self.node.ours.span)
                theirs = _side(_value(ctx, self.theirs(ctx)), self.node.theirs.span)
                a = tuple(_key(ours.get(k)) for k in self.node.compare)
                b = tuple(_key(theirs.get(k)) for k in self.node.compare)
                if a != b or self.node.tie != "reroll":
                    break
                rerolls += 1
                if rerolls > ctx.limits.tie_rerolls:
                    raise LimitExceeded(
                        f"still tied after {ctx.limits.tie_rerolls} rerolls (limit tie_rerolls)",
                        self.node.span,
                    )
                if ctx.trace is not None:
                    ctx.step(
                        "tie",
                        f"{self.label}: {ctx.words['tie']} "
                        f"({show(ours['total'])} - {show(theirs['total'])}), "
                        "roll again",
                        self.node.span,
                    )
            tie = a == b
            won = a > b or (tie and self.node.tie == "ours")
            fields = {
                "ours": ours,
                "theirs": theirs,
                "won": won,
                "tie": tie,
                "margin": normalize(ours["total"] - theirs["total"]),
                "rerolls": rerolls,
            }
            ctx.env.update(fields)
            for name, value in self.fields:
                ctx.env[name] = fields[name] = _value(ctx, value(ctx))
            if ctx.trace is not None:
                words = ctx.words
                verdict = words["wins"] if won else words["loses"]
                if tie:
                    verdict = f"{words['tie']}, " + verdict
                text = (
                    f"{self.label}: {show(ours['total'])} {words['vs']} "
                    f"{show(theirs['total'])} → {verdict}"
                )
                ctx.depth -= 1
                ctx.trace.insert(
                    mark,
                    Step.at(
                        "opposed",
                        text,
                        self.node.span,
                        {"opposed": self.node.name, "won": won, "tie": tie},
                        ctx.depth,
                    ),
                )
                ctx.depth += 1
            return Record(fields, kind="opposed")
        finally:
            self.leave(ctx, saved)


def _side(value, span) -> Record:
    if isinstance(value, Record):
        if "total" not in value:
            raise EvaluationError("each side of an opposed check needs a total", span)
        return value
    return Record({"total": _number(value, span, "a side of an opposed check")})


def _key(value):
    return (0, value) if isinstance(value, bool) else (1, value)


class CompiledAction(_Callable):
    """`action`: statements run in order against the working sheet; a result record."""

    def __init__(self, compiler: Compiler, node: n.Action):
        self.node = node
        self.names = tuple(p.name for p in node.params)
        compiler.reads.append(n.field_reads(node.body))
        try:
            self.body = compiler.block(node.body)
        finally:
            compiler.reads.pop()
        result = node.body[-1] if node.body and isinstance(node.body[-1], n.Result) else None
        self.result = (
            tuple((name, compiler.expr(e)) for name, e in result.fields)
            if result is not None
            else None
        )
        self.label = node.label or node.name

    def __call__(self, ctx, args: tuple, span) -> Record | None:
        saved = self.enter(ctx, args, span)
        mark = len(ctx.trace) if ctx.trace is not None else 0
        try:
            body = self.body
            ctx.steps += len(body)
            if ctx.steps > ctx.limits.steps_per_run:
                run_block(ctx, (), self.node.span)  # raises LimitExceeded
            for statement in body:
                statement(ctx)
            result = None
            if self.result is not None:
                fields = {}
                for name, value in self.result:
                    got = value(ctx)
                    if type(got) is Dist:
                        got = ctx.roller.resolve(got)
                    fields[name] = got
                result = Record(fields, kind="result")
            if ctx.trace is not None and ctx.depth > 1:
                shown = ", ".join(f"{k}={show(v)}" for k, v in zip(self.names, args))
                ctx.depth -= 1
                ctx.trace.insert(
                    mark,
                    Step.at(
                        "call",
                        f"{self.label}({shown})",
                        self.node.span,
                        {"action": self.node.name},
                        ctx.depth,
                    ),
                )
                ctx.depth += 1
            return result
        finally:
            self.leave(ctx, saved)


class Procedure(_Callable):
    """`roll name = dice then { on ...: add ..., again while ... }`."""

    def __init__(self, compiler: Compiler, node: n.RollDef):
        self.node = node
        self.name = node.name
        self.names = tuple(p.name for p in node.params)
        self.body = compiler.expr(node.body)
        self.base = compiler.dice(node.body) if node.rules else None
        self.rules = tuple(
            (
                compiler.expr(r.condition),
                r.sign,
                compiler.expr(r.extra),
                compiler.expr(r.again) if r.again is not None else None,
                r,
            )
            for r in node.rules
        )

    def call(self, ctx, args: tuple):
        saved = self.enter(ctx, args, self.node.span)
        try:
            if not self.rules:
                ctx.quiet += 1
                captured, ctx.capture = ctx.capture, []
                try:
                    total = self.body(ctx)
                    rolls = ctx.capture
                finally:
                    ctx.capture = captured
                    ctx.quiet -= 1
                result = ChainRoll(self.name, [(1, rolls, total)], total)
            else:
                result = ctx.roller.chain(self, ctx)
        finally:
            self.leave(ctx, saved)
        if ctx.trace is not None and not ctx.quiet:
            origin = ctx.roller.source.origin
            ctx.step(
                "roll",
                f"{self.name}: {result.faces_text()} = {show(result.total)}"
                + origin_mark(origin, ctx.words),
                self.node.span,
                roll=self.name,
                value=result.total,
                origin=origin,
            )
        return result

    def roll(self, ctx) -> ChainRoll:
        """The procedure itself, with real dice (the odds engine has its own `chain`)."""
        ctx.quiet += 1
        try:
            base = self.base(ctx)
            parts = [(1, [base], base.total)]
            total = base.total
            watch(ctx.env, [base], base.total)
            for condition, sign, extra, again, rule in self.rules:
                if not _bool(ctx, condition(ctx), rule.condition.span):
                    continue
                extras = 0
                while True:
                    extras += 1
                    if extras > ctx.limits.extra_per_die:
                        raise LimitExceeded(
                            f"roll {self.name} went on more than "
                            f"{ctx.limits.extra_per_die} times "
                            "(limit extra_per_die)",
                            rule.span,
                        )
                    captured, ctx.capture = ctx.capture, []
                    try:
                        value = _number(extra(ctx), rule.extra.span, "what a rule adds")
                        rolls = ctx.capture
                    finally:
                        ctx.capture = captured
                    total = normalize(total + sign * value)
                    parts.append((sign, rolls, value))
                    if again is None:
                        break
                    watch(ctx.env, rolls, value)
                    if not _bool(ctx, again(ctx), rule.again.span):
                        break
                break
            return ChainRoll(self.name, parts, total)
        finally:
            ctx.quiet -= 1


def watch(env: dict, rolls: list, total) -> None:
    """Bind what a roll procedure's conditions look at: die, dice, total, doubles."""
    faces = [face for roll in rolls for face in roll.kept()]
    env["die"] = faces[0] if faces else None
    env["dice"] = tuple(faces)
    env["total"] = total
    env["doubles"] = len(faces) >= 2 and all(face == faces[0] for face in faces)


# ─── tables at run time ─────────────────────────────────────────────────────


class _Cell:
    """A table cell: a value, or a record of fields (with the value as its label)."""

    __slots__ = ("cached", "fields", "record", "value_fn")

    def __init__(self, value_fn, fields, record: bool, constant: bool):
        self.value_fn, self.fields, self.record = value_fn, fields, record
        self.cached = _MISSING
        if constant:
            self.cached = self.compute(None, {})

    def compute(self, ctx, env):
        value = self.value_fn(ctx) if self.value_fn is not None else None
        if not self.record:
            return value
        fields = {} if value is None else {"label": value}
        for name, fn in self.fields:
            fields[name] = fn(ctx)
        return Record(fields, kind="row")

    def value(self, ctx, env):
        if self.cached is not _MISSING:
            return self.cached
        saved, ctx.env = ctx.env, env
        try:
            return self.compute(ctx, env)
        finally:
            ctx.env = saved

    def summary(self, ctx, env):
        return self.value(ctx, env)


class _SubTable:
    """A row of a table looked up by several keys: a label and the next level's rows."""

    __slots__ = ("label", "rows")

    def __init__(self, rows, label):
        self.rows, self.label = rows, label

    def find(self, key):
        return self.rows.find(key)

    def summary(self, ctx, env):
        if self.label is None:
            return Record({}, kind="row")
        saved, ctx.env = ctx.env, env
        try:
            return Record({"label": self.label(ctx)}, kind="row")
        finally:
            ctx.env = saved


class _Rows:
    """Rows of one level: text keys in a dict, number ranges searched by bisection."""

    __slots__ = ("by_value", "else_row", "highs", "lows", "ranged")

    def __init__(self, rows: list):
        self.by_value: dict = {}
        self.else_row = None
        ranged = []
        for key, row in rows:
            if key.kind == "else":
                self.else_row = self.else_row or row
            elif key.kind == "value":
                self.by_value.setdefault(key.low, row)
            else:
                ranged.append((key.low, key.high, row))
        ranged.sort(key=lambda r: -math.inf if r[0] is None else r[0])
        self.ranged = ranged
        self.lows = [(-math.inf if low is None else low) for low, _, _ in ranged]
        self.highs = [(math.inf if high is None else high) for _, high, _ in ranged]

    def find(self, key):
        if type(key) is not bool:
            try:
                row = self.by_value.get(key)
            except TypeError:
                row = None
            if row is not None:
                return row
            if is_number(key) and self.ranged:
                i = bisect_right(self.lows, key) - 1
                if i >= 0 and key <= self.highs[i]:
                    return self.ranged[i][2]
        return self.else_row


# ─── helpers ────────────────────────────────────────────────────────────────


_COMPARISONS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_TOP = "top"


def _bind_tops(steps: tuple, die: Die) -> tuple:
    """`x` with no condition explodes on the die's top face, known once the die is."""
    if not any(len(s) > 2 and s[2] is _TOP for s in steps):
        return steps
    top = predicate("=", die.high)
    return tuple((s[0], s[1], top, s[3]) if len(s) > 2 and s[2] is _TOP else s for s in steps)


def _text_keyed(table: n.Table) -> list[bool]:
    """For each level of a table, whether its keys are texts."""
    out, rows = [], table.rows
    for _ in range(max(1, len(table.keys))):
        out.append(any(r.key.kind == "value" and isinstance(r.key.low, str) for r in rows))
        rows = [sub for r in rows for sub in r.rows]
    return out


def _has_fields(rows, levels: int, depth: int = 0) -> bool:
    if depth >= levels - 1:
        return any(row.fields for row in rows)
    return any(_has_fields(row.rows, levels, depth + 1) for row in rows)


def _project(value, fields: tuple):
    """A record cut down to some of its fields (what is left to read of it)."""
    if type(value) is Record:
        return Record({k: value._fields.get(k) for k in fields}, value.kind)
    return value


def _tuple_of(fns: tuple):
    """A closure computing (f(ctx) for f in fns) as a tuple, without a generator."""
    if not fns:
        return lambda ctx: ()
    if len(fns) == 1:
        (a,) = fns
        return lambda ctx: (a(ctx),)
    if len(fns) == 2:
        a, b = fns
        return lambda ctx: (a(ctx), b(ctx))
    if len(fns) == 3:
        a, b, c = fns
        return lambda ctx: (a(ctx), b(ctx), c(ctx))
    return lambda ctx: tuple([f(ctx) for f in fns])


def _constant(node) -> bool:
    return node is None or isinstance(node, n.Literal)


def _bool(ctx, value, span) -> bool:
    if value is True or value is False:
        return value
    if type(value) is Dist:
        return _bool(ctx, ctx.roller.resolve(value), span)
    raise EvaluationError(f"a condition must be yes or no, not {show(value)}", span)


def _unequal(a, b) -> bool:
    return not _equal(a, b)


def _equal(a, b) -> bool:
    if isinstance(a, PoolRoll | ChainRoll):
        a = a.total
    if isinstance(b, PoolRoll | ChainRoll):
        b = b.total
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return a == b


def _get_field(record, name: str, span):
    if isinstance(record, Record):
        return record.get(name)
    if type(record) is Dist:  # odds: the field of each record the check may give
        return record.map(lambda r: _get_field(r, name, span))
    if isinstance(record, PoolRoll | ChainRoll):
        return getattr(record, name, None)
    if record is None:
        raise EvaluationError(f"there is nothing here to take `{name}` from (none)", span)
    raise EvaluationError(f"{show(record)} has no field `{name}`", span)


def _place_text(place) -> str:
    if type(place) is str:
        return place
    return f"{place[0]}[{place[1]}]"


def _place_path(place) -> str:
    if type(place) is str:
        return place
    return f"{place[0]}.{place[1]}"


_EXPRESSIONS = {
    n.Literal: Compiler.ex_literal,
    n.Text: Compiler.ex_text,
    n.Name: Compiler.ex_name,
    n.Field: Compiler.ex_field,
    n.Index: Compiler.ex_index,
    n.Call: Compiler.ex_call,
    n.Unary: Compiler.ex_unary,
    n.Binary: Compiler.ex_binary,
    n.IfExpr: Compiler.ex_ifexpr,
    n.ListLiteral: Compiler.ex_listliteral,
    n.Dice: Compiler.ex_dice,
}
_STATEMENTS = {
    n.Let: Compiler.st_let,
    n.Set: Compiler.st_set,
    n.Change: Compiler.st_change,
    n.Require: Compiler.st_require,
    n.If: Compiler.st_if,
    n.Match: Compiler.st_match,
    n.ForEach: Compiler.st_foreach,
    n.Repeat: Compiler.st_repeat,
    n.Note: Compiler.st_note,
    n.Do: Compiler.st_do,
    n.Add: Compiler.st_add,
}
