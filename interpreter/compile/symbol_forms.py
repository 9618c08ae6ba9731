"""The sums of symbols a definition reads of a pool of symbol dice, for the odds to count.

Six symbols on sixteen dice fall in some 160,000 ways, but a rulebook reads a pool through
a few sums: `r.success + r.triumph - r.failure - r.despair`, `r.advantage - r.threat`.
Each such sum (a linear form: whole coefficients, a constant) is a sum over the dice, so
the odds can count the forms themselves die by die, a few thousand joint values, instead
of every symbol. This finds, for each `let` of a pool whose every use is a field inside
such a sum, the forms read (the largest sums around each use) and the dice terms that
make the pool; the compiler counts those terms as forms, and reads each sum from them.
"""

from __future__ import annotations

import attrs

from dsl import nodes as n
from interpreter.compiled import REPEATED

#: most forms counted for one pool (past it, the pool is counted symbol by symbol)
MAX_FORMS = 8
#: largest coefficient or constant of a form (a larger one: the sum is computed as written,
#: within the limits on numbers a run has)
MAX_COEFFICIENT = 10**6


def children(node):
    for field in attrs.fields(type(node)):
        if field.name in ("span", "name_span", "op_span", "notes"):
            continue
        value = getattr(node, field.name)
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, tuple | list):
                stack.extend(item)
            elif attrs.has(type(item)):
                yield item


def find_forms(definition, bindings: dict, types: dict, symbols: tuple) -> tuple[dict, dict]:
    """(id of each dice term of a pool counted as forms → the forms' coefficients, id of
    each sum read of such a pool → (the pool's name, its form's position, constant))."""
    parents: dict = {}
    lets: dict = {}  # name → its Let nodes (and params: counted as other bindings)
    uses: dict = {}  # name → the Name nodes reading it
    stack = [definition]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Let):
            lets.setdefault(node.name, []).append(node)
        elif isinstance(node, n.Param | n.ForEach):
            lets.setdefault(node.name if isinstance(node, n.Param) else node.var, []).append(None)
        elif isinstance(node, n.Name):
            binding = bindings.get(id(node))
            if binding is not None and binding.kind == "local":
                uses.setdefault(node.name, []).append(node)
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    terms: dict = {}
    sums: dict = {}
    for name, bound in lets.items():
        if len(bound) != 1 or bound[0] is None:
            continue
        let = bound[0]
        kind = types.get(id(let.expr))
        if kind is None or kind.kind != "symbols":
            continue
        pool_terms = _terms(let.expr)
        if pool_terms is None:
            continue
        found = _sums(name, uses.get(name, ()), parents, symbols)
        if found is None or not found or len(found) > MAX_FORMS:
            continue
        coefficients = tuple(coeffs for coeffs, _constant in found.values())
        for term in pool_terms:
            terms[id(term)] = coefficients
        for k, (node_id, (_coeffs, constant)) in enumerate(found.items()):
            sums[node_id] = (name, k, constant)
    return terms, sums


def _terms(expr) -> list | None:
    """The dice terms a pool is made of: dice terms joined with `+`, in `if`s; None if
    anything else makes it (a named roll, another pool)."""
    found, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, n.SymbolDice):
            found.append(node)
        elif isinstance(node, n.Binary) and node.op == "+":
            stack += (node.left, node.right)
        elif isinstance(node, n.IfExpr):
            stack += (node.then, node.otherwise)
        else:
            return None
    return found


def _sums(name: str, uses, parents: dict, symbols: tuple) -> dict | None:
    """For each use of `name`, the largest linear sum around it: {id: (coeffs, constant)};
    None when a use is not a field of a symbol."""
    out: dict = {}
    for use in uses:
        field = parents.get(id(use))
        if not isinstance(field, n.Field) or field.subject is not use or field.name not in symbols:
            return None
        node = field
        while True:
            parent = parents.get(id(node))
            if parent is None or linear(parent, name, symbols) is None:
                break
            node = parent
        if id(node) not in out:
            form = linear(node, name, symbols)
            out[id(node)] = form
    return out


