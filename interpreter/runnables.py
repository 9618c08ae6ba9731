"""What `Engine.run` runs: an action, a check, an opposed check or a named roll, bound."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from dsl import nodes as n
from dsl.errors import Span
from dsl.messages import tr
from interpreter.compile.procedures import Procedure
from interpreter.errors import ParameterError
from interpreter.parameters import Binder
from interpreter.runtime import Context
from interpreter.sheets.character import Sheet

#: an action's parameters, by name (as given; as shown)
Params: TypeAlias = dict[str, Any]


def with_targets(params: Params | None, targets: Mapping[str, Sheet]) -> Params:
    """The parameters of a run with its other characters among them (by their role)."""
    params = dict(params or {})
    for role, other in targets.items():
        if role in params:
            raise ParameterError(tr("{name} is given twice", name=role))
        params[role] = other
    return params


class RollCall:
    """A named roll called the way actions and checks are: (ctx, args, span) → its total."""

    #: (no generated function of its own for a traced run: `CallFrame.whole`)
    whole = False

    def __init__(self, procedure: Procedure):
        self.procedure = procedure
        self.node = procedure.node
        self.label = procedure.name

    def __call__(self, ctx: Context, args: tuple[Any, ...], span: Span | None) -> Any:  # noqa: ARG002 (every runnable is called with (ctx, args, span))
        return self.procedure.call(ctx, args).total


class Runnable:
    """What `run` can run: an action, a check or a named roll, with its parameters."""

    __slots__ = ("binder", "characters", "compiled", "entered", "fast", "kind", "name", "span")

    def __init__(self, kind: str, name: str, compiled: Any, binder: Binder):
        self.kind = kind  # "action", "check" or "roll"
        self.name = name
        self.compiled = compiled  # compiled(ctx, args, span) → the result (a record, a total)
        self.binder = binder
        self.span = compiled.node.span
        #: the generated function an untraced run calls straight (codegen), once made
        self.fast: Callable[..., Any] | None = None
        #: the generated function its entry calls (interpreter.run_entries), once made
        self.entered: Callable[..., Any] | None = None
        #: whether other characters may be given to it (parameters of type character)
        self.characters = any(
            isinstance(p.type, n.NamedType) and p.type.name == "character"
            for p in compiled.node.params
        )

    def __call__(self, ctx: Context, args: tuple[Any, ...]) -> Any:
        return self.compiled(ctx, args, self.span)
