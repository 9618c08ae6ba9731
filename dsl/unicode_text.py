"""Characters that make a text read otherwise than it is.

Digits of other scripts, controls that change the direction text is shown in, invisible
characters, and letters of one script that look like another's (`Fuеrza`, with a
Cyrillic е, beside `Fuerza`).

Each is named by its code point and Unicode name wherever it is refused or warned about.
"""

from __future__ import annotations

import re
import unicodedata

from dsl.messages import Message, tr

#: controls that change the order text is shown in (Unicode's bidirectional embeddings,
#: overrides, isolates and marks): what "Trojan Source" hides code with
DIRECTION_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
_DIRECTION = re.compile("[" + "".join(sorted(DIRECTION_CONTROLS)) + "]")


def describe(char: str) -> str:
    """`U+0435 CYRILLIC SMALL LETTER IE`."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'UNNAMED CHARACTER')}"


# ─── digits ──────────────────────────────────────────────────────────────────


def other_digit(text: str) -> str | None:
    """The first digit of `text` that is not one of 0-9 (`١`, `٣`, `²`), or None."""
    if text.isascii():
        return None
    return next((c for c in text if c.isdigit() and not c.isascii()), None)


def digits_refused(text: str) -> Message | None:
    """Why `text` is not read as a number, when it holds a digit other than 0-9."""
    char = other_digit(text)
    if char is None:
        return None
    return tr(
        "{char} ({name}) is not one of the digits 0-9: numbers are written with 0-9 only",
        char=char,
        name=describe(char),
    )


# ─── half characters ─────────────────────────────────────────────────────────

_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> int | None:
    """Where `text` holds half of a character (a lone surrogate, as a JSON escape
    `\\ud800` or undecodable bytes given to Python make), which no file can hold."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


#: what half a character is called where it is refused
HALF_CHARACTER = tr("a lone surrogate (not a character)")


# ─── direction controls and invisible characters ─────────────────────────────


def direction_controls(text: str):
    """(offset, character) of every direction control in `text`."""
    if text.isascii():
        return
    for found in _DIRECTION.finditer(text):
        yield found.start(), found.group()


def hidden_in_name(name: str) -> str | None:
    """A character of `name` that shows nothing, or changes how the text around it is
    shown (a direction control, a zero-width space, a joiner)."""
    if name.isascii():
        return None
    return next((c for c in name if unicodedata.category(c) in ("Cf", "Cc", "Zl", "Zp")), None)


# ─── letters of several scripts ──────────────────────────────────────────────

#: scripts a name may mix without a word: Japanese writes Han with kana, Korean Han with
#: Hangul, Chinese Han with Bopomofo, any of them with Latin letters (Unicode's "highly
#: restrictive" mixes, UTS #39)
MIXES = (
    frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "CJK", "HANGUL"}),
    frozenset({"LATIN", "CJK", "BOPOMOFO"}),
)
#: first words of Unicode names that are not a script's name
_NOT_SCRIPTS = {"MODIFIER", "SMALL", "CAPITAL", "MATHEMATICAL", "FULLWIDTH", "HALFWIDTH"}


def script_of(char: str) -> str | None:
    """The script of a letter, as the first word of its Unicode name says (`CYRILLIC`,
    `LATIN`, `GREEK`); None for what is not a letter (digits, `_`, marks)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    words = unicodedata.name(char, "").split()
    while words and words[0] in _NOT_SCRIPTS:
        words = words[1:]
    return words[0] if words else None


def mixed_script(name: str) -> tuple[str, str, str] | None:
    """(a letter, its script, the script of the rest) when the letters of `name` come from
    scripts that are not written together (`Fuеrza`: a Cyrillic letter among Latin)."""
    if name.isascii():
        return None
    scripts: dict[str, list[str]] = {}
    for char in name:
        script = script_of(char)
        if script is not None:
            scripts.setdefault(script, []).append(char)
    if len(scripts) < 2 or any(set(scripts) <= mix for mix in MIXES):
        return None
    main = max(scripts, key=lambda s: len(scripts[s]))  # the most letters (the first, on a tie)
    other = next(s for s in scripts if s != main)
    return scripts[other][0], other, main


# Letters of Cyrillic, Greek and other scripts that look like Latin ones (after case
# folding): the part of Unicode's confusables (UTS #39) that reads as Latin
_LOOKS_LATIN = str.maketrans(
    {
        **dict(zip("аеорсухіјѕԁһԛԝӏвкмнт", "aeopcyxijsdhqwlbkmht", strict=True)),
        **dict(zip("αοριυνκτεχ", "aopiuvktex", strict=True)),
        "ı": "i",
        "ɡ": "g",
        "ɑ": "a",
        "ℓ": "l",
    }
)


def skeleton(name: str) -> str:
    """What a name looks like, for telling two names apart that only look alike:
    compatibility forms folded (`Ｆ` is `F`), case folded, look-alike letters read as the
    Latin letters they look like."""
    if name.isascii():
        return name.casefold()
    return unicodedata.normalize("NFKC", name).casefold().translate(_LOOKS_LATIN)


def look_alike(name: str, other: str) -> str | None:
    """The first character of `name` that makes it differ from `other`, which it looks
    just like (the same skeleton, yet not the same name but for case); else None."""
    if name.casefold() == other.casefold() or skeleton(name) != skeleton(other):
        return None
    for mine, theirs in zip(name, other):
        if mine.casefold() != theirs.casefold():
            return mine
    return next((c for c in name if not c.isascii()), name[-1:] or None)
