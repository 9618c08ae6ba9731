"""Statements, actions and checks written as Python source, compiled once each.

`generated_action` and `generated_check` give the function a compiled action or check
runs in a real, untraced run (else None: the closures run it): the same work as its
`__call__` (interpreter.compile.actions, checks), with its statements written out by
`Steps` (let, local set, if, require, repeat, for each, note; any other statement is its
compiled `Statement.run`, called as a constant) and its expressions by `Values`
(interpreter.compile.codegen.emit_values). Steps are counted as the closures count
them: a block's own steps on entry, each condition when it is tested, each pass.
`generated_traced_action` and `generated_traced_check` give those of a traced real run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dsl import nodes as n
from interpreter.bounds import bounded_value
from interpreter.compile.codegen.emitted import WORD, Emitted, UnsafeSource
from interpreter.compile.codegen.lean_frames import QuietConstants, lean_check, lean_own
from interpreter.compile.codegen.returned import write_record, write_returned
from interpreter.compile.codegen.slow_paths import added, compared
from interpreter.compile.costs import block_cost
from interpreter.compile.step_texts import if_step, let_step, set_step
from interpreter.compiled import Binding, Branches, Loop, Repeat, Statement
from interpreter.errors import RequirementFailed
from interpreter.runtime import as_bool, count_past_bound

#: the deepest blocks are nested in generated source (deeper: the closures run it)
DEEPEST = 40
#: lines a function's source may have before a check is written into it (past them, and
#: for a check inside itself, the check's own generated function is called)
INLINE_LINES = 1500


#: what the generator's own helpers called with `ctx` read of it: never `env`
ENV_FREE_HELPERS = (count_past_bound, as_bool, added, compared, bounded_value)
#: `ctx` given to a call, and the constants called on a line
CTX_GIVEN = re.compile(r"[(,] ?ctx[,)]")
CALLED = re.compile(r"(?<![\w.])([\w.]+)\(")  # (a name starts where no name goes on: linear)
#: a line writing one local name into `env` (and reading nothing of it)
ENV_WRITE = re.compile(r"env\[_k[0-9]+\] = [\w.]+\Z")


class TooDeep(Exception):
    """Blocks nested deeper than DEEPEST: left to the closures."""


class Steps(QuietConstants):
    """Writes statements (and their blocks) into one function's source."""

    def __init__(
        self,
        out: Emitted,
        compiler: Any,
        too_deep: Any = None,
        traced: bool = False,
        keep_env: bool = True,
    ):
        super().__init__(out, compiler)
        self.traced = traced
        #: False: the lines that only keep `env` up to date not written (`_without_env`)
        self.keep_env = keep_env
        #: what a call past `call_depth` raises (actions.too_deep): checks are written
        #: inline only when it is given
        self.too_deep = too_deep
        self.inlined: list[Any] = []  # the checks being written inline, innermost last
        #: the lines that only keep `env` (and `ctx.env`) up to date, by index: left out
        #: where nothing the function calls, nor the function itself, reads a local name
        #: there (`reads_env`, `_without_env`)
        self.env_lines: set[int] = set()
        #: a check's record written inline (its local) → the line building it, the line
        #: going through it (`bounded_value`, or None) and that line without it (`unbuilt`)
        self.built: dict[str, tuple[int, int | None, str]] = {}
        #: constants called that never enter a definition (a plain die's roll, a lookup
        #: of a table of plain constants): what a lean frame may call (`lean_frames`)
        self.quiet: set[str] = set()
        #: where the function's own frame raises `ctx.calls` (`lean_frames.lean_own`)
        self.own_entry: int | None = None
        self.merged: list[str] = []  # (`lean_frames.lean_check`)

    def env_line(self, text: str) -> None:
        """A line that only keeps `env` (and `ctx.env`) up to date (see `env_lines`)."""
        if self.keep_env:
            self.env_lines.add(len(self.out.lines))
            self.out.line(text)

    def unbuilt(self, lines: list[str | None]) -> list[str]:
        """The lines (None: a line left out) with the records of checks written inline
        that nothing reads as a whole (every field read is its local's: `Values.field`)
        left unbuilt; one gone through `bounded_value` is built only where it holds a
        list or a record, for it."""
        lines = list(lines)
        for record, (build, bounded, instead) in self.built.items():
            own = {build, bounded}
            word = re.compile(rf"\b{record}\b")
            if any(word.search(line or "") for i, line in enumerate(lines) if i not in own):
                continue
            if bounded is not None:
                text = lines[bounded] or ""
                lines[bounded] = text[: len(text) - len(text.lstrip())] + instead
            lines[build] = None
        return [line for line in lines if line is not None]

    def reads_env(self) -> bool:
        """Whether the function written reads a local name from `env`, or calls with
        `ctx` something that may (a closure: anything not known `env_free`)."""
        namespace = self.out.namespace
        safe = {id(helper) for helper in (*ENV_FREE_HELPERS, self.too_deep)}
        for line in self.out.lines:
            text = line.strip()
            if "env[" in text and not ENV_WRITE.match(text):
                return True
            if text.startswith("def ") or not CTX_GIVEN.search(text):
                continue
            for called in CALLED.findall(text):
                if called in self.env_free or called.endswith(".force"):  # (Pending's own)
                    continue
                if id(namespace.get(called)) not in safe:
                    return True
        return False

    def call(self, node: n.Call) -> str | None:
        """A call; of a check whose own function is made, its body written inline (as
        that function does it: the frame entered, its steps, its record), else called."""
        compiler, out = self.compiler, self.out
        binding = compiler.bindings[id(node)]
        inline = binding.kind == "check" and self.too_deep is not None and not self.traced
        if not inline or len(out.lines) > INLINE_LINES:
            return super().call(node)
        check = compiler.callable_of(binding)
        made = check.fast if check.fast is not None else check.make_fast(now=True)
        if not made or check in self.inlined:
            return super().call(node)
        values = self.argument_list(node, binding.node.params)
        lines, level, known, written = len(out.lines), out.level, self.known, self.written
        self.inlined.append(check)
        try:
            return self.inline_check(check, values, node.span)
        except TooDeep:  # nested too deep written here: its function called instead
            del out.lines[lines:]
            self.built = {r: at for r, at in self.built.items() if at[0] < lines}
            self.env_lines = {at for at in self.env_lines if at < lines}
            out.level, self.known, self.written = level, known, written
            self.last_sum = self.last_count = None
            target = out.temp()
            arguments = "(" + "".join(f"{value}, " for value in values) + ")"
            out.line(f"{target} = {self.k(made)}(ctx, {arguments}, {self.k(node.span)})")
            self.env_free.add(self.k(made))  # (its own frame)
            return target
        finally:
            self.inlined.pop()

    def inline_check(
        self, check: Any, values: list[str], span: Any, body: Callable[..., Any] | None = None
    ) -> str:
        """A called check's frame written here, its arguments the values given, as
        `generated_check`'s function enters it (in a traced run, `CompiledCheck.__call__`:
        one level deeper, its steps under its own): `call_depth`, its own names, restored
        whatever happens; its steps counted; then `body(record, mark)` writes its
        statements and record (by default `_check_body`) and gives the record's fields.
        The record's local."""
        out, k, traced = self.out, self.k, self.traced
        saved = out.temp()
        mark = out.temp() if traced else ""  # (where the check's own steps begin)
        first, depth_at = self.last_count, len(out.lines)  # (`lean_frames.lean_check`)
        out.line("if ctx.calls >= limits.call_depth:")
        out.line(f"    raise {k(self.too_deep)}(ctx, {k(span)})")
        self.env_line(f"{saved} = env")
        pairs = ", ".join(f"{k(name)}: {value}" for name, value in zip(check.names, values))
        self.env_line(f"ctx.env = env = {{{pairs}}}")
        if traced:
            out.line(f"ctx.depth += {k(1)}")
        out.line(f"ctx.calls += {k(1)}")
        if traced:
            out.line(f"{mark} = len(ctx.trace)")
        out.line("try:")
        out.level += 1
        if out.level > DEEPEST:
            raise TooDeep
        outside = (self.known, self.written)
        self.known, self.written = {}, set()
        for name, value in zip(check.names, values):
            self.hold(name, value)
        where = span if span is not None else check.node.span
        count_at = len(out.lines)
        out.line(f"ctx.steps = {k(check.cost)} + ctx.steps")
        out.line("if ctx.steps > ctx.step_bound:")
        out.line(f"    {k(count_past_bound)}(ctx, {k(where)})")
        record = out.temp()
        if body is None:
            fields = _check_body(self, check, record)
        else:
            fields = body(record, mark)
        self.known, self.written = outside  # (the check wrote only its own names)
        every = dict(fields)  # (a name given twice: the record holds its last value)
        self.fixed.update(every.values())
        self.fixed.add(record)
        self.records[record] = every
        out.level -= 1
        if lean_check(self, (depth_at, count_at), first, check, span, where):
            return record  # (its frame written lean: no `finally`)
        out.line("finally:")
        self.env_line(f"    ctx.env = env = {saved}")
        if traced:
            out.line(f"    ctx.depth -= {k(1)}")
        out.line(f"    ctx.calls -= {k(1)}")
        return record

    def block(self, body: tuple[Statement, ...], steps: int, span: Any) -> None:
        """`statements.run_block`: the block's steps counted, then its statements."""
        if self.out.level > DEEPEST:
            raise TooDeep
        self.count(steps, span, always=True)
        for statement in body:
            self.statement(statement)

    def statement(self, statement: Statement) -> None:
        node, shape, compiler = statement.node, statement.shape, self.compiler
        kind = type(node)
        out, k = self.out, self.k
        if (
            kind in (n.Let, n.Set)
            and type(shape) is Binding
            and shape.local == (kind is n.Set)
            and not compiler.is_pool(node.expr)
            and not (kind is n.Set and compiler.type_of(node.place).kind == "roll")
        ):
            if kind is n.Set or self.plain_let(node):
                value = self.value(node.expr)
            else:  # the value as the statement made it (a place, a table's row by field)
                value = self.closure(shape.value)
            self.env_line(f"env[{k(shape.name)}] = {value}")
            self.hold(shape.name, value)
            if self.traced:  # its step, as its closure records it (a literal's: none)
                step = set_step if kind is n.Set else let_step
                parts = (shape.name, node.expr.span.text, node.span, value)
                literal = kind is n.Let and isinstance(node.expr, n.Literal)
                if not literal and not self.step_written(step, *parts):
                    source = (k(shape.name), k(node.expr.span.text), k(node.span), value)
                    out.line(f"{k(step)}(ctx, {', '.join(source)})")
        elif kind is n.If and type(shape) is Branches:
            self.branches(node, shape)
        elif kind is n.Require:
            passed = self.condition(node.condition, node.condition.span)
            out.line(f"if not {passed}:")
            out.level += 1
            message = self.value(node.message)
            out.line(f"raise {k(RequirementFailed)}({k(str)}({message}), {k(node.span)})")
            out.level -= 1
        elif kind is n.Repeat and type(shape) is Repeat:
            span = node.count.span
            per_pass = 1 + block_cost(shape.body)
            if node.until is not None:
                per_pass += compiler.cost(node.until)
            out.line(f"for {out.temp()} in range({k(shape.times)}(ctx)):")
            out.level += 1
            self.count(per_pass, span)
            out.line(f"if {k(shape.done)}(ctx):")
            out.line("    break")
            before = self.entered()
            self.known = {}  # (a pass after one that may have written them)
            self.block(shape.body, 0, span)
            self.left(before)
            out.level -= 1
        elif kind is n.ForEach and type(shape) is Loop:
            item = out.temp()
            out.line(f"for {item} in {k(shape.items)}(ctx):")
            out.level += 1
            self.env_line(f"env[{k(shape.var)}] = {item}")
            before = self.entered()
            self.known = {}
            self.hold(shape.var, item)
            self.block(shape.body, 1 + block_cost(shape.body), node.items.span)
            self.left(before)
            out.level -= 1
        elif kind is n.Note and not self.traced:  # untraced: its text computed (counted)
            self.value(node.text)
        else:
            out.line(f"{k(statement.run)}(ctx)")
            self.known, self.written = {}, None  # (it may write any local name)

    def step_written(self, step: Callable[..., Any], *parts: Any) -> bool:  # noqa: ARG002 (a traced run's: `traced.TracedSteps`)
        """Whether a step (`step_texts.let_step`'s, `set_step`'s or `if_step`'s, given
        `parts` as it is) is recorded by lines written here, else by calling `step`."""
        return False

    def entered(self) -> tuple[dict[str, str], set[str] | None]:
        """A block that may not run (or may run again) begun: what was known, and
        written, before it."""
        before = (self.known, self.written)
        self.written = set()
        return before

    def left(self, before: tuple[dict[str, str], set[str] | None]) -> None:
        """Such a block (or the branches of an `if`) ended: the names known before it
        and written in none of it known again."""
        known, written = before
        inside = self.written
        if inside is None:  # (a statement left to its closure: any name)
            self.known, self.written = {}, None
            return
        self.known = {name: value for name, value in known.items() if name not in inside}
        self.written = None if written is None else written | inside

    def plain_let(self, node: n.Let) -> bool:
        """Whether a `let`'s value is its expression's (`Statements.st_let`): not a place,
        not a table's row read field by field, not a pool (its own statement)."""
        compiler = self.compiler
        declared = compiler.types.get(id(node))
        if declared is not None and declared.kind == "ref":
            return False
        expr = node.expr
        binding = compiler.bindings.get(id(expr))
        return not (isinstance(expr, n.Index) and binding is not None and binding.kind == "table")

    def branches(self, node: n.If, shape: Branches) -> None:
        """`Statements.st_if`: each condition counted when tested, the branch taken run."""
        out, compiler = self.out, self.compiler
        opened, before = 0, self.entered()
        for branch, (condition, _) in zip(shape.branches, node.branches):
            self.known = dict(before[0])
            self.count(compiler.cost(condition), branch.span)
            decided = self.condition(condition, branch.span)
            if self.traced and not self.step_written(if_step, branch.span, decided):
                out.line(f"{self.k(if_step)}(ctx, {self.k(branch.span)}, {decided})")
            out.line(f"if {decided}:")
            out.level += 1
            self.block(branch.body, block_cost(branch.body), node.span)
            out.level -= 1
            out.line("else:")
            out.level += 1
            opened += 1
            if out.level > DEEPEST:
                raise TooDeep
        self.known = dict(before[0])
        self.block(shape.otherwise, block_cost(shape.otherwise), node.span)
        self.left(before)
        out.level -= opened


