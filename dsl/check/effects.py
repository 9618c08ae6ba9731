"""Checks of lasting effects: the sheet's store and clocks, `effect`, `pass`, `end`, reads."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.scope import Scope
from dsl.errors import Span, did_you_mean
from dsl.rulebook import Binding

#: the built-in functions that read lasting effects: name → the type they give
EFFECT_READS = {"effects": t.NUMBER, "active": t.BOOL, "effect_modifier": t.NUMBER}


class EffectChecks:
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
            self.error("a sheet keeps its lasting effects in one place", item.span)
        for target in set(item.targets):
            if item.targets.count(target) > 1:
                self.error(f"effects {item.name} lists the target `{target}` twice", item.span)
        seen: set = set()
        for clock in item.clocks:
            earlier: set = set()
            for unit in clock:
                if unit.name in seen:
                    self.error(f"the unit of time `{unit.name}` is declared twice", unit.span)
                seen.add(unit.name)
                if unit is clock[0]:
                    if unit.of is not None:
                        self.error(
                            f"`{unit.name}` is the first unit of its clock: the others are "
                            "measured in it, it has no length of its own",
                            unit.span,
                        )
                elif unit.of is None:
                    self.error(
                        f"`{unit.name}` needs its length in an earlier unit of its clock "
                        f"(`{unit.name} = 12 {clock[0].name}`), or a `time` of its own",
                        unit.span,
                    )
                elif unit.of not in earlier:
                    self.error(
                        f"`{unit.name}` is measured in `{unit.of}`, which is not an earlier "
                        "unit of the same clock",
                        unit.span,
                        did_you_mean(unit.of, sorted(earlier)),
                    )
                elif not (isinstance(unit.count, int) and unit.count >= 1):
                    self.error(
                        f"`{unit.name}` lasts a whole number of `{unit.of}` (1 or more)",
                        unit.span,
                    )
                earlier.add(unit.name)

    def store_for(self, span: Span) -> n.Effects | None:
        store = self.effects_store()
        if store is None:
            self.error(
                "the sheet keeps no lasting effects",
                span,
                "declare them in the sheet: `effects Efectos on acciones time turno`",
            )
        return store

    def known_unit(self, store: n.Effects, unit: str, span: Span) -> None:
        if store.unit(unit) is None:
            units = [u.name for clock in store.clocks for u in clock]
            self.error(
                f"unknown unit of time `{unit}`",
                span,
                did_you_mean(unit, units) or "units: " + ", ".join(units),
            )

    def st_effect(self, node: n.Effect, scope: Scope) -> None:
        self.want(node.name, scope, t.TEXT, "an effect's name")
        if node.modifier is not None:
            self.want(node.modifier, scope, t.NUMBER, "an effect's modifier")
        self.want(node.amount, scope, t.NUMBER, "how long an effect lasts")
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
                naming.append(True)
                continue
            naming.append(False)
            if target in store.targets or target in self.fields:
                continue
            self.error(
                f"`{target}` is not one of the targets of {store.name}",
                span,
                did_you_mean(target, list(store.targets))
                or "targets: " + ", ".join(store.targets) + ", or a sheet field",
            )
        self.types[id(node)] = tuple(naming)

    def st_passtime(self, node: n.PassTime, scope: Scope) -> None:
        self.want(node.amount, scope, t.NUMBER, "how much time passes")
        store = self.store_for(node.span)
        if store is not None:
            self.use(store.name)
            self.known_unit(store, node.unit, node.unit_span)

    def st_endeffect(self, node: n.EndEffect, scope: Scope) -> None:
        self.want(node.name, scope, t.TEXT, "the name of the effect that ends")
        store = self.store_for(node.span)
        if store is not None:
            self.use(store.name)

    def effect_read(self, node: n.Call, scope: Scope) -> t.Type:
        """`effects(target, ...)`, `active(name)`, `effect_modifier(name)`."""
        name = node.function
        self.bindings[id(node)] = Binding("builtin", name)
        if node.named:
            self.error(f"{name} takes no named arguments", node.span)
        store = self.store_for(node.span)
        if name != "effects":
            if len(node.args) != 1:
                self.error(f"{name} takes 1 argument (an effect's name)", node.span)
            for arg in node.args:
                self.want(arg, scope, t.TEXT, "an effect's name")
            return EFFECT_READS[name]
        if not node.args:
            self.error("effects(...) takes the targets it sums the modifiers of", node.span)
        for arg in node.args:
            type_ = self.expr(arg, scope)
            if isinstance(arg, n.Literal) and isinstance(arg.value, str):
                if (
                    store is not None
                    and arg.value not in store.targets
                    and arg.value not in self.fields
                ):
                    self.error(
                        f'"{arg.value}" is not one of the targets of {store.name}',
                        arg.span,
                        did_you_mean(arg.value, [*store.targets, *self.fields])
                        or "targets: " + ", ".join(store.targets) + ", or a sheet field",
                    )
            elif not (type_.kind == "ref" or t.fits(type_, t.TEXT)):
                self.error(
                    "effects(...) takes targets: their names, or a value naming a field",
                    arg.span,
                )
        if store is not None:
            self.use(store.name)
        return t.NUMBER
