"""Compiling statements: let, set, spend/gain/lose, require, if, match, loops, add, note, do."""

from __future__ import annotations

from math import ceil, floor

import attrs

from dsl import nodes as n
from dsl.messages import tr
from dsl.rulebook import names_a_field
from interpreter.bounds import bounded_list, bounded_value, cells, check_length
from interpreter.compile.arithmetic import as_whole, equal
from interpreter.compile.costs import block_cost
from interpreter.compile.host import CompilerHost
from interpreter.compile.step_texts import (
    change_text,
    entry_text,
    if_step,
    item_text,
    let_step,
    match_text,
    note_step,
    set_step,
    set_text,
)
from interpreter.compiled import ActionCall, Binding, Branch, Branches, Called, Loop, Repeat
from interpreter.errors import (
    EvaluationError,
    InsufficientResource,
    LimitExceeded,
    RequirementFailed,
    SheetError,
)
from interpreter.runtime import Unknown, as_bool, count_past_bound, known
from interpreter.sheets.validation import entry_value
from interpreter.state import place_path, place_text, sheet_of, to_write
from interpreter.trace import Later
from interpreter.values import PLAIN_TYPES, Range, Record, is_number

AMOUNT = {
    "spend": tr("the amount to spend"),
    "gain": tr("the amount to gain"),
    "lose": tr("the amount to lose"),
}
NEGATIVE = {
    "spend": tr("cannot spend a negative amount ({amount})"),
    "gain": tr("cannot gain a negative amount ({amount})"),
    "lose": tr("cannot lose a negative amount ({amount})"),
}


def _kind(binding) -> str | None:
    """A binding's kind; None for what has none (a list's item, `r.dice[3]`)."""
    return None if binding is None else binding.kind


