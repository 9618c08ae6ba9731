"""`rulebook fmt`: a rulebook's text in one canonical layout, its meaning unchanged.

    text = dsl.format.format_text(text)   # raises RulebookSyntaxError if it does not parse

The layout is described in docs/formatting.md. The author's line breaks are kept; each
line gets its indentation and spacing again, tables their aligned values, comments their
places. The result is parsed again and compared with the original: a layout that would
change a rulebook's meaning is never returned (FormatError), whatever the text.
"""

from __future__ import annotations

from dsl.build import Builder, parse_rulebook_file
from dsl.errors import RulebookError, Source
from dsl.format.document import formatted
from dsl.format.layout import WIDTH
from dsl.format.same import same_tree
from dsl.format.terms import tidy_terms
from dsl.format.tokens import stream
from dsl.load import MAX_WORDS, within_words
from dsl.messages import tr
from dsl.parser import parse_tree


class FormatError(RulebookError):
    """The layout would have changed what the rulebook says (a bug of the formatter: the
    text is left as it was)."""

    code = "internal_error"


def format_text(text: str, name: str = "<rulebook>", *, max_words: int = MAX_WORDS) -> str:
    """`text` in the canonical layout. Raises the text's syntax error if it does not
    parse (at its file:line:col); a text over `max_words` is refused as `dsl.load` does."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    within_words(text, name, max_words)
    source = Source(name, text)
    tree = parse_tree(text, source, "rulebook")
    before = Builder(source).build(tree)
    tokens, comments = stream(text, tree)
    tidy_terms(tokens)
    out = formatted(text, tokens, comments, WIDTH)
    try:
        after = parse_rulebook_file(out, name)
    except RulebookError:
        after = None
    if after is None or not same_tree(before, after):
        raise FormatError(
            tr(
                "{name}: the formatter would change what this rulebook says, so it is left "
                "as it was (please report it)",
                name=name,
            )
        )
    return out


__all__ = ["WIDTH", "FormatError", "format_text", "same_tree"]
