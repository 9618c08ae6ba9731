"""Did-you-mean: the known names closest to a misspelled one, found in bounded work.

The measure is difflib's (`get_close_matches`, cutoff 0.6), which costs the product of
two names' lengths per comparison; a rulebook with thousands of names and thousands of
misspellings would compare every one with every one. So a name is compared with at most
MAX_COMPARED candidates, those most likely to be close first (sharing its first two
letters, then its first letter, then any, each by closeness of length, and only within
the lengths that can reach the cutoff), found in an index built once per list of
candidates; and the checking of one rulebook spends at most MAX_COMPARED_CHARACTERS on
all its hints together (`budget`), each name's hint worked out once. When the
candidates that can reach the cutoff are no more than MAX_COMPARED, the hint is exactly
what comparing with all of them gives.
"""

from __future__ import annotations

import contextlib
import difflib
from contextvars import ContextVar
from functools import lru_cache

#: longest name a hint is sought for (or offered): a comparison costs the product of the
#: two lengths, and no misspelled name is this long
MAX_SUGGESTED_LENGTH = 64
#: candidates compared in full with one misspelled name
MAX_COMPARED = 100
#: work the checking of one rulebook may spend on all its hints together, in characters
#: compared (each comparison counts the lengths of both names: its time goes with them, a
#: microsecond or so each); about a fifth of a second. Past it, a name gets the hint
#: already worked out for it, or none
MAX_COMPARED_CHARACTERS = 200_000
#: how close a candidate must be (difflib's ratio) to be offered
CUTOFF = 0.6

_BUDGET: ContextVar[_Budget | None] = ContextVar("suggestion_budget", default=None)


class _Budget:
    def __init__(self, characters: int):
        self.left = characters
        self.found: dict = {}  # (name, candidates) → the names offered


@contextlib.contextmanager
def budget(characters: int = MAX_COMPARED_CHARACTERS):
    """Within it, all hints together compare at most `characters` (see
    MAX_COMPARED_CHARACTERS)."""
    token = _BUDGET.set(_Budget(characters))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def closest(name: str, candidates) -> list[str]:
    """Up to three candidates close to `name` (compared without case), closest first."""
    folded = name.casefold()
    if not folded or len(folded) > MAX_SUGGESTED_LENGTH:
        return []
    index = _index(tuple(candidates))
    spending = _BUDGET.get()
    if spending is not None:
        key = (folded, index)
        if key in spending.found:
            return spending.found[key]
        if spending.left <= 0:
            return []
    chosen = index.chosen(folded)
    if spending is not None:
        spending.left -= len(folded) * len(chosen) + sum(map(len, chosen))
    close = difflib.get_close_matches(folded, chosen, n=3, cutoff=CUTOFF)
    found = [index.original[c] for c in close]
    if spending is not None:
        spending.found[key] = found
    return found


@lru_cache(maxsize=32)
def _index(candidates: tuple) -> _Index:
    return _Index(candidates)


class _Index:
    """Candidates by their first letters and length (folded for case)."""

    def __init__(self, candidates: tuple):
        self.original: dict[str, str] = {}
        self.by: dict[tuple, list[str]] = {}
        for candidate in candidates:
            folded = str(candidate).casefold()
            if len(folded) > MAX_SUGGESTED_LENGTH:
                continue
            known = folded in self.original
            self.original[folded] = str(candidate)  # of two spellings, the last is offered
            if known:
                continue
            for lead in (folded[:2], folded[:1], ""):
                self.by.setdefault((lead, len(folded)), []).append(folded)

    def chosen(self, name: str) -> list[str]:
        """At most MAX_COMPARED candidates that may reach the cutoff, likeliest first."""
        size = len(name)
        # difflib's ratio is at most 2·min(a, b)/(a + b): lengths past these cannot reach it
        low = -(-size * 3 // 7)
        high = size * 7 // 3
        steps = sorted(range(low, high + 1), key=lambda length: abs(length - size))
        out: dict[str, None] = {}
        for lead in (name[:2], name[:1], ""):
            for length in steps:
                for candidate in self.by.get((lead, length), ()):
                    out.setdefault(candidate)
                    if len(out) >= MAX_COMPARED:
                        return list(out)
            if len(lead) < 2 and len(out) >= MAX_COMPARED:
                break
        return list(out)

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other) -> bool:
        return self is other
