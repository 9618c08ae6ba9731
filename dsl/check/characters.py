"""Checks of other characters: their fields read (`objetivo.Vida`), calls made for them."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.scope import BUILTINS, Scope
from dsl.errors import did_you_mean
from dsl.messages import tr
from dsl.rulebook import Binding

#: the kinds of sheet field another character's sheet can be read (and changed) at
FIELD_KINDS = (n.Stat, n.Resource, n.Counter, n.Flag, n.TextField, n.ListField)


class CharacterChecks:
    """The checks of other characters' fields and calls (part of the Checker)."""

    def character_field(self, node: n.Field) -> t.Type:
        """`objetivo.Vida`: a field of another character's sheet, typed as the same field
        of one's own (a place that can change, or a derived value)."""
        definition = self.fields.get(node.name) or self.derived.get(node.name)
        if isinstance(definition, n.Resource) and definition.key_group is not None:
            definition = None  # one pool per member: not reachable on another sheet yet
        if not isinstance(definition, (*FIELD_KINDS, n.Derived)):
            names = [k for k, f in self.fields.items() if isinstance(f, FIELD_KINDS)]
            self.error(
                tr("the sheet has no field `{name}`", name=node.name),
                node.span,
                did_you_mean(node.name, [*names, *self.derived]),
            )
            return t.ANY
        self.use(node.name)
        self.bindings[id(node)] = Binding("character_field", node.name, definition)
        if isinstance(definition, n.Derived):
            return t.NUMBER
        return t.ref(n.kind_of(definition))

    def ex_charactercall(self, node: n.CharacterCall, scope: Scope) -> t.Type:
        """`objetivo.salvación(Destreza)`: what the call gives, made on that sheet."""
        who = self.expr(node.character, scope)
        if who.kind not in ("character", "any"):
            self.error(
                tr(
                    "{subject} is {kind}, not a character: only a character's sheet can "
                    "make a call",
                    subject=node.character.span.text,
                    kind=t.value_of(who).describe(),
                ),
                node.character.span,
            )
        name = node.call.function
        callable_kinds = n.Formula | n.Check | n.Opposed | n.Action | n.RollDef
        definition = self.globals.get(name)
        builtin = definition is None and name in BUILTINS
        if builtin or (definition is not None and not isinstance(definition, callable_kinds)):
            self.error(
                tr(
                    "{name} is not a check, an action, a formula or a roll that another "
                    "character could make",
                    name=name,
                ),
                node.call.name_span,
            )
        return self.expr(node.call, scope)

    def character_param(self, param: n.Param) -> None:
        """The acting character is `self` (in a run's outcome and its journal)."""
        if param.name == "self":
            self.error(
                tr("`self` is the character acting: name the other character otherwise"),
                param.span,
            )
