"""A traced run's generated code: an action's body and a check's record.

Each step is recorded as its closure records it (`emit_steps` writes the untraced
functions; this module the traced ones, run inside the frame the closures enter); a
called check is written inline, its step put over its own as its closure does."""

from __future__ import annotations

from typing import Any

from dsl import nodes as n
from dsl.rulebook import names_a_field
from interpreter.compile.check_terms import TermLabel, label_text, term_number
from interpreter.compile.codegen import SWITCH
from interpreter.compile.codegen.emit_steps import (
    INLINE_LINES,
    Steps,
    TooDeep,
    compile_function,
    write_body,
    write_formula,
    write_record,
)
from interpreter.compile.codegen.emit_values import plain_die
from interpreter.compile.codegen.emitted import Emitted
from interpreter.compile.step_texts import rolled_die
from interpreter.dice import Die
from interpreter.state import place_text
from interpreter.trace import Later
from interpreter.values import normalize


class TracedSteps(Steps):
    """Statements written for a traced run: a called check's frame, lets, terms and
    record written inline (`inline_traced_check`), as its closure runs and records them."""

    def call(self, node: n.Call) -> str | None:
        compiler, out = self.compiler, self.out
        binding = compiler.bindings[id(node)]
        if (
            binding.kind != "check"
            or self.too_deep is None
            or not SWITCH.traced_inline
            or len(out.lines) > INLINE_LINES
        ):
            return super().call(node)  # (its closure: `Values.call`, traced)
        check = compiler.callable_of(binding)
        made = check.traced if check.traced is not None else check.make_traced(now=True)
        if not made or check in self.inlined:
            return super().call(node)
        values = self.argument_list(node, binding.node.params)
        lines, level, known, written = len(out.lines), out.level, self.known, self.written
        self.inlined.append(check)
        try:
            return inline_traced_check(self, check, values, node.span)
        except TooDeep:  # nested too deep written here: its closure called instead
            del out.lines[lines:]
            self.built = {r: at for r, at in self.built.items() if at[0] < lines}
            self.env_lines = {at for at in self.env_lines if at < lines}
            out.level, self.known, self.written = level, known, written
            target = out.temp()
            arguments = "(" + "".join(f"{value}, " for value in values) + ")"
            out.line(f"{target} = {self.k(check)}(ctx, {arguments}, {self.k(node.span)})")
            return target
        finally:
            self.inlined.pop()

    def dice(self, node: n.Dice) -> str:
        if not (plain_die(node) and SWITCH.traced_dice):
            return super().dice(node)  # (its closure: its roll and step)
        target = self.out.temp()
        self.out.line(f"{target} = {self.traced_die(node)}.total")
        return target

    def traced_die(self, node: n.Dice) -> str:
        """One plain die (`plain_die`): its face drawn as an untraced run draws it
        (`Values.face`), its roll and step made as its closure makes them
        (`step_texts.rolled_die`); captured (`roll … then`), by its closure. The local
        of its roll (a PoolRoll)."""
        out, k, rolled, face = self.out, self.k, self.out.temp(), self.out.temp()
        out.line("if ctx.capture is None:")
        out.level += 1
        self.face(Die.of(node.sides), node.span, face)
        out.line(f"{rolled} = {k(rolled_die)}(ctx, {face}, {k(node.span.text)}, {k(node.span)})")
        out.level -= 1
        out.line("else:")
        out.line(f"    {rolled} = {k(self.compiler.dice(node))}(ctx)")
        return rolled


def inline_traced_check(steps: TracedSteps, check: Any, values: list[str], span: Any) -> str:
    """`CompiledCheck.__call__` of a traced real run written here (`Steps.inline_check`'s
    frame, one level deeper): its lets, its roll term by term, its target and record,
    and its step put over the steps it recorded (`CompiledCheck.step_at`). The record's
    local."""

    def body(record: str, mark: str) -> list[tuple[str, str]]:
        fields, given = _traced_check_body(steps, check, record)
        steps.out.line(f"{steps.k(check.step_at)}(ctx, {mark}, {given}, {record})")
        return fields

    return steps.inline_check(check, values, span, body)


def _begun(compiler: Any, too_deep: Any = None) -> TracedSteps:
    """A traced function begun: it runs inside the frame its closure entered (`ctx.env`)."""
    steps = TracedSteps(Emitted(), compiler, too_deep, traced=True)
    steps.out.line("def _f1(ctx):")
    steps.out.level = 1
    steps.out.line("limits = ctx.limits")
    steps.out.line("env = ctx.env")
    return steps


def generated_traced_action(
    compiler: Any, action: Any, too_deep: Any = None
) -> tuple[Any, str] | None:
    """(the function running a compiled action's body in a traced run, its source), or
    None: its statements and result, as `CompiledAction.__call__` runs them inside its
    frame (entered, counted, its call's step recorded: by the caller), each step recorded
    as its closure records it (a let's, a set's, an if's written here; a roll's, a
    lookup's, a call's and any other statement's by the closures called)."""
    steps = _begun(compiler, too_deep)
    try:
        write_body(steps, action)
    except (TooDeep, RecursionError):
        return None
    return compile_function(steps.out, "_f1")


