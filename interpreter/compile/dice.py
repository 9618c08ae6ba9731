"""Compiling dice terms: the die, how many, and the modifiers, rolled through ctx.roller."""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compile.arithmetic import as_number, as_whole
from interpreter.compile.host import CompilerHost
from interpreter.compile.step_texts import roll_step
from interpreter.dice import FUDGE, AskingDice, Die, predicate
from interpreter.errors import EvaluationError, LimitExceeded
from interpreter.runtime import known
from interpreter.values import show

#: what a value is, where a number is wanted (a refusal says it)
NUMBER_OF_FACES = tr("the number of faces")
NUMBER_OF_DICE = tr("the number of dice")
HOW_MANY_KEPT = tr("how many dice to keep or drop")
A_FACE = tr("a face to compare with")
MIN_OR_MAX = tr("the value of min or max")


class DiceTerms(CompilerHost):
    """How the Compiler turns a dice term into a closure rolling it."""

    def dice(self, node: n.Dice):
        """A closure rolling the term through `ctx.roller` and returning its PoolRoll."""
        span, label = node.span, node.span.text
        count = self.expr(node.count) if node.count is not None else None
        sides = node.sides
        if isinstance(sides, int | tuple):  # a number of faces, or the faces listed
            fixed_die = Die.of(sides)
            die_of = None
        elif sides == "F":
            fixed_die, die_of = FUDGE, None
        else:
            fixed_die, sides_fn = None, self.expr(sides)

            def die_of(ctx):
                faces = as_whole(ctx, sides_fn(ctx), span, NUMBER_OF_FACES)
                if faces < 1:
                    raise EvaluationError(
                        tr("a die needs at least one face, not {faces}", faces=faces), span
                    )
                if faces > ctx.limits.faces_per_die:
                    raise LimitExceeded(
                        tr(
                            (
                                "a die of {faces} faces is more than "
                                "{faces_per_die} (limit faces_per_die)"
                            ),
                            faces=faces,
                            faces_per_die=ctx.limits.faces_per_die,
                        ),
                        span,
                    )
                return Die.of(faces)

        modifier_fns = tuple(self.modifier(m) for m in node.modifiers)
        dynamic = any(callable(m) for m in modifier_fns)
        rolled = None
        if dynamic or fixed_die is None or not (count is None or isinstance(node.count, n.Literal)):
            rolled = self.term_as_rolled(node)
        has_top = any(len(m) > 2 and m[2] is TOP for m in modifier_fns if not callable(m))
        fixed_steps = None
        if not dynamic:
            fixed_steps = bind_tops(modifier_fns, fixed_die) if fixed_die else modifier_fns

        def roll(ctx):
            die = fixed_die if fixed_die is not None else die_of(ctx)
            if count is None:
                how_many = 1
            else:
                how_many = count(ctx)
                if type(how_many) is not int:
                    how_many = as_whole(ctx, how_many, span, NUMBER_OF_DICE)
                if how_many < 0:
                    raise EvaluationError(
                        tr("cannot roll {how_many} dice", how_many=how_many), span
                    )
            if fixed_steps is not None and (fixed_die is not None or not has_top):
                steps = fixed_steps
            else:
                steps = bind_tops(
                    tuple(m(ctx, die) if callable(m) else m for m in modifier_fns), die
                )
            # (a term written plainly, rolled as written, looks no further)
            source = getattr(ctx.roller, "source", None) if rolled is not None else None
            if rolled is not None and isinstance(source, AskingDice):
                # a person rolls the dice: told the term as rolled (2d6), not as written
                source.rolling = rolled(ctx, how_many, die)
                try:
                    result = ctx.roller.pool(die, how_many, steps, span, label)
                finally:
                    source.rolling = None
            else:
                result = ctx.roller.pool(die, how_many, steps, span, label)
            if ctx.capture is not None:
                ctx.capture.append(result)
            if ctx.trace is not None and not ctx.quiet and ctx.trace.wants():
                if rolled is not None:
                    result.label = f"{span.text} = {rolled(ctx, how_many, die)}"
                roll_step(ctx, ctx.trace, result, span)
            return result

        return roll

    def term_as_rolled(self, node: n.Dice):
        """A term written with expressions, as it was rolled: `(dados)d(dado)` → `5d8`
        (a trace shows `(dados)d(dado) = 5d8`)."""
        values = []
        for modifier in node.modifiers:
            condition = getattr(modifier, "condition", None)
            count = getattr(modifier, "count", None)
            text = modifier.span.text
            value = condition.value if condition is not None else count
            if value is None:
                values.append((text, None))
            else:
                prefix = text[: value.span.start - modifier.span.start].rstrip("(")
                values.append((prefix, self.expr(value)))

        def rolled(ctx, how_many, die) -> str:
            parts = [f"{how_many}{die.label}"]
            for prefix, value in values:
                shown = "" if value is None else show(known(ctx, value(ctx)))
                parts.append(f"{prefix.rstrip('(')}{shown}")
            return "".join(parts)

        return rolled

    def modifier(self, modifier):
        """A dice modifier: a constant step, or a closure(ctx, die) computing the step."""
        span = modifier.span
        if isinstance(modifier, n.Keep):
            if modifier.count is None:
                return ("keep", modifier.mode, 1, span)
            if isinstance(modifier.count, n.Literal):
                return ("keep", modifier.mode, modifier.count.value, span)
            count = self.expr(modifier.count)
            mode = modifier.mode

            def keep(ctx, die):  # noqa: ARG001 (a modifier's step is called as step(ctx, die))
                k = as_whole(ctx, count(ctx), span, HOW_MANY_KEPT)
                if k < 0:
                    raise EvaluationError(tr("cannot keep or drop {k} dice", k=k), span)
                return ("keep", mode, k, span)

            return keep
        if isinstance(modifier, n.Sort):
            return ("sort", modifier.descending)
        if isinstance(modifier, n.Clamp):
            return self.clamp(modifier)
        condition = modifier.condition
        if isinstance(modifier, n.Explode):
            kind, once = modifier.style, modifier.once
        elif isinstance(modifier, n.Reroll):
            kind, once = "reroll", modifier.once
        elif isinstance(modifier, n.CountSuccesses):
            kind, once = ("fail_count" if modifier.failures else "successes"), None
        else:
            kind, once = "failures", None
        if condition is None:  # `x` alone: the die's top face
            return (kind, once, TOP, span)
        if condition.value is None:  # `even`, `odd`
            return (kind, predicate(condition.op, None))
        if isinstance(condition.value, n.Literal):
            test = predicate(condition.op, condition.value.value)
            return (kind, once, test, span) if once is not None else (kind, test)
        value = self.expr(condition.value)
        op = condition.op

        def step(ctx, die):  # noqa: ARG001 (a modifier's step is called as step(ctx, die))
            test = predicate(op, as_number(known(ctx, value(ctx)), span, A_FACE))
            return (kind, once, test, span) if once is not None else (kind, test)

        return step

    def clamp(self, modifier: n.Clamp):
        """`min2`, `max5`: a step ("clamp", "min" or "max", value)."""
        bound, span = modifier.bound, modifier.span
        if isinstance(modifier.value, n.Literal):
            return ("clamp", bound, modifier.value.value)
        value = self.expr(modifier.value)

        def clamp(ctx, die):  # noqa: ARG001 (a modifier's step is called as step(ctx, die))
            limit = as_whole(ctx, known(ctx, value(ctx)), span, MIN_OR_MAX)  # a face
            return ("clamp", bound, limit)

        return clamp


TOP = "top"


def bind_tops(steps: tuple, die: Die) -> tuple:
    """`x` with no condition explodes on the die's top face, known once the die is."""
    if not any(len(s) > 2 and s[2] is TOP for s in steps):
        return steps
    top = predicate("=", die.high)
    return tuple((*s[:2], top, *s[3:]) if len(s) > 2 and s[2] is TOP else s for s in steps)
