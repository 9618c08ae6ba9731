"""Compiling lasting effects: the statements `effect`, `pass`, `end` and their reads.

The reads are the built-in functions `effects(...)`, `active(...)`, `effect_modifier(...)`.

The sheet keeps its lasting effects in one mapping (`effects Efectos on ... time ...`):
an effect's name → a record {modifier, targets, left, unit}, where `left` counts the first
unit of the effect's clock (2 minutes are 24 turns when a minute is 12 turns), so that
time passing in any unit of a clock is exact whole-number arithmetic.
"""

from __future__ import annotations

from dsl import nodes as n
from interpreter.compile.arithmetic import as_number, as_whole
from interpreter.errors import EvaluationError
from interpreter.runtime import known
from interpreter.values import Record, normalize, show


def effects_store(book) -> n.Effects | None:
    """The rulebook's store of lasting effects (the checker allows one), or None."""
    for field in book.fields.values():
        if isinstance(field, n.Effects):
            return field
    return None


def duration_text(store: n.Effects, base: str, left: int) -> str:
    """`left` units of `base` in the largest unit of its clock that measures it exactly."""
    best = (base, left)
    for clock in store.clocks:
        if clock[0].name != base:
            continue
        for unit in clock:
            _, length = store.unit(unit.name)
            if left % length == 0 and length >= store.unit(best[0])[1]:
                best = (unit.name, left // length)
    return f"{best[1]} {best[0]}"


class LastingEffects:
    """The lasting effects' handlers of the Compiler."""

    def st_effect(self, node: n.Effect):
        store = effects_store(self.book)
        name_fn = self.expr(node.name)
        modifier_fn = self.expr(node.modifier) if node.modifier is not None else None
        amount_fn = self.expr(node.amount)
        base, length = store.unit(node.unit)
        # a target is itself (declared, or a field's name), or a local naming a field
        naming = self.types.get(id(node), ())
        targets = tuple((t, not local) for (t, _), local in zip(node.targets, naming))
        unit, span = node.unit, node.span

        def effect(ctx):
            name = known(ctx, name_fn(ctx))
            if not isinstance(name, str):
                raise EvaluationError(f"an effect's name is a text, not {show(name)}", span)
            modifier = (
                as_number(known(ctx, modifier_fn(ctx)), node.modifier.span, "an effect's modifier")
                if modifier_fn is not None
                else 0
            )
            amount = as_whole(ctx, amount_fn(ctx), node.amount.span, "how long an effect lasts")
            on = tuple(t if declared else ctx.env[t] for t, declared in targets)
            if amount <= 0:
                if ctx.trace is not None:
                    ctx.step("note", f"{name}: lasts {amount} {unit}, no effect", span)
                return
            record = Record(
                {
                    "name": name,
                    "modifier": modifier,
                    "targets": on,
                    "left": amount * length,
                    "unit": base,
                },
                kind=store.name,
            )
            before = ctx.state.read(store.name).get(name)
            ctx.state.write((store.name, name), record)
            if ctx.trace is not None:
                what = f" {show(modifier)}" if modifier else ""
                where = f" on {', '.join(on)}" if on else ""
                replaces = " (in place of the one before)" if before is not None else ""
                ctx.step(
                    "change",
                    f"effect {name}{what}{where} for {amount} {unit}{replaces}",
                    span,
                    path=f"{store.name}.{name}",
                    before=before,
                    after=record,
                )

        return effect

    def st_passtime(self, node: n.PassTime):
        store = effects_store(self.book)
        amount_fn = self.expr(node.amount)
        base, length = store.unit(node.unit)
        unit, span = node.unit, node.span

        def pass_time(ctx):
            amount = as_whole(ctx, amount_fn(ctx), node.amount.span, "how much time passes")
            if amount < 0:
                raise EvaluationError(f"time does not go back ({amount} {unit})", span)
            elapsed = amount * length
            if ctx.trace is not None:
                ctx.step("note", f"pass {amount} {unit}", span)
            for name, effect in list(ctx.state.read(store.name).items()):
                if effect["unit"] != base or elapsed == 0:
                    continue
                left = effect["left"] - elapsed
                place = (store.name, name)
                if left <= 0:
                    ctx.state.remove(place)
                    if ctx.trace is not None:
                        ctx.step(
                            "change",
                            f"{name} ends",
                            span,
                            path=f"{store.name}.{name}",
                            before=effect,
                            after=None,
                        )
                    continue
                record = Record({**effect, "left": left}, kind=store.name)
                ctx.state.write(place, record)
                if ctx.trace is not None:
                    ctx.step(
                        "change",
                        f"{name}: {duration_text(store, base, left)} left",
                        span,
                        path=f"{store.name}.{name}",
                        before=effect,
                        after=record,
                    )

        return pass_time

    def st_endeffect(self, node: n.EndEffect):
        store = effects_store(self.book)
        name_fn = self.expr(node.name)
        span = node.span

        def end(ctx):
            name = known(ctx, name_fn(ctx))
            effect = ctx.state.read(store.name).get(name)
            if effect is None:
                if ctx.trace is not None:
                    ctx.step("note", f"end {show(name)}: it is not on", span)
                return
            ctx.state.remove((store.name, name))
            if ctx.trace is not None:
                ctx.step(
                    "change",
                    f"end {name}",
                    span,
                    path=f"{store.name}.{name}",
                    before=effect,
                    after=None,
                )

        return end

    def effect_read(self, node: n.Call):
        """`effects(target, ...)`: the sum of the modifiers of the effects on any of these
        targets (each effect once); `active(name)`; `effect_modifier(name)` (0 if not on)."""
        store = effects_store(self.book)
        name = node.function
        args = tuple(self.naming(a) for a in node.args)
        if name == "effects":

            def total(ctx):
                wanted = {known(ctx, a(ctx)) for a in args}
                return normalize(
                    sum(
                        e["modifier"]
                        for e in ctx.state.read(store.name).values()
                        if wanted.intersection(e["targets"])
                    )
                )

            return total
        (effect_name,) = args
        if name == "active":
            return lambda ctx: known(ctx, effect_name(ctx)) in ctx.state.read(store.name)

        def modifier(ctx):
            effect = ctx.state.read(store.name).get(known(ctx, effect_name(ctx)))
            return 0 if effect is None else effect["modifier"]

        return modifier