def generated_traced_formula(
    compiler: Any, formula: n.Formula, cost: int, too_deep: Any
) -> tuple[Any, str] | None:
    """(the function a formula's traced real call runs, its source), or None: the compiled
    formula's `call` (its frame, its steps, its body), written out as `generated_formula`
    writes it, its steps recorded as its closures record them."""
    steps = TracedSteps(Emitted(), compiler, too_deep, traced=True)
    if not write_formula(steps, compiler, too_deep, formula, cost):
        return None
    return compile_function(steps.out, "_f1")


def generated_traced_check(
    compiler: Any, check: Any, too_deep: Any = None
) -> tuple[Any, str] | None:
    """(the function computing a compiled check's record in a traced run, its source), or
    None: its lets, its roll term by term (`explained_sum`, which the check's step shows),
    its target and its record, as `CompiledCheck.__call__` computes them inside its frame
    (entered, counted, its step recorded: by the caller); it gives (record, the terms)."""
    steps = _begun(compiler, too_deep)
    out = steps.out
    try:
        record = out.temp()
        given = _traced_check_body(steps, check, record)[1]
        out.line(f"return {record}, {given}")
    except (TooDeep, RecursionError):
        return None
    return compile_function(out, "_f1")


def _traced_check_body(steps: TracedSteps, check: Any, record: str) -> tuple[list, str]:
    """A check's lets, its roll term by term, its target and its record (into `record`):
    the record's fields' locals, and the local of what its terms gave."""
    node = check.node
    for statement in check.let_statements:
        steps.statement(statement)
    total, given = _explained(steps, check)
    target = steps.value(node.target) if node.target is not None else None
    return write_record(steps, check, total, target, record), given


def _explained(steps: TracedSteps, check: Any) -> tuple[str, str]:
    """`check_terms.explained_sum` of the check's terms, written out: each term's value
    (a roll, a place's value, any other value: written inline), what it gave, the total;
    the locals of the total and of what the terms gave."""
    out, k = steps.out, steps.k
    total, given = out.temp(), out.temp()
    out.line(f"{given} = []")
    out.line(f"{total} = {k(0)}")
    for (sign, kind, function, label, short), node in zip(check.terms, check.term_nodes):
        level = out.level
        if kind == "roll" and type(node) is n.Dice and plain_die(node) and SWITCH.traced_dice:
            rolled, value = steps.traced_die(node), out.temp()  # (one plain die: drawn here)
            out.line(f"{value} = {rolled}.total")
            gave, named = rolled, k(label)
        elif kind == "roll" or kind == "chain":
            rolled, value = out.temp(), out.temp()
            out.line(f"{rolled} = {k(function)}(ctx)")
            out.line(f"{value} = {rolled}.total")
            gave, named = rolled, k(label)
        elif kind == "ref":
            value = out.temp()
            if SWITCH.traced_places:  # (a field's name, a local's value: read here)
                place = steps.place(node)
            else:
                place = out.temp()
                out.line(f"{place} = {k(function)}(ctx)")
            out.line(f"if {place} is not None:")  # (an optional skill not given: no term)
            out.level += 1
            out.line(f"{value} = ctx.state.read({place})")
            gave, named = f"({place}, {value})", k(label)
        else:
            value = steps.local(steps.value(node))
            named = k(label)
            if type(label) is TermLabel and SWITCH.traced_labels:
                named = _label_written(steps, label)
            elif callable(label):  # (the values it names now, written when read)
                named = out.temp()
                out.line(f"{named} = {k(label)}(ctx)")
            gave = value
        out.line(f"{given}.append(({k(sign)}, {k(kind)}, {named}, {k(short)}, {gave}))")
        out.line(f"if type({value}) is not int:")
        out.line(f"    {value} = {k(term_number)}({value}, {named})")
        out.line(f"{total} = {total} {'+' if sign > 0 else '-'} {value}")
        out.line(f"if type({total}) is not int:")
        out.line(f"    {total} = {k(normalize)}({total})")
        out.level = level
    return total, given


def _label_written(steps: TracedSteps, label: TermLabel) -> str:
    """`TermLabel.__call__` written out: each hole's value (a field a name names: its
    place's text, the place read here; any other: its closure's), and the label a
    `Later` of them (written when read). Its local."""
    out, k, compiler = steps.out, steps.k, steps.compiler
    values = []
    for _, _, naming, item in label.holes:
        value = out.temp()
        values.append(value)
        if (
            type(item) is n.Name
            and compiler.type_of(item).kind == "ref"
            and names_a_field(item, compiler.bindings)
        ):  # (`Compiler.naming`: the place's text)
            place = steps.place(item)
            out.line(f"if type({place}) is {k(str)} or {place} is None:")
            out.line(f"    {value} = {place}")
            out.line("else:")
            out.line(f"    {value} = {k(place_text)}({place})")
        else:
            out.line(f"{value} = {k(naming)}(ctx)")
    named = out.temp()
    written = (
        f"{k(Later)}({k(label_text)}, {k(label.text)}, {k(label.holes)}, [{', '.join(values)}])"
    )
    out.line(f"{named} = {written}")
    return named
