"""Plain dice (`d20`, `3d6+2`, `4d6kh3 - d4`) read without the parser: what most rolls are.

`rulebook roll d20` should cost about what starting Python costs. The whole front end
(Lark's parser, the checker, the compiler) is most of a second to import, so the few
expressions most people roll are read here by a small exact reader: dice terms
`[N]dM[khK|klK|dhK|dlK]` and whole numbers, added and subtracted, with spaces between
them. Anything else is None, and the caller takes the parser's way.

The reader takes only what means the same here as through the parser and the checker,
and gives no warning there: a count of 1 to 999 dice (none written: one), 2 to 9999 faces
(not 66: a d66 is warned about),
keeping or dropping 1 to fewer than the count, numbers without leading zeros, at most
MAX_TERMS terms. `tests/test_plain_dice.py` proves it: over generated expressions, its
reading is the parser's (`as_node` against `dsl.parse_expression`, spans included), and
every roll of it is the full pipeline's (the same dice, total, detail, JSON).
"""

from __future__ import annotations

import re
from typing import Any

#: most terms a plain expression may have (past it, the parser's way)
MAX_TERMS = 32

# (`kh-1` is a modifier's count to the parser, `kh>=3` a condition: a keep without its
# count is not followed by a minus or a comparison)
_KEEP = r"(?:kh|kl|dh|dl)(?:[1-9][0-9]{0,2}|(?![-<>=!]))"
_DICE = rf"(?:[1-9][0-9]{{0,2}})?d[1-9][0-9]{{0,3}}(?:{_KEEP})?"
_NUMBER = r"0|[1-9][0-9]{0,5}"
_TERM = rf"(?:{_DICE}|{_NUMBER})(?![\w(])"
#: the whole text: a term, then signs and terms, with spaces (no other blank) around them
PLAIN = re.compile(rf" *+{_TERM}(?: *+[-+] *+{_TERM}){{0,{MAX_TERMS - 1}}} *+")
#: one term with its sign: (sign, count, sides, mode, k, number); spaces are skipped only
#: after a sign, so that a search over a run of spaces stays linear
_PART = re.compile(
    r"(?:([-+]) *+)?(?:([1-9][0-9]*+)?d([1-9][0-9]*+)(?:(kh|kl|dh|dl)([1-9][0-9]*+)?)?|([0-9]++))"
)


def read(text: str) -> tuple | None:
    """The terms of a plain dice expression, in order, or None if it is not one. Each
    term is (sign, start, end, value): sign +1 or -1, where it is written, and either a
    whole number or a dice term (count, sides, mode, k, at): count None for one die,
    mode None or "kh", "kl", "dh", "dl" written at `at`, k None for 1."""
    if len(text) > 400 or PLAIN.fullmatch(text) is None:
        return None
    terms: list[tuple[int, int, int, Any]] = []
    for found in _PART.finditer(text):
        sign = -1 if found.group(1) == "-" else 1
        start = found.start(2) if found.group(2) else found.start(3) - 1
        if found.group(6) is not None:
            terms.append((sign, found.start(6), found.end(6), int(found.group(6))))
            continue
        count = int(found.group(2)) if found.group(2) else None
        mode = found.group(4)
        k = int(found.group(5)) if found.group(5) else None
        if mode is not None and not 1 <= (1 if k is None else k) < (count or 1):
            return None  # a keep of all, or a drop of all: the checker has a word for it
        if int(found.group(3)) == 66:
            return None  # (a d66: the checker's warning says what a d66 is elsewhere)
        at = found.start(4)
        terms.append((sign, start, found.end(), (count, int(found.group(3)), mode, k, at)))
    return tuple(terms)


def as_node(text: str, terms: tuple, name: str = "<expression>"):
    """The AST the parser makes of a plain expression (`read`'s terms): how the tests
    prove the reader reads as the parser does."""
    from dsl import nodes as n
    from dsl.errors import Source, Span

    source = Source(name, text)
    node: Any = None
    term: Any
    for sign, start, end, value in terms:
        span = Span(source, start, end)
        if isinstance(value, int):
            term = n.Literal(value, span=span)
        else:
            count, sides, mode, k, at = value
            count_node = None
            if count is not None:
                count_node = n.Literal(count, span=Span(source, start, start + len(str(count))))
            modifiers: tuple = ()
            if mode is not None:
                k_node = None if k is None else n.Literal(k, span=Span(source, at + 2, end))
                modifiers = (n.Keep(mode, k_node, span=Span(source, at, end)),)
            term = n.Dice(count_node, sides, modifiers, span=span)
        if node is None:
            node = term
            continue
        operator = text.rindex("-" if sign < 0 else "+", node.span.end, start)
        node = n.Binary(
            "-" if sign < 0 else "+",
            node,
            term,
            span=Span(source, node.span.start, end),
            op_span=Span(source, operator, operator + 1),
        )
    return node