def _entered(steps: Steps, function: str, names: tuple[str, ...], too_deep: Any) -> None:
    """A definition's call frame entered (`actions.CallFrame.enter`, written out)."""
    out, k = steps.out, steps.k
    out.line(f"def {function}(ctx, args, span):")
    out.level = 1
    out.line("limits = ctx.limits")
    out.line("if ctx.calls >= limits.call_depth:")
    out.line(f"    raise {k(too_deep)}(ctx, span)")
    frame(steps, names)
    # (`ctx.depth` is how deep the trace indents: an untraced run leaves it alone)
    steps.own_entry = len(out.lines)
    out.line(f"ctx.calls += {k(1)}")
    out.line("try:")
    out.level = 2


def frame(steps: Steps, names: tuple[str, ...]) -> None:
    """`ctx.env = env = dict(zip(names, args))`: the parameters in locals of their own
    (unpacked when there are as many arguments as names: the common case), and, where
    `env` is kept, by name in it (the caller's saved)."""
    out, k = steps.out, steps.k
    steps.env_line("saved = ctx.env")
    if not names:
        steps.env_line("ctx.env = env = {}")
        return
    locals_ = [out.temp() for _ in names]
    unpacked = ", ".join(locals_) + ","
    out.line("try:")  # (as many: nothing to test before, the unpacking tests it)
    out.line(f"    {unpacked} = args")
    out.line("except ValueError:")
    out.line(f"    {unpacked} = {k(by_name)}(args, {k(names)})")
    each = ", ".join(f"{k(name)}: {value}" for name, value in zip(names, locals_))
    steps.env_line(f"ctx.env = env = {{{each}}}")
    for name, value in zip(names, locals_):
        steps.hold(name, value)