class Statements(CompilerHost):
    """The statement handlers of the Compiler, one per node class."""

    def block(self, statements) -> tuple:
        return tuple(self.statement(s) for s in statements if not isinstance(s, n.Result))

    def st_let(self, node: n.Let):
        name = node.name
        span = node.span
        if self.is_pool(node.expr):
            return self.let_pool(node)
        declared = self.types.get(id(node))
        # Of a record bound here, the fields the rest of the callable reads: when the odds
        # engine must branch on a record, it branches on those alone; a table row computes
        # only those of its fields that roll dice.
        read = self.reads[-1].get(name, None) if self.reads else None
        keep = tuple(sorted(read)) if read else None
        if declared is not None and declared.kind == "ref":
            value = self.ref(node.expr)
        elif isinstance(node.expr, n.Index) and _kind(self.binding_of(node.expr)) == "table":
            unread = bool(self.reads) and name not in self.reads[-1]
            wanted = frozenset() if unread else (frozenset(read) if read is not None else None)
            # read only field by field: its cells with dice rolled when (if) first read
            value = self.ex_index(node.expr, wanted, lazy=wanted is not None)
        else:
            value = self.expr(node.expr)
        quiet = isinstance(node.expr, n.Literal)
        source = node.expr.span.text
        once = self.once_forms.get(id(node))  # (a check's pool read once: the odds' to keep)

        def let(ctx):
            result = value(ctx)
            if isinstance(result, Unknown):  # odds: one value per branch, of what is read
                result = ctx.roller.bind(ctx, name, result, keep, once)
            ctx.env[name] = result
            # In the rules' words: the author's name for the value; the expression behind
            # it is the detail (--verbose). Both written when read. (A record has its own
            # step already: a check's, a table row's.)
            if ctx.trace is not None and not quiet:
                let_step(ctx, name, source, span, result)

        # for the odds engine (interpreter.odds.explore): an action called, a value unread
        split = self.split_of(node) if declared is None or declared.kind != "ref" else None
        pure = self.changes_nothing(node.expr)
        call = value if type(value) is ActionCall else None
        return self.shaped(node, let, Binding(name, value, pure, False, split, call))

    def split_of(self, node: n.Let | n.Set) -> Branches | None:
        """`let x = if c then A else B` (or `set x to` it) where A or B is an action called:
        the same as `if c { let x = A } else { let x = B }`, given in the shape of a
        compiled `if` (Branches) so that the odds engine splits the worlds on c and steps
        through the action as through `let x = action(...)`. `run` never runs it: the
        statement evaluates its if expression itself. None otherwise."""
        expr = node.expr
        if not isinstance(expr, n.IfExpr) or not self.calls_an_action(expr):
            return None

        def branch(part) -> tuple:
            return (self.statement(attrs.evolve(node, expr=part)),)

        condition = expr.condition
        first = Branch(self.expr(condition), branch(expr.then), condition.span)
        return Branches((first,), branch(expr.otherwise), False)

    def calls_an_action(self, expr: n.IfExpr) -> bool:
        """Whether a branch of an if expression (or of one nested in a branch) is an action
        called, and none gives a pool (a pool's let keeps its dice: not split)."""
        leaves, found = [expr.then, expr.otherwise], False
        while leaves:
            leaf = leaves.pop()
            if isinstance(leaf, n.IfExpr):
                leaves += [leaf.then, leaf.otherwise]
            elif self.is_pool(leaf):
                return False
            elif isinstance(leaf, n.Call):
                binding = self.bindings.get(id(leaf))
                found = found or (binding is not None and binding.kind == "action")
        return found

    def st_set(self, node: n.Set):
        value = self.expr(node.expr)
        if (
            isinstance(node.place, n.Name)
            and self.bindings[id(node.place)].kind == "local"
            and self.type_of(node.place).kind != "ref"  # else: the field the name names
        ):
            name = node.place.name
            if self.type_of(node.place).kind == "roll":
                return self.set_pool(node)  # the new roll, with its dice

            source, span = node.expr.span.text, node.span

            def set_local(ctx):
                ctx.env[name] = new = known(ctx, value(ctx))
                if ctx.trace is not None:  # (its words written when read)
                    set_step(ctx, name, source, span, new)

            # for the odds engine (interpreter.odds.explore)
            pure, split = self.changes_nothing(node.expr), self.split_of(node)
            call = value if type(value) is ActionCall else None
            return self.shaped(node, set_local, Binding(name, value, pure, True, split, call))
        return self.set_field(node, value)

    def set_field(self, node: n.Set, value):
        """`set` of a field on the sheet (or the one a parameter names), within its bounds."""
        span = node.span
        place = self.written(node.place)
        bounds = self.place_bounds()

        def set_field(ctx):
            where = place(ctx)
            new = known(ctx, value(ctx))
            if is_number(new):
                new = as_whole(ctx, new, span, tr("a value on the sheet"))
                low, high = bounds(ctx, where)
                clamped = min(
                    max(new, low if low is not None else new), high if high is not None else new
                )
            else:
                clamped = new
            before = ctx.state.read(where)
            ctx.state.write(where, clamped)
            if ctx.trace is not None and ctx.trace.wants():
                text = Later(set_text, where, before, clamped, new, ctx.limits.shown_length)
                ctx.step(
                    "change",
                    text,
                    span,
                    path=place_path(where),
                    before=before,
                    after=clamped,
                )

        return set_field

    def written(self, place_node):
        """A closure giving the place a statement writes; a place that is none refused."""
        shown = place_node.name if isinstance(place_node, n.Name) else tr("the place")
        return to_write(self.ref(place_node), place_node.span, shown)

    def place_bounds(self):
        """A closure giving (low, high) for the place it is given at run time (`where`): a
        resource's min/max, a stat's range."""

        def bounds(ctx, where):
            _, own = sheet_of(ctx, where)  # another character's field: its own bounds
            name = own if type(own) is str else own[0]
            field = self.book.fields.get(name)
            if isinstance(field, n.Resource):
                return (
                    self.resource_bound(ctx, where, "min"),
                    self.resource_bound(ctx, where, "max"),
                )
            if isinstance(field, n.Stat):
                return field.range.low, field.range.high
            if isinstance(field, n.Counter):
                if field.range is None:
                    return 0, None
                return field.range.low, field.range.high
            skills = self.book.open_skills
            if field is None and skills is not None:
                return skills.range.low, skills.range.high
            return None, None

        return bounds

    def st_change(self, node: n.Change):
        amount_fn = self.expr(node.amount)
        place = self.written(node.place)
        bounds = self.place_bounds()
        span = node.span
        verb = node.verb

        def change(ctx):
            where = place(ctx)
            amount = as_whole(ctx, amount_fn(ctx), node.amount.span, AMOUNT[verb])
            if amount < 0:
                raise EvaluationError(NEGATIVE[verb].fill(amount=amount), node.amount.span)
            before = ctx.state.read(where)
            low, high = bounds(ctx, where)
            stopped = False  # at a bound (the trace says so: its words made only then)
            if verb == "spend":
                after = before - amount
                if low is not None and after < low:
                    named = place_text(where)
                    if low:
                        message = tr(
                            "You cannot spend {amount} {place}: you have {have} "
                            "and it cannot go below {low}",
                            amount=amount,
                            place=named,
                            have=before,
                            low=low,
                        )
                    else:
                        message = tr(
                            "You cannot spend {amount} {place}: you have {have}",
                            amount=amount,
                            place=named,
                            have=before,
                        )
                    raise InsufficientResource(message, span)
            elif verb == "gain":
                after = before + amount
                if high is not None and after > high:
                    after, stopped = high, True
            else:
                after = before - amount
                if low is not None and after < low:
                    after, stopped = low, True
            ctx.state.write(where, after)
            if ctx.trace is not None and ctx.trace.wants():
                bound = high if verb == "gain" else low
                ctx.step(
                    "cost" if verb == "spend" else "change",
                    Later(change_text, verb, amount, where, before, after, stopped, bound),
                    span,
                    path=place_path(where),
                    before=before,
                    after=after,
                )

        return change

    def st_require(self, node: n.Require):
        condition = self.expr(node.condition)
        message = self.expr(node.message)
        span = node.span
        cspan = node.condition.span

        def require(ctx):
            if not as_bool(ctx, condition(ctx), cspan):
                raise RequirementFailed(str(known(ctx, message(ctx))), span)

        return require

    def st_if(self, node: n.If):
        branches = tuple((self.expr(c), self.block(body), c.span) for c, body in node.branches)
        otherwise = self.block(node.otherwise) if node.otherwise is not None else ()
        span = node.span
        # each condition counts when it is tested; the branch taken, as it runs
        tested = tuple(
            (condition, body, cspan, self.cost(c), block_cost(body))
            for (condition, body, cspan), (c, _) in zip(branches, node.branches)
        )
        otherwise_cost = block_cost(otherwise)

        def if_(ctx):
            for condition, body, cspan, steps, body_steps in tested:
                counted = ctx.steps + steps
                ctx.steps = counted
                if counted > ctx.step_bound:
                    count_past_bound(ctx, cspan)
                decided = as_bool(ctx, condition(ctx), cspan)
                if ctx.trace is not None:  # (verbose: its effect is in the steps that follow)
                    if_step(ctx, cspan, decided)
                if decided:
                    run_block(ctx, body, body_steps, span)
                    return
            run_block(ctx, otherwise, otherwise_cost, span)

        # for the odds engine (interpreter.odds.explore)
        pure = all(self.changes_nothing(c) for c, _ in node.branches)
        shape = Branches(tuple(Branch(*branch) for branch in branches), otherwise, pure)
        return self.shaped(node, if_, shape)

    def st_match(self, node: n.Match):
        subject = self.expr(node.subject)
        if self.type_of(node.subject).kind == "ref" and names_a_field(node.subject, self.bindings):
            subject = self.ref(node.subject)  # a value naming a field: matched by the name
        cases = []
        for values, body in node.cases:  # each case's values count when they are compared
            block = self.block(body)
            steps = self.cost(values)
            cases.append((tuple(self.expr(v) for v in values), block, steps, block_cost(block)))
        otherwise = self.block(node.otherwise) if node.otherwise is not None else ()
        otherwise_cost = block_cost(otherwise)
        span = node.subject.span

        def match(ctx):
            value = known(ctx, subject(ctx))
            kind = type(value)
            if (
                kind is tuple
                or kind is Record
                or (kind not in PLAIN_TYPES and isinstance(value, Record))
            ):
                ctx.count(cells(value, ctx.limits.value_size), span)
            for values, body, steps, body_steps in cases:
                ctx.count(steps, span)
                if any(equal(value, known(ctx, v(ctx))) for v in values):
                    if ctx.trace is not None and ctx.trace.wants():
                        length = ctx.limits.shown_length
                        ctx.step(
                            "match",
                            Later(match_text, span.text, value, length, False),
                            span,
                            verbose=True,
                        )
                    run_block(ctx, body, body_steps, span)
                    return
            if ctx.trace is not None and ctx.trace.wants():
                length = ctx.limits.shown_length
                ctx.step(
                    "match",
                    Later(match_text, span.text, value, length, True),
                    span,
                    verbose=True,
                )
            run_block(ctx, otherwise, otherwise_cost, span)

        return match

    def st_foreach(self, node: n.ForEach):
        items = self.naming(node.items)
        body = self.block(node.body)
        name = node.var
        span = node.items.span

        def items_of(ctx) -> tuple:
            values = known(ctx, items(ctx))
            if type(values) is Range:
                return range_items(ctx, values, span, FOR_EACH_OVER)
            if not isinstance(values, tuple):
                raise EvaluationError(FOR_EACH_OVER.fill(value=values), span)
            return values

        per_pass = 1 + block_cost(body)  # a pass counts, its body empty or not

        def for_each(ctx):
            for value in items_of(ctx):
                ctx.env[name] = value
                run_block(ctx, body, per_pass, span)

        # for the odds engine, which runs the passes itself (and skips a loop whose
        # passes change nothing it looks at: interpreter.odds.explore Explorer.idle)
        pure = self.changes_nothing(node.items)
        return self.shaped(node, for_each, Loop(items_of, name, body, pure))

    def st_repeat(self, node: n.Repeat):
        count = self.expr(node.count)
        until = self.expr(node.until) if node.until is not None else None
        body = self.block(node.body)
        span = node.count.span
        what = tr("a repeat count")  # (made once, not on every run)

        def times_of(ctx) -> int:
            times = as_whole(ctx, count(ctx), span, what)
            if times > ctx.limits.repeat_count:
                raise LimitExceeded(
                    tr(
                        "repeat {times} times is more than {limit} (limit repeat_count)",
                        times=times,
                        limit=ctx.limits.repeat_count,
                    ),
                    span,
                )
            return times

        def done(ctx) -> bool:
            return until is not None and as_bool(ctx, until(ctx), node.until.span)

        per_pass = 1 + block_cost(body) + (self.cost(node.until) if until is not None else 0)

        def repeat(ctx):
            for _ in range(times_of(ctx)):
                ctx.count(per_pass, span)
                if done(ctx):
                    break
                run_block(ctx, body, 0, span)

        # for the odds engine, which runs the passes itself
        return self.shaped(node, repeat, Repeat(times_of, done, body))

    def st_note(self, node: n.Note):
        text = self.expr(node.text)
        span = node.span

        def note(ctx):
            value = known(ctx, text(ctx))
            if ctx.trace is not None:  # (kept if the trace has room)
                note_step(ctx, value, span)

        return note

    def st_add(self, node: n.Add):
        item = self.expr(node.item)
        span = node.span
        place_node = node.place
        binding = self.bindings.get(id(place_node))
        if binding is not None and binding.kind == "catalog":
            catalog = binding.name
            declared = {f.name: f.type for f in self.book.fields[catalog].fields}
            fields = tuple(
                (name, self.expr(e), declared.get(name), e.span) for name, e in node.fields or ()
            )
            book = self.book

            def field_value(ctx, entry, name, value, type_node, span):
                """A field of the new entry, as the sheet file will read it back."""
                value = known(ctx, value(ctx))
                try:
                    return entry_value(type_node, value, f"{catalog}.{entry}.{name}", book)
                except SheetError as error:
                    raise EvaluationError(error.message, span, error.hint) from None

            def add_entry(ctx):
                name = known(ctx, item(ctx))
                if not isinstance(name, str):
                    raise EvaluationError(
                        tr("a catalog entry's name is a text, not {value}", value=name),
                        node.item.span,
                    )
                entries = ctx.state.values[catalog]
                if name in entries:
                    raise EvaluationError(
                        tr(
                            "the sheet already has a {catalog} entry {name}",
                            name=repr(name),
                            catalog=catalog,
                        ),
                        span,
                    )
                check_length(len(entries) + 1, ctx.limits, span)
                values = {k: field_value(ctx, name, k, f, *more) for k, f, *more in fields}
                entry = Record({"name": name, **values}, kind=catalog)
                bounded_value(ctx, {**entries, name: entry}, span)  # the catalog, as it grows
                ctx.state.write((catalog, name), entry)
                if ctx.trace is not None and ctx.trace.wants():
                    length = ctx.limits.shown_length
                    ctx.step(
                        "change",
                        Later(entry_text, name, catalog, entry, length),
                        span,
                        path=f"{catalog}.{name}",
                        before=None,
                        after=entry,
                    )

            return add_entry
        if isinstance(place_node, n.Name) and binding is not None and binding.kind == "local":
            local = place_node.name

            def add_local(ctx):
                # (a list the odds engine has kept whole, `[d6]` not yet read: its lists)
                items = (*known(ctx, ctx.env[local]), known(ctx, item(ctx)))
                ctx.env[local] = bounded_value(ctx, bounded_list(items, ctx.limits, span), span)

            return add_local
        place = self.written(place_node)
        item_span = node.item.span

        def add_item(ctx):
            where = place(ctx)
            value = known(ctx, item(ctx))
            if not isinstance(value, str):  # a list on the sheet holds texts
                raise EvaluationError(
                    tr("{place} holds texts, not {value}", place=place_text(where), value=value),
                    item_span,
                )
            before = ctx.state.read(where)
            after = bounded_value(ctx, bounded_list((*before, value), ctx.limits, span), span)
            ctx.state.write(where, after)
            if ctx.trace is not None and ctx.trace.wants():
                ctx.step(
                    "change",
                    Later(item_text, value, where, ctx.limits.shown_length),
                    span,
                    path=place_path(where),
                    before=before,
                    after=after,
                )

        return add_item

    def st_do(self, node: n.Do):
        call = self.expr(node.call)

        def do(ctx):
            call(ctx)

        # for the odds engine (an action called: interpreter.odds.explore)
        return self.shaped(node, do, Called(call if type(call) is ActionCall else None))


