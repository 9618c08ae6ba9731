"""Checks of other characters: their fields read (`objetivo.Vida`), calls made for them."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.errors import did_you_mean
from dsl.functions import FUNCTIONS
from dsl.messages import tr
from dsl.rulebook import Binding

#: the kinds of sheet field another character's sheet can be read (and changed) at
FIELD_KINDS = (n.Stat, n.Resource, n.Counter, n.Flag, n.TextField, n.ListField)


class CharacterChecks(CheckerHost):
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
        builtin = definition is None and name in FUNCTIONS
        if builtin or (definition is not None and not isinstance(definition, callable_kinds)):
            self.error(
                tr(
                    "{name} is not a check, an action, a formula or a roll that another "
                    "character could make",
                    name=name,
                ),
                node.call.name_span,
            )
        type_ = self.expr(node.call, scope)
        if isinstance(definition, callable_kinds):
            self.read_for_another(node, definition)
        return type_

    def read_for_another(self, node: n.CharacterCall, definition) -> None:
        """A field read for a number parameter of a call made for another character
        (`rival.roll_under(Observation)`, `value: int`) is read on the caller's sheet,
        where a skill named for another character is almost always meant on its own: a
        warning naming both readings. (A parameter naming a field, `s: skill`, is given
        the name, read on the other character's sheet: no warning.)"""
        given = dict(zip((p.name for p in definition.params), node.call.args))
        given.update(node.call.named)
        who = node.character.span.text
        for param in definition.params:
            arg = given.get(param.name)
            if arg is None or not isinstance(arg, n.Name):
                continue
            if self.type_of(param.type).kind == "ref":
                continue  # the name is given: read on the other character's sheet
            binding = self.bindings.get(id(arg))
            read = self.types.get(id(arg))
            if binding is None or not isinstance(read, t.Type) or read.kind != "ref":
                continue
            if binding.kind not in ("field", "derived", "local"):
                continue
            if binding.kind == "local":  # a parameter naming a field, read as a number
                self.warning(
                    tr(
                        "`{arg}` names a {kind}, read on this character's sheet, not on "
                        "{who}'s: {name} takes `{param}` as a number",
                        arg=arg.name,
                        kind=read.ref,
                        who=who,
                        name=node.call.function,
                        param=param.name,
                    ),
                    arg.span,
                    tr(
                        "for {who}'s own, give {name} a parameter that names a field "
                        "(`{param}: {kind}`)",
                        who=who,
                        name=node.call.function,
                        param=param.name,
                        kind=read.ref,
                    ),
                )
                continue
            self.warning(
                tr(
                    "`{arg}` is this character's {arg}, not {who}.{arg}: {name} takes "
                    "`{param}` as a number, read on the caller's sheet",
                    arg=arg.name,
                    who=who,
                    name=node.call.function,
                    param=param.name,
                ),
                arg.span,
                tr(
                    "for {who}'s own, write `{who}.{arg}`; for this character's, "
                    "`{arg} + 0` says so",
                    who=who,
                    arg=arg.name,
                ),
            )

    def character_param(self, param: n.Param) -> None:
        """The acting character is `self` (in a run's outcome and its journal)."""
        if param.name == "self":
            self.error(
                tr("`self` is the character acting: name the other character otherwise"),
                param.span,
            )