def linear(node, name: str, symbols: tuple):
    """(coefficients over `symbols`, constant) if `node` is a whole-number linear sum of
    fields of `name` and whole constants, else None."""
    if isinstance(node, n.Field) and isinstance(node.subject, n.Name):
        if node.subject.name != name or node.name not in symbols:
            return None
        return tuple(int(s == node.name) for s in symbols), 0
    if isinstance(node, n.Literal):
        value = node.value
        if type(value) is not int or abs(value) > MAX_COEFFICIENT:
            return None
        return (0,) * len(symbols), value
    if isinstance(node, n.Unary) and node.op == "-":
        inner = linear(node.operand, name, symbols)
        return None if inner is None else _scaled(inner, -1)
    if not isinstance(node, n.Binary) or node.op not in ("+", "-", "*"):
        return None
    left, right = linear(node.left, name, symbols), linear(node.right, name, symbols)
    if left is None or right is None:
        return None
    if node.op == "*":
        if not any(left[0]):
            return _scaled(right, left[1])
        if not any(right[0]):
            return _scaled(left, right[1])
        return None
    sign = 1 if node.op == "+" else -1
    coeffs = tuple(a + sign * b for a, b in zip(left[0], right[0], strict=True))
    return _bounded((coeffs, left[1] + sign * right[1]))


def _scaled(form, factor: int):
    coeffs, constant = form
    return _bounded((tuple(c * factor for c in coeffs), constant * factor))


def _bounded(form):
    coeffs, constant = form
    if max(map(abs, (*coeffs, constant))) > MAX_COEFFICIENT:
        return None
    return form


def sums_read_once(check, terms: dict, sums: dict) -> dict:
    """For each `let` of a check's pool counted as forms whose every sum is read once
    (no sum where one mention may be read many times: REPEATED): {id of the let: the
    names its value reads}. Each sum is a form of its own (find_forms), so a pool whose
    forms but one are the same in every outcome is read once where that form is: the
    odds may keep it whole, a distribution, there (odds.roller: OddsRoller.bind)."""
    parts = (check.lets, check.roll, check.target, check.fields)
    out: dict = {}
    for let in check.lets:
        stack = [let.expr]
        counted = False
        while stack and not counted:
            item = stack.pop()
            counted = id(item) in terms
            stack.extend(children(item))
        if counted and _read_once(parts, let.name, sums):
            out[id(let)] = tuple(sorted(n.field_reads(let.expr)))
    return out


def _read_once(parts, name: str, sums: dict) -> bool:
    """Whether every mention of `name` in `parts` is inside a sum of it, none where it
    may be read many times."""
    stack = [(parts, False)]
    while stack:
        item, many = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend((inner, many) for inner in item)
            continue
        found = sums.get(id(item))
        if found is not None and found[0] == name:
            if many:
                return False
            continue
        if isinstance(item, n.Name) and item.name == name:
            return False  # (read otherwise than in a sum)
        if attrs.has(type(item)):
            many = many or isinstance(item, REPEATED)
            stack.extend((child, many) for child in children(item))
    return True


#: a check's fields that its lets, roll and target alone decide
BUILT_IN = frozenset({"total", "target", "success", "margin"})


def built_in_cuts(check, terms: dict, sums: dict) -> dict:
    """For a check asked only one of its built-in fields (BUILT_IN): {a pool's forms:
    the same forms, those only the author's fields read made zero}, so that the
    odds count the pool by what decides the field alone. A form stays when a let, the
    roll or the target reads it; nothing is cut when an author's field does more with a
    form than read it whole (it might fail on some values: the field's odds would too)."""
    needed: dict = {}  # pool's name → positions of the forms read

    def read(node, into: dict) -> bool:
        """Add the forms read under `node` to `into`; whether any is read there."""
        found, stack = False, [node]
        while stack:
            item = stack.pop()
            if id(item) in sums:
                name, k, _constant = sums[id(item)]
                into.setdefault(name, set()).add(k)
                found = True
                continue
            stack.extend(children(item))
        return found

    for part in (*check.lets, check.roll, check.target):
        if part is not None:
            read(part, needed)
    for _name, expression in check.fields:
        if id(expression) not in sums and read(expression, {}):
            return {}
    # keyed by the forms themselves (what the odds roller is given, a value, never an
    # address); two pools of the same forms cut differently: neither is cut (always right)
    cuts: dict = {}
    clashing: set = set()
    for let in check.lets:
        stack = [let.expr]
        while stack:
            item = stack.pop()
            forms = terms.get(id(item))
            if forms is not None:
                kept = needed.get(let.name, set())
                cut = tuple(form if k in kept else (0,) * len(form) for k, form in enumerate(forms))
                if cuts.setdefault(forms, cut) != cut:
                    clashing.add(forms)
                continue
            stack.extend(children(item))
    return {
        key: forms for key, forms in cuts.items() if key not in clashing and any(map(any, forms))
    }
