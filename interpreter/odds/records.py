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
from interpreter.odds.keys import Same
from interpreter.odds.reads import ReadMemory, WatchedValues
from interpreter.state import MISSING

#: a check's built-in fields that its margin decides (and the margin itself)
BY_MARGIN = frozenset(("margin", "success"))
#: what differs from total to total, or from target to target, besides the margin
BY_TOTAL = frozenset(("total", "target"))
#: the most margins whose records of built-in fields a check keeps, for each fields read
KEPT_MARGINS = 4096


class FieldMemory:
    """The author's fields of checks' records, by what they read."""

    def __init__(self):
        self.memory = ReadMemory()
        # what was computed without reading the sheet: the same on every sheet (the values
        # it read are in the key, and decide every branch it took)
        self.plain: dict = {}
        self.asked: set = set()  # the checks whose records were asked for once already
        self.shifts: dict = {}  # records that read the margin alone: by margin (margins)

    def again(self, check) -> FieldMemory | None:
        """This memory, for a check whose records are asked for again in this computation
        (a check against a rolled target: once for each target); None the first time,
        when nothing is there to reuse and remembering only costs."""
        if check.node.name in self.asked:
            return self
        self.asked.add(check.node.name)
        return None

    def fields(self, check, ctx, settle) -> dict:
        """The author's fields of `check`'s record in ctx.env (its built-in fields set)."""
        env = ctx.env
        values = tuple([env.get(name, MISSING) for name in check.fields_read])
        key = (check.node.name, ctx.calls, settle, values)
        plain: bool = ctx.state.cast is None
        found: dict | None = None
        try:
            if plain:
                found = self.plain.get(key)
            else:
                hash(key)
        except TypeError:  # an unhashable value: held in the key, equal only to itself
            key = (check.node.name, ctx.calls, settle, tuple(map(Same, values)))
            plain, found = False, None  # (the plain table keeps no value alive: not there)
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

    def margins(self, check, ctx, target, names) -> dict | None:
        """Of a check against a whole-number target whose records are cut to `names`, and
        read neither the total nor the target (built-in or in the author's fields): the
        records by margin, the same for every target (a check against another roll's
        total: every target gives the same margins again); filled by `shifted`. Records of
        built-in fields alone are kept with the check, for every computation. None where
        a record may depend on more than its margin and what is in the key."""
        if names is None or type(target) is not int or ctx.state.cast is not None:
            return None
        if not BY_TOTAL.isdisjoint(names) or check.compare is None:
            return None
        if check.field_names.isdisjoint(names):  # built-in fields alone: by margin alone,
            kept = check.margin_records  # in every computation
            found = kept.get(names)
            if found is None:
                found = kept[names] = {}
            return found
        # the author's fields are computed
        if not BY_TOTAL.isdisjoint(check.fields_read):
            return None
        env = ctx.env  # (what stays the same from total to total: not the margin)
        values = tuple([env.get(n, MISSING) for n in check.fields_read if n not in BY_MARGIN])
        key = (check.node.name, names, ctx.calls, values)
        try:
            found = self.shifts.get(key)
        except TypeError:  # an unhashable value read: not remembered
            return None
        if found is None:
            found = self.shifts[key] = {}
        return found

    def shifted(self, check, ctx, total: int, target: int, settle, memory, names, shifts):
        """The record for `total` against `target`, kept in `shifts` (from `margins`) by its
        margin unless computing it read the sheet (then it is this sheet's alone)."""
        if check.field_names.isdisjoint(names):  # the built-in fields alone: no sheet read
            record = check.record(ctx, total, target, settle, memory, names)
            if len(shifts) < KEPT_MARGINS:  # (kept with the check: a bounded number)
                shifts[total - target if check.upward else target - total] = record
            return record
        state = ctx.state
        values = state.values
        if type(values) is WatchedValues:  # watched already (the records remembered by
            outer, values.read = values.read, {}  # what they read): what this one reads
            try:
                record = check.record(ctx, total, target, settle, memory, names)
            finally:
                read, values.read = values.read, outer
                outer.update(read)
        else:
            watched = state.copy()
            watched.values = WatchedValues(values)
            ctx.state = watched
            try:
                record = check.record(ctx, total, target, settle, memory, names)
            finally:
                ctx.state = state
            read = watched.values.read
        if not read:
            shifts[total - target if check.upward else target - total] = record
        return record


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
