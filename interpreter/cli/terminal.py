"""What the command line prints: control characters of rulebooks and sheets shown, not obeyed.

A rulebook's names and texts, a sheet's fields, a journal's entries and a record are
written by anyone; printed raw, `ESC[2J` clears the screen, `ESC]52;…` writes to the
clipboard of some terminals, `\\r` writes over what a line said, a right-to-left override
(U+202E) shows a line in another order than it reads, and NUL or C1 controls do what
each terminal makes of them. Every line the command line prints goes through `shown`:
such a character is written as its JSON escape (`\\u001b`, `\\u202e`), visible, and the
same character to a program reading `--json` (so the JSON stays valid and means the
same). Ordinary text, accents, emoji (with their joiners) and tabs and new lines pass
as they are.
"""

from __future__ import annotations

import re

#: the characters shown escaped: C0 controls but tab and new line, DEL, C1 controls, the
#: marks and overrides that change the direction of text, and the line and paragraph
#: separators (a new line a terminal may draw where the layout put none)
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """`text` with every character of CONTROLS written as its escape (`\\u001b`)."""
    return CONTROLS.sub(_escape, text)


def _escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


class Shown:
    """A text stream that writes what it is given through `shown` (the command line's
    standard output and error, while a command runs); `unescaped` is the stream itself,
    for a file's own text that a command writes out whole (`rulebook fmt -`)."""

    def __init__(self, stream):
        self.unescaped = stream

    def write(self, text: str) -> int:
        self.unescaped.write(shown(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self.unescaped, name)


def unescaped(stream):
    """The stream beneath a `Shown` one (the stream itself otherwise)."""
    return stream.unescaped if isinstance(stream, Shown) else stream
