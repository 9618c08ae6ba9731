"""Compiling expressions: names, fields, lookups, calls, built-in functions, operators."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.messages import language_for, tr
from dsl.rulebook import names_a_field
from interpreter.bounds import (
    cells,
    too_long_text,
)
from interpreter.compile.arithmetic import (
    arithmetic,
    as_number,
    equal,
    field_of,
    lifted1,
    ordering,
    tuple_of,
    unequal,
)
from interpreter.compile.builtin_functions import BUILTINS
from interpreter.compile.codegen import SWITCH
from interpreter.compile.costs import charged
from interpreter.compile.host import CompilerHost
from interpreter.compile.lists import list_literal
from interpreter.compile.step_texts import rolled_die
from interpreter.compile.tables import Pending, text_keyed
from interpreter.compiled import ActionCall
from interpreter.dice import Die
from interpreter.errors import EvaluationError
from interpreter.pool import Rolled
from interpreter.runtime import Unknown, as_bool, count_past_bound, known, lift
from interpreter.state import MISSING
from interpreter.values import PLAIN_TYPES, Range, Record, show

#: whether `x = 2` (a whole number written on the right) compares without calling for the
#: 2 (compared_to; off: as any `=`, compared_by)
COMPARED_TO_NUMBER = True
#: what a value is, where a number is wanted (a refusal says it)
NEGATED = tr("what `-` negates")


class Expressions(CompilerHost):
    """The expression handlers of the Compiler, one per node class."""

    def ex_literal(self, node: n.Literal):
        value = node.value
        return lambda ctx: value

    def ex_text(self, node: n.Text):
        parts = tuple(p if isinstance(p, str) else self.naming(p) for p in node.parts)
        span = node.span
        # The rulebook's own texts are in its language: a yes/no in one reads as it does.
        language = language_for(self.book.language)

        def text(ctx):
            return built_text(ctx, parts, language, span)

        return text

    def ex_listliteral(self, node: n.ListLiteral):
        return list_literal(tuple(self.expr(i) for i in node.items), node.span)

    def ex_name(self, node: n.Name):
        binding = self.bindings[id(node)]
        kind, name = binding.kind, binding.name
        if kind == "local":
            if self.type_of(node).kind == "ref":

                def read_named(ctx):
                    place = ctx.env[name]
                    if type(place) is str:
                        state = ctx.state
                        value = state.values.get(place, MISSING)
                        return state.open_default if value is MISSING else value
                    return ctx.state.read(place)

                return read_named
            return lambda ctx: ctx.env[name]
        if kind == "roll":  # a pool's total (a roll kept in a list is its total already)
            return lambda ctx: v.total if isinstance(v := ctx.env[name], Rolled) else v
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
        if kind == "catalog":  # its entries' names: a list made of them, counted

            def names_of(ctx):
                entries = ctx.state.values[name]
                ctx.count(len(entries), node.span)
                return tuple(entries)

            return names_of
        if kind == "rolldef":
            procedure = self.roll_definition(name)
            return lambda ctx: procedure.call(ctx, ()).total
        raise AssertionError(kind)

    def ex_field(self, node: n.Field):
        binding = self.bindings.get(id(node))
        name = node.name
        if binding is not None and binding.kind == "character_field":
            return self.character_field(node)
        if binding is not None and binding.kind == "resource_bound":
            place = self.ref(node.subject)
            bound = self.resource_bound
            return lambda ctx: bound(ctx, place(ctx), name)
        subject_type = self.type_of(node.subject)
        if subject_type.kind == "roll":
            return self.pool_field(node)
        if isinstance(node.subject, n.Index):  # `Tabla[k].campo`: only that field is read
            subject = self.ex_index(node.subject, frozenset({name}))
        else:
            subject = self.expr(node.subject)
        span = node.span
        if self.type_of(node).kind == "ref":
            return lambda ctx: ctx.state.read(field_of(subject(ctx), name, span))

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
                    value = record._fields.get(name)
                    return value.force(ctx) if type(value) is Pending else value
                return field_of(record, name, span)

            return local_field

        def field(ctx):
            record = subject(ctx)
            if type(record) is Record:
                return record._fields.get(name)
            return field_of(record, name, span)

        return field

    def roll_object(self, node):
        """The pool value itself (not just its total): a dice term's PoolRoll, a named
        roll's ChainRoll, a `let` holding one; for its fields and the trace."""
        binding = self.bindings.get(id(node))
        if isinstance(node, n.Name) and binding is not None and binding.kind == "roll":
            name = node.name
            return lambda ctx: ctx.env[name]
        if isinstance(node, n.Dice):
            return self.dice(node)
        if isinstance(node, n.RollGroup):
            return self.roll_group(node)
        if isinstance(node, n.IfExpr):  # the pool of the branch taken, counted as it is
            condition, span = self.expr(node.condition), node.condition.span
            then, otherwise = (
                charged(self.roll_object(part), self.cost(part), part.span)
                for part in (node.then, node.otherwise)
            )
            return lambda ctx: then(ctx) if as_bool(ctx, condition(ctx), span) else otherwise(ctx)
        if isinstance(node, n.Name) and binding is not None and binding.kind == "rolldef":
            procedure = self.roll_definition(binding.name)
            return lambda ctx: procedure.call(ctx, ())
        if isinstance(node, n.Call) and binding is not None and binding.kind == "roll":
            procedure = self.roll_definition(binding.name)
            values = tuple_of(self.arguments(node, binding.node.params))
            return lambda ctx: procedure.call(ctx, values(ctx))
        return self.expr(node)

    def ex_index(self, node: n.Index, wanted: frozenset | None = None, lazy: bool = False):
        """A lookup; of a table's record, `wanted` are the fields read of it (None: all),
        so that a field with dice nobody reads is never rolled; `lazy`: those with dice
        rolled when first read (a `let` whose record is only read field by field)."""
        binding = self.bindings.get(id(node))
        if binding is None:  # a list's item, by its position
            return self.list_item(node)
        span = node.span
        if binding.kind == "table":
            # A value naming a field looks up a table of texts by the field's name, and
            # a table of numbers by the field's value.
            texts = text_keyed(binding.node)
            keys = tuple(
                self.naming(k) if texts[min(i, len(texts) - 1)] else self.expr(k)
                for i, k in enumerate(node.keys)
            )
            lookup = self.table(binding.name)
            key_values = tuple_of(keys)
            if wanted is not None:
                return lambda ctx: lookup(ctx, key_values(ctx), span, wanted, lazy)
            return lambda ctx: lookup(ctx, key_values(ctx), span)
        if binding.kind == "family":
            place = self.ref(node)
            return lambda ctx: ctx.state.read(place(ctx))
        if binding.kind == "catalog_entry":
            catalog = binding.name
            key = self.expr(node.keys[0])

            def entry(ctx):
                name = known(ctx, key(ctx))
                found = ctx.state.values[catalog].get(name)
                if found is None:
                    raise EvaluationError(
                        tr(
                            "the sheet has no {catalog} entry named {name}",
                            catalog=catalog,
                            name=repr(name) if isinstance(name, str) else show(name),
                        ),
                        span,
                    )
                return found

            return entry
        raise AssertionError(binding.kind)

    def ex_call(self, node: n.Call):
        binding = self.bindings[id(node)]
        if binding.kind == "builtin":  # interpreter.compile.builtin_functions
            return BUILTINS[node.function].compile(self, node)
        definition = binding.node
        values = tuple_of(self.arguments(node, definition.params))
        span = node.span
        if binding.kind == "formula":
            body = self.formula(binding.name)
            return lambda ctx: body(ctx, values(ctx), span)
        if binding.kind == "check":
            check = self.check(binding.name)
            return lambda ctx: check(ctx, values(ctx), span)
        if binding.kind == "opposed":
            opposed = self.opposed(binding.name)
            return lambda ctx: opposed(ctx, values(ctx), span)
        if binding.kind == "action":
            # the odds engine runs a called action's statements itself, one by one
            return ActionCall(self.action(binding.name), values, span)
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

    def ex_unary(self, node: n.Unary):
        operand = self.expr(node.operand)
        span = node.operand.span
        if node.op == "not":

            def negate(value):
                if value is True or value is False:
                    return not value
                raise EvaluationError(tr("`not` needs yes or no, not {value}", value=value), span)

            return lifted1(negate, operand)

        def minus(value):
            return -as_number(value, span, NEGATED)

        return lifted1(minus, operand)

    def ex_binary(self, node: n.Binary):
        op = node.op
        if op in ("and", "or"):
            return self.logical(node)
        if op in ("=", "!="):
            left, right = self.compared(node.left, node.right), self.compared(node.right, node.left)
            compare = equal if op == "=" else unequal
            constant = node.right.value if type(node.right) is n.Literal else None
            if type(constant) is int and COMPARED_TO_NUMBER:  # (`d = 2`: the 2 not called for)
                return compared_to(compare, left, constant, node.op_span)
            return compared_by(compare, left, right, node.op_span)
        if op == "in":
            return self.contains(node)
        left, right = self.expr(node.left), self.expr(node.right)
        if op in (">=", "<=", ">", "<"):
            return ordering(node, left, right)
        return arithmetic(node, left, right)

    def logical(self, node: n.Binary):
        """`and`, `or`: the right side counts when it is needed."""
        op = node.op
        lspan, rspan = node.left.span, node.right.span
        left = self.expr(node.left)
        right = charged(self.expr(node.right), self.cost(node.right), rspan)
        if op == "and":
            return lambda ctx: as_bool(ctx, left(ctx), lspan) and as_bool(ctx, right(ctx), rspan)
        return lambda ctx: as_bool(ctx, left(ctx), lspan) or as_bool(ctx, right(ctx), rspan)

    def contains(self, node: n.Binary):
        """`item in container`: a list, a range, or a text in a text."""
        left, right = self.naming(node.left), self.naming(node.right)
        span = node.right.span

        def contains(ctx):
            container = known(ctx, right(ctx))
            if type(container) is Range:
                return container.holds(known(ctx, left(ctx)))
            if not isinstance(container, tuple | str):
                raise EvaluationError(
                    tr("`in` looks in a list, not in {container}", container=container), span
                )
            ctx.count(cells(container, ctx.limits.value_size), span)  # it looks through
            item = known(ctx, left(ctx))
            if type(container) is str and type(item) is not str:
                raise EvaluationError(
                    tr("`in` a text looks for a text, not for {value}", value=item),
                    node.left.span,
                )
            return item in container

        return contains

    def names_a_field(self, node) -> bool:
        """Whether a node is a value naming a field (`atributo: attribute`), not a field."""
        return self.type_of(node).kind == "ref" and names_a_field(node, self.bindings)

    def compared(self, node, other):
        """What `=` compares of one side: the name of the field a value names, when the
        other side is a text (`atributo = "Fuerza"`) or `none` (`habilidad = none`: not
        given); else the value (`Mild = ""` compares the text field's value)."""
        by_name = (
            self.type_of(node).kind == "ref"
            and self.type_of(other).kind in ("text", "none")
            and names_a_field(node, self.bindings)
        )
        return self.ref(node) if by_name else self.expr(node)

    def ex_ifexpr(self, node: n.IfExpr):
        condition = self.expr(node.condition)
        # the branch taken counts as it is evaluated (costs.charged, written out here:
        # one call fewer for every `if` evaluated)
        then, then_steps, then_span = self.expr(node.then), self.cost(node.then), node.then.span
        otherwise = self.expr(node.otherwise)
        else_steps, else_span = self.cost(node.otherwise), node.otherwise.span
        span = node.condition.span

        def ifexpr(ctx):
            chosen = condition(ctx)
            # (as_bool's own first tests, True and False, without the call)
            if chosen is True or (chosen is not False and as_bool(ctx, chosen, span)):
                counted = ctx.steps + then_steps
                ctx.steps = counted
                if counted > ctx.step_bound:
                    count_past_bound(ctx, then_span)
                return then(ctx)
            counted = ctx.steps + else_steps
            ctx.steps = counted
            if counted > ctx.step_bound:
                count_past_bound(ctx, else_span)
            return otherwise(ctx)

        return ifexpr

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
            die, span, label = Die.of(node.sides), node.span, node.span.text

            def face(ctx):
                if ctx.capture is None:
                    if ctx.trace is None:
                        return ctx.roller.face(die, span)
                    if SWITCH.traced_faces and not ctx.roller.lifts:  # (its roll and step)
                        return rolled_die(ctx, ctx.roller.face(die, span), label, span).total
                return roll(ctx).total

            return face
        return lambda ctx: roll(ctx).total


