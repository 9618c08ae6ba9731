"""Whether two ASTs say the same thing: equal node by node, wherever they were written.

Nodes compare without their `span` already; a few keep other spans among their fields
(an effect's targets, its unit): here every span is equal to every other.
"""

from __future__ import annotations

from typing import Any

import attrs

from dsl.errors import Span


def same_tree(first: object, second: object) -> bool:
    """Whether two ASTs (or parts of them) are equal but for positions (iterative)."""
    work: list[tuple[Any, Any]] = [(first, second)]
    while work:
        a, b = work.pop()
        if isinstance(a, Span) and isinstance(b, Span):
            continue
        if type(a) is not type(b):
            return False
        if attrs.has(type(a)):
            for field in attrs.fields(type(a)):
                if field.eq:
                    work.append((getattr(a, field.name), getattr(b, field.name)))
        elif isinstance(a, tuple | list):
            if len(a) != len(b):
                return False
            work.extend(zip(a, b))
        elif isinstance(a, dict):
            if list(a) != list(b):
                return False
            work.extend((a[k], b[k]) for k in a)
        elif a != b:
            return False
    return True
