"""Compiled roll procedures: `roll abierta = d10 then { on die = 10: add ..., again while ... }`."""

from __future__ import annotations

from dsl import nodes as n
from interpreter.compile.actions import CallFrame
from interpreter.compile.arithmetic import as_number
from interpreter.errors import ChainTooLong
from interpreter.runtime import ChainRoll, as_bool
from interpreter.trace import origin_mark
from interpreter.values import normalize, show


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

    def call(self, ctx, args: tuple):
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
        if ctx.trace is not None and not ctx.quiet:
            origin = ctx.roller.source.origin
            ctx.step(
                "roll",
                f"{self.name}: {result.faces_text()} = {show(result.total)}"
                + origin_mark(origin, ctx.words),
                self.node.span,
                roll=self.name,
                value=result.total,
                origin=origin,
            )
        return result

    def roll(self, ctx) -> ChainRoll:
        """The procedure itself, with real dice (the odds engine has its own `chain`)."""
        ctx.quiet += 1
        try:
            base = self.base(ctx)
            parts = [(1, [base], base.total)]
            total = base.total
            watch(ctx.env, [base], base.total)
            for condition, sign, extra, again, rule in self.rules:
                if not as_bool(ctx, condition(ctx), rule.condition.span):
                    continue
                extras = 0
                while True:
                    extras += 1
                    if extras > ctx.limits.extra_per_die:
                        raise ChainTooLong(
                            f"roll {self.name} went on more than "
                            f"{ctx.limits.extra_per_die} times "
                            "(limit extra_per_die)",
                            rule.span,
                        )
                    captured, ctx.capture = ctx.capture, []
                    try:
                        value = as_number(extra(ctx), rule.extra.span, "what a rule adds")
                        rolls = ctx.capture
                    finally:
                        ctx.capture = captured
                    total = normalize(total + sign * value)
                    parts.append((sign, rolls, value))
                    if again is None:
                        break
                    watch(ctx.env, rolls, value)
                    if not as_bool(ctx, again(ctx), rule.again.span):
                        break
                break
            return ChainRoll(self.name, parts, total)
        finally:
            ctx.quiet -= 1
