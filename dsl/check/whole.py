"""Checks of the whole rulebook: no definition calls itself, every definition is used."""

from __future__ import annotations

from dsl import nodes as n
from dsl.check.wording import kind_word
from dsl.messages import tr


class WholeChecks:
    """Whole-rulebook checks (part of the Checker)."""

    def check_cycles(self) -> None:
        """No definition may call itself, directly or through others: evaluation is total."""
        state: dict[str, int] = {}
        reported = set()

        def visit(name: str, path: list[str]) -> None:
            state[name] = 1
            for callee in sorted(self.calls.get(name, ())):
                if state.get(callee) == 1:
                    cycle = [*path[path.index(callee) :], callee] if callee in path else [callee]
                    key = frozenset(cycle)
                    if key not in reported:
                        reported.add(key)
                        node = self.globals.get(callee)
                        self.error(
                            tr(
                                "{callee} calls itself (through {join}); rules must always finish",
                                callee=callee,
                                join=" → ".join(cycle),
                            ),
                            node.span if node is not None else None,
                        )
                elif state.get(callee) is None:
                    visit(callee, [*path, callee])
            state[name] = 2

        for name in sorted(self.calls):
            if state.get(name) is None:
                visit(name, [name])

    def check_unused(self) -> None:
        for name, definition in self.globals.items():
            if isinstance(
                definition,
                n.Action
                | n.Stat
                | n.Resource
                | n.Counter
                | n.Flag
                | n.TextField
                | n.ListField
                | n.Catalog
                | n.Effects
                | n.Derived,
            ):
                continue
            if name not in self.used:
                what = kind_word(definition)
                self.warning(
                    tr("{what} `{name}` is never used", what=what, name=name), definition.span
                )
