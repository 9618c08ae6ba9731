"""A traced run's generated code: an action's body and a check's record.

Each step is recorded as its closure records it (`emit_steps` writes the untraced
functions; this module the traced ones, run inside the frame the closures enter)."""

from __future__ import annotations

from typing import Any

from interpreter.compile.check_terms import term_number
from interpreter.compile.codegen.emit_steps import (
    Steps,
    TooDeep,
    compile_function,
    write_body,
    write_record,
)
from interpreter.compile.codegen.emitted import Emitted
from interpreter.values import normalize


def _begun(compiler: Any) -> Steps:
    """A traced function begun: it runs inside the frame its closure entered (`ctx.env`)."""
    steps = Steps(Emitted(), compiler, None, traced=True)
    steps.out.line("def _f1(ctx):")
    steps.out.level = 1
    steps.out.line("limits = ctx.limits")
    steps.out.line("env = ctx.env")
    return steps


def generated_traced_action(compiler: Any, action: Any) -> tuple[Any, str] | None:
    """(the function running a compiled action's body in a traced run, its source), or
    None: its statements and result, as `CompiledAction.__call__` runs them inside its
    frame (entered, counted, its call's step recorded: by the caller), each step recorded
    as its closure records it (a let's, a set's, an if's written here; a roll's, a
    lookup's, a call's and any other statement's by the closures called)."""
    steps = _begun(compiler)
    try:
        write_body(steps, action)
    except (TooDeep, RecursionError):
        return None
    return compile_function(steps.out, "_f1")


def generated_traced_check(compiler: Any, check: Any) -> tuple[Any, str] | None:
    """(the function computing a compiled check's record in a traced run, its source), or
    None: its lets, its roll term by term (`explained_sum`, which the check's step shows),
    its target and its record, as `CompiledCheck.__call__` computes them inside its frame
    (entered, counted, its step recorded: by the caller); it gives (record, the terms)."""
    steps = _begun(compiler)
    out, node = steps.out, check.node
    try:
        for statement in check.let_statements:
            steps.statement(statement)
        total, given = _explained(steps, check)
        record = out.temp()
        target = steps.value(node.target) if node.target is not None else None
        write_record(steps, check, total, target, record)
        out.line(f"return {record}, {given}")
    except (TooDeep, RecursionError):
        return None
    return compile_function(out, "_f1")


def _explained(steps: Steps, check: Any) -> tuple[str, str]:
    """`check_terms.explained_sum` of the check's terms, written out: each term's value
    (a roll, a place's value, any other value: written inline), what it gave, the total;
    the locals of the total and of what the terms gave."""
    out, k = steps.out, steps.k
    total, given = out.temp(), out.temp()
    out.line(f"{given} = []")
    out.line(f"{total} = {k(0)}")
    for (sign, kind, function, label, short), node in zip(check.terms, check.term_nodes):
        level = out.level
        if kind == "roll" or kind == "chain":
            rolled, value = out.temp(), out.temp()
            out.line(f"{rolled} = {k(function)}(ctx)")
            out.line(f"{value} = {rolled}.total")
            gave, named = rolled, k(label)
        elif kind == "ref":
            place, value = out.temp(), out.temp()
            out.line(f"{place} = {k(function)}(ctx)")
            out.line(f"if {place} is not None:")  # (an optional skill not given: no term)
            out.level += 1
            out.line(f"{value} = ctx.state.read({place})")
            gave, named = f"({place}, {value})", k(label)
        else:
            value = steps.local(steps.value(node))
            named = k(label)
            if callable(label):  # (the values it names now, written when read)
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