# ─── small expressions: plain dice and numbers with + - * /, ( ), and a few functions ──

#: the functions a small expression may call (anything else: the parser's way); the
#: whole expression may be two sums compared (`2d6 >= 7`)
FUNCTIONS = frozenset(("floor", "ceil", "round", "abs", "min", "max"))
#: deepest nesting of parentheses and calls a small expression may have
MAX_NESTING = 12
#: a term of a small expression: a plain dice term or a number, where no longer token of
#: the grammar could go on (a modifier, a label, a fraction, `//`, `**`)
#: what may follow a term: an operator, a comparison, `)`, `,`, the end
_FOLLOW = r"(?=[ +\-*/),<>=]|!=|$)(?![*/][*/])"
_SMALL_TERM = re.compile(rf"(?:({_DICE})|({_NUMBER})){_FOLLOW}|([a-z]++)\(")
_SMALL_DICE = re.compile(r"([1-9][0-9]*+)?d([1-9][0-9]*+)(?:(kh|kl|dh|dl)([1-9][0-9]*+)?)?")
#: a dice term with any modifiers (`3d6x`, `4dF`, `d%`, `2d20ro=1kh1`, `10d10cs>=6df=1`),
#: no part in brackets, no name, no label: what a caller's `term` may build (the grammar's
#: DICE terminal says where it ends: `dice_end`)
_MORE_DICE = re.compile(r"[0-9]*+d(?:[0-9]++|%|[Ff])(?:[a-zA-Z!]++(?:[<>]=?|=)?+-?[0-9]*+)*+")
#: what may follow a term of a small expression (as _SMALL_TERM's lookahead)
_AFTER_TERM = re.compile(_FOLLOW)
#: a comparison of the whole expression's two sums (the grammar's COMPARE, and `=`)
_COMPARE = re.compile(r">=|<=|!=|<|>|=")


class NotSmall(Exception):
    """Not a small expression: the parser reads it."""


def read_expression(
    text: str, name: str = "<expression>", source=None, offset: int = 0, term=None, dice_end=None
):
    """The AST the parser makes of a small expression (`floor(3d6/2)`, `max(1d20, 1d20)`,
    `(2d6 + 3) * 2`), or None if it is not one. Spaces (and no other blank) may go between
    tokens; no unary minus, no named argument, no space before a call's `(`. A part of a
    longer text (a dice term's `(2+1)`) is read with that text's `source`, at `offset`.
    The whole text may be two sums compared (`2d6 >= 7`, `2d6 = 7`).
    With `term` (the builder's: dsl.build) any dice term without brackets, names or
    labels (`3d6x + 1`, `max(2d20ro=1, 1d20)`) is one too: `term(written, start)` its
    node as the parser's builder makes it, or None (an error: the parser says it), where
    `dice_end(text, start)` (the grammar's DICE terminal) says it ends.
    tests/test_plain_dice.py proves it reads as the parser does, spans included."""
    if len(text) > 400 or not text.strip():
        return None
    from dsl import nodes as n
    from dsl.errors import Source, Span

    def span(_source, start: int, end: int):
        return Span(source, offset + start, offset + end)

    source = Source(name, text) if source is None else source
    return read_small(text, source, n, span, term, dice_end)


def read_small(text: str, source, nodes, span, term=None, dice_end=None):
    """The node of `text` read whole as a small expression, built of `nodes`' classes
    with `span(source, start, end)` for their spans, or None (read_expression builds the
    AST; interpreter.odds.small its own few plain nodes)."""
    reader = _SmallReader(text, source, nodes, span)
    reader.term, reader.dice_end = term, dice_end
    try:
        node, _start, _end = reader.comparison()
        if reader.skip() != len(text):
            return None
    except NotSmall:
        return None
    return node


