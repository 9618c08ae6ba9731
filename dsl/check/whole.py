"""Checks of the whole rulebook: no call cycles, no nesting too deep, no definition unused."""

from __future__ import annotations

from dsl import nodes as n
from dsl.check.host import CheckerHost
from dsl.check.scope import CALL_NESTING, MAX_CALL_NESTING
from dsl.check.wording import kind_word
from dsl.messages import tr


class WholeChecks(CheckerHost):
    """Whole-rulebook checks (part of the Checker)."""

    def check_cycles(self) -> bool:
        """No definition may call itself, directly or through others: evaluation is total.
        (A walk with its own stack: a long chain of calls cannot exhaust Python's.) Returns
        whether it found a cycle."""
        state: dict[str, int] = {}  # 1: on the path being walked; 2: done
        reported = set()
        for root in sorted(self.calls):
            if state.get(root) is not None:
                continue
            state[root] = 1
            path, stack = [root], [iter(sorted(self.calls.get(root, ())))]
            while stack:
                callee = next(stack[-1], None)
                if callee is None:
                    state[path.pop()] = 2
                    stack.pop()
                elif state.get(callee) == 1:
                    cycle = [*path[path.index(callee) :], callee]
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
                    state[callee] = 1
                    path.append(callee)
                    stack.append(iter(sorted(self.calls.get(callee, ()))))
        return bool(reported)

    def check_nesting(self) -> None:
        """No definition nests deeper than MAX_CALL_NESTING, counting the expressions and
        statements of everything it calls where it calls them: so that checking,
        compiling and running it stays well within Python's stack. (Called when there is
        no cycle: the calls make a tree of finite depth.)"""
        cost: dict[str, int] = {}  # a definition's nesting with all it calls
        via: dict[str, str | None] = {}  # the callee through which it is deepest
        for root in sorted(self.calls):
            stack = [root]
            while stack:
                name = stack[-1]
                if name in cost:
                    stack.pop()
                    continue
                sites = self.sites.get(name, {})
                pending = [callee for callee in sites if callee not in cost]
                if pending:
                    stack.extend(pending)
                    continue
                best, step = self.nesting.get(name, 0), None
                for callee, depth in sites.items():
                    if depth + CALL_NESTING + cost[callee] > best:
                        best, step = depth + CALL_NESTING + cost[callee], callee
                cost[name], via[name] = best, step
                stack.pop()
        too_deep = {name for name, depth in cost.items() if depth > MAX_CALL_NESTING}
        called_by_too_deep = {c for name in too_deep for c in self.sites.get(name, {})}
        for name in sorted(too_deep - called_by_too_deep):
            chain = [name]
            while (step := via.get(chain[-1])) is not None:
                chain.append(step)
            if len(chain) > 8:
                chain = [*chain[:3], "…", *chain[-2:]]
            node = self.globals.get(name)
            self.error(
                tr(
                    "`{name}` nests {depth} levels deep with what it calls ({chain}); "
                    "at most {limit} (limit MAX_CALL_NESTING)",
                    name=name,
                    depth=cost[name],
                    chain=" → ".join(chain),
                    limit=MAX_CALL_NESTING,
                ),
                node.span if node is not None else None,
                tr("split a long chain of calls: let a value once, then pass it on"),
            )

    def check_unread_lets(self) -> None:
        """A `let` whose name nothing reads: most often a slip (a value computed twice,
        once by name and once again, or a name misspelt where it is read). Said only of a
        rulebook without errors: the errors come first, and may be why it is not read."""
        if any(d.severity == "error" for d in self.diagnostics):
            return
        for scope, let in self.let_scopes.values():
            if let.name not in scope.read and not let.name.startswith("_"):
                self.warning(
                    tr("`{name}` is given a value that is never read", name=let.name),
                    let.span,
                    tr("read it, or take the `let` away (a name starting with _ is not warned of)"),
                )

    def check_unused(self) -> None:
        # actions, checks and opposed checks are used by running them (`rulebook run`)
        for name, definition in self.globals.items():
            if isinstance(
                definition,
                n.Action
                | n.Check
                | n.Opposed
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
