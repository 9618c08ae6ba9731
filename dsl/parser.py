"""Text to Lark parse tree, with Lark's errors turned into the project's own."""

from __future__ import annotations

import contextlib
import hashlib
import operator
import re
from functools import cache

import lark
from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.grammar import Rule, Terminal
from lark.lexer import TerminalDef
from lark.parse_tree_builder import ParseTreeBuilder

from dsl import cache as disk
from dsl import parser_tables
from dsl.dice_terminal import dice_end as dice_end  # (this module's names, as before)
from dsl.dice_terminal import dice_pattern
from dsl.dice_terminal import dice_terminal as dice_terminal
from dsl.dice_terminal import reads_as_dice as reads_as_dice
from dsl.errors import RulebookSyntaxError, Source, Span
from dsl.messages import Message, tr
from dsl.other_statements import other_statement
from dsl.spellings import condition_after, other_spelling
from dsl.unicode_text import HALF_CHARACTER, digits_refused, lone_surrogate, other_digit

#: deepest nesting of brackets accepted; deeper text is refused before parsing, so that
#: no later stage (building, checking, evaluating) can run out of Python stack.
MAX_NESTING = 64

# What a person would write, for each terminal Lark may say it expected.
_EXPECTED = {
    "NAME": tr("a name"),
    "QUOTED_NAME": tr("a 'quoted name'"),
    "NUMBER": tr("a number"),
    "STRING": tr('a "text"'),
    "DICE": tr("dice (such as 2d6)"),
    "RANGE": tr("a range (such as 1..10)"),
    "NEG_KEY": tr("a negative number"),
    "COMPARE": tr("a comparison (>=, <=, >, <, !=)"),
    "EQUAL": "=",
    "ADD_OP": tr("+ or -"),
    "MUL_OP": tr("* or /"),
    "MINUS": "-",
    "PLUS": "+",
    "LPAR": "(",
    "RPAR": ")",
    "LSQB": "[",
    "RSQB": "]",
    "LBRACE": "{",
    "RBRACE": "}",
    "COMMA": ",",
    "COLON": ":",
    "DOT": ".",
    "VBAR": "|",
    "ROLL_SIGN": tr("add or subtract"),
    "TIE_RULE": tr("reroll, ours or theirs"),  # (`none` is a word of its own: listed apart)
    "HEADER_KEY": tr("system, source or language"),
    "$END": tr("the end of the text"),
}
_VALUE_STARTS = {"NAME", "QUOTED_NAME", "NUMBER", "STRING", "DICE", "GROUP", "LPAR", "LSQB"}


grammar_text = parser_tables.grammar_text


def grammar_digest_and_options() -> tuple[str, dict]:
    """(the digest the parser's tables depend on, Lark's options to build them with)."""
    return parser_tables.grammar_digest(), dict(parser_tables.OPTIONS)


class ParsedTree(Tree):
    """A parse tree node that knows where its text is, as Lark's `propagate_positions`
    would say, for a fraction of its cost (that option was half the time of a parse).

    `start`..`end` is the text its rule read, from its first token to its last, those
    the tree leaves out included (the `(` and `)` of `f(x)`). `start_pos`..`end_pos` is
    the text of the outermost rule that returned it unchanged (a `?rule` that inlines it,
    as `"(" expr ")"` does): the part of its parent's text it stands for. A token has
    the same two attributes, so a parent reads either kind of child alike."""

    start: int | None = None  # None: its rule read no text at all
    end: int | None = None
    start_pos: int | None = None
    end_pos: int | None = None


@cache
def lark_parser(strict: bool = False) -> Lark:
    """The LALR parser for the whole language, built once. Its tables are data read
    from the file shipped beside the grammar (`dsl.parser_tables`), else from the user's
    cache folder (`dsl.cache`), else built (about a second) and kept there. It builds
    ParsedTree nodes (see `_positioned`)."""
    digest, options = grammar_digest_and_options()
    if strict:  # conflicts and terminal collisions are errors (a test builds it this way)
        return _positioned(Lark(grammar_text(), strict=True, **options))
    shipped = parser_tables.read(digest)
    if shipped is not None:
        return _positioned(shipped)
    entry = f"parser-{hashlib.sha256(f'{lark.__version__}{digest}'.encode()).hexdigest()[:32]}.json"
    found = _parser_from_cache(entry)
    if found is not None:
        return _positioned(found)
    parser = Lark(grammar_text(), **options)
    with contextlib.suppress(disk.NotCached):
        disk.write(entry, disk.dumps(parser.memo_serialize([TerminalDef, Rule])))
    return _positioned(parser)


