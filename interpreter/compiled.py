"""The contract between compiled rules and the odds engine: typed compiled statements.

The compiler (interpreter.compile) turns each statement into a `Statement`: the closure
that runs it (`run`), the node it was compiled from, its own steps, and a `shape` saying
what the odds engine (interpreter.odds) may do with it besides running it whole: a value
bound (`Binding`), branches (`Branches`), passes (`Loop`, `Repeat`), an action called
(`Called`). Functions the odds engine lifts over distributions that it knows more of are
`Operation`s, and an action called is an `ActionCall`. Everything here is frozen: the
odds engine reads these named fields and never writes onto compiled code. Each statement
has a `number`, unique in the process and never reused: the value the odds engine keys
what it remembers of a statement (or a block of them) by.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from dsl import nodes as n

if TYPE_CHECKING:
    from dsl.errors import Span
    from interpreter.runtime import Context

#: where a name's one mention may be read many times (a loop's body, a formula's or an
#: action's arguments, read as often as the callee reads them), or kept whole without
#: being read (a text, a list), or read where a choice is made (which must see it): one
#: list for the compiler (compile.symbol_forms) and the odds engine (odds.worlds), kept
#: complete by tests/test_odds_repeated.py
REPEATED = (
    n.Repeat,
    n.ForEach,
    n.Call,
    n.CharacterCall,
    n.Text,
    n.ListLiteral,
    n.RangeOf,
    n.Choose,
    n.Match,
)

#: a compiled expression: the run's context → its value
Expression = Callable[["Context"], Any]
#: a compiled statement's run: the run's context → nothing (it changes the context)
Run = Callable[["Context"], Any]

_NUMBERS = itertools.count(1)


def _next_number() -> int:
    return next(_NUMBERS)


@attrs.frozen(eq=False)
class ActionCall:
    """An action called in an expression (`action(...)`): the odds engine runs the
    action's statements itself, one by one, from its `arguments`."""

    action: Any  # interpreter.compile.actions.CompiledAction (.body, .result, .names, .node)
    arguments: Callable[[Context], tuple[Any, ...]]
    span: Span | None

    def __call__(self, ctx: Context) -> Any:
        return self.action(ctx, self.arguments(ctx), self.span)


@attrs.frozen(eq=False)
class Operation:
    """A function of two values the odds engine lifts over distributions, with what it
    knows of it: `ints`, the same function on two whole numbers (None: not known), and
    `move`, `operator.add` or `operator.sub` where `ints` moves a number by another."""

    apply: Callable[..., Any]
    ints: Callable[[int, int], Any] | None = None
    move: Callable[[int, int], int] | None = None

    def __call__(self, *values: Any) -> Any:
        return self.apply(*values)


@attrs.frozen
class Plain:
    """A statement the odds engine only ever runs whole."""


#: the shape of every statement that has no other
PLAIN = Plain()


@attrs.frozen(eq=False)
class Branch:
    """One `if c { ... }` of an `if`: its condition, its block, the condition's span."""

    condition: Expression
    body: tuple[Statement, ...]
    span: Span


@attrs.frozen(eq=False)
class Branches:
    """An `if`: its branches in order, the block run when none is taken, and whether
    its conditions change nothing on the sheet (`pure`: it may be skipped when its
    blocks do nothing the odds see)."""

    branches: tuple[Branch, ...]
    otherwise: tuple[Statement, ...]
    pure: bool


@attrs.frozen(eq=False)
class Binding:
    """`let name = value`, or (`local`) `set name to value` of a local name. `pure`: the
    value changes nothing on the sheet (unread, the statement may be skipped); `split`:
    `let x = if c then action(...) else ...` seen as `if c { let x = ... } else ...`
    (never run: the statement runs its if expression itself); `call`: the value is an
    action called."""

    name: str
    value: Expression
    pure: bool
    local: bool
    split: Branches | None = None
    call: ActionCall | None = None


@attrs.frozen(eq=False)
class Called:
    """`do action(...)`: an action called for what it changes."""

    call: ActionCall | None


@attrs.frozen(eq=False)
class Loop:
    """`for each var in items { body }`: `items(ctx)` the values, one pass each; `pure`:
    computing them changes nothing on the sheet."""

    items: Callable[[Context], tuple[Any, ...]]
    var: str
    body: tuple[Statement, ...]
    pure: bool


@attrs.frozen(eq=False)
class Repeat:
    """`repeat n { body } until c`: `times(ctx)` the passes, `done(ctx)` whether to stop
    before the next."""

    times: Callable[[Context], int]
    done: Callable[[Context], bool]
    body: tuple[Statement, ...]


Shape = Plain | Branches | Binding | Called | Loop | Repeat


@attrs.frozen(eq=False)
class Statement:
    """A compiled statement: `run(ctx)` runs it; `node` is the statement it was compiled
    from (a view the odds engine made may hold a node of its own, never run); `cost`
    its own steps (interpreter.compile.costs); `shape` what the odds engine may do with
    it besides running it; `number` its key, unique and never reused."""

    run: Run
    node: Any  # a dsl.nodes statement
    cost: int
    shape: Shape = PLAIN
    number: int = attrs.field(factory=_next_number)


def block_key(block: tuple[Statement, ...]) -> tuple[int, ...]:
    """The value a block of statements is remembered by: its statements' numbers (made
    once per block: the odds engine asks at every statement it runs)."""
    found = _BLOCK_KEYS.get(id(block))
    if found is not None and found[0] is block:  # (the block held there: its id its own)
        return found[1]
    key = tuple([statement.number for statement in block])
    if len(_BLOCK_KEYS) >= BLOCK_KEYS_KEPT:  # (memory bounded: blocks made as they run too)
        _BLOCK_KEYS.clear()
    _BLOCK_KEYS[id(block)] = (block, key)
    return key


#: the blocks whose keys are kept (block_key), at most
BLOCK_KEYS_KEPT = 4096
_BLOCK_KEYS: dict[int, tuple[tuple[Statement, ...], tuple[int, ...]]] = {}


class NodeNumbers:
    """A number for each AST node of one rulebook met (a few made from them besides),
    the key of what is remembered of it (what it reads, whether it can fail). A node
    has no number of its own: the checker's tables are keyed by its identity, and so is
    this one, which keeps the node so that its identity stays its own."""

    __slots__ = ("numbers",)

    def __init__(self) -> None:
        self.numbers: dict[int, tuple[int, object]] = {}

    def of(self, node: object) -> int:
        found = self.numbers.get(id(node))
        if found is None:
            found = self.numbers[id(node)] = (len(self.numbers) + 1, node)
        return found[0]
