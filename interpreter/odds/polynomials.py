"""Distributions as (weights, denominator) pairs: mixing, convolution, powers by big integers."""

from __future__ import annotations

from math import gcd

from dsl.messages import tr

SHIFT = 32  # a success/failure count is packed into one int: successes << 32 | failures
LOW = (1 << SHIFT) - 1


def too_many_ways(budget: int):
    """Why an answer is not exact, in a game master's words: the dice fall in too many
    ways to count (past the budget of work, `--budget`)."""
    return tr(
        "the dice can fall in too many ways to count them all within a budget of {budget}",
        budget=budget,
    )


class TooComplex(Exception):
    """The exact distribution of a term would take more work than the budget allows."""


class Budget:
    """The work (units of about 0.1 µs) one term may take; with the odds engine's bounds
    (interpreter.odds.budget), also the bytes one big-integer step may hold and a deadline
    (anything with `check()`, raising TooComplex once it has passed: the exact phase's
    safety stop).

    Whether a term is counted exactly is decided by the units alone, the same on every
    machine: a step no loop can interrupt (one product of big integers) is counted
    beforehand by `step`, against the same limit. Loops look at the deadline through
    `spend` and `poll`, a few times in every millisecond of work."""

    __slots__ = ("deadline", "left", "limit", "max_bytes")

    def __init__(self, limit: int, max_bytes: int | None = None, deadline=None):
        self.left = self.limit = limit
        self.max_bytes, self.deadline = max_bytes, deadline

    def check(self, amount: int) -> None:
        """Raise now if `amount` more units would pass the budget (spend nothing)."""
        if amount > self.left:
            raise TooComplex(self.exceeded())

    def spend(self, amount: int) -> None:
        self.left -= amount
        if self.left < 0:
            raise TooComplex(self.exceeded())
        if self.deadline is not None:
            self.deadline.check()

    def poll(self) -> None:
        """Look at the deadline (a loop doing work its upfront `spend` counted)."""
        if self.deadline is not None:
            self.deadline.check()

    def step(self, units: int) -> None:
        """Spend `units` on one step that cannot be interrupted (refused beforehand, by
        its count, when it would pass the budget)."""
        self.spend(units)

    def exceeded(self):
        return too_many_ways(self.limit)

    def hold(self, size: int) -> None:
        """Raise now if one step would hold big integers of `size` bytes in all."""
        if self.max_bytes is not None and size > self.max_bytes:
            raise TooComplex(
                tr(
                    "the exact distribution needs more than {limit} bytes at once "
                    "(limit odds_bytes)",
                    limit=self.max_bytes,
                )
            )


