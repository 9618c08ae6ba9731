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
    """What may still be read: each name, with the fields of it that are read, each with
    its own fields read (dsl.nodes.field_paths; None where a value is read whole), and
    how often (`counts`: 1, or MANY: more than once, or where it may be read many times:
    in a loop, a call's arguments, a text, a list, a choice); `paths`: as often, each
    field of a name (name, field) read as `name.field` (none there: not read so).
    Hashable, so that liveness can be remembered per block."""

    __slots__ = ("_key", "counts", "needs", "paths")

    def __init__(self, needs: dict, counts: dict | None = None):
        self.needs = needs
        counts = counts or {}
        self.counts = {name: counts.get(name, MANY) for name in needs}
        self.paths = {k: v for k, v in counts.items() if type(k) is tuple and k[0] in needs}
        self._key = (
            frozenset((k, None if v is None else n.path_cut(v)) for k, v in needs.items()),
            frozenset(self.counts.items()),
            frozenset(self.paths.items()),
        )

    def once(self, name: str) -> bool:
        """Whether `name` is read exactly once from here on (and not where a read may
        happen many times): its value may then stay a distribution until that read, as
        a dice term written there would."""
        return self.counts.get(name) == 1

    def once_field(self, name: str, field: str) -> bool:
        """Whether `name.field` is read exactly once from here on (as `once`), and that
        field of `name` nowhere else, however often its other fields are read."""
        fields = self.needs.get(name)
        return (
            isinstance(fields, dict)
            and field in fields
            and fields[field] is None
            and self.paths.get((name, field)) == 1
        )

    def union(self, other: Live) -> Live:
        """What is read here and then there (the reads of both counted)."""
        return self.joined(other, lambda a, b: min(a + b, MANY))

    def either(self, other: Live) -> Live:
        """What is read here or there (branches of an `if`: the more often of the two)."""
        return self.joined(other, max)

    def joined(self, other: Live, count) -> Live:
        needs, counts = dict(self.needs), dict(self.counts)
        for name, fields in other.needs.items():
            if name not in needs:
                needs[name] = fields
                counts[name] = other.counts[name]
                continue
            needs[name] = n.merged_paths(needs[name], fields)
            counts[name] = count(counts[name], other.counts[name])
        counts.update(self.paths)
        for path, times in other.paths.items():  # (a field not read on one side: 0 there)
            counts[path] = count(counts[path], times) if path in counts else times
        return Live(needs, counts)

    def without(self, name: str) -> Live:
        if name not in self.needs:
            return self
        return Live(
            {k: v for k, v in self.needs.items() if k != name},
            {**{k: v for k, v in self.counts.items() if k != name}, **self.paths},
        )

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
    """Every name an AST node mentions, which of its fields it reads, and how often."""
    return Live(n.field_paths(node), read_counts(node))


#: a name read more than once, or where it may be read many times
MANY = 2
#: where a name's one mention may be read many times (a loop's body, a formula's or an
#: action's arguments, read as often as the callee reads them), or kept whole without
#: being read (a text, a list), or read where a choice is made (which must see it)
REPEATED = (n.Repeat, n.ForEach, n.Call, n.CharacterCall, n.Text, n.ListLiteral, n.Choose, n.Match)
SKIPPED = frozenset(("span", "name_span", "op_span"))


def read_counts(node) -> dict:
    """How often each name a node mentions is read: 1, or MANY; and each field of a name
    read as `name.field`, by (name, field)."""
    counts: dict = {}
    stack = [(node, False)]
    while stack:
        item, many = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend((inner, many) for inner in item)
        elif isinstance(item, n.Name):
            counts[item.name] = MANY if many else min(counts.get(item.name, 0) + 1, MANY)
        elif attrs.has(type(item)):
            if isinstance(item, n.Field) and isinstance(item.subject, n.Name):
                path = (item.subject.name, item.name)
                counts[path] = MANY if many else min(counts.get(path, 0) + 1, MANY)
            many = many or isinstance(item, REPEATED)
            stack.extend(
                (getattr(item, f.name), many)
                for f in attrs.fields(type(item))
                if f.name not in SKIPPED
            )
    return counts