def _positioned(parser: Lark) -> Lark:
    """`parser`, its tree-building callbacks replaced (in the table its LALR loop reads)
    by Lark's own, building ParsedTree, each with the span step of `_with_span`; a rule
    that only passes its one child on (`?sum: product`) is `operator.itemgetter(0)`:
    no step in Python at all for most of the reductions of an expression."""
    builder = ParseTreeBuilder(
        parser.rules, ParsedTree, maybe_placeholders=parser.options.maybe_placeholders
    )
    built = builder.create_callback()
    callbacks = parser.parser.parser_conf.callbacks
    for rule in parser.rules:
        # (Lark keys its callbacks by Rule, whatever its annotation says)
        callbacks[rule] = operator.itemgetter(0) if _passes_on(rule) else _with_span(built[rule])  # type: ignore[index]
    return parser


def _passes_on(rule: Rule) -> bool:
    """Whether a rule's tree is always its one child, as it was (`?sum: product`)."""
    if not rule.options.expand1 or rule.alias or rule.options.empty_indices:
        return False
    if rule.options.keep_all_tokens or len(rule.expansion) != 1:
        return False
    (symbol,) = rule.expansion
    return not symbol.name.startswith("_") and not (
        isinstance(symbol, Terminal) and symbol.filter_out
    )


def _with_span(build):
    def callback(children: list):
        value = build(children)
        if type(value) is ParsedTree:
            start = next((c.start_pos for c in children if c.start_pos is not None), None)
            if start is not None:
                end = next(c.end_pos for c in reversed(children) if c.end_pos is not None)
                if value.start is None:  # made by this rule (not a child passed on)
                    value.start, value.end = start, end
                value.start_pos, value.end_pos = start, end
        return value

    return callback


def _parser_from_cache(entry: str) -> Lark | None:
    data = disk.read(entry)
    if data is None:
        return None
    try:
        tables, memo = disk.loads(data)
        return Lark.load({"data": tables, "memo": memo})
    except Exception:  # anything Lark cannot make a parser of: build it again
        return None


def parse_tree(text: str, source: Source, start: str, offset: int = 0) -> ParsedTree:
    """Parse `text` (which sits at `offset` in `source`) from the start symbol `start`."""
    check_nesting(text, source, offset)
    half = lone_surrogate(text)
    if half is not None:  # (a text read from a file never holds one; an app's may)
        span = Span(source, offset + half, offset + half + 1)
        raise RulebookSyntaxError(HALF_CHARACTER, span)
    try:
        tree: ParsedTree = lark_parser().parse(text, start=start, on_error=keyword_as_name)  # type: ignore[assignment]  # (its trees are ParsedTrees: lark_parser)
        return tree
    except UnexpectedInput as error:
        raise _syntax_error(error, text, source, offset) from None
    except LarkError as error:  # anything else Lark may raise is still a syntax error
        raise RulebookSyntaxError(str(error), Span(source, offset, offset)) from None


@cache
def keywords() -> tuple[frozenset, frozenset]:
    """(every keyword of the grammar, the reserved ones): the words NAME never matches
    are reserved; every other keyword is one only where the grammar expects it."""
    parser = lark_parser()
    words = frozenset(
        t.pattern.value
        for t in parser.terminals
        if isinstance(t.pattern, lark.lexer.PatternStr) and t.pattern.value.isidentifier()
    )
    name = next(t for t in parser.terminals if t.name == "NAME").pattern.value
    reserved = frozenset(w for w in words if not re.match(name + "$", w))
    return words, reserved


@cache
def _dice_run() -> re.Pattern:
    """The DICE terminal without its last condition (that no letter, digit or _ follows
    the term): where a term that failed only for that would have ended."""
    pattern = dice_pattern().pattern
    assert pattern.endswith("(?!\\w)")
    return re.compile(pattern[: -len("(?!\\w)")])


def keyword_as_name(error: UnexpectedInput) -> bool:
    """A contextual keyword where the parser can take a name is a name (`check`, `roll`,
    `action` as names of parameters, fields and choices). The contextual lexer alone
    cannot always tell: LALR merges the states after a complete expression, so a word
    there may lex as the keyword of some other context."""
    if not isinstance(error, UnexpectedToken) or error.interactive_parser is None:
        return False
    token = error.token
    words, reserved = keywords()
    if token.type == "NAME" or token.value not in words or token.value in reserved:
        return False
    parser = error.interactive_parser
    if "NAME" not in parser.accepts():
        return False
    parser.feed_token(Token.new_borrow_pos("NAME", token.value, token))
    return True


