"""Compiling lasting effects: the statements `effect`, `pass`, `end` and their reads.

The reads are the built-in functions `effects(...)`, `active(...)`, `effect_modifier(...)`.
The sheet keeps its lasting effects in one mapping (`effects Efectos on ... time ...`):
an effect's name → a record {modifier, targets, left, unit}, where `left` counts the first
unit of the effect's clock (2 minutes are 24 turns when a minute is 12 turns), so that
time passing in any unit of a clock is exact whole-number arithmetic.
"""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import Counted, tr, tr_n
from interpreter.bounds import bounded_number, check_length
from interpreter.compile.arithmetic import as_number, as_whole
from interpreter.compile.host import CompilerHost
from interpreter.errors import EvaluationError
from interpreter.runtime import known
from interpreter.shown import glimpse
from interpreter.trace import Later
from interpreter.values import Record, normalize

NAME_IS_TEXT = tr("an effect's name is a text, not {value}")
MODIFIER = tr("an effect's modifier")
LENGTH = tr("how long an effect lasts")
PASSING = tr("how much time passes")
NO_EFFECT = tr("{name}: lasts {amount} {unit}, no effect")
APPLIED = tr("effect {name}{modifier}{targets} for {amount} {unit}{replaces}")
MODIFIER_PART = tr(" {modifier}")
TARGETS_PART = tr(" on {targets}")
REPLACES = tr(" (in place of the one before)")
PASS = tr("pass {amount} {unit}")
NO_RETURN = tr("time does not go back ({amount} {unit})")
ENDS = tr("{name} ends")
END = tr("end {name}")
NOT_ON = tr("end {name}: it is not on")


def effects_store(book) -> n.Effects:
    """The rulebook's store of lasting effects (the checker allows one, and refuses a
    statement or a function of lasting effects in a rulebook without it)."""
    for field in book.fields.values():
        if isinstance(field, n.Effects):
            return field
    raise AssertionError("lasting effects compiled in a rulebook without their store")


