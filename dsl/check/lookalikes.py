"""Warnings about characters that make a rulebook read otherwise than it runs.

Direction controls anywhere in its text (comments and texts included: "Trojan Source"),
and names that hold an invisible character, mix scripts, or look just like another name.
"""

from __future__ import annotations

import re

from dsl.check.host import CheckerHost
from dsl.errors import Span
from dsl.messages import Message, tr, tr_n
from dsl.unicode_text import (
    describe,
    direction_controls,
    hidden_in_name,
    look_alike,
    mixed_script,
    skeleton,
)

#: warnings of this kind one check gives before it says how many more it found
MAX_CHARACTER_WARNINGS = 50

# the names of a text, outside its quoted texts and comments: 'quoted' (1) or plain (2)
_NAMES = re.compile(r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"|#[^\n]*+|\'([^\'\n]++)\'|([^\W\d]\w*+)')


class LookalikeChecks(CheckerHost):
    """The characters' checks (part of the Checker)."""

    def check_lookalikes(self) -> None:
        sources = list(dict.fromkeys(d.span.source for d in self.definitions if d.span))
        if all(source.text.isascii() for source in sources):
            return  # nothing can hide, nor look like another letter
        found: list = []  # (message, span, hint), in the order of the texts
        for source in sources:
            for at, char in direction_controls(source.text):
                found.append(
                    (
                        tr(
                            "a direction control, {char}: the text around it may be shown in "
                            "another order than it is read",
                            char=describe(char),
                        ),
                        Span(source, at, at + 1),
                        tr(
                            "remove it: text in a right-to-left script needs none (this is how "
                            '"Trojan Source" hides what a text does)'
                        ),
                    )
                )
        names = self.written_names(sources)
        alike = self.same_looking(names)
        said = {span for _, span, _ in alike}
        for name, span in names.items():
            found.extend(name_warnings(name, span, mixed=span not in said))
        found.extend(alike)
        for message, span, hint in found[:MAX_CHARACTER_WARNINGS]:
            self.warning(message, span, hint)
        if len(found) > MAX_CHARACTER_WARNINGS:
            more = len(found) - MAX_CHARACTER_WARNINGS
            message = tr_n(
                "{n} more warning about characters like these",
                "{n} more warnings about characters like these",
                more,
            )
            self.warning(message, found[MAX_CHARACTER_WARNINGS][1])

    def written_names(self, sources) -> dict[str, Span]:
        """Every name the texts write (each at its first place), and every text a table
        is keyed by."""
        names: dict[str, Span] = {}
        for source in sources:
            for found in _NAMES.finditer(source.text):
                group = 1 if found.group(1) is not None else 2
                name = found.group(group)
                if name is not None and name not in names:
                    names[name] = Span(source, found.start(group), found.end(group))
        for table in self.by_kind["table"].values():
            rows = list(table.rows)
            while rows:
                row = rows.pop()
                rows.extend(row.rows)
                key = row.key
                if key.kind == "value" and isinstance(key.low, str) and key.low not in names:
                    names[key.low] = key.span
        return names

    def same_looking(self, names: dict[str, Span]) -> list:
        """Warnings for names that look just like another one (`Fuеrza` and `Fuerza`): at
        each but the one that is all ASCII (or else the first written)."""
        by_look: dict[str, list[str]] = {}
        for name in names:
            by_look.setdefault(skeleton(name), []).append(name)
        found: list[tuple[Message, Span, Message | None]] = []
        for group in by_look.values():
            if len(group) < 2:
                continue
            first = next((name for name in group if name.isascii()), group[0])
            for name in group:
                char = look_alike(name, first) if name != first else None
                if char is None:
                    continue
                found.append(
                    (
                        tr(
                            "`{name}` looks just like `{other}` ({location}) but is another "
                            "name: it has {char}",
                            name=name,
                            other=first,
                            location=names[first].location(),
                            char=describe(char),
                        ),
                        names[name],
                        tr("write it with the same letters, or choose a name that looks different"),
                    )
                )
        return found


def name_warnings(name: str, span: Span, mixed: bool = True) -> list:
    """A name that holds a character no one sees, or (`mixed`) letters of scripts not
    written together."""
    found: list[tuple[Message, Span, Message | None]] = []
    hidden = hidden_in_name(name)
    if hidden is not None:
        found.append(
            (
                tr(
                    "the name `{name}` holds {char}, which is not seen",
                    name=name,
                    char=describe(hidden),
                ),
                span,
                None,
            )
        )
    scripts = mixed_script(name) if mixed else None
    if scripts is not None:
        char, script, main = scripts
        found.append(
            (
                tr(
                    "the name `{name}` mixes scripts: {char} is a {script} letter among "
                    "{main} ones",
                    name=name,
                    char=describe(char),
                    script=script.title(),
                    main=main.title(),
                ),
                span,
                tr("a name that looks like another may not be the one it seems"),
            )
        )
    return found