class _SmallReader:
    """A recursive descent over a small expression: each step returns (node, start, end),
    where start..end is the text it stands for, its parentheses included (a binary
    operation's span runs from its left operand's start to its right one's end)."""

    def __init__(self, text: str, source, nodes, span):
        self.text, self.source, self.n, self.span = text, source, nodes, span
        self.at = 0
        self.depth = 0
        #: where a node in parentheses is written, without them (id → start, end)
        self.own: dict[int, tuple[int, int]] = {}
        self.term: Any = None  # builds a term beyond the plain ones (read_expression)
        self.dice_end: Any = None

    def skip(self) -> int:
        while self.at < len(self.text) and self.text[self.at] == " ":
            self.at += 1
        return self.at

    def binary(self, operators: str, operand):
        left, start, end = operand()
        while True:
            at = self.skip()
            if at >= len(self.text) or self.text[at] not in operators:
                return left, start, end
            self.at = at + 1
            right, _right_start, end = operand()
            left = self.n.Binary(
                self.text[at],
                left,
                right,
                span=self.span(self.source, start, end),
                op_span=self.span(self.source, at, at + 1),
            )

    def comparison(self):
        """The whole text: a sum, or two compared (`2d6 >= 7`, `1d20 + 5 > 15`)."""
        left, start, end = self.sum()
        at = self.skip()
        found = _COMPARE.match(self.text, at)
        if found is None:
            return left, start, end
        self.at = found.end()
        right, right_start, right_end = self.sum()
        op_span = self.span(self.source, at, found.end())
        if found.group() == "=":  # (the builder's: from the left operand to the right one,
            # each without its parentheses)
            gap = self.own.get(id(left), (start, end))[1]
            op_span = self.span(self.source, gap, self.own.get(id(right), (right_start,))[0])
        node = self.n.Binary(
            found.group(),
            left,
            right,
            span=self.span(self.source, start, right_end),
            op_span=op_span,
        )
        return node, start, right_end

    def sum(self):
        return self.binary("+-", self.product)

    def product(self):
        return self.binary("*/", self.atom)

    def atom(self):
        start = self.skip()
        if start < len(self.text) and self.text[start] == "(":
            self.at = start + 1
            node = self.nested(lambda: self.sum())
            if self.skip() >= len(self.text) or self.text[self.at] != ")":
                raise NotSmall
            self.at += 1
            self.own[id(node[0])] = self.own.get(id(node[0]), node[1:])
            return node[0], start, self.at
        found = _SMALL_TERM.match(self.text, start)
        if found is None:
            return self.more_dice(start)
        if found.group(3) is not None:
            return self.call(found)
        self.at = found.end()
        span = self.span(self.source, start, self.at)
        if found.group(2) is not None:
            return self.n.Literal(int(found.group(2)), span=span), start, self.at
        return self.dice(found.group(1), start, span), start, self.at

    def more_dice(self, start: int):
        """A dice term with other modifiers (`3d6x`, `4dF`), built by `term`: where the
        grammar's DICE terminal ends it, the lexer's token, when nothing in it is in
        brackets or a name and an operator, `)`, `,` or the end follows."""
        if self.term is None or _MORE_DICE.match(self.text, start) is None:
            raise NotSmall
        end = self.dice_end(self.text, start)
        if end is None or _MORE_DICE.fullmatch(self.text, start, end) is None:
            raise NotSmall
        if _AFTER_TERM.match(self.text, end) is None:
            raise NotSmall
        node = self.term(self.text[start:end], start)
        if node is None:
            raise NotSmall
        self.at = end
        return node, start, end

    def nested(self, step):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise NotSmall
        try:
            return step()
        finally:
            self.depth -= 1

    def call(self, found):
        function = found.group(3)
        if function not in FUNCTIONS:
            raise NotSmall
        start = found.start()
        self.at = found.end()
        args = [self.nested(lambda: self.sum())[0]]
        while self.skip() < len(self.text) and self.text[self.at] == ",":
            self.at += 1
            args.append(self.nested(lambda: self.sum())[0])
        if self.skip() >= len(self.text) or self.text[self.at] != ")":
            raise NotSmall
        self.at += 1
        span = self.span(self.source, start, self.at)
        name_span = self.span(self.source, start, start + len(function))
        node = self.n.Call(function, tuple(args), (), span=span, name_span=name_span)
        return node, start, self.at

    def dice(self, written: str, start: int, span):
        end = start + len(written)
        matched = _SMALL_DICE.fullmatch(written)
        if matched is None:
            raise NotSmall
        count, sides, mode, k = matched.groups()
        if mode is not None and not 1 <= (1 if k is None else int(k)) < int(count or 1):
            raise NotSmall  # a keep of all, a drop of all: the checker says so
        count_node = None
        if count is not None:
            count_span = self.span(self.source, start, start + len(count))
            count_node = self.n.Literal(int(count), span=count_span)
        modifiers: tuple = ()
        if mode is not None:
            at = start + len(count or "") + 1 + len(sides)
            k_node = None
            if k is not None:
                k_node = self.n.Literal(int(k), span=self.span(self.source, at + 2, end))
            modifiers = (self.n.Keep(mode, k_node, span=self.span(self.source, at, end)),)
        return self.n.Dice(count_node, int(sides), modifiers, span=span)