_BRACKET = re.compile(r"[][(){}]")
#: the letters and digits from a place on
_WORD = re.compile(r"\w*+")


def check_nesting(text: str, source: Source, offset: int = 0) -> None:
    """Refuse brackets nested deeper than MAX_NESTING, before anything parses them."""
    depth = 0
    for bracket in _BRACKET.finditer(text):  # the brackets only, not every character
        if bracket.group() in "([{":
            depth += 1
            if depth > MAX_NESTING:
                position = bracket.start()
                span = Span(source, offset + position, offset + position + 1)
                raise RulebookSyntaxError(
                    tr("brackets are nested more than {max_nesting} deep", max_nesting=MAX_NESTING),
                    span,
                )
        else:
            depth -= 1


def _syntax_error(error: UnexpectedInput, text: str, source: Source, offset: int):
    position = getattr(error, "pos_in_stream", None)
    if isinstance(error, UnexpectedToken):
        position = error.token.start_pos
    other = other_spelling(text, position) if position is not None else None
    if other is not None:  # `10d10>5f1`, `{1d20, 1d20}x`: said at what differs, with ours
        message, start, end, hint = other
        return RulebookSyntaxError(message, Span(source, offset + start, offset + end), hint)
    if isinstance(error, UnexpectedCharacters) and error.pos_in_stream is not None:
        start = offset + error.pos_in_stream
        char = text[error.pos_in_stream]
        span = Span(source, start, start + 1)
        read = _WORD.match(text, error.pos_in_stream)
        word = read.group() if read else ""
        refused = digits_refused(word)
        if refused is not None:  # `١٢٣`, `3d٦`: no number, no dice
            at = start + word.index(other_digit(word))
            return RulebookSyntaxError(refused, Span(source, at, at + 1))
        term = _dice_run().match(text, error.pos_in_stream)
        if term is not None and term.end() < len(text):  # `5d6kh1_`: a term runs into `_`
            at = offset + term.end()
            return RulebookSyntaxError(
                tr(
                    "the dice term {term} runs into {char}, which no modifier takes",
                    term=term.group(),
                    char=repr(text[term.end()]),
                ),
                Span(source, at, at + 1),
                tr("end the term with a space or an operator, as in {example}", example="2d6 + x"),
            )
        if char == '"':
            return RulebookSyntaxError(tr('this text is never closed with a matching "'), span)
        if char == "'":
            return RulebookSyntaxError(
                tr("this quoted name is never closed with a matching '"), span
            )
        other = other_statement(char, frozenset())  # (`;`: a statement of C or Java)
        if other is not None:
            return RulebookSyntaxError(other[0], span, other[1])
        message = tr("unexpected character {char}", char=repr(char))
        return RulebookSyntaxError(message, span, _expected_hint(error.allowed))
    if isinstance(error, UnexpectedToken):
        token = error.token
        keyword = _misplaced_keyword(error, text, source, offset)
        if keyword is not None:
            return keyword
        accepted = frozenset(error.accepts or error.expected or ())
        after = condition_after(text, token.start_pos) if accepted == {"LBRACE"} else None
        if after is not None:  # `lose 1 from Stress if hurt`: said at that line
            message, start, end, hint = after
            return RulebookSyntaxError(message, Span(source, offset + start, offset + end), hint)
        other = other_statement(token.value, accepted)
        if other is not None:  # `set x = 2`, `if c then {`, `elif`: said as what we write
            start = offset + token.start_pos
            span = Span(source, start, start + max(1, len(token.value)))
            return RulebookSyntaxError(other[0], span, other[1])
        if token.type == "$END":
            end = offset + len(text.rstrip())
            span = Span(source, end, end)
            message = tr("the text ends too early")
        else:
            start = offset + token.start_pos
            span = Span(source, start, start + max(1, len(token.value)))
            message = tr("unexpected {token}", token=_describe_token(token))
            if _text_ends_inside_braces(text, token.start_pos):  # `"{join(l, ", ")}"`
                hint = tr(
                    "a text inside a text's {...} ends the outer text: name it first, as "
                    'in let sep = ", " and then "{join(l, sep)}"'
                )
                return RulebookSyntaxError(message, span, hint)
            expected = error.accepts or error.expected or ()
            statement = _statement_word(text, token.start_pos)
            if "ELSE" in expected and statement == "require":
                hint = tr(
                    'a `require` says why it stops the action: require <condition> else "why"'
                )
                return RulebookSyntaxError(message, span, hint)
            if "LPAR" in expected and statement in _WITH_PARAMETERS and token.type != "LPAR":
                name = _statement_text(text, token.start_pos)[len(statement) :].strip()
                title = f" {token.value}" if token.type == "STRING" else ""
                hint = tr(
                    "the parameters follow the name in parentheses (`()` when there are "
                    "none), before any title: {example}",
                    example=f"{statement} {name}(){title} {{",
                )
                return RulebookSyntaxError(message, span, hint)
            if statement == "result" and set(expected) == {"LBRACE"} and token.type == "NAME":
                name = token.value if len(token.value) <= _OWN_EXAMPLE else "hit"
                hint = tr("a result is a record of named values: {example}",
                          example=f"result {{ {name}: {name} }}")  # fmt: skip
                return RulebookSyntaxError(message, span, hint)
            if ("TO" in expected or "FROM" in expected) and statement in _WRITTEN:
                example = _WRITTEN[statement]
                written = _statement_text(text, token.start_pos)
                own = token.type == "NAME" or (statement == "set" and token.type == "NUMBER")
                if own and len(written) <= _OWN_EXAMPLE:  # (their words)
                    joint = "to" if "TO" in expected else "from"
                    example = f"{written} {joint} {token.value}"
                hint = tr("`{statement}` is written `{example}`", statement=statement,
                          example=example)  # fmt: skip
                return RulebookSyntaxError(message, span, hint)
        return RulebookSyntaxError(message, span, _expected_hint(error.accepts or error.expected))
    return RulebookSyntaxError(str(error), Span(source, offset, offset))


