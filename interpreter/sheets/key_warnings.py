"""Warnings about a sheet's keys that read otherwise than they are.

A key holding a direction control or an invisible character, mixing scripts, or looking
just like another name (the rulebook's `Fuerza`, and a skill `Fuеrza` with a Cyrillic е
under `skills:`), each named by its code point and Unicode name.
"""

from __future__ import annotations

from dsl.messages import tr
from dsl.unicode_text import describe, hidden_in_name, look_alike, mixed_script, skeleton
from interpreter.errors import SheetWarning

#: warnings one sheet gives about its keys (past them, none: the file is plainly hostile)
MAX_KEY_WARNINGS = 20


def key_warnings(data, rulebook, path: str | None) -> list[SheetWarning]:
    """The warnings about the keys of a sheet's data (every mapping in it, with the dotted
    path of each key), against each other and the names of the rulebook."""
    keys = list(_keys(data))
    if all(key.isascii() for key, _ in keys):
        return []
    known: dict[str, str] = {}  # skeleton → the first name that looks so
    for name in _rulebook_names(rulebook):
        known.setdefault(skeleton(name), name)
    for key, _ in keys:
        known.setdefault(skeleton(key), key)
    found: list[SheetWarning] = []
    for key, where in keys:
        if key.isascii():
            continue
        hidden = hidden_in_name(key)
        if hidden is not None:
            found.append(
                SheetWarning(
                    tr(
                        "the key {key} holds {char}, which is not seen",
                        key=repr(key),
                        char=describe(hidden),
                    ),
                    where,
                    None,
                    path,
                )
            )
        other = known[skeleton(key)]
        char = look_alike(key, other) if other != key else None
        if char is not None:
            found.append(
                SheetWarning(
                    tr(
                        "the key {key} looks just like {other} but is another name: it has {char}",
                        key=repr(key),
                        other=repr(other),
                        char=describe(char),
                    ),
                    where,
                    tr("write it with the same letters as {other}", other=other),
                    path,
                )
            )
            continue
        mixed = mixed_script(key)
        if mixed is not None:
            letter, script, main = mixed
            found.append(
                SheetWarning(
                    tr(
                        "the key {key} mixes scripts: {char} is a {script} letter among "
                        "{main} ones",
                        key=repr(key),
                        char=describe(letter),
                        script=script.title(),
                        main=main.title(),
                    ),
                    where,
                    None,
                    path,
                )
            )
        if len(found) >= MAX_KEY_WARNINGS:
            break
    return found[:MAX_KEY_WARNINGS]


def _keys(data, prefix: str = ""):
    """(key, dotted path) of every text key of every mapping in `data` (a walk with its
    own stack: a sheet's nesting is bounded before, but no recursion is needed)."""
    stack = [(data, prefix)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str):
                    path = f"{where}.{key}" if where else key
                    yield key, path
                    stack.append((item, path))
        elif isinstance(value, list | tuple):
            stack.extend((item, where) for item in value)


def _rulebook_names(rulebook):
    """The sheet's fields, and the fields of its catalogs' entries."""
    for name, field in rulebook.fields.items():
        yield name
        for entry_field in getattr(field, "fields", ()):
            yield entry_field.name
