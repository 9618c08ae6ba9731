"""Compiled checks and opposed checks: a roll against a target, two rolls compared."""

from __future__ import annotations

from typing import Any, overload

from dsl import nodes as n
from dsl import opposed
from dsl.messages import Message, tr
from interpreter.bounds import bounded_record
from interpreter.compile import check_terms
from interpreter.compile.actions import CallFrame
from interpreter.compile.arithmetic import COMPARISONS, as_number
from interpreter.compile.check_terms import TARGET, Shown, explained_sum
from interpreter.compile.codegen import SWITCH
from interpreter.compile.codegen.emit_steps import generated_check
from interpreter.compile.codegen.traced import generated_traced_check
from interpreter.compile.step_texts import grouped_rounds
from interpreter.compile.term_names import explained_term, signed
from interpreter.errors import EvaluationError, LimitExceeded
from interpreter.runtime import Unknown, count_past_bound, known
from interpreter.shown import glimpse
from interpreter.trace import Later, later_step, made_step
from interpreter.values import Record, is_number, normalize

#: what a value is, where a number is wanted (a refusal says it)
A_CHECKS_ROLL = tr("a check's roll")
A_CHECKS_TARGET = tr("a check's target")
A_SIDE = tr("a side of an opposed check")


class CompiledCheck(CallFrame):
    """`check`: a roll plus modifiers against a target; the result is a record."""

    def __init__(self, compiler, node: n.Check):
        self.node = node
        self.names = tuple(p.name for p in node.params)
        compiler.reads.append(n.field_reads((node.lets, node.roll, node.target, node.fields)))
        compiler.bodies.append((node.lets, node.roll, node.target, node.fields))
        compiler.note_read_once(node)  # (its pools read once: the odds may keep them whole)
        try:
            self.let_statements = tuple(compiler.statement(let) for let in node.lets)
            self.lets = tuple(
                (let.name, made.run) for let, made in zip(node.lets, self.let_statements)
            )
        finally:
            compiler.reads.pop()
            compiler.bodies.pop()
        self.roll = compiler.expr(node.roll)
        self.target = compiler.expr(node.target) if node.target is not None else None
        self.fields = tuple((name, compiler.expr(e)) for name, e in node.fields)
        self.field_names = frozenset(name for name, _ in node.fields)
        #: the odds engine's records cut to built-in fields alone, by the fields and the
        #: margin (interpreter.odds.records.FieldMemory.margins): the same in every
        #: computation, so kept with the check
        self.margin_records: dict = {}
        # what the author's fields read of the check's own names (the record's built-in
        # fields, its parameters, its lets): the odds engine computes them once per values
        # (not the fields themselves, set before they are read, unless a parameter or a
        # `let` has the name too)
        own = self.field_names - set(self.names) - {let.name for let in node.lets}
        reads = n.field_reads(tuple(e for _, e in node.fields))
        self.fields_read = tuple(sorted(name for name in reads if name not in own))
        # the check's names its records read (the target's and the fields'): what else it
        # holds reaches them only through the roll's total (a modifier only added to it)
        target_reads = n.field_reads(node.target) if node.target is not None else {}
        self.record_reads = tuple(sorted({*self.fields_read, *target_reads}))
        self.terms = tuple(explained_term(compiler, sign, term) for sign, term in signed(node.roll))
        self.term_nodes = tuple(term for _, term in signed(node.roll))  # (codegen's)
        # a target of several terms, each shown after the roll's (`vs WS 41 + Melee 10`)
        target = signed(node.target) if node.target is not None else []
        several = len(target) > 1
        self.target_terms = tuple(explained_term(compiler, *term) for term in target if several)
        self.target_nodes = tuple(term for _, term in target if several)
        self.label = node.label or node.name
        # `success` and `degree` are the trace's verdict, unless they are ordinary fields
        # (a `degree` without a degrees block)
        self.plain_fields = frozenset() if node.degrees else frozenset({"degree"})
        self.comparison = node.comparison
        self.compare = COMPARISONS.get(node.comparison or "", _compares_nothing)
        self.upward = node.comparison in (">=", ">")
        #: steps of its own, counted on entry: its lets, roll, target and fields
        self.cost = (
            sum(compiler.statement_cost(let) for let in node.lets)
            + compiler.cost((node.roll, node.target))
            + compiler.cost([e for _, e in node.fields])
        )
        #: what a refusal calls the roll and the target (the generated code's too)
        self.refusals = (A_CHECKS_ROLL, A_CHECKS_TARGET)
        # (codegen: `CallFrame.make_fast`, `make_traced`)
        self.slow(compiler, generated_check, generated_traced_check)

    def __call__(self, ctx, args: tuple, span) -> Record:
        if ctx.trace is None and not ctx.roller.lifts and SWITCH.generated:
            fast = self.fast
            if fast is None:
                fast = self.make_fast()
            if fast:
                record: Record = fast(ctx, args, span)
                return record
        elif (  # (traced: alone, or called by a closure, `SWITCH.traced_whole_within`)
            (ctx.depth == 0 or SWITCH.traced_whole_within)
            and not ctx.roller.lifts
            and SWITCH.generated
        ):
            whole = self.whole if self.whole is not None else self.make_whole()
            if whole:
                alone: Record = whole(ctx, args, span)
                return alone
        # `enter`, written out: a check is the commonest call of all
        if ctx.calls >= ctx.limits.call_depth or ctx.roller.lifts:
            saved = self.enter(ctx, args, span)
        else:
            saved = ctx.env
            ctx.env = dict(zip(self.names, args))
            ctx.depth += 1
            ctx.calls += 1
        trace = ctx.trace
        mark = len(trace) if trace is not None else 0
        try:
            counted = ctx.steps + self.cost
            ctx.steps = counted
            if counted > ctx.step_bound:
                count_past_bound(ctx, span or self.node.span)
            body: Any = False  # (traced, in a real run: its lets, terms, record generated)
            if trace is not None and not ctx.roller.lifts and SWITCH.generated:
                body = self.traced if self.traced is not None else self.make_traced()
            if body:
                record, given = body(ctx)
            else:
                for _, let in self.lets:
                    let(ctx)
                if trace is None:
                    total = self.roll(ctx)
                    given = None  # (read only when tracing)
                else:
                    total, given = explained_sum(ctx, self.terms)
                if isinstance(total, Unknown):  # odds: the record for each total, if it can
                    records = ctx.roller.check_records(self, ctx, args, total)
                    if records is not None:
                        return records
                    total = known(ctx, total)
                target = None
                if trace is not None and self.target_terms:  # (each term shown)
                    target, shown = explained_sum(ctx, self.target_terms)
                    given = [*(given or ()), TARGET, *shown]
                elif self.target is not None:
                    target = self.target(ctx)
                    if type(target) is not int:
                        target = known(ctx, target)
                record = self.record(ctx, total, target, known)
            if ctx.trace is not None:
                self.step_at(ctx, mark, given, record)
            return record
        finally:
            ctx.env = saved  # `leave`, written out
            ctx.depth -= 1
            ctx.calls -= 1

    def step_at(self, ctx, mark: int, given: list | None, record: Record) -> None:
        """The check's step, over the steps from `mark` (its rolls, its lookups), one
        level above them (`ctx.depth`, the check's own): its words written when read;
        of a traced run, its closure's and the generated code's (`codegen.traced`)."""
        trace = ctx.trace
        most = trace.most
        if most is not None and mark >= most:  # (`Trace.wants_at`)
            trace.omitted += 1
            return
        length, depth = ctx.limits.shown_length, ctx.depth - 1
        if SWITCH.lazy_steps:  # (made when read: `Step._m`, flat: `Trace.flat`; cut so:
            # `Trace.bounded`)
            entry: Any = (self.checked, given, record, length, depth, trace.length)
            if SWITCH.flat_steps:
                trace.flat = True
            else:
                entry = later_step(entry)
        else:
            entry = made_step(self.checked(given, record, length, depth, trace.length))
        list.insert(trace, mark, entry)  # (`Trace.insert`: the last step kept goes)
        if most is not None and len(trace) > most:
            trace.trim()

    def checked(self, given: list | None, record: Record, length: int, depth: int, bounded):
        """The check's step's parts (`Step._r`): its words, its data, its detail."""
        shown = Shown(given, length)
        return (
            "check",
            Later(check_terms.check_line, self, shown, record),
            None,
            Later(_check_data, self.node.name, record),
            depth,
            None,
            Later(check_terms.check_detail, self, shown, record),
            False,
            self.node.span,
            bounded,
        )

    @overload
    def record(self, ctx, total, target, settle, memory=None, names: None = None) -> Record: ...
    @overload
    def record(self, ctx, total, target, settle, memory, names: tuple) -> tuple: ...
    def record(self, ctx, total, target, settle, memory=None, names=None) -> Record | tuple:
        """The check's record for a known total (and target): the built-in fields, then
        the author's, each passed through settle(ctx, value), which makes it known (the
        odds engine, asking for the records of every total at once, refuses instead).
        `memory` (the odds engine's: interpreter.odds.records) gives the author's fields
        again for the same values of what they read; `names`, its values of those fields
        alone (a tuple), which is all a caller reads of the record."""
        if type(total) is not int:
            total = as_number(total, self.node.roll.span, A_CHECKS_ROLL)
        env = ctx.env
        env["total"] = total
        if self.target is not None:
            if type(target) is not int:
                target = as_number(target, self.node.target.span, A_CHECKS_TARGET)
            success = self.compare(total, target)
            margin = total - target if self.upward else target - total
            env["target"], env["success"], env["margin"] = target, success, margin
            fields = {"total": total, "target": target, "success": success, "margin": margin}
        else:
            fields = {"total": total}
        wanted = names is None or not self.field_names.isdisjoint(names)
        if wanted and memory is not None and self.fields:
            own = memory.fields(self, ctx, settle)
            env.update(own)
            fields.update(own)
        elif wanted:  # (else the caller reads none of the author's fields: not computed)
            for name, value in self.fields:
                env[name] = fields[name] = settle(ctx, value(ctx))
        if names is not None:
            return tuple([fields.get(name) for name in names])
        return bounded_record(ctx, Record(fields, kind="check"), self.node.span)

    def detail(self, terms: Shown, fields: dict) -> Message | None:
        """The check's line with its terms as the rules compute them (--verbose), when
        that is not how they are shown."""
        if terms.both()[1] is None:
            return None
        return self.describe(terms, fields, False)

    def describe(self, terms: Shown, fields: dict, brief: bool = True) -> Message:
        """The check's line: `Label: terms = total vs target → verdict, field value`. The
        verdict is the degree when the check names degrees, else its success (the
        author's, when the check defines it). Its terms (what `explained_sum` gave) in
        the rules' words (`brief`), or as they compute."""
        text, computed = terms.both()
        shown = text if brief or computed is None else computed
        head = tr(
            "{label}: {terms} = {total}", label=self.label, terms=shown, total=fields["total"]
        )
        if terms.tail is None:  # (the same in the step's text and its detail: made once)
            terms.tail = self._tail(terms, fields)
        return Message.joined([head, *terms.tail], "")

    def _tail(self, terms: Shown, fields: dict) -> list:
        """The check's line after its total: the target (its terms, when several), the
        verdict, the fields."""
        parts: list = []
        length, target_terms = terms.length, terms.target_text()
        if target_terms is not None and self.comparison == ">=":
            parts.append(tr(" vs {terms} = {target}", terms=target_terms, target=fields["target"]))
        elif target_terms is not None:
            parts.append(
                tr(
                    " vs {terms} = {target} ({comparison})",
                    terms=target_terms,
                    target=fields["target"],
                    comparison=self.comparison,
                )
            )
        elif self.target is not None:
            if self.comparison == ">=":
                parts.append(tr(" vs {target}", target=fields["target"]))
            else:
                parts.append(
                    tr(
                        " vs {target} ({comparison})",
                        target=fields["target"],
                        comparison=self.comparison,
                    )
                )
        verdict = None
        if self.node.degrees and fields.get("degree") is not None:
            verdict = glimpse(fields["degree"], length)  # the rulebook's own word
        elif "success" in fields:
            verdict = SUCCESS if fields["success"] else FAILURE
        if verdict is not None:
            parts += check_terms.verdict_parts(verdict)
        extra = [
            name
            for name in dict(self.fields)
            if name not in ("success", "degree") or name in self.plain_fields
        ]
        if extra:
            parts.append(", " if verdict is not None else " → ")
            parts += check_terms.fields_parts(extra, fields, length)
        return parts


