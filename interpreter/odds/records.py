"""A check's own fields, computed once for the values they read, whatever the total.

A check's record for each total (interpreter.odds.roller) holds the built-in fields and
the author's (`puntos = puntos_de(margin)`). The author's fields mostly read the margin
or the success alone, and a check against a target that is itself rolled is asked for
the records of each total against each target: hundreds of thousands of records with a
few hundred margins among them. So the author's fields are remembered by the values of
the check's names they read (CompiledCheck.fields_read), the depth of calls (a formula
too deep fails), and what they read of the sheet (interpreter.odds.reads).
"""

from __future__ import annotations

from dsl import nodes as n
from interpreter.odds.reads import ReadMemory
from interpreter.runtime import MISSING


class FieldMemory:
    """The author's fields of checks' records, by what they read."""

    def __init__(self):
        self.memory = ReadMemory()
        # what was computed without reading the sheet: the same on every sheet (the values
        # it read are in the key, and decide every branch it took)
        self.plain: dict = {}
        self.asked: set = set()  # the checks whose records were asked for once already

    def again(self, check) -> FieldMemory | None:
        """This memory, for a check whose records are asked for again in this computation
        (a check against a rolled target: once for each target); None the first time,
        when nothing is there to reuse and remembering only costs."""
        if id(check) in self.asked:
            return self
        self.asked.add(id(check))
        return None

    def fields(self, check, ctx, settle) -> dict:
        """The author's fields of `check`'s record in ctx.env (its built-in fields set)."""
        env = ctx.env
        values = tuple([env.get(name, MISSING) for name in check.fields_read])
        key = (id(check), ctx.calls, settle, values)
        plain = ctx.state.cast is None
        found = None
        try:
            if plain:
                found = self.plain.get(key)
            else:
                hash(key)
        except TypeError:  # an unhashable value: by identity (kept alive with the entry)
            key = (id(check), ctx.calls, settle, tuple(map(id, values)))
            plain = found = None  # (the plain table keeps no value alive: not there)
        if found is not None:
            return found

        def compute(_cut):
            out = {}
            for name, value in check.fields:
                env[name] = out[name] = settle(ctx, value(ctx))
            return out

        read: list = []
        found = self.memory.get(key, ctx, compute, 0, (check, values), read)
        if plain and not read[0]:
            self.plain[key] = found
        return found


def direct_call(node, live, depth: int):
    """For a `let` whose value is a call (`let c = against(force)`) whose arguments call
    nothing else: (the callee's name, the fields of the value read later, `depth`), so that
    a check called there gives its records cut down to those fields at once, not every
    record made whole and cut down after (interpreter.odds.roller.check_records). None
    when the value is read whole, not at all, or a field of it in part."""
    expr = node.expr
    if not isinstance(expr, n.Call):
        return None
    if any(isinstance(item, n.Call | n.CharacterCall) for item in n.walk((expr.args, expr.named))):
        return None
    needed = live.needs.get(node.name, MISSING)
    if needed is MISSING or needed is None:
        return None
    if isinstance(needed, dict) and any(inner is not None for inner in needed.values()):
        return None
    return (expr.function, tuple(sorted(needed)), depth)
