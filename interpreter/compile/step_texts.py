"""Statements' trace steps: recorded cheaply, their texts written when read (`Later`)."""

from __future__ import annotations

import sys
from typing import Any

from dsl.errors import Span
from dsl.messages import Message, tr
from interpreter.compile.codegen import SWITCH
from interpreter.dice import KEPT, PoolRoll
from interpreter.roll_steps import dice_parts
from interpreter.shown import glimpse
from interpreter.state import Place, place_text
from interpreter.trace import JOINED, KEPT_STEPS, Later, Step, later_step, made_step, new_step
from interpreter.values import PLAIN_TYPES, Record, show

_append = list.append

# Each function makes, from values the run recorded (immutable: texts, numbers, records,
# places), what the statement's step says: a traced run records the function and its
# values (a `Later`), and pays for the words only if the step is shown.


def record(ctx, kind: str, text, span, data: dict | None, detail=None, verbose=False) -> None:
    """`Trace.wants` and `ctx.step` in one positional call, for the commonest steps of a
    traced run (a lookup, an if): kept when the trace has room (its parts cut to its
    length when read: `Trace.bounded`), else counted out."""
    trace = ctx.trace
    most = trace.most
    if most is not None and len(trace) >= most:
        trace.omitted += 1
        return
    step = new_step(Step)
    if data is None:
        data = {}
    step._r = (kind, text, None, data, ctx.depth, None, detail, verbose, span, trace.length)
    list.append(trace, step)


#: an unbounded trace's room, as the generated code tests it (`recording`)
NO_BOUND = sys.maxsize


def recording(ctx) -> tuple:
    """What a traced run's generated code records its steps with, read once per function
    (`codegen.traced`, `SWITCH.traced_steps`): the trace, its own `list.append`, its room
    (`Trace.most`, or NO_BOUND), the values' shown length, the bounded length of a
    statement's step and of a roll's (`Trace.bounded`), the dice's origin. (The code
    marks the trace flat with each tuple it puts in it: made a Step when read,
    `Trace.flat`.)"""
    trace = ctx.trace
    most, length = trace.most, trace.length
    return (
        trace,
        _append.__get__(trace),
        NO_BOUND if most is None else most,
        ctx.limits.shown_length,
        length,
        length if most is not None else None,
        ctx.roller.source.origin,
    )


def omitted(trace) -> None:
    """A step the trace has no room for, counted out (`Trace.wants`)."""
    trace.omitted += 1


def rolled_die(ctx, face: int, label: str, span) -> PoolRoll:
    """One plain die's roll (`d20`: a term without modifiers) from the face drawn, and its
    step, as its closure makes them (`compile.dice`, `dice.roll_pool`); of a traced run's
    generated code (`codegen.emit_values`)."""
    roll = PoolRoll(label, [[face, KEPT, False]], face)
    trace = ctx.trace
    if ctx.quiet:
        return roll
    most = trace.most
    if most is not None and len(trace) >= most:  # (`Trace.wants`)
        trace.omitted += 1
        return roll
    roll_step(ctx, trace, roll, span)
    return roll


def roll_step(ctx, trace, roll: PoolRoll, span) -> None:
    """A roll's step added (`Trace.append`, written out, where the trace has room: a
    bounded trace's steps cut to its length when read); of a traced run."""
    origin, length = ctx.roller.source.origin, ctx.limits.shown_length
    bounded = trace.length if trace.most is not None else None
    if SWITCH.lazy_steps:  # (made when read: `Step._m`; flat: `Trace.flat`)
        entry: Any = (dice_parts, roll, span, ctx.depth, origin, length, bounded)
        if SWITCH.flat_steps:
            trace.flat = True
        else:
            entry = later_step(entry)
    else:
        entry = made_step(dice_parts(roll, span, ctx.depth, origin, length, bounded))
    list.append(trace, entry)


