"""A check's record and an action's result written as Python source, as the closures make them."""

from __future__ import annotations

from typing import Any

from dsl import nodes as n
from interpreter import values
from interpreter.bounds import NESTED, bounded_value
from interpreter.compile.codegen.emit_values import ORDERING
from interpreter.values import UNSET_SLOTS, Record

#: a record returned (an action's result, a called check's record) made without a call of
#: `Record.__init__`: made by `object.__new__`, its slots given as `__init__` gives them
#: (`values.UNSET_SLOTS`); False: `Record({...}, kind)` called
MADE_BARE = True


def write_record(
    steps: Any, check: Any, total: str, target: str | None, into: str | None
) -> list[tuple[str, str]]:
    """`CompiledCheck.record` for a known total (and target), written out: the built-in
    fields, then the author's, each also a name the later ones read."""
    out, k, node = steps.out, steps.k, check.node
    roll_is, target_is = check.refusals  # what a refusal calls the roll and the target
    total = steps.local(total)
    # (a whole number written as the target: nothing to test or to make a number of)
    written = isinstance(node.target, n.Literal) and type(node.target.value) is int
    if target is not None and not written:
        target = steps.local(target)
    if total != steps.settled:  # (else made a number in its sum's slow path)
        steps.made_number(total, node.roll.span, roll_is)
    steps.settled = None
    steps.env_line(f"env[{k('total')}] = {total}")
    steps.hold("total", total)
    steps.scalars.add(total)  # (a number from here on)
    fields = [("total", total)]
    if target is not None:
        if not written:
            steps.made_number(target, node.target.span, target_is)
        success, margin = out.temp(), out.temp()
        if node.comparison in ORDERING:
            out.line(f"{success} = {total} {ORDERING[node.comparison]} {target}")
        else:
            out.line(f"{success} = {k(check.compare)}({total}, {target})")
        if check.upward:
            out.line(f"{margin} = {total} - {target}")
        else:
            out.line(f"{margin} = {target} - {total}")
        steps.env_line(f"env[{k('target')}] = {target}")
        steps.env_line(f"env[{k('success')}] = {success}")
        steps.env_line(f"env[{k('margin')}] = {margin}")
        for name, value in (("target", target), ("success", success), ("margin", margin)):
            steps.hold(name, value)
        fields += [("target", target), ("success", success), ("margin", margin)]
        steps.scalars.update((target, success, margin))  # (numbers, and yes or no)
    for name, expr in node.fields:
        value = steps.value(expr)
        steps.env_line(f"env[{k(name)}] = {value}")
        steps.hold(name, value)
        fields.append((name, value))
    write_returned(steps, fields, "check", node.span, into)
    return fields


def write_returned(
    steps: Any, fields: list[tuple[str, str]], kind: str, span: Any, into: str | None = None
) -> None:
    """`return bounded_record(ctx, Record({...}, kind), span)`, written out: the record
    gone through (`bounded_value`) only when a field holds a list or a record; with
    `into`, the record left in that local instead of returned."""
    out, k = steps.out, steps.k
    record = into or out.temp()
    shown = ", ".join(f"{k(name)}: {value}" for name, value in fields)
    made = f"{k(Record)}({{{shown}}}, {k(kind)})"
    build, bounded = len(out.lines), None
    if MADE_BARE and into is None:  # (a record kept to be read is one line: `Steps.unbuilt`)
        out.line(f"{record} = {k(object.__new__)}({k(Record)})")
        out.line(f"{record}._fields = {{{shown}}}")
        out.line(f"{record}.kind = {k(kind)}")
        for slot in UNSET_SLOTS if values.SET_KEPT else UNSET_SLOTS[:2]:
            out.line(f"{record}.{slot} = None")
    else:
        out.line(f"{record} = {made}")
    held = dict(fields)  # (a name given twice: the record holds its last value)
    nested = " or ".join(
        f"type({value}) in {k(NESTED)}" for value in held.values() if value not in steps.scalars
    )
    if nested:
        out.line(f"if {nested}:")
        bounded = len(out.lines)
        out.line(f"    {record} = {k(bounded_value)}(ctx, {record}, {k(span)})")
    if into is None:
        out.line(f"return {record}")
    else:
        steps.built[record] = (build, bounded, f"{k(bounded_value)}(ctx, {made}, {k(span)})")