def by_name(args: tuple[Any, ...], names: tuple[str, ...]) -> tuple[Any, ...]:
    """The arguments as the closures' frame has them (`dict(zip(names, args))`), one for
    each name, where there are not as many as names (a name without one: KeyError)."""
    env = dict(zip(names, args))
    return tuple(env[name] for name in names)


def _left(steps: Steps) -> None:
    """The call frame left (`CallFrame.leave`), whatever happened (written lean where it
    can be: `lean_frames.lean_own`)."""
    out = steps.out
    one = out.constant(1)
    out.level = 1
    if lean_own(steps, steps.own_entry):
        return
    out.line("finally:")
    steps.env_line("    ctx.env = saved")
    out.line(f"    ctx.calls -= {one}")


def _counted_on_entry(steps: Steps, cost: int, node_span: Any) -> None:
    out, k = steps.out, steps.k
    steps.counted(len(out.lines), cost, f"span or {k(node_span)}")
    out.line(f"ctx.steps = {k(cost)} + ctx.steps")
    out.line("if ctx.steps > ctx.step_bound:")
    out.line(f"    {k(count_past_bound)}(ctx, span or {k(node_span)})")


def compile_function(out: Emitted, function: str) -> tuple[Any, str] | None:
    """The function compiled, or None where Python refuses it (nested too deep)."""
    try:
        return out.function(function)
    except UnsafeSource:
        raise
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None


