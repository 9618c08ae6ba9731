"""Keeps and drops over a pool: order statistics, the top few of growing pools, the rest."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import comb, gcd, isqrt
from typing import TYPE_CHECKING, Any

from interpreter.odds.polynomials import (
    Budget,
    binomials,
    convolve,
    mix,
    order_sums,
    power_merge,
)
from interpreter.odds.walker import GROWS, Walker

#: the value of a term whose kept faces each add their own value (nothing after keeps)
PLAIN = "plain"
#: the units of a term's work one pair of a growing pool's states costs (its faces
#: merged, looked up, its sums added: about 3 µs)
PAIR_WORK = 8


def power_work(bits: int) -> int:
    """The units of a term's work a big power of `bits` bits counts for: Python multiplies
    big numbers in time about bits ** 1.58 (Karatsuba), counted as (bits / 512) ** 1.5 / 2
    units (140 µs at 42,500 bits, 1.35 ms at 170,000)."""
    k = bits >> 9
    return 1 + k * isqrt(k) // 2


def _kept_values(order, value, term_value) -> tuple:
    """How order_statistics adds up the kept faces: (mode, shift, scaled, scale).

    "faces": the kept faces themselves (value None); "points": each face adds one number
    (`shift[face]`: the term's own values, or a value that is one number a face);
    "dists": each face adds a distribution, all of them over one common denominator
    (`scaled[face]`, `scale`)."""
    if value is None:
        return "faces", None, None, 1
    if value is PLAIN:
        return "points", term_value, None, 1
    if all(len(value[f][0]) == 1 and value[f][1] == 1 for f in order):
        return "points", {f: next(iter(value[f][0])) for f in order}, None, 1
    scale = 1
    for f in order:
        d = value[f][1]
        scale = scale * d // gcd(scale, d)
    scaled = {}
    for f in order:
        w, d = value[f]
        factor = scale // d
        scaled[f] = ({k: x * factor for k, x in w.items()}, scale)
    return "dists", None, scaled, scale


def _adder(mode: str, shift, scaled, work):
    """order_statistics' step: add(target, acc, f, m, coef) adds to `target` the sums
    `acc` with m more kept dice showing face f, weighed by coef."""
    powers = {f: [({0: 1}, 1)] for f in scaled} if mode == "dists" else {}

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
            pw.append(convolve(pw[-1], scaled[f], None, work))
        gm = pw[m][0]
        if len(gm) == 1:
            ((kg, xg),) = gm.items()
            c2 = coef * xg
            for k, x in acc.items():
                target[k + kg] = get(k + kg, 0) + x * c2
            return
        product, _ = convolve((acc, 1), (gm, 1), None, work)
        for k, x in product.items():
            target[k] = get(k, 0) + x * coef

    return add


class KeepsHost:
    """What Keeps reads of the Term it is part of (interpreter.odds.pools, which makes all
    of it in `__init__`): declared here so that mypy checks every use against it."""

    faces: tuple
    n: int  # how many faces
    count: int  # how many dice
    work: Budget
    value: dict[Any, Any]  # what each face adds to the term's value (a FaceValues)
    packed: bool  # a kept face's value is successes << SHIFT | failures
    distinct: bool  # no two faces alike
    to_limit: frozenset  # the chains followed to the roller's limit

    if TYPE_CHECKING:  # what Keeps calls on the Term (defined there)

        def per_die(
            self, ops: tuple, leaf: Callable, merge: Callable | None, delta: Any
        ) -> tuple: ...
        def face_leaf(self, face: Any) -> tuple[dict, int]: ...


class Keeps(KeepsHost):
    """How a Term (interpreter.odds.pools) keeps or drops dice: the methods by shape."""

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
        mode, shift, scaled, scale = _kept_values(order, value, self.value)
        suffix = [0] * (len(order) + 1)
        for i in range(len(order) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + weights[order[i]]
        if mode == "points" and not self.packed:
            return order_sums(order, weights, suffix, count, a, b, shift, work), den**count
        rows: dict = {}
        state = {0: {() if mode == "faces" else 0: 1}}
        final: dict = {}
        add = _adder(mode, shift, scaled, work)
        for index, f in enumerate(order):
            w, rest = weights[f], suffix[index + 1]
            new: dict = {}
            for j, acc in state.items():
                remaining = count - j
                stay = b - j  # c < stay leaves position b unfilled (b <= count)
                row = rows.get(remaining)
                if row is None:  # C(remaining, c) for c < stay: all the loop reads
                    row = rows[remaining] = binomials(remaining, stay)
                taken = 0
                wc = 1
                work.spend((stay + 1) * power_work(remaining * (w + rest).bit_length()))
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
            weights, den = power_merge(per_die, self.count, merge, (), work)
            pools = ((faces[lo:hi], weight) for faces, weight in weights.items())
            if value is None:
                out: dict = {}
                for faces, weight in pools:
                    key = tuple(sorted(faces))
                    out[key] = out.get(key, 0) + weight
                return out, den
            return self.valued(pools, den, value)

        # all but the first lo: the first lo faces, and the sum of the others' values
        spread = None
        if value is not PLAIN:  # ops after the keep: what a kept face adds, per face
            mode, shift, scaled, scale = _kept_values(sorted(value), value, val)
            if mode == "points":
                val = shift
            else:
                spread = scaled, scale
        if spread is None:
            leaf_rest, merge_rest = summed_rest(high, cap, val)
        else:
            leaf_rest, merge_rest = drawn_rest(high, cap, *spread)
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
                            0 if spread else sum(val[face] for face in faces[cap:]),
                        )
                    faces, shift = found
                    work.spend(PAIR_WORK + len(a1))  # (convolve spends nothing on a point)
                    product, _ = convolve((a1, 1), (a2, 1), None, work)
                    target = out.get(faces)
                    if target is None:
                        target = out[faces] = {}
                    get = target.get
                    for k, x in product.items():
                        target[k + shift] = get(k + shift, 0) + x
            pool = out
        if spread is not None:
            return undrawn(pool, den**self.count, *spread, work)
        summed: dict = {}
        for sums in pool.values():
            for k, x in sums.items():
                summed[k] = summed.get(k, 0) + x
        return summed, den**self.count

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

        merge = None if value is not None else merge_sorted
        parts = []
        # P(X > x), times n^(count + x): whole numbers (a Fraction would take a gcd of
        # numbers of thousands of digits at every x)
        tail, scale = n**count, n**count
        target = delta * max(count, 1)
        x = 0
        while True:
            lo, hi = keep_range(keeps, count + x)
            if hits_on_top:
                first, second = part(block, x, lo, hi), part(rest, count, lo - x, hi - x)
            else:
                first = part(rest, count, lo, hi)
                second = part(block, x, lo - count, hi - count)
            # P(X = x) = C(count + x - 1, x) (h/n)^x (m/n)^count
            ways = comb(count + x - 1, x) if count else int(x == 0)
            parts.append((x, ways * h**x * m**count, convolve(first, second, merge, work)))
            tail -= ways * h**x * m**count
            if tail * target.denominator <= target.numerator * scale or not count:
                break
            x += 1
            tail, scale = tail * n, scale * n
            work.spend(x * n)
        top = parts[-1][0]
        return mix(
            [(coef * n ** (top - x), dist) for x, coef, dist in parts],
            n ** (count + top),
            self.work,
        )

    def valued(self, pools, den: int, value):
        """Mix Σ value(face) over each pool's faces, weighted as given."""
        if value is PLAIN or all(len(v[0]) == 1 and v[1] == 1 for v in value.values()):
            shift = (
                self.value
                if value is PLAIN
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
                found = memo[faces] = convolve(of(faces[:-1]), value[faces[-1]], None, self.work)
            return found

        return mix([(weight, of(tuple(faces))) for faces, weight in pools], den, self.work)

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
        ends = keep_ends(first, self.count)
        split = None
        single = len(before) == 1 and before[0][0] == "explode" and not before[0][1]
        if single and self.distinct and not self.to_limit:  # the limit is per die
            split = self.split_explosion(before[0][2], first, None, delta)
        if split is not None:
            pool = split
        elif not any(op[0] in GROWS for op in before):
            lo, hi = keep_range(first, self.count)
            pool = self.order_statistics(
                self.per_die(before, self.face_leaf, None, delta), lo, hi, None
            )
        elif ends is not None and ends[2] is not None:
            pool = self.extremes(before, *ends, None, delta)
        else:
            pool = power_merge(
                self.per_die(before, leaf, merge, delta), self.count, merge, (), work
            )
            middle = first + middle
        for i, op in enumerate(middle):
            weights, den = pool
            if op[0] == "keep":
                pool = kept_faces(weights, op[1], op[2], work), den
                continue
            # Dice meet an op one by one, so when the next op keeps the top (or bottom)
            # k, only the top k of each group of dice matter: the pools stay that small
            # (a chain of 100 extra dice is otherwise 100 faces sorted, in every order).
            # When that keep is the last and drops the top (bottom) k, only those k and
            # the sum of the others' values matter.
            following = middle[i + 1] if i + 1 < len(middle) else None
            start: tuple = ()
            grouped, leaf_of = merge, leaf
            if following is not None and following[0] == "keep":
                _, mode, k = following
                if mode in TOPS:
                    grouped = capped(mode == "kh", k)
                elif i + 2 == len(middle) and value is PLAIN:
                    leaf_of, grouped = summed_rest(mode == "dh", k, self.value)
                    start = ((), 0)
            walker = Walker(self, (op,), leaf_of, grouped, delta)
            memo = {(): ({start: 1}, 1)}

            def of(faces, memo=memo, walker=walker, grouped=grouped):
                found = memo.get(faces)
                if found is None:
                    found = memo[faces] = convolve(
                        of(faces[:-1]), walker.face(0, faces[-1]), grouped, work
                    )
                return found

            pool = mix([(weight, of(faces)) for faces, weight in weights.items()], den, self.work)
            if start:  # the drop is made, and the sum of the rest is the value
                totals: dict = {}
                for (_, total), weight in pool[0].items():
                    totals[total] = totals.get(total, 0) + weight
                return totals, pool[1]
        weights, den = pool
        return self.valued(weights.items(), den, value)


def kept_faces(weights: dict, mode: str, k: int, work) -> dict:
    """The weights of sorted pools (tuples of faces, lowest first) after a keep: kh, kl,
    dh or dl of k dice (all of a smaller pool)."""
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
    return out


def merge_sorted(a: tuple, b: tuple) -> tuple:
    return tuple(sorted(a + b))


#: the keeps that keep the top or the bottom k (not those that drop them)
TOPS = ("kh", "kl")


def summed_rest(high: bool, cap: int, value):
    """(leaf, merge) of summaries (the top (high) or bottom `cap` faces, the sum of the
    others' values): a pool that a keep will take all but those faces of."""

    def merge_rest(a, b):
        faces = sorted(a[0] + b[0], reverse=high)
        total = a[1] + b[1]
        for face in faces[cap:]:
            total += value[face]
        return tuple(faces[:cap]), total

    def leaf_rest(face):
        return ({((face,), 0): 1} if cap else {((), value[face]): 1}), 1

    return leaf_rest, merge_rest


def drawn_rest(high: bool, cap: int, scaled: dict, scale: int):
    """(leaf, merge) of summaries (the top (high) or bottom `cap` faces, the sum of every
    die's value, each drawn from its face's distribution `scaled` over `scale`): the
    pool a keep will take all but those faces of, when what a kept face adds is random
    (a reroll after the keep). Which dice stay among the `cap` depends on the faces
    alone, so `undrawn` takes their values out again exactly."""

    def merge_drawn(a, b):
        faces = sorted(a[0] + b[0], reverse=high)
        return tuple(faces[:cap]), a[1] + b[1]

    def leaf_drawn(face):
        weights, _ = scaled[face]
        return {((face,) if cap else (), v): x for v, x in weights.items()}, scale

    return leaf_drawn, merge_drawn


def undrawn(pool: dict, den: int, scaled: dict, scale: int, work) -> tuple:
    """The sums of the kept dice's values from `drawn_rest`'s pool (the first faces →
    every die's values summed, over den): given the faces, the values are independent,
    so each sum is the kept dice's sum plus the first faces' own, and dividing the
    polynomial by those faces' distributions leaves the kept dice's exactly."""
    out: dict = {}
    for window, sums in pool.items():
        drawn: tuple = ({0: 1}, 1)
        for face in window:
            drawn = convolve(drawn, scaled[face], None, work)
        factor = scale ** len(window)
        for key, weight in divided(sums, drawn[0], work).items():
            out[key] = out.get(key, 0) + weight * factor
    common = 1
    for weight in out.values():
        common = common * weight.denominator // gcd(common, weight.denominator)
    return {k: int(w * common) for k, w in out.items() if w}, den * common


def divided(a: dict, g: dict, work) -> dict:
    """The polynomial q (exponents as keys) with q * g = a, for a that is one: weights
    are never negative, so q's exponents are a's less g's lowest, found lowest first."""
    low = min(g)
    lead = g[low]
    higher = [(k, c) for k, c in g.items() if k != low]
    q: dict = {}
    work.spend(len(a) * len(g))
    for t in sorted(a):
        rest = Fraction(a[t])
        for k, c in higher:
            rest -= c * q.get(t - k, 0)
        if rest:
            q[t - low] = rest / lead
    return q


def capped(high: bool, k: int):
    """A merge of sorted tuples that keeps only their top (high) or bottom k faces."""
    if high:
        return lambda a, b: tuple(sorted(a + b)[-k:]) if k else ()
    return lambda a, b: tuple(sorted(a + b)[:k])


def keep_range(keeps, count: int):
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


def keep_ends(keeps, count: int) -> tuple[bool, int, int | None] | None:
    """What keeps leave of a pool of `count` or more dice (explosions add dice), if it is
    the same counted from one end whatever the size: (from_top, lo, hi) for sorted
    positions [lo, hi) from that end, hi=None for "all the rest"; else None.

    The ranges only change with the size up to count + Σk (past that, no min() in
    _keep_range changes side), so trying those sizes is exact."""
    sizes = range(count, count + sum(k for _, _, k in keeps) + 2)
    ranges = [(keep_range(keeps, size), size) for size in sizes]
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
