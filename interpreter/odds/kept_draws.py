"""The kept dice of a pool, in the order rolled, drawn one pass at a time.

`let r = (n)d6kh3` then `for each d in r.kept { ... }`: which dice are kept depends on
all of them, so the kept dice are not independent dice; but the dice rolled are, and
the keep reads only their multiset and the order rolled (interpreter.dice.keep_dice:
ties go to the earlier die). So the pool is drawn as a multiset first (its weight: the
ways n independent dice fall into it), then die after die without replacement (a face
with the weight of the dice left showing it): each way the n dice fall in the order
rolled keeps its own chance. Of a multiset, `kh k` keeps every die past the k-th
highest face v and the first q dice showing v (q: what is left of k); `dh k` drops
those and keeps the rest, so the dice showing v after the first q; `kl` and `dl` the
same from the lowest. The dice on neither side of v never matter (whenever they come,
the rest come in a uniform order), so a pool's state is only what is left of the kept
side's dice, of the dice showing v while they may still matter, and of q (`Kept`):
worlds merge on them, and a pass draws the next kept die (a die showing v that `dh`
drops drawn in passing). The loop costs states × faces a pass, not faces^dice.
"""

from __future__ import annotations

from math import comb

#: multisets a pool's dice may fall into, at most, for its kept dice to be drawn so
#: (6d6: 462; 10d10: 92,378, past it: the pool rolled as any)
MOST_MULTISETS = 20_000
#: worlds made in one unit of work (interpreter.odds.budget)
WORLDS_PER_WORK = 64


class KeptDie:
    """A pool's die as its kept dice are drawn (this module): its faces and their
    weights (a die, or one die as its own modifiers leave it), and the keep (its mode,
    kh kl dh dl, and its count). Keyed by those."""

    __slots__ = ("count", "faces", "keeps", "key", "mode", "weights")

    def __init__(self, weights: dict, mode: str, count: int) -> None:
        self.faces = tuple(sorted(weights))
        self.weights = tuple(weights[face] for face in self.faces)
        self.mode, self.count = mode, count
        self.keeps = mode in ("kh", "kl")  # (else it drops: dh, dl)
        self.key = ("kept", self.faces, self.weights, mode, count)

    def kept(self, dice: int) -> int:
        """How many of `dice` dice are kept."""
        k = min(self.count, dice)
        return k if self.keeps else dice - k

    def state(self, counts: tuple) -> tuple:
        """A multiset's state (the module's docstring): (the kept side's counts, by
        face, the others 0; the index of v, or -1; the dice showing v that matter; q)."""
        faces = len(counts)
        order = list(range(faces - 1, -1, -1) if self.mode in ("kh", "dh") else range(faces))
        k = min(self.count, sum(counts))
        past = 0  # the dice past v, from the keep's end
        at = 0  # (v's place in the order)
        while at < faces and not (counts[order[at]] and past + counts[order[at]] >= k):
            past += counts[order[at]]
            at += 1
        if not k or at == faces:  # (k is 0: the keep keeps none, the drop drops none)
            return (tuple(0 for _ in counts) if self.keeps else counts, -1, 0, 0)
        v, q = order[at], k - past
        side = [0] * faces
        for i in order[:at] if self.keeps else order[at + 1 :]:
            side[i] = counts[i]
        showing = counts[v]
        if not self.keeps and q == showing:
            showing = q = 0  # (every die showing v dropped: none of them matters)
        return (tuple(side), v, showing, q)


def passes(die: KeptDie, state: tuple) -> int:
    """The kept dice still to come of a state."""
    side, _, showing, q = state
    return sum(side) + (q if die.keeps else showing - q)


def multisets(die: KeptDie, dice: int) -> list | None:
    """(counts of each face, weight) for every multiset `dice` dice of `die` may fall
    into, the weights over size^dice (size: the weights' sum); None past MOST_MULTISETS."""
    faces = len(die.faces)
    if comb(dice + faces - 1, faces - 1) > MOST_MULTISETS:
        return None
    out: list = []

    def fill(i: int, left: int, counts: tuple, weight: int) -> None:
        if i == faces - 1:
            out.append(((*counts, left), weight * die.weights[i] ** left))
            return
        for m in range(left + 1):
            fill(i + 1, left - m, (*counts, m), weight * comb(left, m) * die.weights[i] ** m)

    fill(0, dice, (), 1)
    return out


def next_kept(die: KeptDie, state: tuple) -> tuple:
    """The ways the next kept die may come from `state` (a die showing v that `dh`/`dl`
    drops drawn in passing, the ways merged by the state they leave): ([(its face, the
    state after it, weight)], denominator). A way of d draws from s dice that matter,
    s - 1, ... weighs its faces' counts over s(s - 1)...(s - d + 1); all over the
    longest's."""
    ways: list = []  # (face, state after, weight, draws)
    level = {state: 1}
    draws = 0
    size = 0
    while level:
        draws += 1
        following: dict = {}
        for now, weight in level.items():
            side, v, showing, q = now
            if draws == 1:
                size = sum(side) + showing
            for i, m in enumerate(side):
                if m:
                    after = ((*side[:i], m - 1, *side[i + 1 :]), v, showing, q)
                    ways.append((die.faces[i], after, weight * m, draws))
            if not showing:
                continue
            if die.keeps:  # (the first q showing v kept; once none is, none matters)
                after = (side, v, showing - 1 if q > 1 else 0, q - 1)
                ways.append((die.faces[v], after, weight * showing, draws))
            elif q:  # (the first q showing v dropped: drawn in passing)
                after = (side, v, showing - 1, q - 1)
                following[after] = following.get(after, 0) + weight * showing
            else:
                after = (side, v, showing - 1, 0)
                ways.append((die.faces[v], after, weight * showing, draws))
        level = following
    longest = max((d for _, _, _, d in ways), default=0)
    falling = [1]
    for j in range(longest):
        falling.append(falling[-1] * (size - j))
    denominator = falling[longest]
    return [
        (face, after, weight * (denominator // falling[d])) for face, after, weight, d in ways
    ], denominator
