"""A traced run's generated code: an action's body and a check's record.

Each step is recorded as its closure records it (`emit_steps` writes the untraced
functions; this module the traced ones, run inside the frame the closures enter); a
called check is written inline, its step put over its own as its closure does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dsl import nodes as n
from dsl.rulebook import names_a_field
from interpreter.compile.check_terms import TARGET, TermLabel, label_text, term_number
from interpreter.compile.codegen import SWITCH
from interpreter.compile.codegen.emit_steps import (
    INLINE_LINES,
    Steps,
    TooDeep,
    compile_function,
    frame,
    write_body,
    write_formula,
)
from interpreter.compile.codegen.emit_values import plain_die
from interpreter.compile.codegen.emitted import Emitted
from interpreter.compile.codegen.returned import write_record
from interpreter.compile.step_texts import (
    if_step,
    let_step,
    named_step,
    noted_step,
    omitted,
    recording,
    rolled_die,
    set_step,
    tested_step,
)
from interpreter.dice import KEPT, Die, PoolRoll
from interpreter.roll_steps import dice_parts
from interpreter.runtime import Unknown, count_past_bound, known
from interpreter.state import place_text
from interpreter.trace import Later, Trace
from interpreter.values import PLAIN_TYPES, Record, normalize


class TracedSteps(Steps):
    """Statements written for a traced run: a called check's frame, lets, terms and
    record written inline (`inline_traced_check`), as its closure runs and records them;
    the commonest steps put in the trace by the lines written here (`recorder`)."""

    #: the line (its index) where the locals steps are recorded with are read, once a
    #: step asks for them (`recorder`): a traced action's or check's function has one
    recording_line: int | None = None
    #: those locals (`step_texts.recording`'s), once read
    recording: tuple[str, ...] | None = None

    def recorder(self) -> tuple[str, ...] | None:
        """The locals a step is put in the trace with, written here (the trace, its
        `list.append`, its room, the shown length, the bounded lengths of a statement's
        and of a roll's step, the dice's origin), read at the function's start once a
        step asks; None where they are not (`SWITCH.traced_steps` off; a formula's)."""
        if self.recording_line is None or not (
            SWITCH.traced_steps and SWITCH.lazy_steps and SWITCH.flat_steps
        ):
            return None
        if self.recording is None:
            names = self.recording = tuple(self.out.temp() for _ in range(7))
            line = f"    {', '.join(names)} = {self.k(recording)}(ctx)"
            self.out.lines[self.recording_line] = line
        return self.recording

    def put(self, entry: str) -> None:
        """`entry` (a tuple's source: what makes a step, `Step._m`) put in the trace where
        it has room, else counted out (`Trace.wants`, written out)."""
        out, (trace, append, room) = self.out, self.recording[:3]  # type: ignore[index]
        out.line(f"if len({trace}) < {room}:")
        out.line(f"    {append}({entry})")
        out.line(f"    {trace}.flat = {self.k(True)}")  # (again: read in between, it is not)
        out.line("else:")
        out.line(f"    {self.k(omitted)}({trace})")

    def step_written(self, step: Callable[..., Any], *parts: Any) -> bool:
        # `step_texts.let_step`, `set_step`, `if_step`, written out
        names = self.recorder()
        if names is None:
            return False
        out, k, level = self.out, self.k, self.out.level
        length, bounded = names[3], names[4]
        if step is if_step:
            span, decided = parts
            self.put(f"({k(tested_step)}, {k(span)}, {decided}, ctx.depth, {bounded})")
            return True
        name, text, span, value = parts
        if step is let_step and value not in self.scalars:  # (a record has its own step)
            plain, record = k(PLAIN_TYPES), k(Record)
            out.line(
                f"if type({value}) is not {record} and (type({value}) in {plain}"
                f" or not {k(isinstance)}({value}, {record})):"
            )
            out.level += 1
        kind, verbose = ("set", k(True)) if step is set_step else ("let", k(False))
        self.put(
            f"({k(named_step)}, {k(kind)}, {k(name)}, {k(text)}, {value}, {length}, "
            f"ctx.depth, {verbose}, {k(span)}, {bounded})"
        )
        out.level = level
        return True

    def statement(self, statement: Any) -> None:
        node = statement.node
        if type(node) is not n.Note or not SWITCH.traced_notes or self.recorder() is None:
            super().statement(statement)
            return
        # a note's step put here (`step_texts.note_step`, written out): no closure called,
        # and every local known still (a note writes none)
        out, k, names = self.out, self.k, self.recording
        noted = self.value(node.text)
        if noted not in self.scalars:  # (a literal's value: as it is)
            value, noted = noted, out.temp()
            out.line(f"{noted} = {value}")
            out.line(f"if {k(isinstance)}({noted}, {k(Unknown)}):")  # (`known`)
            out.line(f"    {noted} = {k(known)}(ctx, {noted})")
        length, trace_length = names[3], names[4]  # type: ignore[index]
        self.put(f"({k(noted_step)}, {noted}, {length}, ctx.depth, {k(node.span)}, {trace_length})")

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
        names = self.recorder()
        if names is None:
            label = k(node.span.text)
            out.line(f"{rolled} = {k(rolled_die)}(ctx, {face}, {label}, {k(node.span)})")
        else:  # (`rolled_die`, written out)
            faces = f"[[{face}, {k(KEPT)}, {k(False)}]]"
            out.line(f"{rolled} = {k(PoolRoll)}({k(node.span.text)}, {faces}, {face})")
            out.line("if not ctx.quiet:")
            out.level += 1
            _, _, _, length, _, bounded, origin = names
            self.put(
                f"({k(dice_parts)}, {rolled}, {k(node.span)}, ctx.depth, {origin}, "
                f"{length}, {bounded})"
            )
            out.level -= 1
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
        names = steps.recorder()
        if names is None:
            steps.out.line(f"{steps.k(check.step_at)}(ctx, {mark}, {given}, {record})")
        else:
            _step_put(steps, check, names, mark, given, record)
        return fields

    return steps.inline_check(check, values, span, body)


def _step_put(steps: TracedSteps, check: Any, names: tuple, mark: str, given: str, record: str):
    """`CompiledCheck.step_at`, written out: the check's step put over its own steps (from
    `mark`), one level above them, where the trace has room (the last step kept goes)."""
    out, k = steps.out, steps.k
    trace, _, room, length, bounded = names[:5]
    out.line(f"if {mark} < {room}:")
    entry = f"({k(check.checked)}, {given}, {record}, {length}, ctx.depth - {k(1)}, {bounded})"
    out.line(f"    {k(list.insert)}({trace}, {mark}, {entry})")
    out.line(f"    {trace}.flat = {k(True)}")
    out.line(f"    if len({trace}) > {room}:")
    out.line(f"        {k(Trace.trim)}({trace})")
    out.line("else:")
    out.line(f"    {k(omitted)}({trace})")


def _begun(compiler: Any, too_deep: Any = None) -> TracedSteps:
    """A traced function begun: it runs inside the frame its closure entered (`ctx.env`);
    the line reading what its steps are recorded with kept for them (`recorder`)."""
    steps = TracedSteps(Emitted(), compiler, too_deep, traced=True)
    steps.out.line("def _f1(ctx):")
    steps.out.level = 1
    steps.out.line("limits = ctx.limits")
    steps.out.line("env = ctx.env")
    steps.recording_line = len(steps.out.lines)
    steps.out.line("pass")  # (until a step asks: `recorder`)
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


def generated_whole(compiler: Any, definition: Any, too_deep: Any) -> tuple[Any, str] | None:
    """(the function a traced run calls for an action or a check run on its own, at depth
    0, its source), or None: `CompiledAction.__call__`'s or `CompiledCheck.__call__`'s
    traced path written out with its body (`SWITCH.traced_whole`): its frame entered,
    its steps counted, its body's steps recorded as `generated_traced_action`'s or
    `generated_traced_check`'s are, a check's own step put over them."""
    steps = TracedSteps(Emitted(), compiler, too_deep, traced=True)
    out, k = steps.out, steps.k
    out.line("def _f1(ctx, args, span):")
    out.level = 1
    out.line("limits = ctx.limits")
    steps.recording_line = len(out.lines)
    out.line("pass")  # (until a step asks: `recorder`)
    out.line("if ctx.calls >= limits.call_depth:")
    out.line(f"    raise {k(too_deep)}(ctx, span)")
    frame(steps, definition.names)  # (`CallFrame.enter`, written out)
    out.line(f"ctx.depth += {k(1)}")
    out.line(f"ctx.calls += {k(1)}")
    mark = out.temp()  # (where its own steps begin: a check's step goes there)
    if hasattr(definition, "terms"):  # (an action's: never read)
        out.line(f"{mark} = len(ctx.trace)")
    out.line("try:")
    out.level = 2
    out.line(f"ctx.steps = {k(definition.cost)} + ctx.steps")
    out.line("if ctx.steps > ctx.step_bound:")
    out.line(f"    {k(count_past_bound)}(ctx, span or {k(definition.node.span)})")
    try:
        if hasattr(definition, "terms"):  # (a check: its record, then its step)
            record = out.temp()
            given = _traced_check_body(steps, definition, record)[1]
            names = steps.recorder()
            if names is None:
                out.line(f"{k(definition.step_at)}(ctx, {mark}, {given}, {record})")
            else:
                _step_put(steps, definition, names, mark, given, record)
            out.line(f"return {record}")
        else:
            write_body(steps, definition)
    except (TooDeep, RecursionError):
        return None
    out.level = 1
    out.line("finally:")
    out.line("    ctx.env = saved")
    out.line(f"    ctx.depth -= {k(1)}")
    out.line(f"    ctx.calls -= {k(1)}")
    return compile_function(out, "_f1")


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
    total, given = _explained(steps, check.terms, check.term_nodes)
    target: str | None = None
    if check.target_terms:  # (a target of several terms: each shown, after the roll's)
        target, shown = _explained(steps, check.target_terms, check.target_nodes)
        steps.out.line(f"{given}.append({steps.k(TARGET)})")
        steps.out.line(f"{given}.extend({shown})")
    elif node.target is not None:
        target = steps.value(node.target)
    return write_record(steps, check, total, target, record), given


def _explained(steps: TracedSteps, terms: tuple, nodes: tuple) -> tuple[str, str]:
    """`check_terms.explained_sum` of a check's terms (its roll's, its target's), written
    out: each term's value (a roll, a place's value, any other value: written inline),
    what it gave, the sum; the locals of the sum and of what the terms gave."""
    out, k = steps.out, steps.k
    total, given = out.temp(), out.temp()
    out.line(f"{given} = []")
    out.line(f"{total} = {k(0)}")
    for (sign, kind, function, label, short), node in zip(terms, nodes):
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
    if steps.recorder() is not None:  # (its values, written when read: `written_label`)
        written = f"({k(label.text)}, {k(label.holes)}, {''.join(f'{v}, ' for v in values)})"
    else:
        holes = f"{k(label.holes)}, [{', '.join(values)}]"
        written = f"{k(Later)}({k(label_text)}, {k(label.text)}, {holes})"
    out.line(f"{named} = {written}")
    return named
