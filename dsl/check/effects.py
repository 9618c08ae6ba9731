"""Checks of lasting effects: the sheet's store and clocks, `effect`, `pass`, `end`, reads."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.errors import Span, did_you_mean
from dsl.functions import FUNCTIONS
from dsl.messages import tr
from dsl.rulebook import Binding

#: what each part of the statements is, for the type errors
EFFECT_NAME = tr("an effect's name")
EFFECT_MODIFIER = tr("an effect's modifier")
EFFECT_LENGTH = tr("how long an effect lasts")
TIME_PASSING = tr("how much time passes")
ENDING = tr("the name of the effect that ends")


class EffectChecks(CheckerHost):
    """Lasting effects' checks (part of the Checker)."""

    def effects_store(self) -> n.Effects | None:
        """The sheet's one store of lasting effects, if it declares one."""
        for field in self.fields.values():
            if isinstance(field, n.Effects):
                return field
        return None

    def effects_item(self, item: n.Effects) -> None:
        stores = [f for f in self.fields.values() if isinstance(f, n.Effects)]
        if stores[0] is not item:
            self.error(tr("a sheet keeps its lasting effects in one place"), item.span)
        for target in set(item.targets):
            if item.targets.count(target) > 1:
                self.error(
                    tr(
                        "effects {store} lists the target `{target}` twice",
                        store=item.name,
                        target=target,
                    ),
                    item.span,
                )
        seen: set = set()
        for clock in item.clocks:
            self.clock(clock, seen)

    def clock(self, clock: tuple, seen: set) -> None:
        earlier: set = set()
        first = clock[0].name
        for unit in clock:
            name = unit.name
            if name in seen:
                self.error(tr("the unit of time `{unit}` is declared twice", unit=name), unit.span)
            seen.add(name)
            if unit is clock[0]:
                if unit.of is not None:
                    self.error(
                        tr(
                            "`{unit}` is the first unit of its clock: the others are measured "
                            "in it, it has no length of its own",
                            unit=name,
                        ),
                        unit.span,
                    )
            elif unit.of is None:
                self.error(
                    tr(
                        "`{unit}` needs its length in an earlier unit of its clock "
                        "(`{unit} = 12 {first}`), or a `time` of its own",
                        unit=name,
                        first=first,
                    ),
                    unit.span,
                )
            elif unit.of not in earlier:
                self.error(
                    tr(
                        "`{unit}` is measured in `{of}`, which is not an earlier unit of the "
                        "same clock",
                        unit=name,
                        of=unit.of,
                    ),
                    unit.span,
                    did_you_mean(unit.of, sorted(earlier)),
                )
            elif not (isinstance(unit.count, int) and unit.count >= 1):
                self.error(
                    tr(
                        "`{unit}` lasts a whole number of `{of}` (1 or more)", unit=name, of=unit.of
                    ),
                    unit.span,
                )
            earlier.add(name)

    def store_for(self, span: Span) -> n.Effects | None:
        store = self.effects_store()
        if store is None:
            self.error(
                tr("the sheet keeps no lasting effects"),
                span,
                tr("declare them in the sheet: `effects Efectos on acciones time turno`"),
            )
        return store

    def known_unit(self, store: n.Effects, unit: str, span: Span) -> None:
        if store.unit(unit) is None:
            units = [u.name for clock in store.clocks for u in clock]
            self.error(
                tr("unknown unit of time `{unit}`", unit=unit),
                span,
                did_you_mean(unit, units) or tr("units: {units}", units=", ".join(units)),
            )

    def not_a_target(self, store: n.Effects, target: str, span: Span) -> None:
        self.error(
            tr("`{target}` is not one of the targets of {store}", target=target, store=store.name),
            span,
            did_you_mean(target, [*store.targets, *self.fields])
            or tr("targets: {targets}, or a sheet field", targets=", ".join(store.targets)),
        )

    def st_effect(self, node: n.Effect, scope: Scope) -> None:
        self.want(node.name, scope, t.TEXT, EFFECT_NAME)
        if node.modifier is not None:
            self.want(node.modifier, scope, t.NUMBER, EFFECT_MODIFIER)
        self.want(node.amount, scope, t.NUMBER, EFFECT_LENGTH)
        store = self.store_for(node.span)
        if store is None:
            return
        self.use(store.name)
        self.known_unit(store, node.unit, node.unit_span)
        # Each target is a local naming a field (its field's name is the target), a target
        # the store declares, or a sheet field's name; the compiler reads which from here.
        naming = []
        for target, span in node.targets:
            local = scope.lookup(target)
            if local is not None and local[1].kind == "ref":
                scope.note_read(target)
                naming.append(True)
                continue
            naming.append(False)
            if target not in store.targets and target not in self.fields:
                self.not_a_target(store, target, span)
        self.types[id(node)] = tuple(naming)

    def st_passtime(self, node: n.PassTime, scope: Scope) -> None:
        self.want(node.amount, scope, t.NUMBER, TIME_PASSING)
        store = self.store_for(node.span)
        if store is not None:
            self.use(store.name)
            self.known_unit(store, node.unit, node.unit_span)

    def st_endeffect(self, node: n.EndEffect, scope: Scope) -> None:
        self.want(node.name, scope, t.TEXT, ENDING)
        store = self.store_for(node.span)
        if store is not None:
            self.use(store.name)

    def effect_read(self, node: n.Call, scope: Scope) -> t.Type:
        """`effects(target, ...)`, `active(name)`, `effect_modifier(name)`."""
        name = node.function
        self.bindings[id(node)] = Binding("builtin", name)
        if node.named:
            self.error(tr("{function} takes no named arguments", function=name), node.span)
        store = self.store_for(node.span)
        if name != "effects":
            if len(node.args) != 1:
                self.error(
                    tr("{function} takes 1 argument (an effect's name)", function=name),
                    node.span,
                )
            for arg in node.args:
                self.want(arg, scope, t.TEXT, EFFECT_NAME)
            result = FUNCTIONS[name].result  # (None: a type rule's, which these have not)
            return result if result is not None else t.ANY
        if not node.args:
            self.error(tr("effects(...) takes the targets it sums the modifiers of"), node.span)
        for arg in node.args:
            type_ = self.expr(arg, scope)
            if isinstance(arg, n.Literal) and isinstance(arg.value, str):
                known = arg.value in store.targets or arg.value in self.fields if store else True
                if store is not None and not known:
                    self.not_a_target(store, arg.value, arg.span)
            elif not (type_.kind == "ref" or t.fits(type_, t.TEXT)):
                self.error(
                    tr("effects(...) takes targets: their names, or a value naming a field"),
                    arg.span,
                )
        if store is not None:
            self.use(store.name)
        return t.NUMBER
