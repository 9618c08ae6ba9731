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

#: states a pool's multiset may leave (`states_of`), at most, for its kept dice to be
#: drawn so (20d6kh3: 550; 10d10dh1: 48,620, past it: the pool rolled as any)
MOST_STATES = 20_000
#: worlds made in one unit of work (interpreter.odds.budget)
WORLDS_PER_WORK = 64


class KeptDie:
    """A pool's die as its kept dice are drawn (this module): its faces and their
    weights (a die, or one die as its own modifiers leave it), and the keep (its mode,
    kh kl dh dl, and its count). Keyed by those."""

    __slots__ = ("count", "drawn", "faces", "keeps", "key", "mode", "weights")

    def __init__(self, weights: dict, mode: str, count: int) -> None:
        self.faces = tuple(sorted(weights))
        self.weights = tuple(weights[face] for face in self.faces)
        self.mode, self.count = mode, count
        self.keeps = mode in ("kh", "kl")  # (else it drops: dh, dl)
        self.drawn: dict = {}  # (states_of its pool's dice, where a pool holds it)
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


def states_of(die: KeptDie, dice: int) -> dict | None:
    """{state: weight} for every state `dice` dice of `die` may leave (KeptDie.state of
    their multiset), the weights over size^dice (size: the weights' sum), found without
    going through the multisets: v, how many dice lie past it and show it, and the
    counts of the kept side, the other side's dice summed (each of its faces, any count);
    None past MOST_STATES."""
    faces = len(die.faces)
    order = list(range(faces - 1, -1, -1) if die.mode in ("kh", "dh") else range(faces))
    k = min(die.count, dice)
    weights = die.weights
    out: dict = {}
    if not k:  # (the keep keeps none; the drop drops none: every multiset its own state)
        if die.keeps:
            return {((0,) * faces, -1, 0, 0): sum(weights) ** dice}
        for counts, weight in _counts(list(range(faces)), dice, weights, faces):
            out[(counts, -1, 0, 0)] = weight
            if len(out) > MOST_STATES:
                return None
        return out
    for at, v in enumerate(order):
        before, after = order[:at], order[at + 1 :]
        kept_side, other = (before, after) if die.keeps else (after, before)
        other_weight = sum(weights[i] for i in other)
        for past in range(min(k, dice)):
            if past and not before:
                continue
            for showing in range(k - past, dice - past + 1):
                rest = dice - past - showing
                if rest and not after:
                    continue
                shared = comb(dice, past) * comb(dice - past, showing) * weights[v] ** showing
                q = k - past
                seen = showing if (die.keeps or q < showing) else 0
                if not die.keeps and q == showing:
                    q = 0
                kept = past if die.keeps else rest
                summed = other_weight ** (rest if die.keeps else past)
                for side, weight in _counts(kept_side, kept, weights, faces):
                    state = (side, v, seen, q)  # (a drop's dice all past v: one state)
                    out[state] = out.get(state, 0) + shared * summed * weight
                    if len(out) > MOST_STATES:
                        return None
    return out


def _counts(among: list, dice: int, weights: tuple, faces: int):
    """(counts by face, 0 off `among`; weight) for every way `dice` dice fall on the
    faces `among`: the multinomial ways times the faces' weights."""
    if not among:
        if not dice:
            yield (0,) * faces, 1
        return
    first, rest = among[0], among[1:]
    for m in range(dice + 1) if rest else (dice,):
        for counts, weight in _counts(rest, dice - m, weights, faces):
            made = (*counts[:first], m, *counts[first + 1 :])
            yield made, weight * comb(dice, m) * weights[first] ** m


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
