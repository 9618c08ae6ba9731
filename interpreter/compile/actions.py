"""Compiled actions, and the call frame every compiled definition enters."""

from __future__ import annotations

from typing import Any

from dsl import nodes as n
from dsl.messages import tr
from interpreter.bounds import bounded_record
from interpreter.compile.codegen import SWITCH, safely
from interpreter.compile.codegen.emit_steps import generated_action
from interpreter.compile.codegen.traced import generated_traced_action, generated_whole
from interpreter.compile.costs import block_cost
from interpreter.errors import LimitExceeded
from interpreter.runtime import Unknown, count_past_bound, known
from interpreter.trace import Later, call_text, later_step, made_step
from interpreter.values import Record


class CallFrame:
    """Shared by checks, opposed checks, actions and roll procedures: frames and depth."""

    names: tuple[str, ...]  # the parameters' names, in order (each subclass sets them)
    #: (`slow` sets its own: a frame generated for a traced run on its own; else none)
    whole: Any = None

    def slow(self, compiler, generate, generate_traced=None) -> None:
        """Runs through the closures until the generated function is made (`make_fast`;
        for a traced run, of its body: `make_traced`, when it has `generate_traced`)."""
        self.compiler, self.generate = compiler, generate
        self.generate_traced = generate_traced
        #: the function a traced real run runs its body with, inside the frame the
        #: closure enters (codegen): None before it is made, False where none can be
        self.traced: Any = None if generate_traced is not None else False
        self.traced_runs = 0  # traced real runs through the closures, before it is made
        #: the function a traced run calls for it run on its own (`make_whole`): None
        #: before it is made, False where none can be
        self.whole: Any = None
        #: the function an untraced real run calls (codegen): None before it is made,
        #: False where none can be; `generated`: (it, its source)
        self.fast: Any = None
        self.generated: tuple | None = None
        self.runs = 0  # untraced real runs through the closures, before `fast` is made

    def make_fast(self, now: bool = False):
        """The generated function (codegen), made once past `SWITCH.after` runs (or
        `now`); False before, and where none can be made."""
        self.runs += 1
        if self.runs <= SWITCH.after and not now:
            return False
        self.fast = False  # while it is made: a call of itself inside calls `self`
        self.generated = safely(self.generate, self.compiler, self, too_deep)
        self.fast = self.generated[0] if self.generated is not None else False
        return self.fast

    def make_traced(self, now: bool = False):
        """The generated function of its body for a traced run (`traced`), made once past
        `SWITCH.after` traced runs (or `now`); False before, and where none can be made."""
        self.traced_runs += 1
        if self.traced_runs <= SWITCH.after and not now:
            return False
        self.traced = False  # while it is made: a call of itself inside calls `self`
        made = safely(self.generate_traced, self.compiler, self, too_deep)
        self.traced = made[0] if made is not None else False
        return self.traced

    def make_whole(self):
        """The function a traced real run calls for it run on its own, at depth 0 (frame,
        body and step: `traced.generated_whole`), made once its traced body is (else
        False: its body called inside the frame `__call__` enters)."""
        if not self.traced or not SWITCH.traced_whole:
            return False
        self.whole = False  # (while it is made)
        made = safely(generated_whole, self.compiler, self, too_deep)
        self.whole = made[0] if made is not None else False
        return self.whole

    def enter(self, ctx, args: tuple, span):
        if ctx.calls >= ctx.limits.call_depth:
            raise too_deep(ctx, span)
        if ctx.roller.lifts:  # odds: arguments are values, not distributions
            args = tuple(known(ctx, a) for a in args)
        saved = ctx.env
        ctx.env = dict(zip(self.names, args))
        ctx.depth += 1
        ctx.calls += 1
        return saved

    def leave(self, ctx, saved) -> None:
        ctx.env = saved
        ctx.depth -= 1
        ctx.calls -= 1


def too_deep(ctx, span) -> LimitExceeded:
    """Past call_depth: checks, actions, formulas and rolls calling one another."""
    return LimitExceeded(
        tr(
            "more than {call_depth} calls inside one another (limit call_depth)",
            call_depth=ctx.limits.call_depth,
        ),
        span,
    )