def in_largest_unit(store: n.Effects, base: str, left: int) -> tuple:
    """(amount, unit): `left` units of `base` in the largest unit of its clock that
    measures them exactly (24 turns are 2 minutes)."""
    best = (left, base, 1)
    for clock in store.clocks:
        if clock[0].name != base:
            continue
        for unit in clock:
            _, length = store.unit(unit.name)
            if left % length == 0 and length >= best[2]:
                best = (left // length, unit.name, length)
    return best[0], best[1]


class LastingEffects(CompilerHost):
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
                raise EvaluationError(NAME_IS_TEXT.fill(value=name), span)
            modifier = (
                as_number(known(ctx, modifier_fn(ctx)), node.modifier.span, MODIFIER)
                if modifier_fn is not None
                else 0
            )
            amount = as_whole(ctx, amount_fn(ctx), node.amount.span, LENGTH)
            on = tuple(t if declared else ctx.env[t] for t, declared in targets)
            shown = glimpse(name, ctx.limits.shown_length)
            if amount <= 0:
                if ctx.trace is not None and ctx.trace.wants():
                    ctx.step("note", Later(_counted, NO_EFFECT, amount, unit, name=shown), span)
                return
            fields = {"name": name, "modifier": modifier, "targets": on}
            record = Record({**fields, "left": amount * length, "unit": base}, kind=store.name)
            effects = ctx.state.read(store.name)
            before = effects.get(name)
            if before is None:  # one more: the sheet's effects are a list too
                check_length(len(effects) + 1, ctx.limits, span)
            ctx.state.write((store.name, name), record)
            if ctx.trace is not None and ctx.trace.wants():
                text = Later(_applied, shown, modifier, on, amount, unit, before is not None)
                ctx.step(
                    "change",
                    text,
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
            amount = as_whole(ctx, amount_fn(ctx), node.amount.span, PASSING)
            if amount < 0:
                raise EvaluationError(
                    NO_RETURN.fill(amount=amount, unit=Counted(unit, amount)), span
                )
            elapsed = amount * length
            if ctx.trace is not None and ctx.trace.wants():
                ctx.step("note", Later(_counted, PASS, amount, unit), span)
            effects = list(ctx.state.read(store.name).items())
            ctx.count(len(effects), span)  # it goes through every effect on
            for name, effect in effects:
                if effect["unit"] != base or elapsed == 0:
                    continue
                left = effect["left"] - elapsed
                place = (store.name, name)
                path = f"{store.name}.{name}"
                if left <= 0:
                    ctx.state.remove(place)
                    if ctx.trace is not None and ctx.trace.wants():
                        ctx.step(
                            "change",
                            Later(_named, ENDS, name, ctx.limits.shown_length),
                            span,
                            path=path,
                            before=effect,
                            after=None,
                        )
                    continue
                record = Record({**effect, "left": left}, kind=store.name)
                ctx.state.write(place, record)
                if ctx.trace is not None and ctx.trace.wants():
                    room = ctx.limits.shown_length
                    text = Later(_left, store, base, left, name, room)
                    ctx.step("change", text, span, path=path, before=effect, after=record)

        return pass_time

    def st_endeffect(self, node: n.EndEffect):
        store = effects_store(self.book)
        name_fn = self.expr(node.name)
        span = node.span

        def end(ctx):
            name = known(ctx, name_fn(ctx))
            effect = ctx.state.read(store.name).get(name)
            shown = glimpse(name, ctx.limits.shown_length)
            if effect is None:
                if ctx.trace is not None and ctx.trace.wants():
                    ctx.step("note", Later(NOT_ON.fill, name=shown), span)
                return
            ctx.state.remove((store.name, name))
            if ctx.trace is not None and ctx.trace.wants():
                ctx.step(
                    "change",
                    Later(END.fill, name=shown),
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
                effects = ctx.state.read(store.name)
                ctx.count(len(effects), node.span)  # it goes through every effect on
                value = sum(
                    e["modifier"] for e in effects.values() if wanted.intersection(e["targets"])
                )
                return normalize(bounded_number(value, ctx.limits, node.span))

            return total
        (effect_name,) = args
        if name == "active":
            return lambda ctx: known(ctx, effect_name(ctx)) in ctx.state.read(store.name)

        def modifier(ctx):
            effect = ctx.state.read(store.name).get(known(ctx, effect_name(ctx)))
            return 0 if effect is None else effect["modifier"]

        return modifier


# A step's words, written when it is read (`Later`): from the values the run had.


def _counted(message, amount: int, unit: str, **more):
    """`pass 2 minutes`, `... for 0 rounds: no effect`: a message of an amount of a unit."""
    return message.fill(amount=amount, unit=Counted(unit, amount), **more)


def _applied(shown, modifier, on: tuple, amount: int, unit: str, replaces: bool):
    """An effect put on: its name, modifier, targets, how long, whether it replaced one."""
    return APPLIED.fill(
        name=shown,
        modifier=MODIFIER_PART.fill(modifier=modifier) if modifier else "",
        targets=TARGETS_PART.fill(targets=", ".join(on)) if on else "",
        amount=amount,
        unit=Counted(unit, amount),
        replaces=REPLACES if replaces else "",
    )


def _named(message, name: str, length: int):
    """An effect's message by its name (cut short when long)."""
    return message.fill(name=glimpse(name, length))


def _left(store, base, left: int, name: str, length: int):
    """`Bendición: 2 rounds left`, in the largest unit that counts it whole."""
    amount_left, unit_left = in_largest_unit(store, base, left)
    return tr_n(
        "{name}: {n} {unit} left",
        "{name}: {n} {unit} left",
        amount_left,
        name=glimpse(name, length),
        unit=Counted(unit_left, amount_left),
    )
