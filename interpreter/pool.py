"""Rolled pools as values: the dice a term or a named roll showed, and what can be asked of them.

A dice term gives a pool value: used as a number it is its total; it also has fields
(`r.dice`, `r.kept`, `r.sets`, ...) and answers the pool functions (`count(r, 6)`,
`highest(r, 2)`). Each field and each function call is a `Question`, answered here from the
pool's faces. The odds engine answers the same questions with distributions (counting
multisets instead of rolls); both sides take their meaning from `Question.of_kept`.

Questions that look at the kept dice as a multiset (counts, highest, lowest, sets, the
sorted dice) are *order-free*; `dice`, `kept` and `dropped` list faces in the order rolled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from interpreter.grouping import most_sets as grouped
from interpreter.values import Range, Record

KEPT, DROPPED, REROLLED = "kept", "dropped", "rerolled"


class Rolled:
    """What a dice term or a named roll showed. Subclasses hold `total`, `successes`,
    `failures` and `faces`: [face, status, exploded] lists in the order shown."""

    __slots__ = ()
    # each subclass's own (slots or properties; counting, a total may be a distribution)
    total: Any
    faces: list

    if TYPE_CHECKING:

        @property
        def successes(self) -> Any: ...
        @property
        def failures(self) -> Any: ...

    def standing(self) -> tuple:
        """The faces of the dice that stand (kept or dropped; not those rolled again)."""
        return tuple(f[0] for f in self.all_faces() if f[1] != REROLLED)

    def kept_faces(self) -> tuple:
        return tuple(f[0] for f in self.all_faces() if f[1] == KEPT)

    def all_faces(self) -> list:
        return self.faces

    def answer(self, question: Question):
        return question.of_roll(self)


# ─── face tests: what `count(r, ...)` counts ────────────────────────────────


@attrs.frozen(cache_hash=True)
class FaceTest:
    """Faces that count: each part is a value (equal to it) or a Range (within it)."""

    parts: tuple

    def __call__(self, face) -> bool:
        for part in self.parts:
            if type(part) is Range:
                if part.holds(face):
                    return True
            elif part == face and type(part) is not bool:
                return True
        return False


def face_test(value) -> FaceTest:
    """A face test from what `count` was given: a value, a range, or a list of them."""
    if isinstance(value, FaceTest):
        return value
    if isinstance(value, tuple):
        return FaceTest(tuple(value))
    return FaceTest((value,))


# ─── questions ──────────────────────────────────────────────────────────────


@attrs.frozen(cache_hash=True)
class Question:
    """One thing asked of a pool. `of_kept(kept)` answers it from the kept faces (sorted
    from lowest to highest) for the order-free questions; `of_roll` from the whole roll."""

    ordered = False  # True: needs the faces in the order rolled, not just the multiset

    def of_roll(self, roll: Rolled):
        return self.of_kept(tuple(sorted(roll.kept_faces())))

    def of_kept(self, kept: tuple):
        raise NotImplementedError


@attrs.frozen(cache_hash=True)
class Total(Question):
    """The pool's value: the kept dice added up, or the successes counted."""

    def of_roll(self, roll: Rolled):
        return roll.total


@attrs.frozen(cache_hash=True)
class Successes(Question):
    def of_roll(self, roll: Rolled):
        return roll.successes


@attrs.frozen(cache_hash=True)
class Failures(Question):
    def of_roll(self, roll: Rolled):
        return roll.failures


@attrs.frozen(cache_hash=True)
class Dice(Question):
    """`r.dice`: the faces of the dice that stand, in the order rolled."""

    ordered = True

    def of_roll(self, roll: Rolled):
        return roll.standing()


@attrs.frozen(cache_hash=True)
class Standing(Question):
    """`max(r.dice)`, `count(r.dice, 6)`, `sum(r.dice)`: an order-free question (`of`)
    of the dice that stand, kept and dropped, asked as one answer. Of a pool that drops
    none (no keep) it is `of` of the kept dice, which the odds engine counts over their
    multisets (interpreter.odds.questions.counted_as); else the rolls are walked."""

    ordered = True  # (the kept multiset alone does not answer it: see counted_as)

    of: Question

    def of_roll(self, roll: Rolled):
        return self.of.of_kept(tuple(sorted(roll.standing())))


@attrs.frozen(cache_hash=True)
class Kept(Question):
    ordered = True

    def of_roll(self, roll: Rolled):
        return roll.kept_faces()


@attrs.frozen(cache_hash=True)
class Dropped(Question):
    ordered = True

    def of_roll(self, roll: Rolled):
        return tuple(f[0] for f in roll.all_faces() if f[1] == DROPPED)


@attrs.frozen(cache_hash=True)
class Sorted(Question):
    """`r.sorted`: the kept dice from lowest to highest."""

    def of_kept(self, kept: tuple):
        return kept


