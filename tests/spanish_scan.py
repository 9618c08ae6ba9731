"""English found in an answer meant to be Spanish: the words of the catalogue's English
that its Spanish never uses, and the keys a program writes (`success`, `modifier`, `yes`,
`int`, ...), outside what the rulebook itself writes (its names and texts, quoted as
they are); and numbers written with a decimal point (`1.7`, where Spanish writes `1,7`)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from babel.messages.pofile import read_po

from dsl.functions import FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "dsl" / "locale" / "es.po"
GRAMMAR = ROOT / "grammar" / "rulebook.lark"

#: what programs write that a person must never read in a Spanish answer: the keys of
#: a check's record and of a lasting effect, yes/no and none as Python or JSON write them,
#: the language's type names
KEYS = frozenset(
    {
        "success",
        "points",
        "name",
        "modifier",
        "targets",
        "left",
        "unit",
        "yes",
        "true",
        "false",
        "none",
        "null",
        "int",
        "str",
        "bool",
        "text",
        "attribute",
        "skill",
        "character",
        "list",
    }
)
WORD = re.compile(r"[^\W\d_]+")
#: what is not words for people: commands to type (`rulebook undo 3`), options and the
#: placeholders of their values (`--set NAME=VALUE`), paths and file names, numbers in
#: scientific notation
CODE_AND_FILES = (
    r"`[^`\n]*`|--[\w-]+|\b[A-Z][A-Z_]+\b|\S*[/\\]\S*|\S+\.(?:yaml|yml|json|sqlite|rules|tmp)\b"
)
NOT_WORDS = re.compile(CODE_AND_FILES + r"|\d[\d.,]*e[-+]?\d+")
#: a comment of a rulebook or a sheet
COMMENT = re.compile(r"#[^\n]*")


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def _message_words(text: str) -> set[str]:
    """A message's words, its `{parameters}` aside."""
    return _words(re.sub(r"\{[^{}]*\}", " ", text))


@functools.cache
def english_words() -> frozenset[str]:
    """The catalogue's English words (3 letters or more) that none of its Spanish uses,
    and the program's KEYS."""
    with CATALOGUE.open("rb") as handle:
        catalog = read_po(handle)
    english: set[str] = set()
    spanish: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in ids:
            english |= {w for w in _message_words(text) if len(w) >= 3}
        for text in strings:
            spanish |= _message_words(text or "")
    return frozenset((english - spanish) | KEYS)


@functools.cache
def keywords() -> frozenset[str]:
    """The language's own words (`in`, `yes`, `effects`): code a rulebook shows as written."""
    found = set(re.findall(r'"([a-z_]+)"i?', GRAMMAR.read_text(encoding="utf-8")))
    return frozenset(found | set(FUNCTIONS))


def rulebook_words(*paths: Path) -> frozenset[str]:
    """What the rulebooks and sheets at `paths` write themselves (comments aside): their
    names, texts and code (a KEY among them is still English where it is not code)."""
    found: set[str] = set()
    for path in paths:
        found |= _words(COMMENT.sub(" ", path.read_text(encoding="utf-8")))
    return frozenset(found)


def english_in(text: str, allowed: frozenset[str]) -> list[str]:
    """The English words in `text`, an answer in Spanish, outside the `allowed` words (the
    rulebook's own); the language's keywords only where they are code: `estado(yes)`,
    `[d]`, `x >= y`, never `superado yes`."""
    text = NOT_WORDS.sub(" ", text)
    english = english_words()
    found = []
    for match in WORD.finditer(text):
        word = match.group().lower()
        if word not in english or (word in allowed and word not in KEYS):
            continue
        code = word in keywords() or word in allowed  # (`c.success`: the rulebook's code)
        if code and _in_code(text, match.start(), match.end()):
            continue
        found.append(match.group())
    return found


#: characters around a word of code: a call, an index, an operator
CODE = set(".()[]=<>+*/\"'")


def _in_code(text: str, start: int, end: int) -> bool:
    """Whether a word is written against a call, an index, a field or an operator."""
    return text[start - 1 : start] in CODE or text[end : end + 1] in CODE


#: a number with a point in it (`1.7`, `8.3333`, `0.205`, `2.0e-15`), never part of a
#: longer name or a range (`2..12`)
POINTED = re.compile(r"(?<![\w.,])\d+(?:\.\d+)+(?:e[-+]?\d+)?(?![\w.]*\w)")
#: the point Spanish writes between thousands: `100.000.000` (never after a leading 0)
THOUSANDS = re.compile(r"[1-9]\d{0,2}(?:\.\d{3})+")


def decimal_points(text: str) -> list[str]:
    """The numbers of `text`, an answer in Spanish, written with a decimal point (`1.7`,
    `8.3333 %`), where Spanish writes a decimal comma (`1,7`, `8,3333 %`); commands, paths
    and file names aside, and the point between thousands (`100.000`: a number with
    three decimals, `16.700`, reads the same and is not found)."""
    text = re.sub(CODE_AND_FILES, " ", text)
    return [m.group() for m in POINTED.finditer(text) if not THOUSANDS.fullmatch(m.group())]
