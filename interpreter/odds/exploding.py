"""Questions about an exploding pool's dice (`highest(5d10x)`), counted over multisets.

An exploding pool is a random number of dice, but its multiset is simple to count. A
die's chain is its hits (faces meeting the test) and then one face that misses; chains are
independent. So N dice that `x` (each extra die may explode again) with M hits in all
are N misses drawn alike among the missing faces and M hits drawn alike among the hitting
ones, and C(N + M - 1, M) ways to cut the M hits into the N chains: the probability of a
multiset is C(N + M - 1, M) · (its ways in the two kinds) / n^(N + M). For each M the
questions' evaluators walk the two kinds of dice as one pool of mixed dice
(multiset.evaluate_mixed), over a kept window computed for N + M dice; M goes up until
less than epsilon is left out, as the total's explosions are cut.

A penetrating die (`!p`: each extra die counts one less) tells its first die from its
extra ones: with a chains whose first die hits and e hits among the extra dice, the kinds
are the first dice that hit (a) and miss (N - a), the extra dice that hit (e, counting one
less) and the extra dice that end a chain (a, one less), C(N, a) · C(a + e - 1, e) ways.
Once (`xo`, `!po`): a of the N dice hit, each adding one die of any face, C(N, a) ways.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from interpreter.odds.distribution import Dist
from interpreter.odds.keeps import keep_range
from interpreter.odds.multiset import evaluate_mixed


def exploding_answers(term, before: tuple, middle: tuple, evaluators: list, epsilon) -> Dist:
    """The joint answers of `evaluators` about a term whose dice explode (`before`: its
    modifiers before its first keep, one explosion alone; `middle`: its keeps), the
    mass past epsilon left out (Dist.omitted). NotImplementedError for other orders of
    modifiers, and for chains that may reach the roller's limit (the caller enumerates)."""
    if len(before) != 1 or before[0][0] not in ("explode", "penetrate") or term.to_limit:
        raise NotImplementedError("this explosion is not counted over multisets")
    if any(op[0] != "keep" for op in middle):
        raise NotImplementedError("a reroll after a keep")
    kind, once, hits = before[0]
    weights: dict = {}
    for face in term.faces:
        weights[face] = weights.get(face, 0) + 1
    hit = {f: w for f, w in weights.items() if f in hits}
    miss = {f: w for f, w in weights.items() if f not in hits}
    less = 1 if kind == "penetrate" else 0  # what an extra die counts less than it shows
    pools = Pools(term, middle, evaluators, term.n)
    count = term.count
    if count <= 0:  # as roll_pool: no dice, whatever the modifiers
        pools.add([], 1, 0)
        return pools.dist()
    if once:
        extra = {f - less: w for f, w in weights.items()}
        for a in range(count + 1):
            kinds = [(hit, a), (miss, count - a), (extra, a)]
            pools.add(kinds, comb(count, a), count + a)
        return pools.dist()
    h, n = sum(hit.values()), term.n
    epsilon = Fraction(epsilon)
    left = Fraction(1)  # the chance of more hits than counted so far
    hits_in_all = 0
    shifted_hit = {f - less: w for f, w in hit.items()}
    shifted_miss = {f - less: w for f, w in miss.items()}
    while left >= epsilon:
        m = hits_in_all
        if less == 0:  # the first and the extra dice alike: two kinds
            pools.add([(hit, m), (miss, count)], comb(count + m - 1, m), count + m)
        elif m == 0:
            pools.add([(miss, count)], 1, count)
        else:
            for a in range(1, min(count, m) + 1):
                e = m - a
                kinds = [(hit, a), (miss, count - a), (shifted_hit, e), (shifted_miss, a)]
                pools.add(kinds, comb(count, a) * comb(a + e - 1, e), count + m)
        # P(M = m) = C(N + m - 1, m) h^m (n - h)^N / n^(N + m)
        left -= Fraction(comb(count + m - 1, m) * h**m * (n - h) ** count, n ** (count + m))
        hits_in_all += 1
        term.work.spend(count + m)
    return pools.dist()


class Pools:
    """The answers of the pools summed so far, each (kinds, ways, dice in all) weighed
    over n^(dice in all)."""

    def __init__(self, term, middle: tuple, evaluators: list, n: int):
        self.term, self.middle, self.evaluators, self.n = term, middle, evaluators, n
        self.parts: list = []  # (answers → weight, dice in all)
        self.most = 0

    def add(self, kinds: list, ways: int, dice: int) -> None:
        if ways == 0:
            return
        kinds = [(w, k) for w, k in kinds if k]
        lo, hi = 0, dice
        if self.middle:  # sorted positions from the lowest, as multiset.evaluate takes them
            top_lo, top_hi = keep_range(self.middle, dice)
            lo, hi = dice - top_hi, dice - top_lo
        if not kinds:
            out = {tuple(e.final(e.start) for e in self.evaluators): 1}
        else:
            out, _ = evaluate_mixed(kinds, lo, hi, self.evaluators, self.term.work)
        self.parts.append(({k: v * ways for k, v in out.items()}, dice))
        self.most = max(self.most, dice)

    def dist(self) -> Dist:
        out: dict = {}
        n, most = self.n, self.most
        for answers, dice in self.parts:
            scale = n ** (most - dice)
            for key, weight in answers.items():
                out[key] = out.get(key, 0) + weight * scale
        return Dist(out, n**most).reduced()