class CompiledAction(CallFrame):
    """`action`: statements run in order against the working sheet; a result record."""

    def __init__(self, compiler, node: n.Action):
        self.node = node
        self.names = tuple(p.name for p in node.params)
        compiler.reads.append(n.field_reads(node.body))
        compiler.bodies.append(node.body)
        try:
            self.body = compiler.block(node.body)
            result = node.body[-1] if node.body and isinstance(node.body[-1], n.Result) else None
            self.result = (
                tuple((name, compiler.expr(e)) for name, e in result.fields)
                if result is not None
                else None
            )
            #: steps of its own, counted on entry: its statements and its result's expressions
            self.cost = block_cost(self.body) + (
                compiler.cost([e for _, e in result.fields]) if result is not None else 0
            )
        finally:
            compiler.reads.pop()
            compiler.bodies.pop()
        self.label = node.label or node.name
        # (codegen: `CallFrame.make_fast`, `make_traced`)
        self.slow(compiler, generated_action, generated_traced_action)

    def __call__(self, ctx, args: tuple, span) -> Record | None:
        if ctx.trace is None and not ctx.roller.lifts and SWITCH.generated:
            fast = self.fast
            if fast is None:
                fast = self.make_fast()
            if fast:
                result: Record | None = fast(ctx, args, span)
                return result
        elif ctx.depth == 0 and not ctx.roller.lifts and SWITCH.generated:  # (traced, alone)
            whole = self.whole if self.whole is not None else self.make_whole()
            if whole:
                alone: Record | None = whole(ctx, args, span)
                return alone
        if ctx.calls >= ctx.limits.call_depth or ctx.roller.lifts:
            saved = self.enter(ctx, args, span)
        else:  # `enter`, written out
            saved = ctx.env
            ctx.env = dict(zip(self.names, args))
            ctx.depth += 1
            ctx.calls += 1
        mark = len(ctx.trace) if ctx.trace is not None else 0
        try:
            counted = ctx.steps + self.cost
            ctx.steps = counted
            if counted > ctx.step_bound:
                count_past_bound(ctx, span or self.node.span)
            if ctx.trace is not None and not ctx.roller.lifts and SWITCH.generated:  # (traced)
                body = self.traced
                if body is None:
                    body = self.make_traced()
                if body:
                    made: Record | None = body(ctx)
                    return made
            for statement in self.body:
                statement.run(ctx)
            result = None
            if self.result is not None:
                fields = {}
                for name, value in self.result:
                    got = value(ctx)
                    if isinstance(got, Unknown):
                        got = ctx.roller.resolve(got)
                    fields[name] = got
                result = bounded_record(ctx, Record(fields, kind="result"), self.node.span)
            return result
        finally:
            ctx.env = saved  # `leave`, written out
            ctx.depth -= 1
            ctx.calls -= 1
            # a call's line, refused or not
            if ctx.trace is not None and ctx.depth > 0 and ctx.trace.wants_at(mark):
                trace = ctx.trace  # (`Trace.insert`, written out)
                most = trace.most
                bounded = trace.length if most is not None else None
                length = ctx.limits.shown_length
                if SWITCH.lazy_steps:  # (made when read: `Step._m`; flat: `Trace.flat`)
                    entry: Any = (self.called, args, length, ctx.depth, bounded)
                    if SWITCH.flat_steps:
                        trace.flat = True
                    else:
                        entry = later_step(entry)
                else:
                    entry = made_step(self.called(args, length, ctx.depth, bounded))
                list.insert(trace, mark, entry)
                if most is not None and len(trace) > most:
                    trace.trim()

    def called(self, args: tuple, length: int, depth: int, bounded) -> tuple:
        """The step of its call, its parts (`Step._r`): its words written when read."""
        shown = Later(call_text, self.label, tuple(zip(self.names, args)), length)
        data = {"action": self.node.name}
        return ("call", shown, None, data, depth, None, None, False, self.node.span, bounded)
