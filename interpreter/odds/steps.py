"""The most steps a piece of rules may take: what the odds engine may leave unrun.

A statement nothing reads may be skipped only if it cannot stop the run, and a run stops
when its steps pass `steps_per_run` (issue 23: `let r = f30(1)`, each formula calling the
one below twice, stops every run, and its odds must say so). `StepBounds.most` bounds
what evaluating a node may count, from above: each node in it, every branch of it, the
body of every definition it names (formulas, checks, opposed checks, named rolls, tables,
derived fields, actions), each found once, loops and rerolls at their limits. It is never
below what a run counts (interpreter.compile.costs); it may be far above, so that a
statement it cannot clear is computed, never wrongly skipped.
"""

from __future__ import annotations

from math import ceil, floor
from typing import Any

import attrs

from dsl import nodes as n
from dsl.types import value_of

#: the bound past which a count is not followed further (far above any step limit)
MOST = 2**64

#: definitions a name, call or lookup may evaluate (their bodies counted where named)
DEFINITIONS = (n.Formula, n.Check, n.Opposed, n.Action, n.RollDef, n.Table, n.Derived)

#: kinds of value an operation goes through in one step whatever their size
SMALL_KINDS = ("number", "bool")
#: the most characters a yes/no or `none` is shown with, in any language
SHORT_WORD = 64
#: kinds of value a text shows without counting their cells
TEXT_KINDS = ("number", "text")
#: operations that go through the cells of a value of another kind (a list, a text, a
#: record) when one of them, or of their parts, is one
VALUED = (n.Binary, n.Unary, n.ListLiteral, n.Call, n.Index, n.RollGroup)

#: lookups that find a row, a place or an entry by its keys, going through no value
#: (interpreter.compile.expressions ex_index; a list's item by its position is not one)
LOOKUPS = ("table", "family", "catalog_entry")

_SKIPPED = frozenset(("span", "name_span", "op_span", "unit_span", "notes"))


def key_of(definition) -> tuple:
    """What a definition's bound is remembered by: its kind and its name (one of each in a
    rulebook)."""
    return (type(definition).__name__, definition.name)


