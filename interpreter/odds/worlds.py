"""Worlds: what the explorer keeps of each way an action can go, and what is still read."""

from __future__ import annotations

import weakref

import attrs

from dsl import nodes as n
from interpreter.errors import InsufficientResource, LimitExceeded, RequirementFailed
from interpreter.odds.roller import hashable
from interpreter.runtime import MISSING, State
from interpreter.values import Record


@attrs.frozen
class Failure:
    """An outcome in which the action stopped: a failed `require`, a short resource, a
    limit reached (an opposed check still tied after `tie_rerolls`). `error` is what a
    real run would raise there."""

    message: str
    error: object = attrs.field(default=None, eq=False, repr=False)

    def __str__(self) -> str:
        return f"fails: {self.message}"


class World:
    """Names, the working sheet, and the probability (interpreter.odds.weights) of being
    here."""

    __slots__ = ("env", "state", "weight")

    def __init__(self, env: dict, state: State, weight: tuple):
        self.env, self.state, self.weight = env, state, weight


class Bound(World):
    """The worlds a `let` makes from a value not known yet: one per value of `dist`, with
    the world's weight times that value's probability (made as they are merged)."""

    __slots__ = ("dist", "name")

    def __init__(self, env: dict, state: State, weight: tuple, name: str, dist):
        super().__init__(env, state, weight)
        self.name, self.dist = name, dist


#: what stops a run partway (every other error stops the whole computation)
STOPS = (RequirementFailed, InsufficientResource, LimitExceeded)


def stopped(error) -> Failure:
    return Failure(error.message, error)


def key_of(env: dict, names: tuple, cuts: tuple, state: State) -> tuple:
    """What a world holds of what is still read: the values of `names` (records cut down
    to the fields still read: `cuts`, from cuts_of), and what changed on its sheet."""
    values = [env.get(name, MISSING) for name in names]
    for i, fields in cuts:
        value = values[i]
        if type(value) is Record and len(value) > len(fields):
            values[i] = Record({k: value.get(k) for k in fields}, value.kind)
    key = (tuple(values), state.snapshot())
    try:
        hash(key)
    except TypeError:  # an unhashable value: compared by identity
        key = (tuple(hashable(v) for v in values), key[1])
    return key


def cuts_of(names: tuple, needs: dict) -> tuple:
    """Of the names still read, those of which only some fields are: (index, fields)."""
    return tuple(
        (i, tuple(sorted(needs[name]))) for i, name in enumerate(names) if needs[name] is not None
    )


class Live:
    """What may still be read: each name, with the fields of it that are read (None when
    the whole value is). Hashable, so that liveness can be remembered per block."""

    __slots__ = ("_key", "needs")

    def __init__(self, needs: dict):
        self.needs = needs
        self._key = frozenset((k, None if v is None else frozenset(v)) for k, v in needs.items())

    def union(self, other: Live) -> Live:
        needs = dict(self.needs)
        for name, fields in other.needs.items():
            if name not in needs:
                needs[name] = fields
            elif needs[name] is None or fields is None:
                needs[name] = None
            else:
                needs[name] = needs[name] | fields
        return Live(needs)

    def without(self, name: str) -> Live:
        if name not in self.needs:
            return self
        return Live({k: v for k, v in self.needs.items() if k != name})

    def __eq__(self, other) -> bool:
        return isinstance(other, Live) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)


class Liveness:
    """What the explorer works out about a rulebook's statements that is the same in every
    computation: what each node reads, what each block still reads after each statement.
    One per compiled rulebook (liveness_of), so that a computation does not walk the rules
    again."""

    def __init__(self):
        self.reads: dict = {}  # id(node) → (node, Live)
        self.blocks: dict = {}  # (id(statements), Live after) → [Live after each]

    @classmethod
    def of(cls, owner) -> Liveness:
        """The Liveness kept for `owner` (a compiler) while it lives."""
        found = _KEPT.get(owner)
        if found is None:
            found = _KEPT[owner] = cls()
        return found

    def names_read(self, node) -> Live:
        found = self.reads.get(id(node))
        if found is None:
            found = self.reads[id(node)] = (node, names_read(node))
        return found[1]


#: each compiled rulebook's Liveness, kept while the compiler lives
_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def names_read(node) -> Live:
    """Every name an AST node mentions, and which of its fields it reads."""
    return Live(n.field_reads(node))
