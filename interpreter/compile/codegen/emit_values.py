"""Expressions written as Python source: the hot constructs inline, the rest as closures.

`Values(out, compiler).value(node)` writes the lines computing an expression's value in
a real run into `out` (interpreter.compile.codegen.emitted) and gives the local name (or
constant) holding it. Inline: literals, local names, sheet fields, `+ - *` and
comparisons of whole numbers, `and`/`or`, `if … then … else`, `=`/`!=`, a record's
field, calls of checks, formulas and actions, one plain die, table lookups. Anything
else, and any value off the fast path, goes through what the closures use: the node's own
closure (`compiler.expr`) called as a constant, or the same helpers
(interpreter.compile.codegen.slow_paths). Steps are counted where the closures count
them: the caller counts an expression's `cost` at once, and the parts evaluated only
sometimes (a branch taken, the right side of `and`) count here when they are.

Generated code runs only in a real run (no value unknown: the odds engine uses the
closures), so nothing here lifts over distributions. Written for a traced run
(`traced`), whatever records a step (a roll, a lookup, a call) is its closure's call,
but for the steps the traced code puts in the trace itself (`traced.TracedSteps.put`).
"""

from __future__ import annotations

import math
from typing import Any

from dsl import nodes as n
from dsl.rulebook import names_a_field
from interpreter.bounds import too_long
from interpreter.compile.arithmetic import (
    COMPARISONS,
    arith,
    equal,
    field_of,
    minmax,
    unequal,
)
from interpreter.compile.codegen import SWITCH
from interpreter.compile.codegen.emitted import Emitted
from interpreter.compile.codegen.lookups import write_index
from interpreter.compile.codegen.slow_paths import (
    added,
    compared,
    negated,
    not_yes_or_no,
    ordered,
    rounded,
)
from interpreter.compile.tables import Pending
from interpreter.dice import Die, SeededDice
from interpreter.runtime import Run, as_bool, count_past_bound
from interpreter.state import MISSING
from interpreter.values import PLAIN_TYPES, Record

#: the Python operator each whole-number operation is written with (the generator's own
#: fixed text, chosen by the node's operator: never the rulebook's text itself)
ARITHMETIC = {"+": "+", "-": "-", "*": "*"}
ORDERING = {">=": ">=", "<=": "<=", ">": ">", "<": "<"}
#: `=` and `!=` of two whole numbers (no `!` in generated source: `emitted.FORBIDDEN`)
EQUALITY = {"=": "{a} == {b}", "!=": "not {a} == {b}"}
#: `floor(a / b)` and `ceil(a / b)` of whole numbers written inline: each function, and
#: the same of whole numbers (b > 0) without the Fraction made
DIVIDED = {"floor": (math.floor, "{a} // {b}"), "ceil": (math.ceil, "-(-{a} // {b})")}
#: the built-in functions of several values written inline, by name
LEAST_OR_GREATEST = {"max": max, "min": min}


