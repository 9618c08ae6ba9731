"""The most sets of dice each adding up to at least a threshold (`most_sets`), found exactly.

7th Sea groups its dice into sets of at least 10 (a Raise each; at rank 4 a set of 15 is
two): `most_sets(r, 10)`, `most_sets(r, [10, 15])`. The dice are split into disjoint sets;
a set adding up to at least the k-th threshold counts k; dice left over count nothing; the
answer is the greatest count any split reaches. It is a packing problem, solved here by a
search over the sets the highest die can go into, remembered by the dice left (a multiset),
after two reductions that never change the answer:

- a die worth the most a set can be (10 with sets of 10) is a set alone: in a best split,
  the set holding it can lose its other dice;
- two dice adding up to exactly the top threshold (3 and 7) are a set: in a best split,
  their two sets can be rebuilt as this pair and the rest of both, which still reach as
  much (for one threshold; for several, when the thresholds allow it: `pairs_hold`).

The odds engine walks a pool's faces from the lowest up (interpreter.odds.multiset); its
evaluator applies the reductions face by face, so that the states stay few, and solves what
is left once per state, with one memory for the whole walk.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from dsl.bounded import Bounded
from dsl.messages import tr
from interpreter.errors import EvaluationError

#: sets the search may look at for one question (all its dice, the reductions made): past
#: it, the grouping is refused as too much work rather than left to run
SEARCH_STEPS = 500_000
#: dice the search may be left with once the reductions are made (each one is a level of
#: its recursion)
SEARCH_DICE = 60


class TooMuchGrouping(Exception):
    """The search went past its steps (the caller says it in its own words)."""


def pairs_hold(thresholds: tuple) -> bool:
    """Whether a pair adding up to exactly the top threshold may always be made a set: two
    sets worth i and j (i + j above the top count) rebuilt as the pair and the rest keep
    their worth when t_i + t_j >= t_top + t_(i+j-top)."""
    ts, top = thresholds, len(thresholds)
    for i in range(1, top + 1):
        for j in range(1, top + 1):
            k = i + j - top
            if k > 0 and ts[i - 1] + ts[j - 1] < ts[-1] + ts[k - 1]:
                return False
    return True


class Grouping:
    """The search for one list of thresholds (strictly increasing, above 0), with its
    memory: `best(faces)` for a sorted tuple of faces."""

    def __init__(self, thresholds: tuple, spend: Callable | None = None):
        self.ts = thresholds
        self.top = len(thresholds)
        self.pairs = pairs_hold(thresholds)
        self.memo: dict = {}
        self.steps = 0
        self.spend = spend
        self.ratios = tuple((k, t) for k, t in enumerate(thresholds, 1))

    def worth(self, total) -> int:
        return bisect_right(self.ts, total)

    def best(self, faces: tuple) -> int:
        """The most a split of these faces (sorted, lowest first) counts."""
        score, left = self.reduce(faces)
        return score + self.solve_left(left)

    def solve_left(self, left: tuple) -> int:
        """`solve`, for faces the reductions left (sorted), within SEARCH_DICE."""
        if len(left) > SEARCH_DICE:
            raise TooMuchGrouping
        return self.solve(left)

    def reduce(self, faces: tuple) -> tuple:
        """(what the reductions counted, the faces left, sorted)."""
        counts: dict = {}
        for face in faces:
            counts[face] = counts.get(face, 0) + 1
        score, left = 0, dict[int, int]()
        for face in sorted(counts):
            score, c = self.add(score, left, face, counts[face])
            if c:
                left[face] = c
        return score, tuple(f for f in sorted(left) for _ in range(left[f]))

    def add(self, score: int, left: dict, face, c: int) -> tuple:
        """`c` dice showing `face`, above every face in `left`: (score, dice still to place);
        `left` loses the dice paired with them."""
        if face <= 0:  # a die that adds nothing to a set never helps one
            return score, 0
        if self.worth(face) == self.top:
            return score + self.top * c, 0
        if self.pairs:
            other = self.ts[-1] - face
            if other == face:
                score, c = score + self.top * (c // 2), c % 2
            elif other in left:
                paired = min(c, left[other])
                score, c = score + self.top * paired, c - paired
                if left[other] == paired:
                    del left[other]
                else:
                    left[other] -= paired
        return score, c

    def bound(self, total) -> int:
        """The most any split of dice adding up to `total` can count."""
        return max(total * k // t for k, t in self.ratios)

    def solve(self, faces: tuple) -> int:
        """The best split of reduced faces: the highest die goes into some set, made of
        lower dice added highest first until its worth rises (a set with a die more than
        it needs is never better), and the rest is split again."""
        if not faces:
            return 0
        known = self.memo.get(faces)
        if known is not None:
            return known
        total = sum(faces)
        if total < self.ts[0]:
            self.memo[faces] = 0
            return 0
        self.steps += 1
        if self.steps > SEARCH_STEPS:
            raise TooMuchGrouping
        if self.spend is not None:
            self.spend()
        most = self.bound(total)
        distinct: list = []  # [face, how many], highest first, of the dice below the highest
        for face in reversed(faces[:-1]):
            if distinct and distinct[-1][0] == face:
                distinct[-1][1] += 1
            else:
                distinct.append([face, 1])
        used = [0] * len(distinct)
        best = 0
        worth, top, solve, bound, whole = self.worth, self.top, self.solve, self.bound, total

        def rest() -> tuple:
            out = []
            for (face, c), u in zip(reversed(distinct), reversed(used)):
                out.extend([face] * (c - u))
            return tuple(out)

        def extend(start: int, total, value: int, raised: bool) -> bool:
            """Sets holding the highest die and these dice; True once the bound is met."""
            nonlocal best
            # the rest can add no more than its bound: a set that cannot beat the best
            # so far is not looked into
            if raised and value + bound(whole - total) > best:
                found = value + solve(rest())
                if found > best:
                    best = found
                    if best >= most:
                        return True
            if value >= top:
                return False
            for j in range(start, len(distinct)):
                face, c = distinct[j]
                if used[j] < c:
                    used[j] += 1
                    more = worth(total + face)
                    done = extend(j, total + face, more, more > value)
                    used[j] -= 1
                    if done:
                        return True
            return False

        highest = faces[-1]
        first = worth(highest)
        extend(0, highest, first, first > 0)
        self.memo[faces] = best
        return best


#: answers kept for lists of dice asked again (the odds engine asks most_sets of a list
#: once per world: the same few dice again and again), in dice held
ANSWERS_KEPT = 200_000
_ANSWERS = Bounded(ANSWERS_KEPT, count=ANSWERS_KEPT)


def most_sets(faces, thresholds: tuple) -> int:
    """The most a split of these faces into sets counts (a real run's answer)."""
    key = (tuple(sorted(faces)), thresholds)
    found = _ANSWERS.get(key)
    if found is not None:
        return found
    try:
        found = Grouping(thresholds).best(key[0])
    except TooMuchGrouping:
        raise EvaluationError(
            tr(
                "most_sets: too many ways to split {count} dice into sets",
                count=len(faces),
            )
        ) from None
    return _ANSWERS.put(key, found, len(key[0]) + len(thresholds))
