"""Compiled roll procedures: `roll abierta = d10 then { on die = 10: add ..., again while ... }`."""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compile.actions import CallFrame
from interpreter.compile.arithmetic import as_number
from interpreter.compile.codegen import SWITCH
from interpreter.dice import KEPT, Tray
from interpreter.errors import WENT_ON_PAST, ChainTooLong
from interpreter.roll_steps import chain_parts, faces_text
from interpreter.runtime import ChainRoll, as_bool
from interpreter.trace import Later, made_step
from interpreter.values import normalize, show

#: what a value is, where a number is wanted (a refusal says it)
WHAT_A_RULE_ADDS = tr("what a rule adds")


def watch(env: dict, rolls: list, total) -> None:
    """Bind what a roll procedure's conditions look at: die, dice, total, doubles."""
    faces = [face for roll in rolls for face in roll.kept_faces()]
    env["die"] = faces[0] if faces else None
    env["dice"] = tuple(faces)
    env["total"] = total
    env["doubles"] = len(faces) >= 2 and all(face == faces[0] for face in faces)


class Procedure(CallFrame):
    """`roll name = dice then { on ...: add ..., again while ... }`.

    `base` rolls the first term, `rules` are (condition, sign, extra, again, node), and
    `watch` binds the names the conditions read: what the odds engine needs to count the
    procedure without rolling it."""

    watch = staticmethod(watch)

    def __init__(self, compiler, node: n.RollDef):
        self.node = node
        self.name = node.name
        self.names = tuple(p.name for p in node.params)
        self.body = compiler.expr(node.body)
        self.base = compiler.dice(node.body) if node.rules else None
        self.rules = tuple(
            (
                compiler.expr(r.condition),
                r.sign,
                compiler.expr(r.extra),
                compiler.expr(r.again) if r.again is not None else None,
                r,
            )
            for r in node.rules
        )
        self.shapes = {id(r): shape_of(r.extra) for r in node.rules}
        #: steps: its roll's, on entry; a rule's condition when tested; an extra's each time
        self.cost = compiler.cost(node.body)
        self.rule_costs = {
            id(r): (compiler.cost(r.condition), compiler.cost((r.extra, r.again)))
            for r in node.rules
        }

    def call(self, ctx, args: tuple, span=None):
        ctx.count(self.cost, span or self.node.span)
        saved = self.enter(ctx, args, self.node.span)
        try:
            if not self.rules:
                ctx.quiet += 1
                captured, ctx.capture = ctx.capture, []
                try:
                    total = self.body(ctx)
                    rolls = ctx.capture
                finally:
                    ctx.capture = captured
                    ctx.quiet -= 1
                result = ChainRoll(self.name, [(1, rolls, total)], total)
            else:
                result = ctx.roller.chain(self, ctx)
        finally:
            self.leave(ctx, saved)
        trace = ctx.trace
        if trace is None or ctx.quiet:
            return result
        most = trace.most  # (`Trace.wants`, written out: every roll of a named roll asks)
        if most is not None and len(trace) >= most:
            trace.omitted += 1
        else:
            # (what makes its step put in the trace: flat, made when read, `Trace.flat`)
            parts = (
                chain_parts,
                self.name,
                result,
                ctx.roller.source.origin,
                ctx.limits.shown_length,
                self.node.span,
                ctx.depth,
                trace.length,
            )
            if SWITCH.lazy_steps and SWITCH.flat_steps:
                trace.flat = True
                list.append(trace, parts)
            else:
                list.append(trace, made_step(chain_parts(*parts[1:])))
        return result

    def roll(self, ctx) -> ChainRoll:
        """The procedure itself, with real dice (the odds engine has its own `chain`)."""
        ctx.quiet += 1
        try:
            if self.base is None:  # (`call` runs a procedure without rules itself)
                raise AssertionError("a roll procedure without rules reached `roll`")
            base = self.base(ctx)
            parts = [(1, [base], base.total)]
            length = ctx.limits.shown_length
            shown: list | None = [] if ctx.trace is not None else None  # (written when read)
            total = base.total
            watch(ctx.env, [base], base.total)
            for condition, sign, extra, again, rule in self.rules:
                tested, added = self.rule_costs[id(rule)]
                ctx.count(tested, rule.condition.span)
                if not as_bool(ctx, condition(ctx), rule.condition.span):
                    continue
                extras = 0
                while True:
                    ctx.count(added, rule.span)
                    extras += 1
                    if extras > ctx.limits.extra_per_die:
                        raise ChainTooLong(
                            WENT_ON_PAST.fill(name=self.name, limit=ctx.limits.extra_per_die),
                            rule.span,
                        )
                    captured, ctx.capture = ctx.capture, []
                    tray = ctx.roller if isinstance(ctx.roller, Tray) else None
                    if tray is not None:  # a person typing the dice is told why this one
                        shown_by = rule.condition if extras == 1 else rule.again
                        tray.why = tr(
                            "{roll}: the die showed {face} ({condition})",
                            roll=self.name,
                            condition=shown_by.span.text,
                            face=show(ctx.env.get("die")),
                        )
                    try:
                        value = as_number(extra(ctx), rule.extra.span, WHAT_A_RULE_ADDS)
                        rolls = ctx.capture
                    finally:
                        ctx.capture = captured
                        if tray is not None:
                            tray.why = None
                    total = normalize(total + sign * value)
                    parts.append((sign, rolls, value))
                    if shown is not None:
                        shown.append((sign, self.shapes[id(rule)], rolls, value))
                    if again is None:
                        break
                    watch(ctx.env, rolls, value)
                    if not as_bool(ctx, again(ctx), rule.again.span):
                        break
                break
            arithmetic = None
            if shown is not None and len(parts) > 1:
                arithmetic = Later(arithmetic_text, base, shown, length)
            return ChainRoll(self.name, parts, total, arithmetic)
        finally:
            ctx.quiet -= 1


def shape_of(node) -> tuple:
    """What a rule adds, as written, and where its dice terms are in the text."""
    base, text = node.span.start, node.span.text
    holes = sorted(
        (d.span.start - base, d.span.end - base) for d in n.walk(node) if isinstance(d, n.Dice)
    )
    return text, tuple(holes)


def term_text(roll, length: int | None = None) -> str:
    """A term's faces as a sum's part: `6` for one die, `[3, 4]` for several (cut to
    about `length` characters, when given)."""
    if len(roll.faces) == 1 and roll.faces[0][1] == KEPT and not roll.faces[0][2]:
        return str(roll.faces[0][0])
    return faces_text(roll, length)


def arithmetic_text(base, extras: list, length: int | None) -> str:
    """A roll that went on, each extra with its own arithmetic: `10 + (6−1) + (2−1)`."""
    shown = [term_text(base, length)]
    for sign, shape, rolls, value in extras:
        shown.append(("+ " if sign > 0 else "- ") + part_text(shape, rolls, value, length))
    return " ".join(shown)


def part_text(shape: tuple, rolls: list, value, length: int | None = None) -> str:
    """One extra with its own arithmetic: `d6 - 1` that showed 6 is `(6−1)`."""
    text, holes = shape
    if len(holes) != len(rolls):  # the rule rolled other dice than it shows: the value
        return show(value)
    out, last = [], 0
    for (start, end), roll in zip(holes, rolls):
        out.append(text[last:start])
        out.append(term_text(roll, length))
        last = end
    out.append(text[last:])
    written = "".join(out)
    if len(holes) == 1 and holes[0] == (0, len(text)):  # the extra is one dice term
        return written
    return "(" + written.replace(" - ", "−").replace(" + ", "+") + ")"
