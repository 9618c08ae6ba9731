"""The parser's spans, taken from tokens, are those of Lark's `propagate_positions`.

`dsl.parser` builds each node's span from its first and last token (the tokens the tree
leaves out included) instead of Lark's own option, which was half the time of a parse.
Every error's caret, line, column and end comes from these spans: here they are compared,
node by node, with a parser built with Lark's option, on every rulebook the project has
and on the expressions of the corpus.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from lark import Lark, Token, Tree

from benchmarks.corpus import CORPUS
from dsl.parser import ParsedTree, keyword_as_name, lark_parser

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted(
    path
    for folder in ("rulebooks", "examples", "tests")
    for path in (ROOT / folder).rglob("*.rules")
)


@pytest.fixture(scope="module")
def reference() -> Lark:
    grammar = resources.files("grammar").joinpath("rulebook.lark").read_text(encoding="utf-8")
    options = lark_parser().options
    return Lark(
        grammar,
        parser="lalr",
        start=options.start,
        maybe_placeholders=options.maybe_placeholders,
        propagate_positions=True,
    )


def _same_tree(theirs, ours, where: str) -> None:
    """The same tree, and every node with the span Lark's option gives it."""
    pending = [(theirs, ours)]
    while pending:
        expected, got = pending.pop()
        if isinstance(expected, Tree):
            assert isinstance(got, ParsedTree), where
            assert got.data == expected.data, where
            meta = expected.meta
            span = None if meta.empty else (meta.start_pos, meta.end_pos)
            assert (got.start, got.end) == (span or (None, None)), (where, got.data)
            assert len(got.children) == len(expected.children), (where, got.data)
            pending.extend(zip(expected.children, got.children))
        else:
            assert type(got) is type(expected) and got == expected, where
            if isinstance(expected, Token):
                assert (got.start_pos, got.end_pos) == (expected.start_pos, expected.end_pos)


def test_there_are_rulebooks_to_compare():
    assert len(RULEBOOKS) > 20


@pytest.mark.parametrize("path", RULEBOOKS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_rulebooks_spans_are_larks(reference, path):
    text = path.read_text(encoding="utf-8")
    try:
        theirs = reference.parse(text, start="rulebook", on_error=keyword_as_name)
    except Exception:  # a file of syntax errors: both parsers refuse it
        with pytest.raises(Exception):  # noqa: B017 - whatever Lark raises, ours raises too
            lark_parser().parse(text, start="rulebook", on_error=keyword_as_name)
        return
    ours = lark_parser().parse(text, start="rulebook", on_error=keyword_as_name)
    _same_tree(theirs, ours, str(path))


def test_every_corpus_expressions_spans_are_larks(reference):
    texts = sorted({text for text, *_ in CORPUS} | {"(a + b) * c", "f((1), [2, (3)])", "-(x)"})
    for text in texts:
        theirs = reference.parse(text, start="expression", on_error=keyword_as_name)
        _same_tree(theirs, lark_parser().parse(text, start="expression"), text)


def test_a_rule_that_read_no_text_has_no_span():
    tree = lark_parser().parse("", start="rulebook")
    assert isinstance(tree, ParsedTree) and tree.start is None