def let_step(ctx, name: str, source: str, span, value) -> None:
    """A `let`'s step (`name = value`; its detail, the expression behind it), unless the
    value is a record, which has its own step (a check's, a table row's); of a traced
    run: its closure's and the generated code's (`codegen.emit_steps`)."""
    kind = type(value)  # (a Mapping: `isinstance` only for a type not plain)
    if kind is Record or (kind not in PLAIN_TYPES and isinstance(value, Record)):
        return
    trace = ctx.trace
    most = trace.most
    if most is not None and len(trace) >= most:
        trace.omitted += 1
        return
    # (its parts cut to the trace's length when read: `Trace.bounded`)
    length, depth, bounded = ctx.limits.shown_length, ctx.depth, trace.length
    if SWITCH.lazy_steps:  # (made when read: `Step._m`; flat: `Trace.flat`)
        entry: Any = (
            named_step,
            "let",
            name,
            source,
            value,
            length,
            depth,
            False,
            span,
            bounded,
        )
        if SWITCH.flat_steps:
            trace.flat = True
        else:
            entry = later_step(entry)
    else:
        parts = named_step("let", name, source, value, length, depth, False, span, bounded)
        entry = made_step(parts)
    list.append(trace, entry)


def set_step(ctx, name: str, source: str, span, new) -> None:
    """A local `set`'s step, of the working (--verbose): `x = 4`, as computed `x = x + 1 =
    4` (a let's words); of a traced run."""
    trace = ctx.trace  # (`Trace.wants` and `ctx.step`, written out)
    most = trace.most
    if most is not None and len(trace) >= most:
        trace.omitted += 1
        return
    length, depth, bounded = ctx.limits.shown_length, ctx.depth, trace.length
    if SWITCH.lazy_steps:
        entry: Any = (
            named_step,
            "set",
            name,
            source,
            new,
            length,
            depth,
            True,
            span,
            bounded,
        )
        if SWITCH.flat_steps:
            trace.flat = True
        else:
            entry = later_step(entry)
    else:
        entry = made_step(named_step("set", name, source, new, length, depth, True, span, bounded))
    list.append(trace, entry)


def named_step(
    kind: str, name: str, source: str, value, length: int, depth: int, verbose: bool, span, bounded
) -> tuple:
    """A let's or a set's step's parts (`Step._r`): `name = value`, its detail (the
    expression behind it), its data; `bounded`: a bounded trace's length."""
    text = Later(let_text, name, value, length)
    detail = Later(let_detail, name, source, value, length)
    data = {"name": name, "value": value}
    return (kind, text, None, data, depth, None, detail, verbose, span, bounded)


def let_text(name: str, value, length: int) -> Message:
    """A `let`'s step: `name = value` (the value cut short when long: `glimpse`)."""
    return Message.joined(let_parts(name, value, length), "")


def let_parts(name: str, value, length: int) -> list:
    return [name, " = ", glimpse(value, length)]


def let_detail(name: str, source: str, value, length: int) -> Message | None:
    """A `let`'s step as the rules compute it (`name = expression = value`), when the
    expression is not the value itself."""
    parts = let_detail_parts(name, source, value, length)
    return None if parts is None else Message.joined(parts, "")


def let_detail_parts(name: str, source: str, value, length: int) -> list | None:
    shown = glimpse(value, length)
    if source == show(shown):
        return None
    return [name, " = ", source, " = ", shown]


JOINED[let_text], JOINED[let_detail] = let_parts, let_detail_parts


def if_step(ctx, condition: Span, decided: bool) -> None:
    """An `if`'s condition tested (verbose: its effect is in the steps that follow); of a
    traced run."""
    trace = ctx.trace  # (`record`, written out: an if's commonest step of all)
    most = trace.most
    if most is not None and len(trace) >= most:
        trace.omitted += 1
        return
    if SWITCH.lazy_steps:  # (made when read: `Step._m`; flat: `Trace.flat`)
        entry: Any = (tested_step, condition, decided, ctx.depth, trace.length)
        if SWITCH.flat_steps:
            trace.flat = True
        else:
            entry = later_step(entry)
    else:
        entry = made_step(tested_step(condition, decided, ctx.depth, trace.length))
    list.append(trace, entry)


def note_step(ctx, value, span) -> None:
    """A `note`'s step (its value, written when read); of a traced run: its closure's
    (`Statements.st_note`); the generated code puts `noted_step`'s entry itself."""
    trace = ctx.trace  # (`record`, written out)
    most = trace.most
    if most is not None and len(trace) >= most:
        trace.omitted += 1
        return
    length = ctx.limits.shown_length
    if SWITCH.lazy_steps:  # (made when read: `Step._m`; flat: `Trace.flat`)
        entry: Any = (noted_step, value, length, ctx.depth, span, trace.length)
        if SWITCH.flat_steps:
            trace.flat = True
        else:
            entry = later_step(entry)
    else:
        entry = made_step(noted_step(value, length, ctx.depth, span, trace.length))
    list.append(trace, entry)


