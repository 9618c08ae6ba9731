"""The insides of a dice term, laid out too.

Its parenthesised counts, sides and values are expressions (`(if r = 0 then 2 else
r)d6`), its listed faces a list (`d{1, 1, 2}`); its label is a text, kept as written."""

from __future__ import annotations

import itertools
import re

from dsl.errors import RulebookError, Source
from dsl.format.spacing import spacing
from dsl.format.tokens import Tok, stream
from dsl.parser import parse_tree

# A parenthesised part of a term (two levels, as the grammar's DICE terminal has them),
# or a list of faces.
_PART = re.compile(r"\((?:[^()\n]++|\([^()\n]*+\))*+\)|\{[-0-9\s,.]*+\}")  # (as DICE's)
# The label that may end a term: a text, kept as written.
_LABEL = re.compile(r"\[[^\[\]\n]*\]$")


def tidy_terms(tokens: list[Tok]) -> None:
    """Lay out the insides of the dice terms among `tokens`."""
    for token in tokens:
        if token.kind == "DICE" and ("(" in token.text or "{" in token.text):
            token.text = tidy_term(token.text)


def tidy_term(text: str) -> str:
    """A DICE token's text with its parts in the canonical layout."""
    label = _LABEL.search(text)
    body, tail = (text[: label.start()], label.group()) if label else (text, "")
    return _PART.sub(_tidy_part, body) + tail


def _tidy_part(found: re.Match) -> str:
    part = found.group()
    if part.startswith("{"):
        faces = [face.strip() for face in part[1:-1].split(",")]
        return "{" + ", ".join(faces) + "}"
    return "(" + one_line(part[1:-1]) + ")"


def one_line(text: str) -> str:
    """An expression laid out on one line (as written, if it is not one)."""
    try:
        tree = parse_tree(text, Source("<term>", text), "expression")
    except RulebookError:
        return text
    tokens, comments = stream(text, tree)
    if comments or not tokens:
        return text
    out = [tokens[0].text]
    for before, token in itertools.pairwise(tokens):
        out.append(spacing(before, token) + token.text)
    return "".join(out)