@attrs.frozen(cache_hash=True)
class Count(Question):
    """`count(r, test)`: how many kept dice pass the test."""

    test: FaceTest

    def of_kept(self, kept: tuple):
        test = self.test
        return sum(1 for face in kept if test(face))


@attrs.frozen(cache_hash=True)
class Highest(Question):
    """`highest(r)`: the highest kept die (none if there is none); `highest(r, n)`: the
    n highest, highest first."""

    n: int | None = None

    def of_kept(self, kept: tuple):
        if self.n is None:
            return kept[-1] if kept else None
        return tuple(reversed(kept[len(kept) - min(self.n, len(kept)) :]))


@attrs.frozen(cache_hash=True)
class Lowest(Question):
    """`lowest(r)`, `lowest(r, n)`: the same from the bottom, lowest first."""

    n: int | None = None

    def of_kept(self, kept: tuple):
        if self.n is None:
            return kept[0] if kept else None
        return kept[: self.n]


@attrs.frozen(cache_hash=True)
class Summed(Question):
    """`sum(highest(r, n))`, `sum(lowest(r, n))`: those dice added up, asked as one
    number (the odds engine counts a sum, not every way the n dice can fall: L5R's
    roll and keep); `sum(r.sorted)`, Summed(Sorted()): every kept die added up."""

    of: Question  # a Highest or a Lowest, of n dice; or Sorted, every kept die

    def of_kept(self, kept: tuple):
        return sum(self.of.of_kept(kept))


@attrs.frozen(cache_hash=True)
class Sets(Question):
    """`r.sets`: how many dice show each face, as {face, size} records, the largest set
    first (of two sets of one size, the higher face first)."""

    def of_kept(self, kept: tuple):
        return tuple(set_record(face, size) for face, size in sets_of(kept))


@attrs.frozen(cache_hash=True)
class LargestSet(Question):
    """`r.largest_set`: the first of `r.sets` ({face: none, size: 0} for no dice)."""

    def of_kept(self, kept: tuple):
        found = sets_of(kept)
        return set_record(*found[0]) if found else set_record(None, 0)


@attrs.frozen(cache_hash=True)
class MostSets(Question):
    """`most_sets(r, 10)`, `most_sets(r, [10, 15])`: the most the kept dice count when
    split into sets, a set adding up to at least the k-th threshold counting k
    (interpreter.grouping)."""

    thresholds: tuple

    def of_kept(self, kept: tuple):
        return grouped(kept, self.thresholds)


def sets_of(kept: tuple) -> list:
    sizes: dict = {}
    for face in kept:
        sizes[face] = sizes.get(face, 0) + 1
    return sorted(sizes.items(), key=lambda item: (-item[1], -item[0]))


def set_record(face, size: int) -> Record:
    return Record({"face": face, "size": size}, kind="set")


#: the fields of a pool value, and the question each one asks
FIELDS = {
    "total": Total(),
    "successes": Successes(),
    "failures": Failures(),
    "dice": Dice(),
    "kept": Kept(),
    "dropped": Dropped(),
    "sorted": Sorted(),
    "sets": Sets(),
    "largest_set": LargestSet(),
}


def of_list(question: Question, items: tuple):
    """A pool function applied to a list of numbers (`highest([a, b, c], 2)`)."""
    return question.of_kept(tuple(sorted(items)))


class Answers(Rolled):
    """A pool known by its answers to some questions, not by its faces: what a `let` of a
    pool holds while the odds engine counts (it branches on the answers the rest of the
    rules ask for, never on every way the dice fell). `kept`, when given, is the whole
    sorted multiset of kept faces, which answers any order-free question; `missing(q)`
    is called for a question nobody said would be asked (the odds engine then refuses)."""

    __slots__ = ("answers", "hashed", "kept", "missing")

    def __init__(self, answers: dict, kept: tuple | None, missing):
        self.answers, self.kept, self.missing = answers, kept, missing
        self.hashed: int | None = None  # worlds are merged by their values: hashed again and again

    def answer(self, question: Question):
        found = self.answers.get(question, self)
        if found is not self:
            return found
        if self.kept is not None and not question.ordered and type(question) not in COUNTED:
            return question.of_kept(self.kept)
        return self.missing(question)

    @property
    def total(self):
        return self.answer(FIELDS["total"])

    @property
    def successes(self):
        return self.answer(FIELDS["successes"])

    @property
    def failures(self):
        return self.answer(FIELDS["failures"])

    def __eq__(self, other) -> bool:
        return type(other) is Answers and self.answers == other.answers and self.kept == other.kept

    def __hash__(self) -> int:
        if self.hashed is None:
            self.hashed = hash((frozenset(self.answers.items()), self.kept))
        return self.hashed

    def __repr__(self) -> str:
        return f"Answers({self.answers!r})"


#: questions about the term's value, which the kept faces alone cannot answer
COUNTED = (Total, Successes, Failures)
