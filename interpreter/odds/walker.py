"""Explosions and rerolls die by die: each face's chain of extra dice, as a series."""

from __future__ import annotations

from interpreter.odds.polynomials import (
    convolve,
    geometric,
    mix,
)


class Walker:
    """Per-face distributions of summaries through a run of explosions and rerolls."""

    def __init__(self, term, ops: tuple, leaf, merge, delta):
        self.term, self.ops, self.leaf, self.merge, self.delta = term, ops, leaf, merge, delta
        self.memo: dict = {}
        self.chains: dict = {}

    def face(self, i: int, face):
        """The summary distribution of a kept die showing `face` that meets ops[i:]."""
        key = (i, face)
        found = self.memo.get(key)
        if found is not None:
            return found
        ops = self.ops
        if i == len(ops):
            found = self.leaf(face)
        else:
            kind, _, hits = ops[i]
            if face not in hits:
                found = self.face(i + 1, face)
            elif kind == "reroll":
                found = self.extra(i)
            else:
                found = convolve(self.face(i + 1, face), self.extra(i), self.merge, self.term.work)
        self.memo[key] = found
        return found

    def extra(self, i: int):
        """What ops[i] adds for a die that meets its test: a reroll's new die, or the chain
        of dice an explosion adds (each may explode again unless `once`)."""
        found = self.chains.get(i)
        if found is not None:
            return found
        kind, once, hits = self.ops[i]
        faces, n = self.term.faces, self.term.n
        if kind == "reroll" and not once:  # rolled until it misses: uniform over the misses
            found = mix([(1, self.face(i + 1, f)) for f in faces if f not in hits], n - len(hits))
        elif once:
            found = mix([(1, self.face(i + 1, f)) for f in faces], n)
        else:
            stop = mix([(1, self.face(i + 1, f)) for f in faces if f not in hits], n)
            go = mix([(1, self.face(i + 1, f)) for f in faces if f in hits], n)
            found = self.series(stop, go)
        self.chains[i] = found
        return found

    def series(self, stop, go):
        """Σ_k go^k · stop over k < K, the first K with mass(go)^K <= delta: what is left
        out, Σ_{k>=K} mass(go)^k · mass(stop), is at most mass(go)^K."""
        merge, work, delta = self.merge, self.term.work, self.delta
        num, den = sum(go[0].values()), go[1]
        terms, reach_num, reach_den = 1, num, den
        while reach_num * delta.denominator > delta.numerator * reach_den:
            terms += 1
            reach_num *= num
            reach_den *= den
            work.spend(1)
        if merge is None and not self.term.packed:
            return geometric(stop, go, terms, work)
        parts = [(1, stop)]
        term = stop
        for _ in range(terms - 1):
            term = convolve(go, term, merge, work)
            parts.append((1, term))
        work.spend(sum(len(t[1][0]) for t in parts))
        return mix(parts, 1)