class Values:
    """Writes expressions into one function's source (see the module)."""

    def __init__(self, out: Emitted, compiler: Any):
        self.out = out
        self.compiler = compiler
        self.k = out.constant
        #: names (locals, constants) whose value is known to hold no other value (a
        #: number, a text, yes/no, none: never a list or a record, `bounds.NESTED`)
        self.scalars: set[str] = set()
        #: local names whose value is in a generated local (or constant) now, besides
        #: `env`: written by a `let`, a `set` or a check's field, forgotten wherever code
        #: not written here may write `env` or a block may not have run (`Steps`)
        self.known: dict[str, str] = {}
        #: generated locals never assigned to again: those `known` ever held, and the
        #: fields of a check's record written inline (`records`)
        self.fixed: set[str] = set()
        #: a check's record written inline (its local) → its fields' locals
        self.records: dict[str, dict[str, str]] = {}
        #: the names written since the block being written began (None: any name may
        #: have been, by a statement left to its closure)
        self.written: set[str] | None = set()
        #: constants called with `ctx` that read no local name of the caller's (`env`):
        #: a definition entering its own frame, a table's lookup, one plain die's roll
        self.env_free: set[str] = set()
        #: written for a traced run (`traced.generated_traced_action`): what records
        #: a step (a roll, a lookup, a call) through its closure, which records it
        self.traced = False

    # ─── the parts every construct uses ─────────────────────────────────────

    def closure(self, function: Any) -> str:
        """A closure of the compiler called for its value: `_v = _k(ctx)`."""
        target = self.out.temp()
        self.out.line(f"{target} = {self.k(function)}(ctx)")
        return target

    def count(self, steps: int, span: Any, always: bool = False) -> None:
        """`steps` counted now (`costs.charged`: a part evaluated only sometimes); with
        `always`, the bound looked at even for none (`statements.run_block`)."""
        if steps:
            self.out.line(f"ctx.steps = {self.k(steps)} + ctx.steps")
        if steps or always:
            self.out.line("if ctx.steps > ctx.step_bound:")
            self.out.line(f"    {self.k(count_past_bound)}(ctx, {self.k(span)})")

    def condition(self, node: Any, span: Any) -> str:
        """A condition's value, yes or no (`runtime.as_bool`)."""
        value = self.local(self.value(node))
        self.out.line(f"if {value} is not True and {value} is not False:")
        self.out.line(f"    {value} = {self.k(as_bool)}(ctx, {value}, {self.k(span)})")
        return value

    def hold(self, name: str, value: str) -> None:
        """`env[name]` was just given `value`: the name read from it until forgotten."""
        self.known[name] = value
        self.fixed.add(value)
        if self.written is not None:
            self.written.add(name)

    def local(self, value: str) -> str:
        """A value in a local of its own, which may be assigned to (a constant never is)."""
        if value.startswith("_v") and value not in self.fixed:
            return value
        local = self.out.temp()
        self.out.line(f"{local} = {value}")
        return local

    def value(self, node: Any) -> str:
        """The lines computing the node's value; the name holding it."""
        compiler = self.compiler
        if compiler.symbol_sums and id(node) in compiler.symbol_sums:
            return self.closure(compiler.expr(node))
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            made = handler(self, node)
            if made is not None:
                return made
        return self.closure(compiler.expr(node))

    # ─── by node class (None: the node's own closure) ───────────────────────

    def literal(self, node: n.Literal) -> str:
        name = self.k(node.value)
        if type(node.value) in PLAIN_TYPES:
            self.scalars.add(name)
        return name

    def name(self, node: n.Name) -> str | None:
        binding = self.compiler.bindings[id(node)]
        kind, name = binding.kind, binding.name
        target = self.out.temp()
        if kind == "local" and self.compiler.type_of(node).kind != "ref":
            held = self.known.get(name)
            if held is not None:  # (the local it was written from, unchanged since)
                return held
            self.out.line(f"{target} = env[{self.k(name)}]")
            return target
        if kind == "local":  # a value naming a field: the field's value (`read_named`)
            out, k = self.out, self.k
            place = self.known.get(name)
            if place is None:
                place = out.temp()
                out.line(f"{place} = env[{k(name)}]")
            out.line("try:")  # (a field's name found; any other place, or none: `read`)
            out.line(f"    {target} = ctx.state.values.get({place}, {k(MISSING)})")
            out.line("except TypeError:")
            out.line(f"    {target} = {k(MISSING)}")
            out.line(f"if {target} is {k(MISSING)}:")
            out.line(f"    {target} = ctx.state.read({place})")
            return target
        if kind == "field":
            if isinstance(binding.node, n.Stat) and binding.node.kind == "skill":
                self.out.line(f"{target} = ctx.state.read({self.k(name)})")
            else:
                self.out.line(f"{target} = ctx.state.values[{self.k(name)}]")
            return target
        return None

    def binary(self, node: n.Binary) -> str | None:
        op = node.op
        if op in ("and", "or"):
            return self.logical(node)
        if op in ("=", "!="):
            return self.equality(node)
        if op in ORDERING:
            return self.ordering(node)
        if op in ARITHMETIC:
            return self.arithmetic(node)
        return None

    def whole(self, node: Any, name: str) -> str | None:
        """The test that a value is a whole number (None: it is one, a literal)."""
        if isinstance(node, n.Literal) and type(node.value) is int:
            return None
        return f"type({name}) is int"

    def both_whole(self, left: Any, a: str, right: Any, b: str) -> str:
        tests = [test for test in (self.whole(left, a), self.whole(right, b)) if test]
        return " and ".join(tests) if tests else "True"

    def arithmetic(self, node: n.Binary) -> str:
        return self.operation(node, self.value(node.left), self.value(node.right))

    def operation(self, node: n.Binary, a: str, b: str) -> str:
        """A `+ - *` of two values: of whole numbers inline (its bound tested), else its
        slow path (`lean_frames.QuietConstants.operation`: written leaner)."""
        out, k, target = self.out, self.k, self.out.temp()
        compute = arith(node.op, node.left.span, node.right.span, node.op_span)
        span = k(node.op_span)
        out.line(f"if {self.both_whole(node.left, a, node.right, b)}:")
        out.line(f"    {target} = {a} {ARITHMETIC[node.op]} {b}")
        out.line(f"    if abs({target}) >= limits.number_bound:")
        out.line(f"        raise {k(too_long)}(limits, {span})")
        out.line("else:")
        if node.op == "+":
            out.line(f"    {target} = {k(added)}(ctx, {a}, {b}, {k(compute)}, {span})")
        else:
            out.line(f"    {target} = {k(compute)}({a}, {b}, limits)")
        return target

    def either(self, target: str, test: str, fast: str, slow: str) -> str:
        """`target` given `fast` where `test` holds (plain values: nothing to check), else
        `slow` (the closures' own function, which checks and words what is wrong)."""
        out = self.out
        out.line(f"if {test}:")
        out.line(f"    {target} = {fast}")
        out.line("else:")
        out.line(f"    {target} = {slow}")
        return target

    def ordering(self, node: n.Binary) -> str:
        a, b = self.value(node.left), self.value(node.right)
        k, target = self.k, self.out.temp()
        return self.either(
            target,
            self.both_whole(node.left, a, node.right, b),
            f"{a} {ORDERING[node.op]} {b}",
            f"{k(ordered)}({k(COMPARISONS[node.op])}, {k(node.op)}, {a}, {b}, "
            f"{k(node.left.span)}, {k(node.right.span)})",
        )

    def equality(self, node: n.Binary) -> str:
        compiler = self.compiler
        sides = []
        for this, other in ((node.left, node.right), (node.right, node.left)):
            if (
                compiler.type_of(this).kind == "ref"
                and compiler.type_of(other).kind in ("text", "none")
                and names_a_field(this, compiler.bindings)
            ):  # by the name of the field it names (`Expressions.compared`)
                sides.append(self.closure(compiler.ref(this)))
            else:
                sides.append(self.value(this))
        compare = equal if node.op == "=" else unequal
        target = self.out.temp()
        a, b = sides
        return self.either(
            target,
            f"type({a}) is int and type({b}) is int",  # (nothing to count)
            EQUALITY[node.op].format(a=a, b=b),
            f"{self.k(compared)}(ctx, {self.k(compare)}, {a}, {b}, {self.k(node.op_span)})",
        )

    def logical(self, node: n.Binary) -> str:
        out = self.out
        left = self.condition(node.left, node.left.span)
        target = out.temp()
        out.line(f"{target} = {left}")
        out.line(f"if {'' if node.op == 'and' else 'not '}{left}:")
        out.level += 1
        self.count(self.compiler.cost(node.right), node.right.span)
        right = self.condition(node.right, node.right.span)
        out.line(f"{target} = {right}")
        out.level -= 1
        return target

    def if_expression(self, node: n.IfExpr) -> str:
        out = self.out
        decided = self.condition(node.condition, node.condition.span)
        target = out.temp()
        for test, part in ((f"if {decided}:", node.then), ("else:", node.otherwise)):
            out.line(test)
            out.level += 1
            self.count(self.compiler.cost(part), part.span)
            out.line(f"{target} = {self.value(part)}")
            out.level -= 1
        return target

    def unary(self, node: n.Unary) -> str | None:
        value = self.value(node.operand)
        target, k = self.out.temp(), self.k
        if node.op == "not":
            return self.either(
                target,
                f"{value} is True or {value} is False",
                f"not {value}",
                f"{k(not_yes_or_no)}({value}, {k(node.operand.span)})",
            )
        return self.either(
            target,
            f"type({value}) is int",
            f"-{value}",
            f"{k(negated)}({value}, {k(node.operand.span)})",
        )

    def field(self, node: n.Field) -> str | None:
        compiler = self.compiler
        binding = compiler.bindings.get(id(node))
        subject = node.subject
        subject_binding = compiler.bindings.get(id(subject))
        if (
            binding is not None
            or compiler.type_of(subject).kind == "roll"
            or compiler.type_of(node).kind == "ref"
            or isinstance(subject, n.Index)  # (only the field read of the row: its closure)
        ):
            return None
        out, k = self.out, self.k
        if not (
            isinstance(subject, n.Name)
            and subject_binding is not None
            and subject_binding.kind == "local"
        ):  # any other record: its field, as `Expressions.ex_field` reads it
            record = self.value(subject)
            written = self.records.get(record)
            if written is not None and node.name in written:  # (a check's, written inline)
                return written[node.name]
            return self.either(
                out.temp(),
                f"type({record}) is {k(Record)}",
                f"{record}._fields.get({k(node.name)})",
                f"{k(field_of)}({record}, {k(node.name)}, {k(node.span)})",
            )
        held = self.known.get(subject.name)
        if held is None:
            held = out.temp()
            out.line(f"{held} = env[{k(subject.name)}]")
        record, written = held, self.records.get(held)
        if written is not None and node.name in written:  # (a check's, written inline)
            value = written[node.name]
            if value in self.scalars:
                return value
            target = out.temp()  # (a row's field with dice: rolled when first read)
            out.line(f"{target} = {value}")
            out.line(f"if type({target}) is {k(Pending)}:")
            out.line(f"    {target} = {target}.force(ctx)")
            return target
        target = out.temp()
        out.line(f"if type({record}) is {k(Record)}:")
        out.line(f"    {target} = {record}._fields.get({k(node.name)})")
        out.line(f"    if type({target}) is {k(Pending)}:")
        out.line(f"        {target} = {target}.force(ctx)")
        out.line("else:")
        out.line(f"    {target} = {k(field_of)}({record}, {k(node.name)}, {k(node.span)})")
        return target

    def arguments(self, node: n.Call, params: Any) -> str:
        """A call's arguments as a tuple (`Expressions.arguments`, written inline)."""
        return "(" + "".join(f"{name}, " for name in self.argument_list(node, params)) + ")"

    def argument_list(self, node: n.Call, params: Any) -> list[str]:
        """Each argument's value (or place), in the order of the parameters."""
        compiler = self.compiler
        given = dict(zip((p.name for p in params), node.args))
        given.update(dict(node.named))
        names = []
        for param in params:
            arg = given.get(param.name)
            if arg is None:
                arg = param.default
            if compiler.param_type(param).kind == "ref":
                names.append(self.place(arg))
            else:
                names.append(self.value(arg))
        return names

    def place(self, node: Any) -> str:
        """The place a ref-typed argument names (`Compiler.ref`): a field's name or a
        local's value written inline, any other through its closure."""
        binding = self.compiler.bindings.get(id(node))
        if isinstance(node, n.Name) and binding is not None:
            if binding.kind == "field":
                return self.k(binding.name)
            if binding.kind != "group":
                held = self.known.get(node.name)
                if held is not None:
                    return held
                target = self.out.temp()
                self.out.line(f"{target} = env[{self.k(node.name)}]")
                return target
        return self.closure(self.compiler.ref(node))

    def call(self, node: n.Call) -> str | None:
        compiler = self.compiler
        binding = compiler.bindings[id(node)]
        kind = binding.kind
        if (
            kind == "builtin"
            and node.function in LEAST_OR_GREATEST
            and len(node.args) > 1
            and not node.named
        ):
            return self.least_or_greatest(node)
        if (
            kind == "builtin"
            and node.function in DIVIDED
            and len(node.args) == 1
            and not node.named
            and isinstance(node.args[0], n.Binary)
            and node.args[0].op == "/"
        ):
            return self.divided(node, node.args[0])
        if kind not in ("formula", "check", "opposed", "action"):
            return None
        called = compiler.callable_of(binding)
        if self.traced:  # the closure, its steps recorded; a formula recording none, its own
            fast = kind == "formula" and records_nothing(compiler, binding.name)
            made = compiler.generated_formula(binding.name) if fast else None
            if kind == "formula" and not fast and SWITCH.traced_formulas:  # (its traced one)
                made = compiler.generated_traced_formula(binding.name)
            called = made[0] if made else called
        elif kind == "formula":  # its generated function, called straight from here
            fast = compiler.generated_formula(binding.name)
            called = fast[0] if fast else called
        elif kind in ("check", "action"):  # theirs too (made now, unless being made)
            made = called.fast if called.fast is not None else called.make_fast(now=True)
            called = made or called
        values = self.arguments(node, binding.node.params)
        target = self.out.temp()
        self.out.line(f"{target} = {self.k(called)}(ctx, {values}, {self.k(node.span)})")
        self.env_free.add(self.k(called))
        return target

    def divided(self, node: n.Call, division: n.Binary) -> str:
        """`floor(a / b)`, `ceil(a / b)`: of two whole numbers (b > 0) whose quotient the
        closures would neither refuse (its numerator and denominator within the limits)
        nor leave a fraction, by floor division; else as the closures compute it (the
        division, then the rounding), from the same two values."""
        a, b = self.value(division.left), self.value(division.right)
        k, target = self.k, self.out.temp()
        function, whole = DIVIDED[node.function]
        compute = arith("/", division.left.span, division.right.span, division.op_span)
        whole_numbers = self.both_whole(division.left, a, division.right, b)
        return self.either(
            target,
            f"{whole_numbers} and {k(0)} < {b} < limits.denominator_bound "
            f"and abs({a}) < limits.number_bound",
            whole.format(a=a, b=b),
            f"{k(rounded)}({k(function)}, {k(compute)}({a}, {b}, limits), "
            f"{k(node.span)}, {k(node.function)})",
        )

    def least_or_greatest(self, node: n.Call) -> str:
        """`max(a, b, ...)`, `min(...)` of several values (`builtin_functions`): each
        value in order, then `minmax` (a real run: no value unknown)."""
        values = [self.value(arg) for arg in node.args]
        target, k = self.out.temp(), self.k
        function = LEAST_OR_GREATEST[node.function]
        listed = "[" + ", ".join(values) + "]"
        wholes = " and ".join(f"type({value}) is int" for value in values)
        return self.either(
            target,
            wholes,
            f"{k(function)}({', '.join(values)})",
            f"{k(minmax)}({k(function)}, {listed}, {k(node.span)}, {k(node.function)})",
        )

    def dice(self, node: n.Dice) -> str:
        roll = self.compiler.dice(node)
        out, k, target = self.out, self.k, self.out.temp()
        single = plain_die(node)
        if single and not self.traced:  # one plain die: its face alone, as `ex_dice` rolls it
            # (traced: `traced.TracedSteps.dice`)
            die = Die.of(node.sides)
            out.line("if ctx.capture is None:")
            out.level += 1
            self.face(die, node.span, target)
            out.level -= 1
            out.line("else:")
            out.line(f"    {target} = {k(roll)}(ctx).total")
            self.env_free.add(k(roll))  # (no count, sides nor modifier read)
        else:
            out.line(f"{target} = {k(roll)}(ctx).total")
        return target

    def face(self, die: Die, span: Any, target: str) -> None:
        """One plain die's face (`Rolling.face`): from seeded dice, drawn straight from
        the generator as `SeededDice.draw` draws it, within the same limits, and noted
        among the dice drawn; from any other source or roller, by `face` itself."""
        out, k = self.out, self.k
        size, bits = k(die.size), k(die.bits)
        out.line("roller = ctx.roller")
        out.line("source = roller.source")
        out.line("drawn = roller.drawn")
        out.line(
            f"if type(roller) is {k(Run)} and type(source) is {k(SeededDice)} "
            f"and len(drawn) < limits.dice_per_evaluation and {size} <= limits.faces_per_die:"
        )
        out.line(f"    {target} = source.random_bits({bits})")
        out.line(f"    while {target} >= {size}:")
        out.line(f"        {target} = source.random_bits({bits})")
        out.line(f"    {target} = {k(die.low)} + {target}")
        out.line(f"    drawn.append({target})")
        out.line("else:")
        out.line(f"    {target} = roller.face({k(die)}, {k(span)})")

    def index(self, node: n.Index) -> str | None:
        return write_index(self, node)

    def recorder(self) -> tuple[str, ...] | None:
        """The locals steps are put in the trace with (`TracedSteps.recorder`): none."""
        return None


