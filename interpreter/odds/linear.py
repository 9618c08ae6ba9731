"""Counters read only within one sum: kept, while carried, as the value of that sum alone.

`result { success: success + triumph - failure - despair >= 1 }`, where the four names are
given by one `let` each and otherwise only added to (`set success to success + f.success`):
two worlds whose four counters differ but whose sum `success + triumph - failure -
despair` is the same read the same from there on, and every pass that adds to the counters
adds to that sum what it adds to theirs. So the joint of the counters a loop carries
(interpreter.odds.carried) is kept as the joint of each such sum: the counters of a world
replaced by one of them holding the sum (signed), the others 0 (a representative). A
Genesys pool counted face by face then costs the distinct values of its net successes,
not of its four symbols.

The sums are found once per action, over its whole body and result (`sums_read`): a name
is read as a sum when it is given a value by one `let` of the body's top level and none
other but adding to itself (`set x to x + e`, `e` not reading a counter), and every other
mention of it is a term (`+` or `-`, once) of a sum of such names, the same names with
the same signs relative to each other everywhere (numbers and other names may be terms
too: they stay as they were).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from dsl import nodes as n
from dsl.nodes.walk import parts, walk
from interpreter.odds.keys import ordered

#: a class of names read as one sum: ((name, +1 or -1), ...), sorted, the first +1
SumKey = tuple


def added_to(node) -> str | None:
    """x, for `set x to x + e`, `set x to e + x` or `set x to x - e` (e not reading x)."""
    if not isinstance(node, n.Set) or not isinstance(node.place, n.Name):
        return None
    name, expr = node.place.name, node.expr
    if not isinstance(expr, n.Binary) or expr.op not in ("+", "-"):
        return None
    if _is(expr.left, name):
        operand = expr.right
    elif expr.op == "+" and _is(expr.right, name):
        operand = expr.left
    else:
        return None
    if name in n.field_paths(operand):
        return None
    return name


def _is(expr, name: str) -> bool:
    return isinstance(expr, n.Name) and expr.name == name


def sums_read(action) -> Sums:
    """For each name of an action (`action`: its dsl.nodes.Action) read only as a term of
    one sum (see the module's docstring), that sum's key; names of a sum of one name left
    out (nothing to gain)."""
    body = action.body
    candidates = _given_once(body)
    if len(candidates) < 2:
        return Sums({})
    plain: set[str] = set()  # names read otherwise
    sums: dict[str, set] = {}
    stack: list[Any] = [body]  # (nodes, each met once, from the top: a sum at its root)
    while stack:
        item = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif isinstance(item, n.Name):
            if item.name in candidates:
                plain.add(item.name)
        elif isinstance(item, n.Set) and isinstance(item.place, n.Name):
            expr = item.expr
            if added_to(item) == item.place.name:  # (its own name read to add to it)
                own_left = _is(expr.left, item.place.name)
                operand = expr.right if own_left else expr.left
                plain.update(name for name in n.field_paths(operand) if name in candidates)
            else:
                stack.append(expr)
        elif _summing(item):
            terms: list = []
            others: list = []
            _terms(item, 1, terms, others)
            stack.extend(others)  # (a term not a name: read as any)
            names = [(term.name, sign) for term, sign in terms if term.name in candidates]
            counted = Counter(name for name, _ in names)
            if any(count > 1 for count in counted.values()):
                plain.update(counted)  # (a name twice: read as any)
            elif names:
                key = _key(names)
                for name, _ in names:
                    sums.setdefault(name, set()).add(key)
        elif attrs.has(type(item)):
            stack.extend(parts(item))
    valid = {name for name in candidates - plain if len(sums.get(name, ())) == 1}
    out: dict[str, SumKey] = {}
    for name in ordered(valid):  # (not a set's order: the hash seed's)
        (key,) = sums[name]
        if len(key) > 1 and all(other in valid for other, _ in key):
            out[name] = key
    return Sums(out)


def _given_once(body: tuple) -> set[str]:
    """The names one `let` of the body's top level gives a value, and nothing else but
    adding to itself."""
    lets: Counter = Counter()
    other: set[str] = set()
    for item in walk(body):
        if isinstance(item, n.Let):
            lets[item.name] += 1
        elif isinstance(item, n.Choose):
            other.add(item.name)
        elif isinstance(item, n.ForEach):
            other.add(item.var)
        elif (
            isinstance(item, n.Set)
            and isinstance(item.place, n.Name)
            and added_to(item) != item.place.name
        ):
            other.add(item.place.name)
    top = {s.name for s in body if isinstance(s, n.Let)}
    return {name for name in top if lets[name] == 1 and name not in other}


def _summing(node) -> bool:
    return isinstance(node, n.Binary) and node.op in ("+", "-")


def _terms(node, sign: int, out: list, others: list) -> None:
    """The Name terms of a sum, each with its sign, in `out`; its other terms in
    `others`."""
    stack: list[Any] = [(node, sign)]
    while stack:
        item, s = stack.pop()
        if _summing(item):
            stack.append((item.left, s))
            stack.append((item.right, s if item.op == "+" else -s))
        elif isinstance(item, n.Name):
            out.append((item, s))
        else:
            others.append(item)


def _key(names: list) -> SumKey:
    ordered = sorted(names)
    flip = ordered[0][1]
    return tuple((name, sign * flip) for name, sign in ordered)


class Projection:
    """Counters' values (a tuple, in the counters' order) as the representative of the
    sums they are read in: each sum's value held by its first counter (signed), the
    others of the sum 0."""

    __slots__ = ("parts",)

    def __init__(self, parts: tuple) -> None:
        #: ((pivot index, its sign, ((index, sign), ...)), ...)
        self.parts = parts

    def __call__(self, values: tuple) -> tuple:
        out = list(values)
        for pivot, pivot_sign, terms in self.parts:
            total = 0
            for index, sign in terms:
                total += sign * out[index]
                out[index] = 0
            out[pivot] = pivot_sign * total
        return tuple(out)


class Sums(dict):
    """sums_read's answer: {name: its sum's key}, with the projections made of it."""

    def __init__(self, found: dict) -> None:
        super().__init__(found)
        self.made: dict = {}  # counters → their Projection (or None)


def projection(sums: dict[str, SumKey], counters: tuple) -> Projection | None:
    """The Projection of `counters` by the sums they are read in (`sums`: sums_read), or
    None where no two of them are read in one sum (made once, where `sums` is Sums)."""
    if not sums:
        return None
    made = sums.made if type(sums) is Sums else None
    if made is not None and counters in made:
        return made[counters]
    found = _projection(sums, counters)
    if made is not None:
        made[counters] = found
    return found


def _projection(sums: dict[str, SumKey], counters: tuple) -> Projection | None:
    by_sum: dict = {}
    for index, name in enumerate(counters):
        key = sums.get(name)
        if key is not None:
            sign = dict(key)[name]
            by_sum.setdefault(key, []).append((index, sign))
    parts = tuple(
        (terms[0][0], terms[0][1], tuple(terms)) for terms in by_sum.values() if len(terms) > 1
    )
    return Projection(parts) if parts else None
