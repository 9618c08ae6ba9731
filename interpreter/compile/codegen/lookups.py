"""A table's lookup written as Python source: a remembered row read, its step put."""

from __future__ import annotations

from typing import Any

from dsl import nodes as n
from interpreter.compile.codegen import SWITCH
from interpreter.compile.tables import looked_up, lookup_step, text_keyed
from interpreter.state import MISSING

#: a lookup of a table of plain constants (`RememberedRows.plain`) holds no other value:
#: nothing tested of it (a list or record to bound, a field to roll); False: tested
PLAIN_ROWS = True


def write_index(values: Any, node: n.Index) -> str | None:
    """`Values.index`: a table's lookup (None: not a table's, its closure instead), its
    keys' values, then the lookup's closure; a one-key table's row of constants read
    where it was remembered by a whole number (traced: its step recorded as the lookup
    records it, `lookup_step`, or put in the trace here: `put_lookup_step`). The local
    holding the row."""
    compiler = values.compiler
    binding = compiler.bindings.get(id(node))
    if binding is None or binding.kind != "table":
        return None
    texts = text_keyed(binding.node)
    keys = []
    for i, key in enumerate(node.keys):
        if texts[min(i, len(texts) - 1)]:
            keys.append(values.closure(compiler.naming(key)))
        else:
            keys.append(values.value(key))
    target, out, k = values.out.temp(), values.out, values.k
    lookup = compiler.table(binding.name)
    if PLAIN_ROWS and compiler.remembered_rows(binding.name).plain():
        values.scalars.add(target)  # (never a list, a record nor a row's field rolled later)
    given = "(" + "".join(f"{key}, " for key in keys) + ")"
    values.env_free.add(k(lookup))  # (a row's cells read the keys, by their own names)
    remembering = not values.traced or SWITCH.traced_lookups
    if not remembering or len(keys) != 1 or len(binding.node.keys) > 1:
        out.line(f"{target} = {k(lookup)}(ctx, {given}, {k(node.span)})")
        return target
    # one key: a whole number's row of constants read where it was remembered (traced:
    # its step recorded as the lookup records it)
    rows, key = compiler.remembered_rows(binding.name), keys[0]
    out.line(f"if type({key}) is int:")
    out.line(f"    {target} = {k(rows.values)}.get({key}, {k(MISSING)})")
    out.line(f"    if {target} is {k(MISSING)}:")
    remembered = k(rows.remembered)  # (a bound method: one constant)
    remember = f"{remembered}({k(lookup)}, ctx, {key}, {k(node.span)})"
    values.env_free.add(remembered)
    out.line(f"        {target} = {remember}")
    if values.traced:
        out.line("    else:")
        out.level += 2
        put_lookup_step(values, binding.node.name, key, target, node.span)
        out.level -= 2
    out.line("else:")
    out.line(f"    {target} = {k(lookup)}(ctx, {given}, {k(node.span)})")
    return target


def put_lookup_step(values: Any, title: str, key: str, row: str, span: Any) -> None:
    """A remembered row's lookup step, of a traced run: `lookup_step` called, or (where
    the function's steps are put in the trace by its own lines, `TracedSteps.recorder`,
    and `SWITCH.traced_lookup_steps`) written out, put in the trace as what makes it."""
    k, names = values.k, values.recorder() if SWITCH.traced_lookup_steps else None
    if names is None:
        values.out.line(f"{k(lookup_step)}(ctx, {k(title)}, ({key}, ), {row}, {k(span)})")
        return
    length, bounded = names[3], names[4]
    values.put(
        f"({k(looked_up)}, {k(title)}, ({key}, ), {row}, {length}, ctx.depth, {k(span)}, {bounded})"
    )
