"""Questions about an exploding pool's dice (`highest(2d6rr1x)`), counted over multisets.

An exploding pool is a random number of dice, but its multiset is simple to count: it is
a sum of *parts*, each a few kinds of independent dice (a kind: face weights over a
denominator, and how many dice of it) times the chance of that shape. The modifiers act
in the order written, as interpreter.dice.roll_pool applies them:

- a modifier that changes each die alone into one die (a reroll, `!!`, `min`/`max`)
  changes each kind's weights (interpreter.odds.walker, one face at a time);
- an explosion splits each kind into the dice that meet its test (b of c, C(c, b) ways)
  and those that miss; the B dice that met it start B chains of fresh dice, which, but for
  `xo`, go on while a die meets the test: e hits and B misses among the extra dice, in
  C(B + e - 1, e) ways (a penetrating extra die counts one less than it shows). e goes up
  until less than delta is left out of the part, as the total's explosions are cut; a
  chain that may reach the roller's limit (Term.to_limit) is counted to it exactly,
  each chain at most limit - 1 hits (the roll failing past them is left out);
- a keep that more modifiers follow turns each part into its kept multisets, each a part
  of dice that show one face; keeps at the end are a window of sorted positions.

Parts of the same kinds are merged (with `x` alone, the first dice and the extra ones are
the same kinds: a part per number of hits). Each part's answers are then counted by the
questions' evaluators over its mixed dice (multiset.evaluate_mixed). The answers are those
of the rolls that finish (conditioned on it, as pool_answers is, when the roller's limit
may be reached); what the cuts leave out is the Dist's omitted mass, below epsilon.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, gcd

from dsl.messages import tr
from interpreter.odds.distribution import Dist
from interpreter.odds.keeps import keep_range
from interpreter.odds.multiset import SortedFaces, evaluate_mixed
from interpreter.odds.polynomials import TooComplex, mix
from interpreter.odds.walker import GROWS, OPEN_ENDED, Walker

#: tries with a smaller cut when the first leaves out too much (as pool_distribution)
TRIES = 6


def exploding_answers(term, evaluators: list, epsilon) -> Dist:
    """The joint answers of `evaluators` about a term (interpreter.odds.pools.Term) whose
    modifiers make the pool grow, in any order with rerolls, keeps and clamps, the mass
    the explosions leave out below epsilon (Dist.omitted)."""
    epsilon = Fraction(epsilon)
    if term.count <= 0:  # as roll_pool: no dice, whatever the modifiers
        return Dist({tuple(e.final(e.start) for e in evaluators): 1}, 1)
    ops = term.ops
    end = len(ops)
    while end and ops[end - 1][0] == "keep":
        end -= 1
    cuts = 1 + sum(1 for op in ops if op[0] in OPEN_ENDED and not op[1])
    delta = epsilon / (4 * cuts)
    for _ in range(TRIES):
        counting = Counting(term, delta)
        parts = counting.run(ops[:end])
        found, left_out = counting.answers(parts, ops[end:], evaluators)
        if left_out < epsilon:
            return found
        delta = delta * epsilon / (4 * left_out)
    raise TooComplex(tr("the explosions of this term do not settle within epsilon"))


def kind_of(weights: dict, den: int, count: int) -> tuple:
    """A kind as a key: (its weights as sorted pairs, their denominator, how many)."""
    return tuple(sorted((f, w) for f, w in weights.items() if w)), den, count


def merged(kinds) -> tuple:
    """A part's kinds with the dice of equal weights put together, in a fixed order."""
    out: dict = {}
    for weights, den, count in kinds:
        if count and weights:
            out[(weights, den)] = out.get((weights, den), 0) + count
    return tuple(sorted((w, d, c) for (w, d), c in out.items()))