def built_text(ctx, parts: tuple, language, span) -> str:
    """A text with {…} parts: each value shown in it counts its cells, the text built
    its characters (a step per 64), and it stays within `text_length` as it grows (a
    list shown is measured before it is written out)."""
    limits = ctx.limits
    room = limits.text_length
    out = []
    for part in parts:
        if type(part) is not str:
            value = known(ctx, part(ctx))
            if type(value) is not str and type(value) is not int:
                size = cells(value, limits.value_size)
                ctx.count(size, span)
                if size > room:  # at least one character per cell: too long to write
                    raise too_long_text(limits, span)
            part = show(value, language)
        room -= len(part)
        if room < 0:
            raise too_long_text(limits, span)
        out.append(part)
    text = "".join(out)
    ctx.count(len(text) >> 6, span)
    return text


def compared_by(compare, left, right, span):
    """`=` or `!=`: going through a list or a record compared counts its cells."""

    same = compare is equal  # (else `!=`)

    def apply(ctx):
        a, b = left(ctx), right(ctx)
        if type(a) is int and type(b) is int:  # (the commonest: two numbers, as `equal` does)
            return a == b if same else a != b
        return _compared(ctx, compare, a, b, span)

    return apply


def compared_to(compare, left, b: int, span):
    """`=` or `!=` of a value and a whole number written in the rules (`d = 2`), as
    compared_by compares them, the number not called for."""

    same = compare is equal  # (else `!=`)

    def apply_number(ctx):
        a = left(ctx)
        if type(a) is int:
            return a == b if same else a != b
        return _compared(ctx, compare, a, b, span)

    return apply_number


def _compared(ctx, compare, a, b, span):
    """compared_by's comparison past two whole numbers."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return lift(compare, a, b)
    kind = type(a)
    if kind is tuple or kind is Record or (kind not in PLAIN_TYPES and isinstance(a, Record)):
        ctx.count(cells(a, ctx.limits.value_size), span)
    elif kind is str and len(a) > 64:
        ctx.count(len(a) >> 6, span)
    return compare(a, b)
