"""Plain dice read without the parser (dsl.plain_dice): the parser's reading, the same rolls,
and `rulebook roll d20` importing none of the front end's or the engines' heavy parts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dsl import nodes as n
from dsl import parse_expression, plain_dice
from dsl.errors import RulebookError
from interpreter import ForcedDice, Limits, SeededDice, roll
from interpreter.expression import EXPRESSIONS
from interpreter.json_data import roll_data

ROOT = Path(__file__).resolve().parent.parent

# ─── generated plain expressions, rule by rule ──────────────────────────────

counts = st.one_of(st.none(), st.integers(1, 40))
sides = st.one_of(st.sampled_from([2, 4, 6, 8, 10, 12, 20, 100]), st.integers(1, 9999))


@st.composite
def dice_terms(draw) -> str:
    count, faces = draw(counts), draw(sides)
    text = f"{'' if count is None else count}d{faces}"
    if count is not None and count > 1 and draw(st.booleans()):
        mode = draw(st.sampled_from(["kh", "kl", "dh", "dl"]))
        k = draw(st.one_of(st.none(), st.integers(1, count - 1)))
        text += mode + ("" if k is None else str(k))
    return text


terms = st.one_of(dice_terms(), st.integers(0, 999_999).map(str))
spaces = st.sampled_from(["", " ", "  "])


@st.composite
def plain_expressions(draw) -> str:
    parts = [draw(spaces), draw(terms)]
    for _ in range(draw(st.integers(0, 5))):
        parts += [draw(spaces), draw(st.sampled_from("+-")), draw(spaces), draw(terms)]
    parts.append(draw(spaces))
    return "".join(parts)


#: texts near the plain ones: what the reader must refuse, or read as the parser does
near_misses = st.text(alphabet="0123456789dDkhlx+-*/() %F!", min_size=1, max_size=14)


def _shape(node) -> list:
    """Every node of an AST with where it is written (attrs' equality leaves spans out)."""
    out = []
    for item in n.walk(node):
        out.append((type(item).__name__, item.span.start, item.span.end))
        if isinstance(item, n.Binary):
            out.append(("op", item.op_span.start, item.op_span.end))
        for modifier in getattr(item, "modifiers", ()):
            out.append(("modifier", modifier.span.start, modifier.span.end))
            count = getattr(modifier, "count", None)  # (a keep's; a condition is a node)
            if count is not None:
                out.append(("k", count.span.start, count.span.end))
        if getattr(item, "count", None) is not None and isinstance(item, n.Dice):
            out.append(("count", item.count.span.start, item.count.span.end))
    return out


def _reads_as_the_parser(text: str) -> None:
    terms = plain_dice.read(text)
    assert terms is not None, text
    ours, theirs = plain_dice.as_node(text, terms), parse_expression(text)
    assert ours == theirs
    assert _shape(ours) == _shape(theirs)


#: a keep without its count, then a minus: the parser reads the count `-1` (`2d6kh-1`)
KEEP_MINUS = re.compile(r"(?:kh|kl|dh|dl)-")


@settings(max_examples=120)
@given(plain_expressions())
def test_the_reader_reads_as_the_parser(text):
    if KEEP_MINUS.search(text):
        assert plain_dice.read(text) is None
    else:
        _reads_as_the_parser(text)


@settings(max_examples=200)
@given(near_misses)
def test_what_the_reader_takes_the_parser_reads_the_same(text):
    if plain_dice.read(text) is not None:
        _reads_as_the_parser(text)


@pytest.mark.parametrize(
    "text",
    ["3d6kh3", "d20kh1", "4d6dl4", "4d6 kh3", "3D6", "-1d4", "d0", "03", "1d06", "2d6x",
     "(1d4)", "1d4 * 2", "d%", "d20\t+1", "0d6", "1000d6", "d10000", "1d6 # c"],
)  # fmt: skip
def test_the_reader_leaves_the_rest_to_the_parser(text):
    # a keep of all (the checker warns), another spelling, other blanks, a bound passed
    assert plain_dice.read(text) is None


# ─── small expressions (dsl.plain_dice.read_expression) ─────────────────────


@st.composite
def small_expressions(draw, depth: int = 0) -> str:
    """A small expression: terms, sums, products, parentheses and calls, with spaces."""
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        return draw(terms)
    kind = draw(st.sampled_from(["binary", "parens", "call"]))
    inner = small_expressions(depth + 1)
    if kind == "binary":
        op = draw(st.sampled_from("+-*/"))
        return f"{draw(inner)}{draw(spaces)}{op}{draw(spaces)}{draw(inner)}"
    if kind == "parens":
        return f"({draw(spaces)}{draw(inner)}{draw(spaces)})"
    function = draw(st.sampled_from(sorted(plain_dice.FUNCTIONS)))
    args = draw(st.lists(inner, min_size=1, max_size=3))
    return f"{function}({draw(spaces)}{(',' + draw(spaces)).join(args)}{draw(spaces)})"


def _small_reads_as_the_parser(text: str) -> None:
    ours = plain_dice.read_expression(text)
    assert ours is not None, text
    theirs = parser_reading(text)
    assert ours == theirs
    assert _shape(ours) == _shape(theirs)


def parser_reading(text: str):
    """The parser's own reading (the small reader switched off)."""
    from dsl.build import Builder
    from dsl.errors import Source
    from dsl.parser import parse_tree

    source = Source("<expression>", text)
    return Builder(source).build(parse_tree(text, source, "expression"))


@st.composite
def compared(draw, expressions) -> str:
    """A small expression, or two compared (`2d6 >= 7`): the whole text's comparison."""
    text = draw(expressions)
    if draw(st.booleans()):
        op = draw(st.sampled_from([">=", "<=", "!=", "<", ">", "="]))
        left, right = draw(expressions), draw(expressions)
        if draw(st.booleans()):  # (`=`'s place is between its operands' own spans)
            left, right = f"({draw(spaces)}{left})", f"(({right}){draw(spaces)})"
        text = f"{left}{draw(spaces)}{op}{draw(spaces)}{right}"
    return text


@settings(max_examples=150)
@given(compared(small_expressions()))
def test_the_small_reader_reads_as_the_parser(text):
    if KEEP_MINUS.search(text):
        assert plain_dice.read_expression(text) is None
    else:
        _small_reads_as_the_parser(text)


@settings(max_examples=300)
@given(st.text(alphabet="0123456789dkhl+-*/(), %xfloremaxin<>=!", min_size=1, max_size=18))
def test_what_the_small_reader_takes_the_parser_reads_the_same(text):
    if plain_dice.read_expression(text) is not None:
        _small_reads_as_the_parser(text)


@pytest.mark.parametrize(
    "text",
    ["3d6x", "2//3", "2**3", "-1", "-(1d4)", "foo(1)", "max (1d4)", "max(1d4, x=2)", "1.5 * 2",
     "floor(3d6/2", "max()", "(1d6))", "1d6 [label]", "3d6kh3", "(d6 = 3)", "1 < 2 < 3",
     "max(d6 > 3)", "(d6 > 3)", "d6 > -3",
     "(" * 14 + "1" + ")" * 14],
)  # fmt: skip
def test_the_small_reader_leaves_the_rest_to_the_parser(text):
    assert plain_dice.read_expression(text) is None


@settings(max_examples=80)
@given(
    inner=small_expressions(),
    shape=st.sampled_from(["({})d6", "3d({})", "({})d({})kh1", "{{{}, 1d4}}kh1"]),
)
def test_a_small_part_of_a_dice_term_reads_as_the_parser(inner, shape):
    # `(2+1)d(3*2)`: its parts read by the small reader, at their place in the text
    import dsl.build.walk

    text = shape.format(inner, inner)
    try:
        ours = parse_expression(text)
    except RulebookError:
        ours = None
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(dsl.build.walk, "read_expression", lambda *a, **k: None)
        try:
            theirs = parse_expression(text)
        except RulebookError:
            theirs = None
    assert ours == theirs
    if ours is not None:
        assert _shape(ours) == _shape(theirs)


#: dice terms with any modifiers, some of them wrong or read otherwise by the lexer
MORE_TERMS = st.sampled_from(
    ["3d6x", "4dF", "d%", "2d20ro=1kh1", "10d10cs>=6df=1", "4dFcs=1df=-1", "2d6x>4", "3d6!",
     "4d6kh", "2d6kh-1", "d6d", "1d6x[fire]", "4dFate", "3d6zz", "2d6!=7", "3d6!!", "4d6k",
     "d20x=20", "5d10xkh2", "2d6>=7", "0d6", "3D6", "4d6r", "d6kh1", "2d(6)x", "4d6min2"]
)  # fmt: skip


@st.composite
def expressions_of_more_terms(draw, depth: int = 0) -> str:
    """Small expressions whose terms may have any modifiers (dsl.build's `term`)."""
    if depth >= 2 or draw(st.integers(0, 2)) == 0:
        return draw(st.one_of(MORE_TERMS, terms))
    inner = expressions_of_more_terms(depth + 1)
    kind = draw(st.sampled_from(["binary", "call"]))
    if kind == "binary":
        op = draw(st.sampled_from("+-*/"))
        return f"{draw(inner)}{draw(spaces)}{op}{draw(spaces)}{draw(inner)}"
    function = draw(st.sampled_from(sorted(plain_dice.FUNCTIONS)))
    return f"{function}({', '.join(draw(st.lists(inner, min_size=1, max_size=2)))})"


def _reading(parse, text):
    try:
        node = parse(text)
    except RulebookError as error:
        return ("refused", type(error).__name__, str(error))
    return node, _shape(node)


@settings(max_examples=300)
@given(compared(expressions_of_more_terms()))
def test_terms_with_other_modifiers_read_as_the_parser(text):
    # parse_expression reads them without the parser, each term built from its DICE token
    assert _reading(parse_expression, text) == _reading(parser_reading, text), text


def test_terms_with_other_modifiers_are_parsed_without_the_parser(monkeypatch):
    import dsl.build

    seen = []
    monkeypatch.setattr(dsl.build, "parse_tree", lambda *a, **k: seen.append(a))
    for text in (
        "3d6x + 1",
        "max(2d20ro=1kh1, 4dF) * 2",
        "floor(10d10cs>=6df=1 / 2)",
        "2d6>=7",
        "(2d6) = 7",
    ):
        assert dsl.build.parse_expression(text) == parser_reading(text)
    assert seen == []


def test_a_small_expression_is_parsed_without_the_parser(monkeypatch):
    # the switch: with the small reader off, parse_expression takes Lark's way
    import dsl.build

    assert dsl.parse_expression("floor(3d6/2)") == parser_reading("floor(3d6/2)")
    seen = []
    monkeypatch.setattr(dsl.build, "parse_tree", lambda *a, **k: seen.append(a))
    dsl.build.parse_expression("max(1d20, 1d20)")
    assert seen == []


def _full(text: str, dice):
    """The expression rolled through the parser, the checker and the compiler (limits
    equal to the default ones but not them: the plain way is not taken)."""
    return roll(text, dice, limits=Limits())


@settings(max_examples=80)
@given(plain_expressions(), st.integers(0, 2**32))
def test_a_plain_roll_is_the_compiled_roll(text, seed):
    assume(KEEP_MINUS.search(text) is None)
    plain, full = roll(text, SeededDice(seed)), _full(text, SeededDice(seed))
    assert (plain.total, plain.dice, plain.origin) == (full.total, full.dice, full.origin)
    assert plain.detail == full.detail
    assert roll_data(plain, "es") == roll_data(full, "es")
    EXPRESSIONS.compile(text)
    # Taken the plain way, `rulebook roll` prints no warning: it must have none; what the
    # reader leaves to the parser's way (a `d66`, a keep of all) has the checker's words.
    assert bool(EXPRESSIONS.warnings[text]) == (plain_dice.read(text) is None)


@pytest.mark.parametrize("faces", [[], [1, 2], [1, 2, 3, 4, 5, 6], [7, 1, 1, 1]])
def test_forced_dice_too_few_or_too_many_are_the_same_error(faces):
    def outcome(roller):
        try:
            return roller().detail
        except RulebookError as error:
            return type(error), error.render("en")

    text = "3d6 + 1d4"
    plain = outcome(lambda: roll(text, ForcedDice(faces)))
    assert plain == outcome(lambda: _full(text, ForcedDice(faces)))


def test_the_plain_way_is_taken(monkeypatch):
    # the reader switched off, the same text goes through the parser's way
    seen = []
    monkeypatch.setattr(plain_dice, "read", lambda text: seen.append(text))
    assert roll("4d6kh3 + 2", SeededDice(3)).total == _full("4d6kh3 + 2", SeededDice(3)).total
    assert seen == ["4d6kh3 + 2"]


# ─── what a command imports ─────────────────────────────────────────────────

#: what `rulebook roll` of plain dice and `rulebook --help` never import
HEAVY = ("lark", "dsl.build", "dsl.check", "dsl.nodes", "dsl.load", "dsl.parser",
         "interpreter.compile", "interpreter.engine", "interpreter.odds", "interpreter.journal",
         "interpreter.web", "interpreter.balance", "interpreter.sheets", "interpreter.lsp",
         "yaml", "starlette", "jsonschema")  # fmt: skip

IMPORTED = """
import json, sys
from interpreter.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("\\n" + json.dumps(sorted(sys.modules)))
"""


def _imported(*argv: str) -> tuple[str, set]:
    done = subprocess.run(
        [sys.executable, "-c", IMPORTED, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    out, _, modules = done.stdout.rstrip().rpartition("\n")
    return out, set(json.loads(modules))


def _heavy(modules: set) -> list:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))


@pytest.mark.parametrize(
    "argv", [["roll", "d20"], ["roll", "3d6+2", "--seed", "4"], ["roll", "4d6kh3", "--json"]]
)
def test_rolling_plain_dice_imports_no_parser_nor_engine(argv):
    out, modules = _imported(*argv)
    assert "=" in out or '"total"' in out
    assert _heavy(modules) == []
    assert "interpreter.cli.run" not in modules  # only the command asked for


def test_help_imports_no_engine():
    out, modules = _imported("--help")
    assert "roll" in out and "encounter" in out
    assert _heavy(modules) == []


def test_other_dice_still_take_the_parser():
    # the guard above can fail: an expression past the plain ones imports the parser
    _, modules = _imported("roll", "2d6x + 1", "--seed", "1")
    assert "lark" in modules and "dsl.build" in modules
    _, modules = _imported("roll", "floor(3d6/2)", "--seed", "1")  # checked and compiled
    assert "dsl.check" in modules and "dsl.parser" in modules
