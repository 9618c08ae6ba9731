"""The walk from a Lark parse tree to nodes, and what every part of the builder shares."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import attrs
from lark import Token, Tree

from dsl import nodes as n
from dsl.errors import RulebookError, RulebookSyntaxError, Source, Span
from dsl.messages import tr
from dsl.parser import ParsedTree, dice_end, parse_tree
from dsl.plain_dice import read_expression

#: deepest expression tree accepted (a chain `a + b + c ...` counts one level per term)
MAX_DEPTH = 200
#: most digits a number written in a rulebook may have (as `Limits.number_digits` at run time)
MAX_DIGITS = 1000
#: most characters of a name (the shipped rulebooks' longest has 32): every hint, trace,
#: outline and page that lists names shows them whole
MAX_NAME_LENGTH = 100
_NAMES = frozenset({"NAME", "QUOTED_NAME"})


@attrs.frozen
class WrittenName:
    """A name as written, with its span (the builder's own intermediate value)."""

    text: str
    span: Span


@attrs.frozen
class Tagged:
    """A tagged piece of a larger construct (a check's `roll`, an `else` block, ...)."""

    tag: str
    value: Any  # what the tagged piece built (each tag's own)
    span: Span


#: the escapes a quoted text may hold: \n, \t, \" and \\
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}

_EXPRESSION_RULES = {
    "if_expr",
    "or_",
    "and_",
    "not_",
    "compare",
    "equal",
    "in_",
    "binary",
    "neg",
    "power",
    "field",
    "index",
    "call",
    "list_literal",
}


class _HandlerTable(dict):
    """Rule name → the walk's method for it, filled as rules are met."""

    def __init__(self, walk: type):
        super().__init__()
        self.walk = walk

    def __missing__(self, rule: str):
        method = self[rule] = getattr(self.walk, f"_{rule}")
        return method


#: rules whose chains (`a + b + c`, `a and b and c`) nest one level per operation
_CHAINS = {"binary", "and_", "or_"}


def unquote(text: str) -> str:
    """A quoted token's text, its escapes (\\n, \\t, \\", \\\\) read."""
    body = text[1:-1]
    if "\\" not in body:
        return body
    return _ESCAPE.sub(lambda found: ESCAPES.get(found[1], found[1]), body)


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def number_value(text: str, span: Span):
    """A number token's value: an int, or an exact Fraction for a decimal (1.5 is 3/2)."""
    digits_within(text, span)
    if text.isascii() and text.isdigit():  # most numbers: no Fraction to parse
        return int(text)
    value = Fraction(text)
    return value.numerator if value.denominator == 1 else value


#: a range's end written as a number (else a name: `..Skill`, in an expression only)
NUMBER_END = re.compile(r"-?[0-9]+")
#: the ends of a RANGE token (a quoted name may hold dots: `'a..b'..3`)
_ENDS = re.compile(r"((?:-?[0-9]+|[^\W\d]\w*|'[^'\n]+')?)\.\.(.*)", re.S)


def range_ends(text: str) -> tuple[str, str]:
    """A RANGE token's two ends as written ('' for an open end)."""
    found = _ENDS.fullmatch(text)
    return (found.group(1), found.group(2)) if found else ("", "")


def whole_number(text: str, span: Span) -> int:
    """The int a run of digits writes (a dice count or size, a range's end)."""
    digits_within(text, span)
    return int(text)


def digits_within(text: str, span: Span) -> None:
    if len(text) > MAX_DIGITS and sum(c.isdigit() for c in text) > MAX_DIGITS:
        raise RulebookSyntaxError(
            tr("a number of more than {max_digits} digits", max_digits=MAX_DIGITS),
            span,
            tr("no game needs numbers this long"),
        )