def _without_env(write: Any, *args: Any) -> tuple[Any, str] | None:
    """The function `write(steps, *args)` writes, compiled: without its `env` lines where
    nothing reads a local name there (`Steps.reads_env`) and no word of it is `env` then
    (else, or where Python refuses it so, with them); None where it cannot be generated."""
    compiler, too_deep = args[:2]
    steps = Steps(Emitted(), compiler, too_deep)
    if not write(steps, *args):
        return None
    if not steps.reads_env():  # (written again without them, its frames then lean)
        lean = Steps(Emitted(), compiler, too_deep, keep_env=False)
        if write(lean, *args):
            lean.out.lines = lean.unbuilt(list(lean.out.lines))
            if "env" not in WORD.findall(lean.out.source()):
                made = compile_function(lean.out, "_f1")
                if made is not None:
                    return made
    steps.out.lines = steps.unbuilt(list(steps.out.lines))
    return compile_function(steps.out, "_f1")


def generated_action(compiler: Any, action: Any, too_deep: Any) -> tuple[Any, str] | None:
    """(the function running a compiled action untraced, its source), or None."""
    return _without_env(write_action, compiler, too_deep, action)


def generated_check(compiler: Any, check: Any, too_deep: Any) -> tuple[Any, str] | None:
    """(the function running a compiled check untraced, its source), or None."""
    return _without_env(_check, compiler, too_deep, check)