def mix(parts, outer: int, work: Budget | None = None):
    """Σ coef · (weights / den) / outer, for (coef, (weights, den)) parts (spending their
    sizes, part by part, when given a budget)."""
    common = 1
    for _, (_, den) in parts:
        if den != 1 and common % den:
            common = common * den // gcd(common, den)
    out: dict = {}
    get = out.get
    for coef, (weights, den) in parts:
        if work is not None:
            work.spend(len(weights))
        scale = coef * (common // den)
        for key, weight in weights.items():
            out[key] = get(key, 0) + weight * scale
    return out, common * outer


def convolve(a, b, merge, work: Budget):
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
            dense = dense_product(wa, wb, work)
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


def product_cost(size: int) -> int:
    """Work units (about 0.1 µs each) of multiplying two ints of `size` bytes in all
    (Karatsuba: about 11 ns per 30-bit digit to the power 1.585)."""
    return int((size * 8 / 60) ** 1.585 / 9)


def power_bytes(base: int, count: int) -> int:
    """Bytes enough for base ** count (and for any number below it), found without making
    it: base ** count may be megabytes, seconds of multiplying nothing interrupts."""
    return base.bit_length() * count // 8 + 1


def to_int(coeffs: list, width: int) -> int:
    return int.from_bytes(b"".join([c.to_bytes(width, "little") for c in coeffs]), "little")


def from_int(value: int, count: int, width: int) -> list:
    data = value.to_bytes(count * width, "little")
    return [int.from_bytes(data[i : i + width], "little") for i in range(0, count * width, width)]


def dense(weights: dict, low: int, length: int) -> list:
    coeffs = [0] * length
    for key, weight in weights.items():
        coeffs[key - low] = weight
    return coeffs


def dense_product(wa: dict, wb: dict, work: Budget):
    """x + y for int keys by one big-integer multiplication (Kronecker substitution)."""
    la, lb = min(wa), min(wb)
    na, nb = max(wa) - la + 1, max(wb) - lb + 1
    if na + nb > 8 * (len(wa) + len(wb)) + 64:  # too sparse to pay off
        return None
    width = (sum(wa.values()).bit_length() + sum(wb.values()).bit_length()) // 8 + 1
    length = na + nb - 1
    work.hold(2 * length * width)
    work.step(product_cost(length * width) + length)
    product = to_int(dense(wa, la, na), width) * to_int(dense(wb, lb, nb), width)
    low = la + lb
    return {low + i: c for i, c in enumerate(from_int(product, length, width)) if c}


def power_sum(dist, count: int, work: Budget):
    """The sum of `count` independent draws of an int-keyed distribution."""
    weights, den = dist
    if count == 1:
        return dist
    if len(weights) == 1:
        ((key, weight),) = weights.items()
        size = power_bytes(den, count)
        work.hold(2 * size)
        work.step(2 * product_cost(size))
        return {key * count: weight**count}, den**count
    low, high = min(weights), max(weights)
    span = high - low + 1
    length = count * (span - 1) + 1
    width = power_bytes(sum(weights.values()), count)
    work.hold(2 * length * width)
    base = low * count
    kronecker = 2 * product_cost(length * width // 2) + length
    if weights[low] and recurrence_cost(weights, count, width) < kronecker:  # p0 divides
        coeffs = power_coefficients(dense(weights, low, span), count, work)
        return {base + i: c for i, c in enumerate(coeffs) if c}, den**count
    work.step(kronecker)
    power = to_int(dense(weights, low, span), width) ** count
    return {base + i: c for i, c in enumerate(from_int(power, length, width)) if c}, den**count


def recurrence_cost(weights: dict, count: int, width: int) -> int:
    """Work units of `power_coefficients`: per coefficient, a product of a small int by a
    big one (`width` bytes at most) for every nonzero weight, and one exact division."""
    length = count * (max(weights) - min(weights)) + 1
    return length * (len(weights) + 1) * (4 + width // 48)


def power_coefficients(p: list, count: int, work: Budget) -> list:
    """The coefficients of P(x) ** count for a polynomial P with p[0] != 0, one after
    another from P Q' = count P' Q (J. C. P. Miller's recurrence):

        k p0 q_k = Σ_{i = 1..d} ((count + 1) i - k) p_i q_(k - i),

    so that the work grows with the number of coefficients times P's terms, each a product
    of a small int by one coefficient, instead of one product of two huge integers. When P
    is symmetric (a fair die), so is Q: only its first half is computed."""
    degree = len(p) - 1
    length = count * degree + 1
    terms = [(i, w) for i, w in enumerate(p) if i and w]
    symmetric = p == p[::-1]
    last = length // 2 if symmetric else length - 1
    width = power_bytes(sum(p), count)
    work.step(recurrence_cost(dict(enumerate(p)), count, width) * (last + 1) // length)
    p0 = p[0]
    q = [p0**count]
    append = q.append
    for k in range(1, last + 1):
        if not k & 255:
            work.poll()
        total = 0
        for i, w in terms:
            if i > k:
                break
            total += ((count + 1) * i - k) * w * q[k - i]
        append(total // (k * p0))
    if symmetric:
        q.extend(q[length - 1 - k] for k in range(last + 1, length))
    return q


def power_counts(dist, count: int, work: Budget):
    """The same for packed (successes << 32 | failures) keys: the trinomial counts."""
    weights, den = dist
    if count <= 1 or len(weights) == 1:
        return power_sum(dist, count, work)
    if set(weights) <= {0, 1 << SHIFT, 1}:  # each die a success, a failure or neither
        return trinomial(weights, count, work), den**count
    high_f = max(key & LOW for key in weights)
    stride = count * high_f + 1
    packed = {(key >> SHIFT) * stride + (key & LOW): w for key, w in weights.items()}
    result, total = power_sum((packed, den), count, work)
    return {(key // stride) << SHIFT | key % stride: w for key, w in result.items()}, total


def trinomial(weights: dict, count: int, work: Budget) -> dict:
    """Of `count` dice each a success (weight ws), a failure (wf) or neither (wo): the
    weight of s successes and f failures, C(n, s) C(n - s, f) ws^s wf^f wo^(n - s - f),
    every one of the (n + 1)(n + 2) / 2 outcomes once, with a few products each."""
    ws, wf, wo = weights.get(1 << SHIFT, 0), weights.get(1, 0), weights.get(0, 0)
    work.spend((count + 1) * (count + 2) // 2 * 3)
    power_f, power_o = [1], [1]
    for _ in range(count):
        power_f.append(power_f[-1] * wf)
        power_o.append(power_o[-1] * wo)
    out = {}
    chosen = 1  # C(n, s) · ws^s
    for s in range(count + 1):
        rest = count - s
        ways = chosen  # C(n, s) ws^s C(rest, f)
        for f in range(rest + 1):
            weight = ways * power_f[f] * power_o[rest - f]
            if weight:
                out[s << SHIFT | f] = weight
            ways = ways * (rest - f) // (f + 1)
        chosen = chosen * (count - s) // (s + 1) * ws
    return out


def power_merge(dist, count: int, merge, unit, work: Budget):
    """`count` independent draws combined with an associative, commutative merge."""
    result = ({unit: 1}, 1)
    for _ in range(count):
        result = convolve(result, dist, merge, work)
    return result


def order_sums(order, weights, suffix, count: int, a: int, b: int, shift: dict, work):
    """order_statistics for int values: each state's sums are one big int, the weight of
    sum k at bit k * width, so that adding m dice of one face is a shift."""
    low = min(shift[f] for f in order)
    width = power_bytes(suffix[0], count) * 8
    step = {f: (shift[f] - low) * width for f in order}
    length = (b - a) * (max(shift[f] for f in order) - low) + 1
    work.hold(b * length * width // 8)
    work.spend(len(order) * b * b * (1 + length * width // 4096))
    rows: dict = {}
    state = {0: 1}
    final = 0
    for index, f in enumerate(order):
        w, rest, bits = weights[f], suffix[index + 1], step[f]
        new: dict = {}
        for j, acc in state.items():
            work.poll()
            remaining = count - j
            row = rows.get(remaining)
            if row is None:  # C(remaining, c) for the c < b - j the loop reads, no more
                row = rows[remaining] = binomials(remaining, b - j)
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


def binomials(n: int, k: int, work: Budget | None = None) -> list:
    """C(n, c) for c < k, each from the one before (a row of 10,000 dice is not made
    whole when a keep reads its first few; when it is, with a look at the deadline
    every so many)."""
    row = [1]
    for c in range(1, min(k, n + 1)):
        row.append(row[-1] * (n - c + 1) // c)
        if work is not None and not c & 255:
            work.spend(256)
    return row


def geometric(stop, go, terms: int, work: Budget):
    """Σ_{k<terms} go^k · stop for sums, by doubling: with T_m = Σ_{k<m} G^k g^(m-1-k) and
    P_m = G^m (go = G / g), T_2m = T_m (g^m + P_m) and T_m+1 = g T_m + P_m."""
    big, g = go
    # the last doubling dominates: T and P reach about terms × the span of go
    span = max(big) - min(big) + 1
    size = terms * span * (terms * g.bit_length() // 8 + 1)
    work.hold(2 * size)
    work.step(product_cost(size))
    t, p, m = {0: 1}, big, 1
    bits = bin(terms)[3:]
    for index, bit in enumerate(bits):
        last = index == len(bits) - 1
        shifted = dict(p)
        shifted[0] = shifted.get(0, 0) + g**m
        t = convolve((t, 1), (shifted, 1), None, work)[0]
        if bit == "1" or not last:
            p = convolve((p, 1), (p, 1), None, work)[0]
        m *= 2
        if bit == "1":
            t = {k: x * g for k, x in t.items()}
            get = t.get
            for k, x in p.items():
                t[k] = get(k, 0) + x
            if not last:
                p = convolve((p, 1), (big, 1), None, work)[0]
            m += 1
    weights, den = convolve((t, 1), stop, None, work)
    return weights, den * g ** (terms - 1)