#: definitions whose name is followed by parameters in parentheses, before any title
_WITH_PARAMETERS = {"action", "check", "opposed"}

#: statements a first rulebook often writes without their `to` or `from`: as written
#: (`gain 1 Advantage`: the author's own words with the `to` put in, when they are short)
_OWN_EXAMPLE = 60
_WRITTEN = {
    "gain": "gain 1 to Stress",
    "lose": "lose 1 from Health",
    "spend": "spend 1 from Might",
    "set": "set x to 2",
}


def _statement_word(text: str, at: int) -> str:
    """The first word of the statement written last before `at`."""
    return _statement_text(text, at).split(" ", 1)[0]


def _statement_text(text: str, at: int) -> str:
    """The statement written last before `at` (after the last line break or brace)."""
    before = text[:at].rstrip()
    start = max(before.rfind("\n"), before.rfind("{"), before.rfind("}")) + 1
    return before[start:].lstrip()


def _text_ends_inside_braces(text: str, at: int) -> bool:
    """Whether the text written just before `at` ends inside an open `{` (its `"` meant
    to open a text within it)."""
    before = text[:at].rstrip()
    if not before.endswith('"'):
        return False
    opening = before.rfind('"', 0, len(before) - 1)
    while opening > 0 and before[opening - 1] == "\\":  # (an escaped quote is inside)
        opening = before.rfind('"', 0, opening - 1)
    inside = before[opening + 1 : -1]
    return opening >= 0 and inside.count("{") > inside.count("}")


def _misplaced_keyword(error: UnexpectedToken, text: str, source: Source, offset: int):
    """A keyword written where a name goes: `roll = 5` as a check's field, `result` as a
    parameter's name. Said as such, with what to do, rather than "expected a value"."""
    token = error.token
    words, _ = keywords()
    expected = set(error.accepts or error.expected or ())
    if error.interactive_parser is not None and token.value in words:
        expected = set(error.interactive_parser.accepts())  # the state's own, not its lexer's
    inside = _definition_items(expected)
    if inside is not None and token.value in words and token.type in STATEMENT_WORDS:
        start = offset + token.start_pos
        span = Span(source, start, start + len(token.value))
        message, hint = inside
        return RulebookSyntaxError(message.fill(word=token.value), span, hint)
    if token.type != "NAME" and token.value in words and "NAME" in expected:
        start = offset + token.start_pos
        span = Span(source, start, start + len(token.value))
        if expected & {"NUMBER", "DICE"}:  # a value goes here: an expression left unfinished?
            hint = tr(
                "{expected}; `{word}` is a keyword: as a name, write '{word}'",
                expected=_expected_hint(expected),
                word=token.value,
            )
            message = tr("unexpected {token}", token=_describe_token(token))
            return RulebookSyntaxError(message, span, hint)
        return _keyword_error(token.value, span)
    if token.type in ("EQUAL", "COLON") and token.start_pos is not None:
        # the word just before it (a keyword is short: the last 64 characters hold it)
        before = _LAST_WORD.search(text, max(0, token.start_pos - 64), token.start_pos)
        if before and before.group(1) in words and _parses_as_name(text, before, token):
            word = before.group(1)
            start = offset + before.start(1)
            return _keyword_error(word, Span(source, start, start + len(word)))
    return None


