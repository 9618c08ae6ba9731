"""Sums of two independent distributions by one big-integer product (numbers, symbol sums)."""

from __future__ import annotations

from interpreter.odds.polynomials import dense, from_int, product_cost, to_int
from interpreter.symbols import Forms

#: pairs of outcomes below which adding them up one pair at a time is as fast
PAIRS = 400


def int_sums(wa: dict, wb: dict) -> dict | None:
    """The weights of x + y over two tables of whole numbers, by one product of big
    integers (Kronecker substitution); None when there are few pairs, or the tables are
    too sparse for a product to pay."""
    if len(wa) * len(wb) <= PAIRS:
        return None
    return product(wa, wb)


def pays(wa: dict, wb: dict) -> bool:
    """Whether one product beats adding up the pairs: the coefficients it goes through
    (the span of the sums) fewer than a quarter of the pairs, or than 8 per outcome."""
    na, nb = max(wa) - min(wa) + 1, max(wb) - min(wb) + 1
    return na + nb <= max(8 * (len(wa) + len(wb)) + 64, len(wa) * len(wb) // 4)


def product(wa: dict, wb: dict) -> dict | None:
    """x + y for int keys by one big-integer multiplication (Kronecker substitution), or
    None where it does not pay."""
    if not pays(wa, wb):
        return None
    la, lb = min(wa), min(wb)
    na, nb = max(wa) - la + 1, max(wb) - lb + 1
    width = (sum(wa.values()).bit_length() + sum(wb.values()).bit_length()) // 8 + 1
    length = na + nb - 1
    result = to_int(dense(wa, la, na), width) * to_int(dense(wb, lb, nb), width)
    low = la + lb
    return {low + i: c for i, c in enumerate(from_int(result, length, width)) if c}


def int_sums_cost(wa: dict, wb: dict) -> int | None:
    """The work units of `int_sums` (its product, counted as polynomials.product_cost
    counts one, and the coefficients gone through), or None when it would not be used:
    the pairs are counted instead."""
    if len(wa) * len(wb) <= PAIRS:
        return None
    if not all(type(k) is int for k in wa) or not all(type(k) is int for k in wb):
        return None
    if not pays(wa, wb):
        return None
    na, nb = max(wa) - min(wa) + 1, max(wb) - min(wb) + 1
    width = (sum(wa.values()).bit_length() + sum(wb.values()).bit_length()) // 8 + 1
    return product_cost((na + nb) * width) + na + nb


def form_sums(wa: dict, wb: dict) -> dict | None:
    """The same for the symbol sums of two pools (Forms, added sum by sum): each Forms
    packed into one whole number, sum j at a stride past the largest the sums before it
    reach, so that adding packed numbers adds every sum without carrying into the next."""
    if len(wa) * len(wb) <= PAIRS:
        return None
    if not all(type(k) is Forms for k in wa) or not all(type(k) is Forms for k in wb):
        return None
    width = len(next(iter(wa)).values)
    if any(len(k.values) != width for k in (*wa, *wb)):
        return None
    if not all(type(v) is int for k in (*wa, *wb) for v in k.values):
        return None
    low_a = [min(k.values[j] for k in wa) for j in range(width)]
    low_b = [min(k.values[j] for k in wb) for j in range(width)]
    strides, stride = [], 1
    for j in range(width):
        strides.append(stride)
        span_a = max(k.values[j] for k in wa) - low_a[j]
        span_b = max(k.values[j] for k in wb) - low_b[j]
        stride *= span_a + span_b + 1

    def packed(weights: dict, low: list) -> dict:
        return {
            sum((v - lo) * s for v, lo, s in zip(k.values, low, strides)): w
            for k, w in weights.items()
        }

    found = product(packed(wa, low_a), packed(wb, low_b))
    if found is None:
        return None
    low = [x + y for x, y in zip(low_a, low_b)]
    out = {}
    for key, weight in found.items():
        values = []
        for j in range(width - 1, -1, -1):
            step, key = divmod(key, strides[j])
            values.append(step + low[j])
        out[Forms(tuple(reversed(values)))] = weight
    return out
