"""Plain dice (`d20`, `3d6+2`, `4d6kh3 - d4`) read without the parser: what most rolls are.

`rulebook roll d20` should cost about what starting Python costs. The whole front end
(Lark's parser, the checker, the compiler) is most of a second to import, so the few
expressions most people roll are read here by a small exact reader: dice terms
`[N]dM[khK|klK|dhK|dlK]` and whole numbers, added and subtracted, with spaces between
them. Anything else is None, and the caller takes the parser's way.

The reader takes only what means the same here as through the parser and the checker,
and gives no warning there: a count of 1 to 999 dice (none written: one), 2 to 9999 faces,
keeping or dropping 1 to fewer than the count, numbers without leading zeros, at most
MAX_TERMS terms. `tests/test_plain_dice.py` proves it: over generated expressions, its
reading is the parser's (`as_node` against `dsl.parse_expression`, spans included), and
every roll of it is the full pipeline's (the same dice, total, detail, JSON).
"""

from __future__ import annotations

import re

#: most terms a plain expression may have (past it, the parser's way)
MAX_TERMS = 32

# (`kh-1` is a modifier's count to the parser: a keep without its count is not followed by
# a minus)
_DICE = r"(?:[1-9][0-9]{0,2})?d[1-9][0-9]{0,3}(?:(?:kh|kl|dh|dl)(?:[1-9][0-9]{0,2}|(?!-)))?"
_NUMBER = r"0|[1-9][0-9]{0,5}"
_TERM = rf"(?:{_DICE}|{_NUMBER})(?![\w(])"
#: the whole text: a term, then signs and terms, with spaces (no other blank) around them
PLAIN = re.compile(rf" *+{_TERM}(?: *+[-+] *+{_TERM}){{0,{MAX_TERMS - 1}}} *+")
#: one term with its sign: (sign, count, sides, mode, k, number)
_PART = re.compile(
    r"([-+]?) *+(?:([1-9][0-9]*+)?d([1-9][0-9]*+)(?:(kh|kl|dh|dl)([1-9][0-9]*+)?)?|([0-9]++))"
)


def read(text: str) -> tuple | None:
    """The terms of a plain dice expression, in order, or None if it is not one. Each
    term is (sign, start, end, value): sign +1 or -1, where it is written, and either a
    whole number or a dice term (count, sides, mode, k, at): count None for one die,
    mode None or "kh", "kl", "dh", "dl" written at `at`, k None for 1."""
    if len(text) > 400 or PLAIN.fullmatch(text) is None:
        return None
    terms = []
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
        at = found.start(4)
        terms.append((sign, start, found.end(), (count, int(found.group(3)), mode, k, at)))
    return tuple(terms)


def as_node(text: str, terms: tuple, name: str = "<expression>"):
    """The AST the parser makes of a plain expression (`read`'s terms): how the tests
    prove the reader reads as the parser does."""
    from dsl import nodes as n
    from dsl.errors import Source, Span

    source = Source(name, text)
    node = None
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
