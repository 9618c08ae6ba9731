"""Explosions and rerolls die by die: each face's chain of extra dice, as a series.

An op is (kind, once, hits) for the chains (explode, reroll, compound, penetrate; `face in
hits` is the op's test) or ("clamp", "min" or "max", value)."""

from __future__ import annotations

from interpreter.odds.polynomials import (
    convolve,
    geometric,
    mix,
)

#: ops that roll more dice for a die meeting their test; of those, the ones that make the
#: pool larger, and those that go on until a die misses; ops after which a die may show
#: what no face of it shows
CHAINS = ("explode", "reroll", "compound", "penetrate")
GROWS = ("explode", "penetrate")
OPEN_ENDED = ("explode", "compound", "penetrate")
ESCAPE = ("compound", "penetrate", "clamp")
#: units of a term's work (interpreter.odds.pools) one face walked counts for, its
#: summary made and remembered (about 2 µs)
FACE_WORK = 5


class Walker:
    """Per-face distributions of summaries through a run of explosions and rerolls."""

    def __init__(self, term, ops: tuple, leaf, merge, delta):
        self.term, self.ops, self.leaf, self.merge, self.delta = term, ops, leaf, merge, delta
        self.memo: dict = {}
        self.chains: dict = {}
        self.walked = 0  # faces walked (not found in the memo)

    def face(self, i: int, face):
        """The summary distribution of a kept die showing `face` that meets ops[i:]."""
        key = (i, face)
        found = self.memo.get(key)
        if found is not None:
            return found
        ops = self.ops
        self.walked += 1
        if not self.walked & 1023:  # a die of a million faces: counted 1,024 at a time
            self.term.work.spend(FACE_WORK << 10)
        if i == len(ops):
            found = self.leaf(face)
        elif ops[i][0] == "clamp":
            _, bound, value = ops[i]
            found = self.face(i + 1, max(face, value) if bound == "min" else min(face, value))
        else:
            kind, _, hits = ops[i]
            if face not in hits:
                found = self.face(i + 1, face)
            elif kind == "reroll":
                found = self.extra(i)
            elif kind == "compound":  # one die: its face and all it rolled, added up
                sums, den = self.extra(i)
                found = mix(
                    [(w, self.face(i + 1, face + s)) for s, w in sums.items()], den, self.term.work
                )
            else:
                found = convolve(self.face(i + 1, face), self.extra(i), self.merge, self.term.work)
        self.memo[key] = found
        return found

    def extra(self, i: int):
        """What ops[i] adds for a die that meets its test: a reroll's new die, the chain of
        dice an explosion adds (each may explode again unless `once`; a penetrating one
        counts one less than it shows), or for a compounding die the sum of its chain."""
        found = self.chains.get(i)
        if found is not None:
            return found
        kind, once, hits = self.ops[i]
        term = self.term
        faces, n = term.faces, term.n
        shift = -1 if kind == "penetrate" else 0
        if term.limit <= 0:  # the roller fails at the first extra die
            found = ({}, 1)
        elif kind == "compound":  # the sum of the faces rolled until one misses
            stop: dict = {}
            go: dict = {}
            for f in faces:
                target = go if f in hits and not once else stop
                target[f] = target.get(f, 0) + 1
            found = self.series((stop, n), (go, n), self.ops[i] in term.to_limit, sums=True)
        elif kind == "reroll" and not once and self.ops[i] in term.to_limit:
            found = self.rerolls_to_limit(i)
        elif kind == "reroll" and not once:  # rolled until it misses: uniform over the misses
            misses = [f for f in faces if f not in hits]
            found = mix([(1, self.face(i + 1, f)) for f in misses], len(misses), self.term.work)
        elif once:
            found = mix([(1, self.face(i + 1, f + shift)) for f in faces], n, self.term.work)
        else:
            stop = mix(
                [(1, self.face(i + 1, f + shift)) for f in faces if f not in hits],
                n,
                self.term.work,
            )
            go = mix(
                [(1, self.face(i + 1, f + shift)) for f in faces if f in hits], n, self.term.work
            )
            found = self.series(stop, go, self.ops[i] in term.to_limit)
        self.chains[i] = found
        return found

    def rerolls_to_limit(self, i: int):
        """A die rerolled while it meets the test, at most `limit` times (the roller fails
        past that): the k-th reroll is the first miss with (h/n)^(k-1) · 1/n, k <= limit;
        what is missing, (h/n)^limit, is the chance of failing."""
        _, _, hits = self.ops[i]
        faces, n, limit = self.term.faces, self.term.n, self.term.limit
        h = sum(1 for f in faces if f in hits)
        reach = sum(h**k * n ** (limit - 1 - k) for k in range(limit))
        misses = [f for f in faces if f not in hits]
        return mix([(reach, self.face(i + 1, f)) for f in misses], n**limit, self.term.work)

    def series(self, stop, go, to_limit: bool, sums: bool = False):
        """Σ_k go^k · stop over k < K, the first K with mass(go)^K <= delta: what is left
        out, Σ_{k>=K} mass(go)^k · mass(stop), is at most mass(go)^K. K is never past the
        roller's limit (more extra dice make it fail), and is the limit itself when the
        chain is followed to it: what is left out is then the chance of failing. `sums`:
        stop and go are faces whose sum is wanted, whatever the walker's summaries are."""
        merge, work, delta = self.merge, self.term.work, self.delta
        if sums:
            merge = None
        num, den = sum(go[0].values()), go[1]
        limit = self.term.limit  # past `limit` extra dice the roller fails: never more
        if to_limit:
            terms = limit
        else:
            terms, reach_num, reach_den = 1, num, den
            while terms < limit and reach_num * delta.denominator > delta.numerator * reach_den:
                terms += 1
                reach_num *= num
                reach_den *= den
                work.spend(1)
        if not go[0]:
            return stop
        if merge is None and (sums or not self.term.packed):
            return geometric(stop, go, terms, work)
        parts = [(1, stop)]
        term = stop
        for _ in range(terms - 1):
            term = convolve(go, term, merge, work)
            parts.append((1, term))
        work.spend(sum(len(t[1][0]) for t in parts))
        return mix(parts, 1, self.term.work)
