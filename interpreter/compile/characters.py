"""Compiling what other characters do: their fields read and changed, calls made for them.

A character parameter's value is a `runtime.Character`. Its fields are places on its
own working sheet (`runtime.Elsewhere`): read, spent and set through the run's state,
which keeps one state per character. A call made for it (`objetivo.salvación(...)`)
takes its arguments on the caller's sheet, then runs with the character's sheet as its
own: every field it names is that character's.
"""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compile.arithmetic import tuple_of
from interpreter.compile.host import CompilerHost
from interpreter.compile.step_texts import acting_text
from interpreter.dice import Tray
from interpreter.errors import EvaluationError
from interpreter.runtime import known
from interpreter.state import Character, Elsewhere
from interpreter.trace import Later


def character_of(ctx, value, span) -> Character:
    """The character a value is (a parameter not given is `none`: an error here)."""
    value = known(ctx, value)
    if type(value) is not Character:
        raise EvaluationError(tr("no character was given for {what}", what=span.text), span)
    return value


def on_sheet_of(ctx, character: Character, run):
    """run(ctx) with the character's working sheet as the run's own."""
    saved = ctx.state
    ctx.state = saved.of(character)
    tray = ctx.roller if isinstance(ctx.roller, Tray) else None  # real dice: say whose
    whose = tray.who if tray is not None else None
    if tray is not None:
        tray.who = character.label
    try:
        return run(ctx)
    finally:
        ctx.state = saved
        if tray is not None:
            tray.who = whose


class Characters(CompilerHost):
    """The Compiler's handlers of other characters (part of the Compiler)."""

    def character_place(self, node: n.Field):
        """`objetivo.Vida` as a place: on that character's sheet."""
        who, name, span = self.expr(node.subject), node.name, node.subject.span
        return lambda ctx: Elsewhere(character_of(ctx, who(ctx), span), name)

    def character_field(self, node: n.Field):
        """`objetivo.Vida` as a value: read on that character's sheet."""
        definition = self.bindings[id(node)].node
        if isinstance(definition, n.Derived):
            who, span, derived = self.expr(node.subject), node.subject.span, self.derived(node.name)
            return lambda ctx: on_sheet_of(ctx, character_of(ctx, who(ctx), span), derived)
        place = self.character_place(node)
        return lambda ctx: ctx.state.read(place(ctx))

    def ex_charactercall(self, node: n.CharacterCall):
        """The call's arguments on the caller's sheet; the call on the character's."""
        call = node.call
        binding = self.bindings[id(call)]
        values = tuple_of(self.arguments(call, binding.node.params))
        target = self.callable_of(binding)
        who, span, call_span = self.expr(node.character), node.character.span, call.span

        def call_as(ctx):
            character = character_of(ctx, who(ctx), span)
            args = values(ctx)
            if ctx.trace is None or not ctx.trace.wants():
                return on_sheet_of(ctx, character, lambda ctx: target(ctx, args, call_span))
            ctx.step("character", Later(acting_text, character.label), span, role=character.role)
            ctx.depth += 1  # what it does, under whom it does it
            try:
                return on_sheet_of(ctx, character, lambda ctx: target(ctx, args, call_span))
            finally:
                ctx.depth -= 1

        return call_as
