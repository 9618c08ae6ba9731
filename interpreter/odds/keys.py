"""What the odds engine remembers results by, and the order it takes names in.

Results are remembered by values, never an object's address; names are taken in a sorted
order, never a set's (which follows the hash seed).

A distribution (or a contest, a dice term) has a `number` of its own, given when it is
made and never given again: what is computed of it is remembered by that number, so a
memory needs no object kept alive for its key to stay true. A value that cannot be
hashed (none of the language's values: a safety net) is held in the key as `Same`,
equal only to itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

_NUMBERS = itertools.count(1)


def ordered(names: Iterable[Any]) -> tuple[Any, ...]:
    """Names (of a set, a frozenset) in the same order in every process: sorted, not in
    a set's order, which follows the hashes of strings and so the process's hash seed
    (PYTHONHASHSEED). Whatever the engine does in turn over names (worlds made, merged,
    given up on past a count; work charged) then does not depend on the machine."""
    names = tuple(names)
    try:
        return tuple(sorted(names))
    except TypeError:  # names of several kinds (a name and a field path): by their text
        return tuple(sorted(names, key=repr))


def next_number() -> int:
    """A number no other object of the odds engine has had, nor will."""
    return next(_NUMBERS)


class Same:
    """An unhashable value in a key, held there: equal to a Same of that very value."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is Same and other.value is self.value

    def __hash__(self) -> int:
        return object.__hash__(self.value)