#: what `for each` was given in place of a list or a range with both ends
FOR_EACH_OVER = tr("`for each` goes over a list or a range with both ends, not {value}")


def range_items(ctx, values: Range, span, refused) -> tuple:
    """The whole numbers of a range with both ends (`1..n`; `1..5/2`: 1 and 2), as many
    as a list may hold; an open end is `refused` (a Message naming the value)."""
    if values.low is None or values.high is None:
        raise EvaluationError(refused.fill(value=values), span)
    first, last = ceil(values.low), floor(values.high)
    if last - first + 1 > ctx.limits.list_length:  # (as long as a list may be, at most)
        raise LimitExceeded(LONG_RANGE.fill(list_length=ctx.limits.list_length), span)
    return tuple(range(first, last + 1))


#: a range gone through (`for each`, `option each`) longer than a list may be
LONG_RANGE = tr("a range of more than {list_length} whole numbers (limit list_length)")


def run_block(ctx, body: tuple, steps: int, span) -> None:
    """Run statements, counting `steps` first (their own: `block_cost`, and the pass's
    when a loop runs them; what they evaluate besides counts as it runs)."""
    counted = ctx.steps + steps
    ctx.steps = counted
    if counted > ctx.step_bound:
        count_past_bound(ctx, span)
    for statement in body:
        statement.run(ctx)