def _check_data(name: str, record: Record) -> dict:
    """A check's step's data: its name and its record's fields."""
    return {"check": name, **record}


#: a check's verdict in its trace line
SUCCESS, FAILURE = tr("success"), tr("failure")


def _compares_nothing(total, target):
    """A check without a target compares nothing (its `compare` is never called)."""
    raise AssertionError(f"a check without a comparison compared {total} with {target}")


class CompiledOpposed(CallFrame):
    """`opposed`: two rolls compared by keys; ties broken as the rule says.

    The odds engine combines the two sides' distributions itself (the roller's
    `opposed_records`), through the same pieces a real run uses: `ours` and `theirs`
    (each side's value), `side` (that value as a record), `key` (what is compared) and
    `record` (the result for a decided comparison)."""

    def __init__(self, compiler, node: n.Opposed):
        self.node = node
        self.names = tuple(p.name for p in node.params)
        self.ours = compiler.expr(node.ours)
        self.theirs = compiler.expr(node.theirs)
        self.fields = tuple((name, compiler.expr(e)) for name, e in node.fields)
        self.label = node.label or node.name
        #: steps of its own: its fields on entry, its two sides on every roll
        self.cost = compiler.cost([e for _, e in node.fields])
        self.sides_cost = compiler.cost((node.ours, node.theirs))
        self.rerolls_ties = node.tie == "reroll"
        # what is compared, and how each side rolls (dsl.opposed): a roll-under side's
        # `total` is better the lower, a degree by its rank among its check's
        self.compared = opposed.compared(node, compiler.bindings)
        ways = [opposed.side_checks(e, compiler.bindings) for e in (node.ours, node.theirs)]
        self.under = tuple(opposed.direction(checks) == "under" for checks in ways)
        self.degrees = tuple(opposed.degrees(checks) for checks in ways)
        # shown beside the totals: a written `compare` less `total` and `success`, or the default's
        written = tuple(k for k in node.compare if k not in ("total", "success"))
        self.shown_keys = (written or ("total",)) if node.compare else self.compared
        # whether the author's fields look at `rerolls` (else it is independent of them)
        self.fields_read_rerolls = "rerolls" in n.field_reads(tuple(e for _, e in node.fields))

    def __call__(self, ctx, args: tuple, span) -> Record:
        saved = self.enter(ctx, args, span)
        mark = len(ctx.trace) if ctx.trace is not None else 0
        try:
            ctx.count(self.cost, span or self.node.span)
            if ctx.roller.lifts:  # odds: both sides' distributions combined at once
                ctx.count(self.sides_cost, span or self.node.span)
                records = ctx.roller.opposed_records(self, ctx, args)
                if records is not None:
                    return records
            rerolls = 0
            rounds: list = []  # where each roll of both sides starts in the trace, when tracing
            while True:
                ctx.count(self.sides_cost, span or self.node.span)
                if ctx.trace is not None:
                    rounds.append(len(ctx.trace))
                ours = self.side(known(ctx, self.ours(ctx)), self.node.ours.span)
                theirs = self.side(known(ctx, self.theirs(ctx)), self.node.theirs.span)
                if not self.rerolls_ties or self.key(ours, 0) != self.key(theirs, 1):
                    break
                rerolls += 1
                if rerolls > ctx.limits.tie_rerolls:
                    raise self.still_tied(ctx)
                if ctx.trace is not None:
                    rounds[-1] = (rounds[-1], self.tie_text(ours, theirs, ctx.limits.shown_length))
            if rerolls and ctx.trace is not None:  # each roll under its own heading
                rounds[-1] = (
                    rounds[-1],
                    tr(
                        "{label}, roll {n}: {ours} - {theirs}",
                        label=self.label,
                        n=rerolls + 1,
                        ours=ours["total"],
                        theirs=theirs["total"],
                    ),
                )
                grouped_rounds(ctx, rounds, self.node.span)
            record = self.record(ctx, ours, theirs, rerolls, known)
            trace = ctx.trace
            if trace is None:
                return record
            most = trace.most  # (`Trace.wants_at`, written out)
            if most is not None and mark >= most:
                trace.omitted += 1
                return record
            entry: Any = (  # (its step over its sides', at its own level above theirs)
                self.opposed_parts,
                ours,
                theirs,
                record["won"],
                record["tie"],
                ctx.limits.shown_length,
                ctx.depth - 1,
                trace.length if most is not None else None,
            )
            if SWITCH.lazy_steps and SWITCH.flat_steps:  # (made when read: `Trace.flat`)
                trace.flat = True
            else:
                entry = made_step(self.opposed_parts(*entry[1:]))
            list.insert(trace, mark, entry)
            if most is not None and len(trace) > most:
                trace.trim()
            return record
        finally:
            self.leave(ctx, saved)

    def opposed_parts(self, ours, theirs, won, tie, length: int, depth: int, bounded) -> tuple:
        """Its step's parts (`Step._r`): its line (`line_text`) made when read."""
        text = Later(self.line_text, ours, theirs, won, tie, length)
        data = {"opposed": self.node.name, "won": won, "tie": tie}
        return ("opposed", text, None, data, depth, None, None, False, self.node.span, bounded)

    def line_text(self, ours: Record, theirs: Record, won, tie, length: int) -> Message:
        """`Label: 15 vs 12 → wins`, with what is compared when not the totals (shown_keys)."""
        if tie and self.node.tie == "none":
            verdict = tr("tie, nobody wins")
        elif tie:
            verdict = tr("tie, wins") if won else tr("tie, loses")
        else:
            verdict = tr("wins") if won else tr("loses")
        if self.shown_keys != ("total",):  # (`compare sl`: the sl shown)
            return tr(
                "{label}: {ours} vs {theirs} ({compared}) → {verdict}",
                label=self.label,
                ours=ours["total"],
                theirs=theirs["total"],
                compared=self.compared_text(ours, theirs, length),
                verdict=verdict,
            )
        return tr(
            "{label}: {ours} vs {theirs} → {verdict}",
            label=self.label,
            ours=ours["total"],
            theirs=theirs["total"],
            verdict=verdict,
        )

    def tie_text(self, ours: Record, theirs: Record, length: int) -> Message:
        """`Contest: tie (15 - 15), roll again`; or what is compared: `tie (sl 1 vs 1)`."""
        if self.shown_keys == ("total",):
            return tr(
                "{label}: tie ({ours} - {theirs}), roll again",
                label=self.label,
                ours=ours["total"],
                theirs=theirs["total"],
            )
        return tr(
            "{label}: tie ({compared}), roll again",
            label=self.label,
            compared=self.compared_text(ours, theirs, length),
        )

    def side(self, value, span) -> Record:
        """One side's value as a record with a total (a plain number is `{total}`)."""
        if isinstance(value, Record):
            if "total" not in value:
                raise EvaluationError(tr("each side of an opposed check needs a total"), span)
            return value
        return Record({"total": as_number(value, span, A_SIDE)})

    def key(self, side: Record, which: int = 0) -> tuple:
        """What the comparison looks at, in order: the compared fields of a side (`which`:
        0 ours, 1 theirs), each better the higher (a roll-under side's total reversed, a
        degree by its rank)."""
        return tuple(self.measure(side, name, which) for name in self.compared)

    def measure(self, side: Record, name: str, which: int):
        value = side.get(name)
        if name == "degree" and any(self.degrees):
            return opposed.degree_rank(self.degrees[which], value, side.get("success"))
        if name == "total" and self.under[which] and is_number(value):
            return (1, -value)
        return _key(value)

    def compared_text(self, ours: Record, theirs: Record, length: int) -> str:
        """What the comparison looked at (shown_keys): `sl 1 vs 3`, `margin 0 vs 1`."""
        return Message.joined(
            [
                tr(
                    "{name} {ours} vs {theirs}",
                    name=name,
                    ours=glimpse(ours.get(name), length),
                    theirs=glimpse(theirs.get(name), length),
                )
                for name in self.shown_keys
            ],
            ", ",
        )

    def margin(self, ours: Record, theirs: Record):
        """By how much ours is ahead, in the first compared measure that is a number on
        both sides (a roll-under side's total reversed); else in their totals."""
        for name in (*self.compared, "total"):
            a, b = ours.get(name), theirs.get(name)
            if name != "degree" and is_number(a) and is_number(b):
                a = self.measure(ours, name, 0)[1]
                b = self.measure(theirs, name, 1)[1]
                return normalize(a - b)
        return normalize(ours["total"] - theirs["total"])

    def still_tied(self, ctx) -> LimitExceeded:
        """The error a run stops with when the sides are still tied at the limit."""
        return LimitExceeded(
            tr("still tied after {n} rerolls (limit tie_rerolls)", n=ctx.limits.tie_rerolls),
            self.node.span,
        )

    def verdict(self, a: tuple, b: tuple) -> tuple:
        """(won, tie) for the sides' keys `a` (ours) and `b` (theirs): a tie is won with
        `tie ours`, lost with `tie theirs`, and stands with `tie none` (nobody wins)."""
        tie = a == b
        return a > b or (tie and self.node.tie == "ours"), tie

    def record(self, ctx, ours: Record, theirs: Record, rerolls: int, settle, keys=None) -> Record:
        """The result once the comparison is decided (or tied, without `tie reroll`): the
        built-in fields, then the author's, each passed through settle(ctx, value).
        `keys`: the two sides' keys, when the caller has them already."""
        a, b = keys if keys is not None else (self.key(ours, 0), self.key(theirs, 1))
        won, tie = self.verdict(a, b)
        fields = {
            "ours": ours,
            "theirs": theirs,
            "won": won,
            "tie": tie,
            "margin": self.margin(ours, theirs),
            "rerolls": rerolls,
        }
        ctx.env.update(fields)
        for name, value in self.fields:
            ctx.env[name] = fields[name] = settle(ctx, value(ctx))
        return bounded_record(ctx, Record(fields, kind="opposed"), self.node.span)


def _key(value):
    return (0, value) if isinstance(value, bool) else (1, value)
