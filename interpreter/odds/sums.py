"""Sums of two independent distributions by one big-integer product (numbers, symbol sums)."""

from __future__ import annotations

from interpreter.odds.budget import too_many_outcomes
from interpreter.odds.polynomials import TooComplex, dense, from_int, product_cost, to_int
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


def form_sums(wa: dict, wb: dict, cap: int | None = None, poll=None) -> dict | None:
    """The same for the symbol sums of two pools (Forms, added sum by sum): each Forms
    packed into one whole number, sum j at a stride past the largest the sums before it
    reach, so that adding packed numbers adds every sum without carrying into the next;
    by one product where it pays, else pair by pair (as packed numbers: no Forms made
    for each pair; past `cap` outcomes, TooComplex; `poll()` after each outcome of
    `wa`). None where an outcome is not Forms of whole numbers alike."""
    if any(type(k) is not Forms for k in wa) or any(type(k) is not Forms for k in wb):
        return None
    rows_a, rows_b = [k.values for k in wa], [k.values for k in wb]
    width = len(rows_a[0])
    if any(len(row) != width for row in rows_a) or any(len(row) != width for row in rows_b):
        return None
    if {type(v) for row in (*rows_a, *rows_b) for v in row} != {int}:
        return None
    columns_a, columns_b = list(zip(*rows_a)), list(zip(*rows_b))
    low_a, low_b = [min(c) for c in columns_a], [min(c) for c in columns_b]
    strides, stride = [], 1
    for j in range(width):
        strides.append(stride)
        stride *= max(columns_a[j]) - low_a[j] + max(columns_b[j]) - low_b[j] + 1

    def packed(rows: list, weights: dict, low: list) -> dict:
        out = {}
        for row, w in zip(rows, weights.values()):
            key = 0
            for v, lo, at in zip(row, low, strides):
                key += (v - lo) * at
            out[key] = w
        return out

    pa, pb = packed(rows_a, wa, low_a), packed(rows_b, wb, low_b)
    found = product(pa, pb) if len(wa) * len(wb) > PAIRS else None
    if found is None:
        found = _pairs(pa, pb, cap, poll)
    low = [x + y for x, y in zip(low_a, low_b)]
    out = {}
    for key, weight in found.items():
        values = []
        for j in range(width - 1, -1, -1):
            step, key = divmod(key, strides[j])
            values.append(step + low[j])
        out[Forms(tuple(reversed(values)))] = weight
    return out


def _pairs(wa: dict, wb: dict, cap: int | None, poll) -> dict:
    """x + y for int keys, pair by pair (bounded by `cap`, polled as Dist.combine)."""
    out: dict = {}
    get = out.get
    pairs = tuple(wb.items())
    for x, w in wa.items():
        for y, v in pairs:
            k = x + y
            out[k] = get(k, 0) + w * v
        if cap is not None and len(out) > cap:
            raise TooComplex(too_many_outcomes(cap))
        if poll is not None:
            poll()
    return out