def noted_step(value, length: int, depth: int, span, bounded) -> tuple:
    """A note's step's parts (`Step._r`): its value shown, its data."""
    text = Later(note_text, value, length)
    return ("note", text, None, {"note": value}, depth, None, None, False, span, bounded)


def tested_step(condition: Span, decided: bool, depth: int, bounded) -> tuple:
    """An if's step's parts (`Step._r`)."""
    text = Later(if_text, condition, decided)
    return ("if", text, None, {}, depth, None, None, True, condition, bounded)


def if_text(condition: Span, value: bool) -> Message:
    """An `if`'s step (verbose): the condition as written, and what it gave."""
    return tr("if {condition} → {value}", condition=condition.text, value=value)


#: what a change of a resource says in the trace, by its verb
CHANGED = {
    "spend": tr("spend {amount} {place}: {before} → {after}"),
    "gain": tr("gain {amount} {place}: {before} → {after}"),
    "lose": tr("lose {amount} {place}: {before} → {after}"),
}


def change_text(verb: str, amount: int, where: Place, before, after, stopped: bool, bound):
    """`spend 2 Esencia: 5 → 3`, and where it stopped at a bound (`bound`: that bound)."""
    text = CHANGED[verb].fill(amount=amount, place=place_text(where), before=before, after=after)
    note: Message | str = ""
    if stopped and verb == "gain":
        note = tr(" (capped at its maximum {high})", high=bound)
    elif stopped:
        note = tr(" (stops at its minimum {low})", low=bound)
    return Message.joined([text, note], "")


def set_text(where: Place, before, after, new, length: int) -> Message:
    """`set Vida: 3 → 5`, and the value asked for when it was kept within bounds."""
    if after == new:
        return tr(
            "set {place}: {before} → {after}",
            place=place_text(where),
            before=glimpse(before, length),
            after=glimpse(after, length),
        )
    return tr(
        "set {place}: {before} → {after} (kept within its bounds, not {value})",
        place=place_text(where),
        before=before,
        after=after,
        value=new,
    )


def match_text(subject: str, value, length: int, otherwise: bool) -> Message:
    """A `match`'s step (verbose): the subject as written, its value, and `→ else`."""
    shown = glimpse(value, length)
    if otherwise:
        return tr("match {subject} = {value} → else", subject=subject, value=shown)
    return tr("match {subject} = {value}", subject=subject, value=shown)


def note_text(value, length: int) -> str:
    """A `note`'s step: its value, cut short when long."""
    return show(glimpse(value, length))


def entry_text(name: str, catalog: str, entry, length: int) -> Message:
    """An entry added to a catalog: `add Espada to Objetos: {...}`."""
    return tr(
        "add {name} to {catalog}: {entry}",
        name=glimpse(name, length),
        catalog=catalog,
        entry=glimpse(entry, length),
    )


def item_text(value, where: Place, length: int) -> Message:
    """A text added to a list on the sheet: `add veneno to Estados`."""
    return tr("add {value} to {place}", value=glimpse(value, length), place=place_text(where))


def acting_text(label: str) -> Message:
    """The step before what a run does on another character's sheet: `as Orco:`."""
    return tr("as {who}:", who=label)


def grouped_rounds(ctx, rounds: list, span) -> None:
    """Put each roll of a tied opposed check under a heading of its own (`tie (15 - 15),
    roll again`), its dice one level deeper."""
    trace = ctx.trace
    ends = [start for start, _ in rounds[1:]] + [len(trace)]
    for (start, heading), end in reversed(list(zip(rounds, ends))):
        kind = "tie" if end != len(trace) else "round"
        head = Step.at(kind, heading, span, {}, ctx.depth)
        trace[start:end] = [head] + [step.deeper() for step in trace[start:end]]


#: (a let's, a set's, an if's and a note's steps: of their arguments alone)
KEPT_STEPS.update({named_step, tested_step, noted_step})