class TreeWalk:
    """The iterative walk over a parse tree, calling `_rule(span, *children)` per node:
    the host of the builder modules (dsl.build's `Builder` joins them), which declares
    what each calls on another."""

    #: each class's own table of builder methods (made on first use: `_handlers`)
    _handler_table: ClassVar[_HandlerTable]

    def __init__(self, source: Source, offset: int = 0):
        self.source = source
        self.offset = offset

    def build(self, root):
        values: list = []  # what each node and token built, in the order of the text
        depths: list = []  # and how deep an expression each is
        stack: list = [root]  # what is still to build; `(tree,)`: its children are built
        handlers = self._handlers()
        while stack:
            node = stack.pop()
            if type(node) is not tuple:
                if isinstance(node, Tree):
                    stack.append((node,))
                    stack.extend(reversed(node.children))
                else:  # a token, or None for an absent optional part
                    if node is not None and len(node) > MAX_NAME_LENGTH and node.type in _NAMES:
                        raise self._too_long(node)
                    values.append(node)
                    depths.append(0)
                continue
            (node,) = node
            count = len(node.children)
            if count:
                built = values[-count:]
                del values[-count:]
                depth = 1 + max(depths[-count:])
                del depths[-count:]
            else:
                built, depth = [], 1
            span = self._tree_span(node)
            if depth > MAX_DEPTH and node.data in _EXPRESSION_RULES:
                raise self._too_deep(node, span)
            values.append(handlers[node.data](self, span, *built))
            depths.append(depth)
        return values[0]

    def _too_long(self, token: Token) -> RulebookSyntaxError:
        span = self._token_span(token)
        return RulebookSyntaxError(
            tr("a name of more than {max_length} characters", max_length=MAX_NAME_LENGTH),
            Span(span.source, span.start, span.start + 1),  # (its first letter: not a screenful)
            tr("choose a shorter name; a longer text goes in a note or a comment"),
        )

    def _too_deep(self, node: Tree, span: Span) -> RulebookSyntaxError:
        """An expression past MAX_DEPTH. A chain of one operator (`1 + 1 + ... + 1`) is
        said as such, at the operator where it passes the bound: every later stage walks
        it one level per operation, so it is bounded as nesting is."""
        first = node.children[0] if node.children else None
        if node.data in _CHAINS and isinstance(first, Tree) and first.data == node.data:
            at = node.children[1] if node.data == "binary" else node.children[-1]
            if isinstance(at, Token):  # the operator (`and`, `or`: the operand after it)
                span = self._token_span(at)
            elif isinstance(at, ParsedTree) and at.start is not None:
                span = self._tree_span(at)
            return RulebookSyntaxError(
                tr(
                    "this chain of operations is nested more than {max_depth} levels deep here "
                    "(limit MAX_DEPTH): each operation of a chain such as `a + b + c ...` "
                    "holds all those before it, one level more",
                    max_depth=MAX_DEPTH,
                ),
                span,
                tr(
                    "split it with `let` into shorter chains: "
                    "`let first = a + b + ...`, then `first + ...`"
                ),
            )
        return RulebookSyntaxError(
            tr("this expression is nested more than {max_depth} levels deep", max_depth=MAX_DEPTH),
            span,
            tr("split it with `let` into smaller parts"),
        )

    @classmethod
    def _handlers(cls) -> dict:
        """The builder method of each grammar rule, `_rule`, looked up once per class."""
        found = cls.__dict__.get("_handler_table")
        if found is None:
            found = _HandlerTable(cls)
            cls._handler_table = found
        return found

    def _tree_span(self, tree: ParsedTree) -> Span:
        if tree.start is None or tree.end is None:  # a rule that read nothing
            return Span(self.source, self.offset, self.offset)
        return Span(self.source, self.offset + tree.start, self.offset + tree.end)

    def _token_span(self, token: Token) -> Span:
        start = self.offset + (token.start_pos or 0)  # (a token of the parser's has one)
        return Span(self.source, start, start + len(token.value))

    def _sub_expression(self, text: str, offset: int):
        """Parse a part of a token (dice count, text interpolation) as an expression."""
        start = self.offset + offset
        small = read_expression(
            text, source=self.source, offset=start, term=self.dice_at(offset), dice_end=dice_end
        )
        if small is not None:  # (2+1)d(3*2): read without the parser
            return small
        tree = parse_tree(text, self.source, "expression", start)
        return type(self)(self.source, start).build(tree)

    def dice_at(self, offset: int):
        """`term(written, start)` for dsl.plain_dice.read_expression: the node of a dice
        term at `start` of a text at `offset` (in this builder's text), as a DICE token
        of the parser's is built; None where building it is an error (the parser, which
        reads all the text first, says what is wrong)."""

        def term(written: str, start: int):
            at = offset + start
            end = at + len(written)
            try:
                return self.dice_token(Token("DICE", written, at, 1, at + 1, 1, end + 1, end))
            except RulebookError:
                return None

        return term

    def _error(self, message: str, span: Span, hint: str | None = None):
        return RulebookSyntaxError(message, span, hint)

    if TYPE_CHECKING:  # what one builder module calls on another (defined there)
        # dsl.build.expressions
        def _text_node(self, token, span): ...
        def _character_call(self, span, subject, call): ...

        # dsl.build.dice
        def dice_token(self, token): ...

        # dsl.build.definitions
        def _range(self, token: Token) -> n.Range: ...
