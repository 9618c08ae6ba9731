"""Exact probability distributions, and the distribution of one dice term.

A `Dist` is a finite table of outcomes with whole-number weights over one denominator:
P(outcome) = weight / total. Weights are Python ints (exact, and much faster than
Fractions). When an open-ended roll (an explosion, a reroll chain) is cut off, the mass
left out is simply not in the table: `omitted = 1 - sum(weights) / total`.

`pool_distribution(die, count, steps, epsilon)` gives one dice term's distribution,
counted combinatorially, never by listing every way the dice can fall: sums by one
big-integer power of the die's polynomial (Kronecker substitution), success pools as
trinomial counts, keeps over iid dice by order statistics over the faces, explosions as a
geometric series of each die's chain (and, with keeps, as a negative-binomial number of
extra dice, or a DP over each chain's top few faces), rerolls in closed form. Modifiers in
unusual orders fall back on the sorted pool itself, under a work budget: past it,
`TooComplex`, and the caller samples instead.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, gcd

from interpreter.errors import EvaluationError


class Dist:
    """An exact distribution: outcome → weight, over `total`. Immutable by convention."""

    __slots__ = ("total", "weights")

    def __init__(self, weights: dict, total: int):
        self.weights = weights
        self.total = total

    @classmethod
    def point(cls, value) -> Dist:
        return cls({value: 1}, 1)

    @classmethod
    def uniform(cls, values) -> Dist:
        weights: dict = {}
        for value in values:
            weights[value] = weights.get(value, 0) + 1
        return cls(weights, sum(weights.values()))

    # ─── reading ────────────────────────────────────────────────────────────

    def probability(self, outcome) -> Fraction:
        return Fraction(self.weights.get(outcome, 0), self.total)

    def items(self):
        """(outcome, probability as a Fraction) pairs."""
        total = self.total
        return [(outcome, Fraction(weight, total)) for outcome, weight in self.weights.items()]

    @property
    def omitted(self) -> Fraction:
        """Probability left out by cutting open-ended rolls short."""
        return 1 - Fraction(sum(self.weights.values()), self.total)

    def __len__(self) -> int:
        return len(self.weights)

    def __repr__(self) -> str:
        shown = ", ".join(f"{o!r}: {w}" for o, w in list(self.weights.items())[:6])
        more = ", ..." if len(self.weights) > 6 else ""
        return f"Dist({{{shown}{more}}} / {self.total})"

    # ─── building ───────────────────────────────────────────────────────────

    def map(self, function) -> Dist:
        """The distribution of function(outcome); equal results are merged."""
        weights: dict = {}
        for outcome, weight in self.weights.items():
            result = function(outcome)
            weights[result] = weights.get(result, 0) + weight
        return Dist(weights, self.total)

    def combine(self, other: Dist, function) -> Dist:
        """The distribution of function(a, b) for independent a ~ self, b ~ other."""
        weights: dict = {}
        for a, wa in self.weights.items():
            for b, wb in other.weights.items():
                result = function(a, b)
                weights[result] = weights.get(result, 0) + wa * wb
        return Dist(weights, self.total * other.total).reduced()

    def reduced(self) -> Dist:
        """The same distribution with the weights' common factor taken out."""
        common = self.total
        for weight in self.weights.values():
            common = gcd(common, weight)
            if common == 1:
                return self
        if common <= 1:
            return self
        return Dist({o: w // common for o, w in self.weights.items()}, self.total // common)


def mixture(parts) -> Dist:
    """Σ p_i · D_i for (probability as a Fraction, Dist) pairs."""
    denominator = 1
    for probability, dist in parts:
        denominator = (
            denominator
            * probability.denominator
            * dist.total
            // gcd(denominator, probability.denominator * dist.total)
        )
    weights: dict = {}
    for probability, dist in parts:
        scale = probability.numerator * (denominator // (probability.denominator * dist.total))
        for outcome, weight in dist.weights.items():
            weights[outcome] = weights.get(outcome, 0) + weight * scale
    return Dist(weights, denominator).reduced()


# ─── the distribution of one dice term ──────────────────────────────────────
#
# The term's value depends only on the multiset of faces it keeps, and every explosion or
# reroll acts on one die at a time. So the work is done on *summaries* of groups of dice
# that merge associatively: a running total (sums, and success/failure counts packed into
# one int), one face (dice about to be kept or dropped by an order-statistics pass), the
# top or bottom few faces (keeps over pools that explosions make larger), or the whole
# sorted pool (the general method, for modifiers in unusual orders, under a work budget).
#
# A term's modifiers split at its keeps: the dice before the first keep evolve one by one
# (each base die becomes a distribution over summaries), the keeps select among the
# pooled summaries, and what comes after the last keep turns each kept face into a
# distribution of values. Weights are exact ints over one denominator throughout.

#: units of work (about 0.1 µs each: one dictionary update) a term may take before TooComplex
DEFAULT_BUDGET = 10_000_000
#: the mass an open-ended roll may leave out, when the caller does not say
DEFAULT_EPSILON = Fraction(1, 10**12)

_SHIFT = 32  # a success/failure count is packed into one int: successes << 32 | failures
_LOW = (1 << _SHIFT) - 1


_PLAIN = "plain"  # a term whose kept faces each add their own value (nothing after keeps)


class TooComplex(Exception):
    """The exact distribution of a term would take more work than the budget allows."""


class _Budget:
    __slots__ = ("left", "limit")

    def __init__(self, limit: int):
        self.left = self.limit = limit

    def check(self, amount: int) -> None:
        """Raise now if `amount` more units would pass the budget (spend nothing)."""
        if amount > self.left:
            raise TooComplex(f"the exact distribution needs more than {self.limit} units of work")

    def spend(self, amount: int) -> None:
        self.left -= amount
        if self.left < 0:
            raise TooComplex(f"the exact distribution needs more than {self.limit} units of work")


def pool_distribution(
    die, count: int, steps: tuple, epsilon=DEFAULT_EPSILON, budget: int = DEFAULT_BUDGET
) -> Dist:
    """The exact distribution of one dice term.

    Outcomes are (total, successes, failures) triples; successes and failures are None
    unless the term counts successes (`cs`), and then total = successes - failures.
    `steps` are the compiled modifiers of interpreter.evaluate (the same tuples
    interpreter.dice.roll_pool takes), with their meaning exactly as roll_pool gives it.
    Explosions are followed until the probability left out of the whole term is below
    `epsilon`; that mass is missing from the weights (`Dist.omitted` reports it). Raises
    TooComplex when the term would take more than `budget` units of work (the caller
    can sample instead) and EvaluationError for a roll that could never end.
    """
    epsilon = Fraction(epsilon)
    if epsilon <= 0:
        raise ValueError("epsilon must be positive")
    work = _Budget(budget)
    term = _Term(die, count, steps, work)
    if count <= 0:  # as roll_pool: no dice, whatever the modifiers
        return term.outcomes({0: 1}, 1)
    if not term.open_ended:
        return term.outcomes(*term.compute(None))
    delta = epsilon / (4 * max(count, 1) * term.open_ended)
    for _ in range(8):
        weights, total = term.compute(delta)
        missing = Fraction(total - sum(weights.values()), total)
        if missing < epsilon:
            return term.outcomes(weights, total)
        delta = delta * epsilon / (4 * missing)
    raise TooComplex("the explosions of this term do not settle within epsilon")


# ─── distributions as (weights, denominator) pairs ──────────────────────────


def _mix(parts, outer: int):
    """Σ coef · (weights / den) / outer, for (coef, (weights, den)) parts."""
    common = 1
    for _, (_, den) in parts:
        if den != 1 and common % den:
            common = common * den // gcd(common, den)
    out: dict = {}
    get = out.get
    for coef, (weights, den) in parts:
        scale = coef * (common // den)
        for key, weight in weights.items():
            out[key] = get(key, 0) + weight * scale
    return out, common * outer


def _convolve(a, b, merge, work: _Budget):
    """The distribution of merge(x, y) (or x + y when merge is None) for x ~ a, y ~ b."""
    wa, da = a
    wb, db = b
    if len(wa) < len(wb):
        wa, wb = wb, wa
    out: dict = {}
    get = out.get
    if merge is None:
        if len(wb) == 1:
            ((kb, xb),) = wb.items()
            if xb == 1:
                return ({ka + kb: xa for ka, xa in wa.items()} if kb else wa), da * db
            return {ka + kb: xa * xb for ka, xa in wa.items()}, da * db
        if len(wa) * len(wb) > 400 and type(next(iter(wa))) is int:
            dense = _dense_product(wa, wb, work)
            if dense is not None:
                return dense, da * db
        work.spend(len(wa) * len(wb))
        for kb, xb in wb.items():
            for ka, xa in wa.items():
                key = ka + kb
                out[key] = get(key, 0) + xa * xb
    else:  # merging sorted faces: about 1 µs, more for long tuples
        size = len(next(iter(wa))) + len(next(iter(wb)))
        work.spend((8 + size) * len(wa) * len(wb))
        for kb, xb in wb.items():
            for ka, xa in wa.items():
                key = merge(ka, kb)
                out[key] = get(key, 0) + xa * xb
    return out, da * db


def _product_cost(size: int) -> int:
    """Work units (about 0.1 µs each) of multiplying two ints of `size` bytes in all
    (Karatsuba: about 11 ns per 30-bit digit to the power 1.585)."""
    return int((size * 8 / 60) ** 1.585 / 9)


def _to_int(coeffs: list, width: int) -> int:
    return int.from_bytes(b"".join([c.to_bytes(width, "little") for c in coeffs]), "little")


def _from_int(value: int, count: int, width: int) -> list:
    data = value.to_bytes(count * width, "little")
    return [int.from_bytes(data[i : i + width], "little") for i in range(0, count * width, width)]


def _dense(weights: dict, low: int, length: int) -> list:
    coeffs = [0] * length
    for key, weight in weights.items():
        coeffs[key - low] = weight
    return coeffs


def _dense_product(wa: dict, wb: dict, work: _Budget):
    """x + y for int keys by one big-integer multiplication (Kronecker substitution)."""
    la, lb = min(wa), min(wb)
    na, nb = max(wa) - la + 1, max(wb) - lb + 1
    if na + nb > 8 * (len(wa) + len(wb)) + 64:  # too sparse to pay off
        return None
    width = (sum(wa.values()) * sum(wb.values())).bit_length() // 8 + 1
    length = na + nb - 1
    work.spend(_product_cost(length * width) + length)
    product = _to_int(_dense(wa, la, na), width) * _to_int(_dense(wb, lb, nb), width)
    low = la + lb
    return {low + i: c for i, c in enumerate(_from_int(product, length, width)) if c}


def _power_sum(dist, count: int, work: _Budget):
    """The sum of `count` independent draws of an int-keyed distribution."""
    weights, den = dist
    if count == 1:
        return dist
    if len(weights) == 1:
        ((key, weight),) = weights.items()
        return {key * count: weight**count}, den**count
    low, high = min(weights), max(weights)
    span = high - low + 1
    length = count * (span - 1) + 1
    width = (sum(weights.values()) ** count).bit_length() // 8 + 1
    work.spend(2 * _product_cost(length * width // 2) + length)
    power = _to_int(_dense(weights, low, span), width) ** count
    base = low * count
    return {base + i: c for i, c in enumerate(_from_int(power, length, width)) if c}, den**count


def _power_counts(dist, count: int, work: _Budget):
    """The same for packed (successes << 32 | failures) keys: the trinomial counts."""
    weights, den = dist
    if count <= 1 or len(weights) == 1:
        return _power_sum(dist, count, work)
    high_f = max(key & _LOW for key in weights)
    stride = count * high_f + 1
    packed = {(key >> _SHIFT) * stride + (key & _LOW): w for key, w in weights.items()}
    result, total = _power_sum((packed, den), count, work)
    return {(key // stride) << _SHIFT | key % stride: w for key, w in result.items()}, total


def _power_merge(dist, count: int, merge, unit, work: _Budget):
    """`count` independent draws combined with an associative, commutative merge."""
    result = ({unit: 1}, 1)
    for _ in range(count):
        result = _convolve(result, dist, merge, work)
    return result


# ─── one term ───────────────────────────────────────────────────────────────


class _Term:
    """A dice term's die, count and modifiers, read once, and the ways to compute it."""

    def __init__(self, die, count: int, steps: tuple, work: _Budget):
        work.spend(die.size)
        faces = tuple(die.faces())
        self.faces, self.n, self.count, self.work = faces, len(faces), count, work
        ops = []
        success = failure = None
        for step in steps:
            kind = step[0]
            if kind == "keep":
                ops.append(("keep", step[1], step[2]))
            elif kind == "explode" or kind == "reroll":
                once, test = step[1], step[2]
                hits = frozenset(face for face in faces if test(face))
                if not once and len(hits) == len(faces):
                    what = "explodes" if kind == "explode" else "is rerolled"
                    raise EvaluationError(
                        f"every face of {die.label} {what} under this "
                        "condition, so the roll would never end",
                        step[3],
                    )
                if hits:
                    ops.append((kind, once, hits))
            elif kind == "successes":
                success = step[1]
            else:
                failure = step[1]
        self.ops = tuple(ops)
        self.counts = success is not None
        # the additive value of one kept face: the face; or its success (1 or 0); or, when
        # failures count too, successes << 32 | failures (both add up independently)
        self.packed = self.counts and failure is not None
        if self.packed:
            self.value = {
                face: (bool(success(face)) << _SHIFT) | bool(failure(face)) for face in faces
            }
        elif self.counts:
            self.value = {face: int(bool(success(face))) for face in faces}
        else:
            self.value = {face: face for face in faces}
        self.open_ended = sum(1 for op in ops if op[0] == "explode" and not op[1])

    def outcomes(self, weights: dict, total: int) -> Dist:
        if self.packed:
            out = {}
            for key, weight in weights.items():
                s, f = key >> _SHIFT, key & _LOW
                out[(s - f, s, f)] = weight
        elif self.counts:
            out = {(key, key, 0): weight for key, weight in weights.items()}
        else:
            out = {(key, None, None): weight for key, weight in weights.items()}
        return Dist(out, total).reduced()

    # ── the plan ──

    def compute(self, delta):
        ops, count = self.ops, self.count
        keeps = [i for i, op in enumerate(ops) if op[0] == "keep"]
        if not keeps:
            per_die = self.per_die(ops, self.add_leaf, None, delta)
            power = _power_counts if self.packed else _power_sum
            return power(per_die, count, self.work)
        first, last = keeps[0], keeps[-1]
        before, middle, after = ops[:first], ops[first : last + 1], ops[last + 1 :]
        if after:
            walker = _Walker(self, after, self.add_leaf, None, delta)
            value = {face: walker.face(0, face) for face in self.faces}
        else:
            value = _PLAIN  # each kept face adds its own value
        only_keeps = all(op[0] == "keep" for op in middle)
        if only_keeps and not any(op[0] == "explode" for op in before):
            lo, hi = _keep_range(middle, count)
            faces = self.per_die(before, self.face_leaf, None, delta)
            return self.order_statistics(faces, lo, hi, value)
        if only_keeps and len(before) == 1 and before[0][0] == "explode" and not before[0][1]:
            found = self.split_explosion(before[0][2], middle, value, delta)
            if found is not None:
                return found
        if only_keeps:
            ends = _keep_ends(middle, count)
            if ends is not None and (ends[2] is not None or not after):
                return self.extremes(before, *ends, value, delta)
        return self.general(before, middle, value, delta)

    def add_leaf(self, face):
        return {self.value[face]: 1}, 1

    def face_leaf(self, face):
        return {face: 1}, 1

    def per_die(self, ops, leaf, merge, delta):
        """The distribution of one base die's summary after `ops`."""
        if not ops and leaf == self.add_leaf:
            out: dict = {}
            for face in self.faces:
                key = self.value[face]
                out[key] = out.get(key, 0) + 1
            return out, self.n
        if not ops and leaf == self.face_leaf:
            return dict.fromkeys(self.faces, 1), self.n
        walker = _Walker(self, ops, leaf, merge, delta)
        return _mix([(1, walker.face(0, face)) for face in self.faces], self.n)

    # ── fixed pools: order statistics over the faces ──

    def order_statistics(self, faces, lo: int, hi: int, value, count=None):
        """Σ value(face) over sorted positions [lo, hi) (highest first) of `count` iid dice
        (the term's count unless given) with these face weights; value=None: the kept
        faces themselves, as sorted tuples.

        The faces are taken from one end; a state is how many dice have shown a face so
        far and what the kept ones add up to. Once the last kept position is filled, the
        dice left are free: (their faces' weight) ** (how many) at once."""
        weights, den = faces
        work = self.work
        if count is None:
            count = self.count
        if hi <= lo:
            return {(): 1} if value is None else {0: 1}, 1
        if hi <= count - lo:
            order, a, b = sorted(weights, reverse=True), lo, hi
        else:
            order, a, b = sorted(weights), count - hi, count - lo
        order = [face for face in order if weights[face]]
        scale = 1
        if value is None:
            mode = "faces"
        elif value is _PLAIN:
            mode = "points"
            shift = self.value
        elif all(len(value[f][0]) == 1 and value[f][1] == 1 for f in order):
            mode = "points"
            shift = {f: next(iter(value[f][0])) for f in order}
        else:
            mode = "dists"
            for f in order:
                d = value[f][1]
                scale = scale * d // gcd(scale, d)
            scaled = {}
            for f in order:
                w, d = value[f]
                factor = scale // d
                scaled[f] = ({k: x * factor for k, x in w.items()}, scale)
            powers = {f: [({0: 1}, 1)] for f in order}
        suffix = [0] * (len(order) + 1)
        for i in range(len(order) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + weights[order[i]]
        if mode == "points" and not self.packed:
            return _order_sums(order, weights, suffix, count, a, b, shift, work), den**count
        rows = {}
        state = {0: {() if mode == "faces" else 0: 1}}
        final: dict = {}

        def add(target, acc, f, m, coef):
            get = target.get
            work.spend(len(acc))
            if mode == "points":
                s = shift[f] * m
                for k, x in acc.items():
                    target[k + s] = get(k + s, 0) + x * coef
                return
            if mode == "faces":
                more = (f,) * m
                for k, x in acc.items():
                    target[k + more] = get(k + more, 0) + x * coef
                return
            pw = powers[f]
            while len(pw) <= m:
                pw.append(_convolve(pw[-1], scaled[f], None, work))
            gm = pw[m][0]
            if len(gm) == 1:
                ((kg, xg),) = gm.items()
                c2 = coef * xg
                for k, x in acc.items():
                    target[k + kg] = get(k + kg, 0) + x * c2
                return
            product, _ = _convolve((acc, 1), (gm, 1), None, work)
            for k, x in product.items():
                target[k] = get(k, 0) + x * coef

        for index, f in enumerate(order):
            w, rest = weights[f], suffix[index + 1]
            new: dict = {}
            for j, acc in state.items():
                remaining = count - j
                row = rows.get(remaining)
                if row is None:
                    row = rows[remaining] = [comb(remaining, c) for c in range(remaining + 1)]
                stay = b - j  # c < stay leaves position b unfilled (b <= count)
                taken = 0
                wc = 1
                if rest:  # else the dice not yet placed would have no face left to show
                    for c in range(stay):
                        coef = row[c] * wc
                        taken += coef * rest ** (remaining - c)
                        target = new.get(j + c)
                        if target is None:
                            target = new[j + c] = {}
                        add(target, acc, f, max(0, j + c - max(j, a)), coef)
                        wc *= w
                add(final, acc, f, b - max(j, a), (w + rest) ** remaining - taken)
            state = new
        if mode == "faces" and order and order[0] > order[-1]:
            final = {k[::-1]: x for k, x in final.items()}
        return final, den**count * scale ** (b - a)

    # ── pools that explosions make larger: keep the top (or bottom) few ──

    def extremes(self, before, high: bool, lo: int, hi, value, delta):
        """Keep sorted positions [lo, hi) counted from the top (high) or the bottom of a
        pool whose size varies; hi=None: all but the first lo. value=None: the kept faces,
        as tuples sorted up."""
        keep_rest = hi is None
        cap = lo if keep_rest else hi
        val = self.value
        work = self.work

        def merge(a, b):
            faces = sorted(a + b, reverse=high)
            return tuple(faces[:cap])

        def leaf(face):
            return {(face,) if cap else (): 1}, 1

        if not keep_rest:
            # the pool's states are the multisets of at most cap faces
            work.check(self.count * comb(self.n + cap, cap) * (8 + 2 * cap))
            per_die = self.per_die(before, leaf, merge, delta)
            weights, den = _power_merge(per_die, self.count, merge, (), work)
            pools = ((faces[lo:hi], weight) for faces, weight in weights.items())
            if value is None:
                out: dict = {}
                for faces, weight in pools:
                    key = tuple(sorted(faces))
                    out[key] = out.get(key, 0) + weight
                return out, den
            return self.valued(pools, den, value)

        # all but the first lo: the first lo faces, and the sum of the others' values
        def merge_rest(a, b):
            faces = sorted(a[0] + b[0], reverse=high)
            total = a[1] + b[1]
            for face in faces[cap:]:
                total += val[face]
            return tuple(faces[:cap]), total

        def leaf_rest(face):
            return ({((face,), 0): 1} if cap else {((), val[face]): 1}), 1

        weights, den = self.per_die(before, leaf_rest, merge_rest, delta)
        die: dict = {}
        for (faces, total), weight in weights.items():
            die.setdefault(faces, {})[total] = weight
        pool: dict = {(): {0: 1}}
        merged: dict = {}
        for _ in range(self.count):
            out = {}
            for t1, a1 in pool.items():
                for t2, a2 in die.items():
                    found = merged.get((t1, t2))
                    if found is None:
                        faces = sorted(t1 + t2, reverse=high)
                        found = merged[(t1, t2)] = (
                            tuple(faces[:cap]),
                            sum(val[face] for face in faces[cap:]),
                        )
                    faces, shift = found
                    product, _ = _convolve((a1, 1), (a2, 1), None, work)
                    target = out.get(faces)
                    if target is None:
                        target = out[faces] = {}
                    get = target.get
                    for k, x in product.items():
                        target[k + shift] = get(k + shift, 0) + x
            pool = out
        total: dict = {}
        for sums in pool.values():
            for k, x in sums.items():
                total[k] = total.get(k, 0) + x
        return total, den**self.count

    def split_explosion(self, hits, keeps, value, delta):
        """The keeps over a pool that one explosion on the top (or bottom) faces makes
        larger: every extra die, and every die that made one, shows a face of that block,
        and the others show the rest. Given X extra dice (X hits before `count` misses: a
        negative binomial), the pool is X iid dice over the block and `count` iid dice over
        the rest, one group wholly above the other: what the keeps leave of each is an
        order statistic of that group. None when the block is not at an end."""
        faces, n, count, work = self.faces, self.n, self.count, self.work
        h = len(hits)
        m = n - h
        if all(f in hits for f in faces[n - h :]):
            hits_on_top = True
        elif all(f in hits for f in faces[:h]):
            hits_on_top = False
        else:
            return None
        block = ({f: 1 for f in faces if f in hits}, h)
        rest = ({f: 1 for f in faces if f not in hits}, m)
        stats: dict = {}

        def part(group, size: int, a: int, b: int):
            """Sorted positions [a, b) (highest first) of `size` dice of the group."""
            b = max(min(b, size), 0)
            a = min(max(a, 0), b)
            key = (group is block, size, a, b)
            found = stats.get(key)
            if found is None:
                found = stats[key] = self.order_statistics(group, a, b, value, size)
            return found

        merge = None if value is not None else _merge_sorted
        parts = []
        tail = Fraction(1)
        target = delta * max(count, 1)
        x = 0
        while True:
            lo, hi = _keep_range(keeps, count + x)
            if hits_on_top:
                first, second = part(block, x, lo, hi), part(rest, count, lo - x, hi - x)
            else:
                first = part(rest, count, lo, hi)
                second = part(block, x, lo - count, hi - count)
            # P(X = x) = C(count + x - 1, x) (h/n)^x (m/n)^count
            ways = comb(count + x - 1, x) if count else int(x == 0)
            parts.append((x, ways * h**x * m**count, _convolve(first, second, merge, work)))
            tail -= Fraction(ways * h**x * m**count, n ** (count + x))
            if tail <= target or not count:
                break
            x += 1
            work.spend(x * n)
        top = parts[-1][0]
        return _mix([(coef * n ** (top - x), dist) for x, coef, dist in parts], n ** (count + top))

    def valued(self, pools, den: int, value):
        """Mix Σ value(face) over each pool's faces, weighted as given."""
        if value is _PLAIN or all(len(v[0]) == 1 and v[1] == 1 for v in value.values()):
            shift = (
                self.value
                if value is _PLAIN
                else {face: next(iter(v[0])) for face, v in value.items()}
            )
            out: dict = {}
            for faces, weight in pools:
                key = 0
                for face in faces:
                    key += shift[face]
                out[key] = out.get(key, 0) + weight
            return out, den
        memo = {(): ({0: 1}, 1)}

        def of(faces):
            found = memo.get(faces)
            if found is None:
                found = memo[faces] = _convolve(of(faces[:-1]), value[faces[-1]], None, self.work)
            return found

        return _mix([(weight, of(tuple(faces))) for faces, weight in pools], den)

    # ── anything else: the sorted pool itself ──

    def general(self, before, middle, value, delta):
        """The kept faces as sorted tuples, step by step; the leading keeps by order
        statistics (or over the top or bottom few) when they can be."""

        def merge(a, b):
            return tuple(sorted(a + b))

        def leaf(face):
            return {(face,): 1}, 1

        work = self.work
        lead = 0
        while lead < len(middle) and middle[lead][0] == "keep":
            lead += 1
        first, middle = middle[:lead], middle[lead:]
        ends = _keep_ends(first, self.count)
        split = None
        if len(before) == 1 and before[0][0] == "explode" and not before[0][1]:
            split = self.split_explosion(before[0][2], first, None, delta)
        if split is not None:
            pool = split
        elif not any(op[0] == "explode" for op in before):
            lo, hi = _keep_range(first, self.count)
            pool = self.order_statistics(
                self.per_die(before, self.face_leaf, None, delta), lo, hi, None
            )
        elif ends is not None and ends[2] is not None:
            pool = self.extremes(before, *ends, None, delta)
        else:
            pool = _power_merge(
                self.per_die(before, leaf, merge, delta), self.count, merge, (), work
            )
            middle = first + middle
        for op in middle:
            weights, den = pool
            if op[0] == "keep":
                _, mode, k = op
                out: dict = {}
                for faces, weight in weights.items():
                    size = len(faces)
                    k2 = min(k, size)
                    if mode == "kh":
                        kept = faces[size - k2 :]
                    elif mode == "kl":
                        kept = faces[:k2]
                    elif mode == "dh":
                        kept = faces[: size - k2]
                    else:
                        kept = faces[k2:]
                    out[kept] = out.get(kept, 0) + weight
                work.spend(len(weights))
                pool = out, den
                continue
            walker = _Walker(self, (op,), leaf, merge, delta)
            memo = {(): ({(): 1}, 1)}

            def of(faces, memo=memo, walker=walker):
                found = memo.get(faces)
                if found is None:
                    found = memo[faces] = _convolve(
                        of(faces[:-1]), walker.face(0, faces[-1]), merge, work
                    )
                return found

            pool = _mix([(weight, of(faces)) for faces, weight in weights.items()], den)
        weights, den = pool
        return self.valued(weights.items(), den, value)


def _order_sums(order, weights, suffix, count: int, a: int, b: int, shift: dict, work):
    """order_statistics for int values: each state's sums are one big int, the weight of
    sum k at bit k * width, so that adding m dice of one face is a shift."""
    low = min(shift[f] for f in order)
    width = ((suffix[0] ** count).bit_length() // 8 + 1) * 8
    step = {f: (shift[f] - low) * width for f in order}
    length = (b - a) * (max(shift[f] for f in order) - low) + 1
    work.spend(len(order) * b * b * (1 + length * width // 4096))
    rows = {}
    state = {0: 1}
    final = 0
    for index, f in enumerate(order):
        w, rest, bits = weights[f], suffix[index + 1], step[f]
        new: dict = {}
        for j, acc in state.items():
            remaining = count - j
            row = rows.get(remaining)
            if row is None:
                row = rows[remaining] = [comb(remaining, c) for c in range(remaining + 1)]
            top = max(j, a)
            taken = 0
            wc = 1
            if rest:
                for c in range(b - j):
                    coef = row[c] * wc
                    taken += coef * rest ** (remaining - c)
                    moved = (acc * coef) << (max(0, j + c - top) * bits)
                    new[j + c] = new.get(j + c, 0) + moved
                    wc *= w
            final += (acc * ((w + rest) ** remaining - taken)) << ((b - top) * bits)
        state = new
    nbytes = width // 8
    data = final.to_bytes(length * nbytes, "little")
    base = low * (b - a)
    out = {}
    for i in range(length):
        c = int.from_bytes(data[i * nbytes : (i + 1) * nbytes], "little")
        if c:
            out[base + i] = c
    return out


def _merge_sorted(a: tuple, b: tuple) -> tuple:
    return tuple(sorted(a + b))


def _keep_range(keeps, count: int):
    """Sorted positions [lo, hi) (highest first) that keeps over `count` dice leave."""
    lo, hi = 0, count
    for _, mode, k in keeps:
        k = min(k, hi - lo)
        if mode == "kh":
            hi = lo + k
        elif mode == "kl":
            lo = hi - k
        elif mode == "dh":
            lo += k
        else:
            hi -= k
    return lo, hi


def _keep_ends(keeps, count: int):
    """What keeps leave of a pool of `count` or more dice (explosions add dice), if it is
    the same counted from one end whatever the size: (from_top, lo, hi) for sorted
    positions [lo, hi) from that end, hi=None for "all the rest"; else None.

    The ranges only change with the size up to count + Σk (past that, no min() in
    _keep_range changes side), so trying those sizes is exact."""
    sizes = range(count, count + sum(k for _, _, k in keeps) + 2)
    ranges = [(_keep_range(keeps, size), size) for size in sizes]
    for top in (True, False):
        lows, highs, ends = set(), set(), []
        for (lo, hi), size in ranges:
            if not top:
                lo, hi = size - hi, size - lo
            lows.add(lo)
            if hi < size:
                highs.add(hi)
            else:
                ends.append(size)  # up to the end: any fixed hi >= size says the same
        if len(lows) == 1 and len(highs) <= 1:
            hi = highs.pop() if highs else None
            if hi is None or all(hi >= size for size in ends):
                return top, lows.pop(), hi
    return None


class _Walker:
    """Per-face distributions of summaries through a run of explosions and rerolls."""

    def __init__(self, term: _Term, ops: tuple, leaf, merge, delta):
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
                found = _convolve(self.face(i + 1, face), self.extra(i), self.merge, self.term.work)
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
            found = _mix([(1, self.face(i + 1, f)) for f in faces if f not in hits], n - len(hits))
        elif once:
            found = _mix([(1, self.face(i + 1, f)) for f in faces], n)
        else:
            stop = _mix([(1, self.face(i + 1, f)) for f in faces if f not in hits], n)
            go = _mix([(1, self.face(i + 1, f)) for f in faces if f in hits], n)
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
            return _geometric(stop, go, terms, work)
        parts = [(1, stop)]
        term = stop
        for _ in range(terms - 1):
            term = _convolve(go, term, merge, work)
            parts.append((1, term))
        work.spend(sum(len(t[1][0]) for t in parts))
        return _mix(parts, 1)


def _geometric(stop, go, terms: int, work: _Budget):
    """Σ_{k<terms} go^k · stop for sums, by doubling: with T_m = Σ_{k<m} G^k g^(m-1-k) and
    P_m = G^m (go = G / g), T_2m = T_m (g^m + P_m) and T_m+1 = g T_m + P_m."""
    big, g = go
    # the last doubling dominates: T and P reach about terms × the span of go
    span = max(big) - min(big) + 1
    size = terms * span * (terms * g.bit_length() // 8 + 1)
    work.spend(_product_cost(size))
    t, p, m = {0: 1}, big, 1
    bits = bin(terms)[3:]
    for index, bit in enumerate(bits):
        last = index == len(bits) - 1
        shifted = dict(p)
        shifted[0] = shifted.get(0, 0) + g**m
        t = _convolve((t, 1), (shifted, 1), None, work)[0]
        if bit == "1" or not last:
            p = _convolve((p, 1), (p, 1), None, work)[0]
        m *= 2
        if bit == "1":
            t = {k: x * g for k, x in t.items()}
            get = t.get
            for k, x in p.items():
                t[k] = get(k, 0) + x
            if not last:
                p = _convolve((p, 1), (big, 1), None, work)[0]
            m += 1
    weights, den = _convolve((t, 1), stop, None, work)
    return weights, den * g ** (terms - 1)
