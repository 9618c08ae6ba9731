"""Whether a rulebook's rules may read a health field, so that a turn's odds depend on it.

The exact chain computes a turn's odds once for every health the actor (and its rival)
may have, unless no rule could tell one health from another. That is decided from the
rulebook's text, conservatively: the field's name must appear nowhere in any rule but as
the place a `gain` or `lose` writes (they only clamp, never fail), or inside a result
field other than the damage the encounter takes; no parameter may take it as its value
(a parameter of a kind of field, or of a group, that holds it), nor a text be it.
Anything else counts as a read.
"""

from __future__ import annotations

from dsl import nodes as n
from dsl.nodes.walk import walk


def may_read(book, field: str, damage: str, params: tuple = ()) -> bool:
    """Whether any rule of `book` may read `field` (see the module's docstring)."""
    if any(value == field for _, value in params):
        return True
    seen = set()
    while book is not None:
        for root in _roots(book):
            if id(root) not in seen:
                seen.add(id(root))
                if _reads(book, root, field, damage):
                    return True
        book = book.base
    return False


def _roots(book) -> list:
    parts = (
        book.actions,
        book.checks,
        book.opposed,
        book.formulas,
        book.tables,
        book.rolls,
        book.ladders,
        book.fields,
        book.derived,
        book.dice,
    )
    return [node for part in parts for node in part.values()] + list(book.ensures)


def _reads(book, root, field: str, damage: str) -> bool:
    written = set()  # nodes naming the field that only say where a gain or lose writes
    for node in walk(root):
        if isinstance(node, n.Change) and node.verb in ("gain", "lose"):
            written.add(id(node.place))
        elif isinstance(node, n.Result):
            for name, expression in node.fields:
                if name != damage:
                    written.update(id(part) for part in walk(expression))
        elif isinstance(node, n.Param) and _may_take(book, node.type, field):
            return True
    for node in walk(root):
        if id(node) in written:
            continue
        if isinstance(node, n.Name | n.Field) and node.name == field:
            return True
        if isinstance(node, n.Literal | n.Text) and _mentions(node, field):
            return True
    return False


def _may_take(book, kind, field: str) -> bool:
    """Whether a parameter of this type may be given the field's name (and read it)."""
    if not isinstance(kind, n.NamedType):
        return False
    if kind.name in ("skill", "stat") and book.open_skills is not None:
        return True  # (a skill the sheet lacks may be named: any name)
    choices = book.choices_of(kind.name)
    return choices is not None and field in choices


def _mentions(node, field: str) -> bool:
    value = getattr(node, "value", None)
    if isinstance(value, str):
        return value == field
    parts = getattr(node, "parts", ())
    return any(isinstance(part, str) and field in part for part in parts)


def may_write(book, field: str) -> bool:
    """Whether any rule of `book` may write `field` (a `gain`, `lose`, `set`, a cost: any
    statement whose place names it): a turn's outcome for it then depends on its value."""
    while book is not None:
        for root in _roots(book):
            for node in walk(root):
                place = getattr(node, "place", None)
                if place is None:
                    continue
                if isinstance(place, str):
                    if place == field:
                        return True
                elif any(
                    isinstance(part, n.Name | n.Field) and part.name == field
                    for part in walk(place)
                ):
                    return True
        book = book.base
    return False