class StepBounds:
    """`most(node)` under a compiler's bindings and types and a run's limits, each
    definition's bound found once."""

    def __init__(self, compiler: Any, limits: Any) -> None:
        self.compiler = compiler
        self.limits = limits
        self.found: dict = {}  # a definition's kind and name (key_of) → its bound

    def most(self, node) -> int:
        """The most steps evaluating `node` (an expression, a statement, a block) may
        count, MOST at most."""
        found = self.found
        pending = [d for d in self._named(node) if key_of(d) not in found]
        opened: set = set()
        # definitions before those naming them, without recursion (a chain of thousands);
        # one naming itself, or one still open, is counted as MOST by those naming it
        while pending:
            definition = pending[-1]
            key = key_of(definition)
            if key in found:
                pending.pop()
                continue
            if key not in opened:
                opened.add(key)
                pending.extend(
                    d
                    for d in self._named(definition)
                    if key_of(d) not in found and key_of(d) not in opened
                )
                continue
            pending.pop()
            found[key] = self._own(definition, top=True)
        return self._own(node, top=isinstance(node, DEFINITIONS))

    def _named(self, node) -> list:
        """The definitions `node` names (a body's own name for itself excluded)."""
        binding_of = self.compiler.binding_of
        out = []
        for item in n.walk(node):
            binding = binding_of(item)
            if binding is None:
                continue
            definition = binding.node
            if isinstance(definition, DEFINITIONS) and definition is not node:
                out.append(definition)
        return out

    def _own(self, node, top: bool = False) -> int:
        """Steps of `node`'s nodes, each definition named counted at its bound found
        (MOST where none is yet: one naming itself)."""
        limits, binding_of, found = self.limits, self.compiler.binding_of, self.found
        total = 0
        stack = [(node, 1)]
        while stack:
            item, times = stack.pop()
            if isinstance(item, tuple | list):
                stack.extend((inner, times) for inner in item)
                continue
            kind = type(item)
            if not attrs.has(kind):
                continue
            if isinstance(item, DEFINITIONS) and not (top and item is node):
                entry = found.get(key_of(item))
                total += times * (entry if entry is not None else MOST)
                if total >= MOST:
                    return MOST
                continue
            own = 1 + self._cells(item)
            binding = binding_of(item)
            if binding is not None and isinstance(binding.node, DEFINITIONS):
                if binding.node is node:
                    return MOST  # a definition naming itself
                entry = found.get(key_of(binding.node))
                own += entry if entry is not None else MOST
            total += times * own
            if total >= MOST:
                return MOST
            inner = times
            if kind is n.Repeat:
                inner = times * (_literal(item.count, limits.repeat_count) + 1)
            elif kind is n.ForEach:
                items = item.items
                passes = limits.list_length  # (at most: a list, or a range, is as long)
                if type(items) is n.ListLiteral:
                    passes = len(items.items)
                elif type(items) is n.Range and items.low is not None and items.high is not None:
                    passes = min(passes, max(0, floor(items.high) - ceil(items.low) + 1))
                inner = times * (passes + 1)
            elif kind is n.RollDef:
                inner = times * (limits.extra_per_die + 1)
            elif kind is n.Opposed:
                inner = times * (limits.tie_rerolls + 1)
            stack.extend((part, inner) for part in n.parts(item, _SKIPPED))
        return min(total, MOST)

    def _cells(self, item) -> int:
        """What an operation may go through beyond its own step: a dice term its dice
        (each may explode or reroll up to extra_per_die times), a text, a list, a call of
        the language or an operation on values other than numbers and yes/no, the most
        cells a value may hold (else, those of its parts)."""
        limits = self.limits
        if isinstance(item, n.Dice):
            count = 1 if item.count is None else _literal(item.count, limits.dice_per_term)
            if any(isinstance(m, n.Explode | n.Reroll) for m in item.modifiers):
                return count * (limits.extra_per_die + 1)
            return count
        if type(item) is n.Text:
            return self._text(item)
        if type(item) is n.Index:
            binding = self.compiler.binding_of(item)
            if binding is not None and binding.kind in LOOKUPS:
                return len(item.keys)  # a row found by its keys (its cells counted as named)
        if isinstance(item, VALUED):
            # a number or a yes/no: a step; a text: its cells (a step per 64 characters,
            # text_length at most); a value of another kind: value_size in all
            total = 0
            for part in n.parts(item, _SKIPPED):
                for inner in part if isinstance(part, tuple) else (part,):
                    if not attrs.has(type(inner)):
                        total += 1
                        continue
                    kind = self._kind(inner)
                    if kind in SMALL_KINDS:
                        total += 1
                    elif kind == "text":
                        total += 1 + (limits.text_length >> 6)
                    else:
                        return limits.value_size
            return min(total, limits.value_size)
        return 0

    def _text(self, item: n.Text) -> int:
        """A text's (interpreter.compile.expressions.built_text): the cells of each value
        shown in it that is not a number or a text (text_length in all at most), and a
        step per 64 characters of it: its own, and those of each value shown (a number's
        digits, a text's longest choice; text_length at most)."""
        limits = self.limits
        shown = [p for p in item.parts if not isinstance(p, str)]
        cells = 0
        if any(self._kind(p) not in TEXT_KINDS for p in shown):
            cells = min(limits.value_size, limits.text_length)
        length = sum(len(p) for p in item.parts if isinstance(p, str))
        for part in shown:
            length += self._shown_length(part)
        return len(shown) + cells + (min(length, limits.text_length) >> 6)

    def _shown_length(self, node) -> int:
        """The most characters a value a text shows may take."""
        limits = self.limits
        found = value_of(self.compiler.type_of(node))
        if found.kind == "number":  # a fraction's two parts (the value times the
            # denominator above), a sign, a bar
            return 2 * (limits.number_digits + limits.denominator_digits) + 2
        if found.kind in ("bool", "none"):
            return SHORT_WORD
        if found.kind == "text" and found.choices:
            return max(len(choice) for choice in found.choices)
        return limits.text_length

    def _kind(self, node) -> str:
        return value_of(self.compiler.type_of(node)).kind


def _literal(node, most: int) -> int:
    """The whole number a node writes, at most `most`; else `most`."""
    value = node.value if isinstance(node, n.Literal) else None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        return most
    return value