def write_action(steps: Steps, compiler: Any, too_deep: Any, action: Any) -> bool:  # noqa: ARG001 (written by `_without_env`)
    """An action's function written into `steps` (False: it cannot be)."""
    try:
        _entered(steps, "_f1", action.names, too_deep)
        _counted_on_entry(steps, action.cost, action.node.span)
        write_body(steps, action)
        _left(steps)
    except (TooDeep, RecursionError):
        return False
    return True


def write_body(steps: Steps, action: Any) -> None:
    """An action's statements and what it returns (None, or its result record)."""
    for statement in action.body:
        steps.statement(statement)
    if action.result is None:
        steps.out.line("return None")
    else:
        node = action.node.body[-1]
        pairs = [(name, steps.value(expr)) for name, expr in node.fields]
        write_returned(steps, pairs, "result", action.node.span)


def _check(steps: Steps, compiler: Any, too_deep: Any, check: Any) -> bool:  # noqa: ARG001 (written by `_without_env`)
    """A check's function written into `steps` (False: it cannot be)."""
    try:
        _entered(steps, "_f1", check.names, too_deep)
        _counted_on_entry(steps, check.cost, check.node.span)
        _check_body(steps, check, None)
        _left(steps)
    except (TooDeep, RecursionError):
        return False
    return True


def _check_body(steps: Steps, check: Any, into: str | None) -> list[tuple[str, str]]:
    """A check's statements, roll, target and record, returned (or, inline, `into`);
    the record's fields' locals."""
    node = check.node
    for statement in check.let_statements:
        steps.statement(statement)
    steps.settle(check)
    total = steps.value(node.roll)
    steps.settling = None
    target = steps.value(node.target) if node.target is not None else None
    return write_record(steps, check, total, target, into)


def generated_formula(
    compiler: Any, formula: n.Formula, cost: int, too_deep: Any
) -> tuple[Any, str] | None:
    """(the function a formula's untraced real call runs, its source), or None: the
    compiled formula's `call` (interpreter.compile.compiler), written out."""
    return _without_env(write_formula, compiler, too_deep, formula, cost)


def write_formula(
    steps: Steps,
    compiler: Any,  # noqa: ARG001 (as `_without_env` calls every writer)
    too_deep: Any,
    formula: n.Formula,
    cost: int,
) -> bool:
    """A formula's function written into `steps` (False: it cannot be)."""
    out, k = steps.out, steps.k
    names = tuple(p.name for p in formula.params)
    try:
        out.line("def _f1(ctx, args, span=None):")
        out.level = 1
        out.line("limits = ctx.limits")
        out.line(f"ctx.steps = {k(cost)} + ctx.steps")
        out.line("if ctx.steps > ctx.step_bound:")
        out.line(f"    {k(count_past_bound)}(ctx, span or {k(formula.span)})")
        out.line("if ctx.calls >= limits.call_depth:")
        out.line(f"    raise {k(too_deep)}(ctx, span)")
        frame(steps, names)
        steps.own_entry = len(out.lines)
        out.line(f"ctx.calls += {k(1)}")
        out.line("try:")
        out.level = 2
        out.line(f"return {steps.value(formula.body)}")
        _left(steps)
    except (TooDeep, RecursionError):
        return False
    return True