class Counting:
    """One pass over a term's modifiers with one cut (delta): parts, and the mass cut."""

    def __init__(self, term, delta: Fraction):
        self.term, self.delta, self.work = term, delta, term.work
        self.cut = Fraction(0)  # the mass the cuts left out, exactly
        self.plain: dict = {}
        for face in term.faces:
            self.plain[face] = self.plain.get(face, 0) + 1

    def run(self, ops) -> dict:
        """The parts (kinds → their chance) after `ops`, from the term's dice."""
        parts = {merged([kind_of(self.plain, self.term.n, self.term.count)]): Fraction(1)}
        for op in ops:
            if op[0] == "keep":
                parts = self.keep(parts, op)
            elif op[0] in GROWS:
                parts = self.explode(parts, op)
            else:
                parts = self.each_die(parts, op)
        return parts

    def add(self, out: dict, kinds, mass: Fraction) -> None:
        """Add a part, each kind made a whole distribution (weights with no common
        factor, over their sum) and its share of a die moved into the part's mass, so
        that dice drawn alike are one kind whatever they came from (a first die's 10
        and a chain's)."""
        if not mass:
            return
        whole = []
        for weights, den, count in kinds:
            if not count or not weights:
                continue
            common = 0
            for _, w in weights:
                common = gcd(common, w)
            own = tuple((f, w // common) for f, w in weights)
            total = sum(w for _, w in own)
            mass *= Fraction(common * total, den) ** count
            whole.append((own, total, count))
        key = merged(whole)
        out[key] = out.get(key, 0) + mass

    # ── one die into one die ──

    def each_die(self, parts: dict, op) -> dict:
        """A reroll, `!!` or a clamp: each kind's weights through it, face by face."""
        walker = Walker(self.term, (op,), self.term.face_leaf, None, self.delta / 4)
        failing = op in self.term.to_limit  # what it loses is the roll failing
        changed: dict = {}
        out: dict = {}
        for kinds, mass in parts.items():
            new, before, after = [], Fraction(1), Fraction(1)
            for weights, den, count in kinds:
                key = (weights, den)
                if key not in changed:
                    parts_of = [(w, walker.face(0, f)) for f, w in weights]
                    ws, d = mix(parts_of, den, self.work)
                    changed[key] = kind_of(ws, d, 0)[:2]
                ws, d = changed[key]
                new.append((ws, d, count))
                before *= Fraction(sum(w for _, w in weights), den) ** count
                after *= Fraction(sum(w for _, w in ws), d) ** count
            if not failing:
                self.cut += mass * (before - after)
            self.add(out, new, mass)
        return out

    # ── explosions ──

    def explode(self, parts: dict, op) -> dict:
        kind, once, hits = op
        term = self.term
        less = 1 if kind == "penetrate" else 0
        extra_hit = {f - less: w for f, w in self.plain.items() if f in hits}
        extra_miss = {f - less: w for f, w in self.plain.items() if f not in hits}
        extra_all = {f - less: w for f, w in self.plain.items()}
        chains = Chains(term, op, sum(extra_hit.values()), self.delta)
        out: dict = {}
        for kinds, mass in parts.items():
            for split, ways, chances in self.splits(kinds, hits):
                b = sum(count for (_, _, count, hit) in split if hit)
                base = [(w, d, c) for (w, d, c, _) in split]
                if b == 0:
                    self.add(out, base, mass * ways)
                    continue
                if term.limit <= 0:  # the roller fails at the first extra die
                    continue
                if once:
                    extra = kind_of(extra_all, term.n, b)
                    self.add(out, [*base, extra], mass * ways)
                    continue
                for e, e_ways in chains.hits(b):
                    new = [*base, kind_of(extra_hit, term.n, e), kind_of(extra_miss, term.n, b)]
                    self.add(out, new, mass * ways * e_ways)
                self.cut += mass * chances * chains.left(b)
        return out

    def splits(self, kinds, hits):
        """Each way the kinds' dice fall into hits and misses: ([(weights, den, count,
        hit)], ways, the chance of the split as a fraction of the part)."""
        options: list[list[tuple[tuple, int, Fraction]]] = [[((), 1, Fraction(1))]]
        for weights, den, count in kinds:
            hit = tuple((f, w) for f, w in weights if f in hits)
            miss = tuple((f, w) for f, w in weights if f not in hits)
            h, m = sum(w for _, w in hit), sum(w for _, w in miss)
            mine = []
            for b in range(count + 1):
                if (b and not h) or (count - b and not m):
                    continue
                dice = ((hit, den, b, True), (miss, den, count - b, False))
                chance = Fraction(comb(count, b) * h**b * m ** (count - b), den**count)
                mine.append((dice, comb(count, b), chance))
            self.work.spend(len(mine))
            options.append(mine)
        combos: list[tuple[tuple, int, Fraction]] = [((), 1, Fraction(1))]
        for mine in options[1:]:
            combos = [
                (dice + more, ways * w, chance * c)
                for dice, ways, chance in combos
                for more, w, c in mine
            ]
            self.work.spend(len(combos))
        return combos

    # ── keeps ──

    def keep(self, parts: dict, op) -> dict:
        """A keep that more modifiers follow: each part's kept multisets, each a part."""
        out: dict = {}
        for kinds, mass in parts.items():
            pools = [(dict(w), c) for w, _, c in kinds]
            size = sum(c for _, _, c in kinds)
            top_lo, top_hi = keep_range((op,), size)
            lo, hi = size - top_hi, size - top_lo
            if min(lo, size - hi) == 0 and lo + size - hi <= hi - lo:  # a few dropped
                self.drop_few(out, kinds, mass, lo or size - hi, bool(lo))
                continue
            found, _ = evaluate_mixed(pools, lo, hi, [SortedFaces()], self.work)
            den = 1
            for _, d, c in kinds:
                den *= d**c
            for (kept,), weight in found.items():
                faces: dict = {}
                for face in kept:
                    faces[face] = faces.get(face, 0) + 1
                new = [(((f, 1),), 1, c) for f, c in faces.items()]
                self.add(out, new, mass * Fraction(weight, den))
        return out

    def drop_few(self, out: dict, kinds, mass: Fraction, drop: int, low: bool) -> None:
        """All but `drop` dice kept, those dropped from one end (the lowest when `low`),
        without listing the kept multisets: for each face `a` the last dropped die shows,
        each kind's dice fall past it (dropped, fewer than `drop` in all), at it, or
        beyond it; the kept are the dice at `a` left over and each kind's dice beyond
        `a`: the same kind, its weights cut to those faces (a part as any other)."""

        if drop <= 0:  # (a keep of all)
            self.add(out, kinds, mass)
            return

        def past(f, a):
            return f < a if low else f > a

        faces = sorted({f for weights, _, _ in kinds for f, _ in weights})
        for a in faces:
            combos: list = [((), 0, 0, mass)]  # (kinds beyond a, dropped, at a, mass)
            for weights, den, count in kinds:
                below = sum(w for f, w in weights if past(f, a))
                at = sum(w for f, w in weights if f == a)
                beyond = tuple((f, w) for f, w in weights if f != a and not past(f, a))
                rest = sum(w for _, w in beyond)
                mine = []
                for nb in range(min(count, drop - 1) + 1):
                    for na in range(count - nb + 1):
                        nr = count - nb - na
                        if (nb and not below) or (na and not at) or (nr and not rest):
                            continue
                        ways = comb(count, nb) * comb(count - nb, na)
                        chance = Fraction(ways * below**nb * at**na, den ** (nb + na))
                        mine.append((nb, na, (beyond, den, nr), chance))
                self.work.spend(len(combos) * len(mine) + 1)
                combos = [
                    ((*kept, kind), dropped + nb, at_a + na, m * chance)
                    for kept, dropped, at_a, m in combos
                    for nb, na, kind, chance in mine
                    if dropped + nb < drop
                ]
            for kept, dropped, at_a, m in combos:
                if dropped + at_a >= drop:
                    self.add(out, [*kept, (((a, 1),), 1, dropped + at_a - drop)], m)

    # ── the answers ──

    def answers(self, parts: dict, keeps: tuple, evaluators: list) -> tuple:
        """(the answers of every part, weighed, conditioned on the roll finishing; the
        share of the finishing mass the cuts left out)."""
        collected = []
        common = 1
        kept = Fraction(0)
        for kinds, mass in parts.items():
            pools = [(dict(w), c) for w, _, c in kinds]
            size = sum(c for _, _, c in kinds)
            lo, hi = 0, size
            if keeps:
                top_lo, top_hi = keep_range(keeps, size)
                lo, hi = size - top_hi, size - top_lo
            if pools:
                found, _ = evaluate_mixed(pools, lo, hi, evaluators, self.work)
            else:
                found = {tuple(e.final(e.start) for e in evaluators): 1}
            den = mass.denominator
            for _, d, c in kinds:
                den *= d**c
            collected.append((found, mass.numerator, den))
            common = common * den // gcd(common, den)
            kept += Fraction(sum(found.values()) * mass.numerator, den)
        out: dict = {}
        for found, numerator, den in collected:
            scale = numerator * (common // den)
            for answer, weight in found.items():
                out[answer] = out.get(answer, 0) + weight * scale
        finishing = kept + self.cut  # the mass of the rolls that finish, but a sliver
        if not finishing:
            raise TooComplex(tr("the explosions of this term do not settle within epsilon"))
        out = {a: w * finishing.denominator for a, w in out.items()}
        return Dist(out, common * finishing.numerator).reduced(), self.cut / finishing


class Chains:
    """The extra hits of B chains of one explosion: (e, ways) up to the cut or the limit,
    each way of weight q^e (1 - q)^B over the kind's own denominators."""

    def __init__(self, term, op, h: int, delta: Fraction):
        self.n, self.h, self.delta, self.work = term.n, h, delta, term.work
        self.to_limit = op in term.to_limit
        self.most = term.limit - 1  # extra hits one chain may have before the roller fails
        self.tails: dict = {}

    def hits(self, b: int):
        """(e, ways) for the e hits among the extra dice of b chains."""
        n, h = self.n, self.h
        if not h:
            yield 0, 1
            self.tails[b] = Fraction(0)
            return
        if self.to_limit:
            for e in range(b * self.most + 1):
                self.work.spend(b + e)
                yield e, bounded_ways(e, b, self.most)
            self.tails[b] = Fraction(0)  # past the limit is failing, not cut
            return
        left, e = Fraction(1), 0
        while left >= self.delta:
            ways = comb(b + e - 1, e)
            self.work.spend(b + e)
            yield e, ways
            left -= Fraction(ways * h**e * (n - h) ** b, n ** (b + e))
            e += 1
        self.tails[b] = left

    def left(self, b: int) -> Fraction:
        """What the last `hits(b)` left out, as a share of its chains."""
        return self.tails.get(b, Fraction(0))


def bounded_ways(e: int, b: int, most: int) -> int:
    """The ways to share e hits among b chains, none with more than `most`."""
    total = 0
    for k in range(b + 1):
        rest = e - k * (most + 1)
        if rest < 0:
            break
        total += (-1) ** k * comb(b, k) * comb(rest + b - 1, b - 1)
    return total