def plain_die(node: n.Dice) -> bool:
    """Whether a dice term is one plain die (`d20`, `1d6`): no modifier, a number of
    faces, one die."""
    count = node.count
    return (
        not node.modifiers
        and isinstance(node.sides, int)
        and (count is None or (isinstance(count, n.Literal) and count.value == 1))
    )


#: what a formula that records no step may be made of (a call: of a built-in function or
#: of such a formula): nothing generated code writes otherwise than its closure records it
#: (a die, a lookup, a check's or an action's call)
QUIET = (n.Literal, n.Text, n.Name, n.Field, n.Unary, n.Binary, n.IfExpr, n.ListLiteral)


def records_nothing(compiler: Any, name: str, outer: frozenset = frozenset()) -> bool:
    """Whether a formula's call records no step in a traced run (so its generated
    function, which records none, may run it there): its body of QUIET nodes and calls
    of built-in functions and of such formulas (remembered by the compiler)."""

    def build() -> bool:
        for item in n.walk(compiler.book.formulas[name].body):
            if isinstance(item, n.Call):
                binding = compiler.bindings.get(id(item))
                kind = binding.kind if binding is not None else None
                inside = outer | {name}
                if kind == "formula" and binding.name not in inside:
                    kind = "builtin" if records_nothing(compiler, binding.name, inside) else None
                if kind != "builtin":
                    return False
            elif type(item) not in QUIET:
                return False
        return True

    return bool(compiler.memo(("formula records nothing", name), build))


_HANDLERS: dict[type, Any] = {
    n.Literal: Values.literal,
    n.Name: Values.name,
    n.Binary: Values.binary,
    n.IfExpr: Values.if_expression,
    n.Unary: Values.unary,
    n.Field: Values.field,
    n.Call: lambda values, node: values.call(node),  # (`Steps.call`: a check inline)
    n.Dice: lambda values, node: values.dice(node),  # (`TracedSteps.dice`: one die drawn)
    n.Index: lambda values, node: values.index(node),  # (`Steps.index`: quiet lookups)
}