#: the statements of an action, which a check's or an opposed check's body does not take
STATEMENT_WORDS = frozenset(
    [
        "SET",
        "SPEND",
        "GAIN",
        "LOSE",
        "REQUIRE",
        "IF",
        "MATCH",
        "FOR",
        "REPEAT",
        "RESULT",
        "NOTE",
        "DO",
        "ADD",
        "EFFECT",
        "PASS",
        "END",
        "CHOOSE",
    ]
)


def _definition_items(expected: set):
    """What a check's (or an opposed check's) body takes, when the parser is at one of its
    items: the message for a statement written there, and the hint."""
    if "DEGREES" in expected and "LET" in expected:
        return tr(
            "a check takes only `let`, `roll`, fields (`name = ...`) and `degrees`: `{word}` "
            "is a statement of actions"
        ), tr(
            "name a new value with `let` (`let y = x + 1`), or compute it in a field; to "
            "change the sheet or decide, call the check from an action"
        )
    if "AGAINST" in expected or ("COMPARE" in expected and "TIE" in expected):
        return tr(
            "an opposed check takes only `roll`, `against`, `compare`, `tie` and fields "
            "(`name = ...`): `{word}` is a statement of actions"
        ), tr(
            "compute a value in a field; to change the sheet or decide, call the opposed "
            "check from an action"
        )
    return None


#: the word a text ends with (after it, spaces only); a word begins after no word character
_LAST_WORD = re.compile(r"(?<!\w)([^\W\d]\w*+)\s*+\Z")


def _parses_as_name(text: str, word: re.Match, token) -> bool:
    """Whether the text gets past this point with the keyword written as a 'quoted name'."""
    quoted = f"{text[: word.start(1)]}'{word.group(1)}'{text[word.end(1) :]}"
    try:
        lark_parser().parse(quoted, start="rulebook", on_error=keyword_as_name)
    except UnexpectedInput as again:
        position = getattr(again, "pos_in_stream", None)
        if position is None and isinstance(again, UnexpectedToken):
            position = again.token.start_pos
        return position is not None and position > token.start_pos + 2
    return True


def _keyword_error(word: str, span: Span) -> RulebookSyntaxError:
    return RulebookSyntaxError(
        tr("`{word}` is a keyword: write '{word}' in quotes, or choose another name", word=word),
        span,
    )


def _describe_token(token) -> Message | str:
    if token.type in ("NAME", "QUOTED_NAME"):
        return tr("name {value}", value=token.value)
    if token.type == "NUMBER":
        return tr("number {value}", value=token.value)
    if token.type == "STRING":
        return tr("text {value}", value=token.value)
    if token.type == "DICE":
        return tr("dice {value}", value=token.value)
    return repr(token.value)


#: what may start a parameter's type (dsl/grammar: `type`)
_TYPE_STARTS = {"LIST", "NAME", "QUOTED_NAME", "STRING"}


def _expected_hint(names) -> Message | None:
    names = set(names or ())
    if not names:
        return None
    if names == {"$END"}:
        return tr("expected an operator (such as + or *) or the end of the text")
    if names == _TYPE_STARTS:  # `edge: 1..3`: where a parameter's type goes
        return tr(
            "a parameter's type: int, number, bool, text, attribute, skill, resource, "
            "counter, character, a table's or a group's name, choices written a | b | c, "
            "or list of a type"
        )
    described: list[str] = []
    if names & _VALUE_STARTS - {"LPAR", "LSQB"}:  # (a `(` alone opens parameters, not a value)
        described.append(tr("a value (a number, a name, dice or an expression in parentheses)"))
        names -= _VALUE_STARTS | {"MINUS", "PLUS", "NOT", "TRUE", "FALSE", "YES", "NO", "NONE"}
        names.discard("RANGE")  # a range is a value too (`count(r, 5..6)`)
        names -= {"IF"} if "THEN" not in names else set()
    for name in sorted(names):
        described.append(_EXPECTED.get(name, name.lower()))
    if len(described) > 8:
        described = [*described[:8], "..."]
    return tr("expected {things}", things=Message.joined(dict.fromkeys(described), ", "))
