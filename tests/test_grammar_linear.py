"""No regular expression of the front end backtracks: every terminal of the grammar, the
lexer as a whole, and every pattern `dsl` and `interpreter` apply to text do work (and
hold memory) in proportion to the text, on texts built to be hard for them.

How hard texts are built and how growth is measured: tests/regex_pumps.py (growth ratios
of the steps of a counting matcher, tests/regex_steps.py, which matches as `re` does;
never a time). The old DICE terminal, which took seconds on `5d6aaaaaaaaaaaaaaaaaaaaaa_`,
is kept here: the measure must catch it, and the new terminal must read every dice term
as it did.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path

import lark.lexer
import pytest
import regex_pumps as pumps
import regex_steps
from hypothesis import example, given
from hypothesis import strategies as st

import dsl
import interpreter
from dsl.errors import RulebookError, Source
from dsl.parser import lark_parser, parse_tree

ROOT = Path(__file__).resolve().parent.parent

_OLD_PAREN = r"\((?:[^()\n]|\([^()\n]*\))*\)"
#: the DICE terminal as it was before issue 23 (exponential on a run of letters): the
#: oracle of what the terminal reads
OLD_DICE = (
    r"(?:(?:\d+|P)[dD](?:\d+|%|[Ff]|P|\{[-\d\s,.]*\})(?:(?:[a-zA-Z]+|!!?p?(?!=))"
    r"(?:>=|<=|<|>|=)?(?:-?\d+|P)?)*|d(?:\d+|%|F|P|\{[-\d\s,.]*\})(?:(?:kh|kl|dh|dl|k)"
    r"(?:\d+|P)?|(?:xo?|!!|!p|!(?!=))(?:(?:>=|<=|<|>|=)(?:-?\d+|P)|\d+)?|(?:rr|ro|cs|cf|df)"
    r"(?:(?:>=|<=|<|>|=)(?:-?\d+|P)|\d+)|(?:min|max)(?:-?\d+|P))*)(?:\[[^\[\]\n]*\])?(?!\w)"
).replace("P", _OLD_PAREN)


@cache
def terminals() -> dict[str, re.Pattern]:
    """Every terminal of the built parser written as a regular expression, compiled as
    Lark compiles it."""
    return {
        t.name: re.compile(t.pattern.to_regexp(), _flags(t.pattern.flags))
        for t in lark_parser().terminals
        if t.pattern.type == "re"
    }


def _flags(names) -> int:
    return sum(getattr(re, name.upper()) for name in names)


def dice() -> re.Pattern:
    return terminals()["DICE"]


# ─── the measure itself ─────────────────────────────────────────────────────────


def test_the_measure_catches_exponential_quadratic_and_memory_hungry_patterns():
    # the issue's own case, found among the DICE terminal's hard texts (single-character
    # pumps are enough, and quick)
    old = re.compile(OLD_DICE)
    short = [case for case in pumps.hard_texts(OLD_DICE) if case[1] == "a"]
    assert pumps.worst_growth(old, short).ratio > pumps.MAX_RATIO
    # a scan that starts again at each digit of a run
    quadratic = r"[0-9]*[dD][0-9]+"
    found = pumps.worst_growth(re.compile(quadratic), pumps.hard_texts(quadratic), "search")
    assert found.ratio > pumps.MAX_RATIO
    # linear in steps, but a state held for each character of the text
    hungry = r'"(?:[^"\\\n]|\\.)*"'
    assert pumps.worst_growth(re.compile(hungry), pumps.hard_texts(hungry)).held > pumps.MAX_HELD


# ─── the grammar's terminals, and the lexer as a whole ───────────────────────────


@pytest.mark.parametrize("name", sorted(terminals()))
def test_every_terminal_matches_in_linear_steps_and_bounded_memory(name):
    pattern = terminals()[name]
    found = pumps.worst_growth(pattern, pumps.hard_texts(pattern.pattern, pattern.flags))
    assert found.ratio <= pumps.MAX_RATIO, found
    assert found.held <= pumps.MAX_HELD, found


#: where a hard text is put in a whole text: (start symbol, before, after)
CONTEXTS = [
    ("expression", "1 + ", ""),
    ("rulebook", "formula f(x: int) = x + ", "\n"),
    ("rulebook", 'action a() { result { v: "', '" } }\n'),
    ("rulebook", "table t { ", ": 1 }\n"),
]


#: texts read whole, a token after another: each terminal's look past its own token
#: (a dice term's, a group's, a negative key's) meets the next tokens
VALID_RUNS = [
    ("", "1d6kh1 + ", "1"),
    ("", "(2)d(3)x>=(1) - ", "1"),
    ("", "{1d6, 2d8}kh1 + ", "1"),
    ("", "'a b' + x.y + ", "1"),
    ("", '"t{x}\\"" + ', "1"),
    ("", "2d6!!p + 3D6[fire] * ", "1"),
    ("", "-1 + 1.5 - ", "1"),
    ("", "x # a comment\n + ", "1"),
]


def lexer_cases() -> list:
    cases = [("5d6", "a", "_"), ("", "(", ""), ("{", "1d6,", ""), ("", "-1 ", ""), *VALID_RUNS]
    for pattern in terminals().values():
        cases += pumps.hard_texts(pattern.pattern, pattern.flags)[:3]
    return list(dict.fromkeys(cases))


class CountedScanner:
    """Lark's scanner (it tries the terminals' union at each position of the text) made
    to count: each match is also run by the counting matcher, whose steps are added up
    in `steps`, and whose answer must be `re`'s."""

    def __init__(self, monkeypatch):
        self.steps = 0
        monkeypatch.setattr(
            lark.lexer.Scanner, "match", lambda scanner, text, pos: self.match(scanner, text, pos)
        )

    def match(self, scanner, text, pos):
        for mre in scanner._mres:
            found = mre.match(text.text, pos, text.end)
            counter = pumps.matcher(mre.pattern, mre.flags)
            try:
                end = counter.match(text.text, pos, text.end)
            except regex_steps.TooManySteps as stop:
                self.steps += stop.steps
                raise AssertionError(f"a token took over {pumps.MAX_STEPS} steps") from stop
            self.steps += counter.steps
            assert end == (found.end() if found else None), (mre.pattern, text.text, pos)
            if found:
                return found.group(0), found.lastgroup
        return None


@pytest.mark.parametrize("start, before, after", CONTEXTS)
def test_the_lexer_reads_any_text_in_linear_steps(start, before, after, monkeypatch):
    """The steps of the lexer's matches in reading a text (brackets counted, lexed,
    parsed, an error with its hint made) on the terminals' hard texts put in a rulebook;
    and on many of them in a row, where one terminal's look past its token could meet
    the next one's."""
    scanner = CountedScanner(monkeypatch)

    def steps(text):
        scanner.steps = 0
        with contextlib.suppress(RulebookError):
            parse_tree(text, Source("<text>", text), start)
        return scanner.steps

    worst = (0.0, None)
    for head, unit, tail in lexer_cases():
        for make in (
            lambda k, h=head, u=unit, t=tail: before + h + u * k + t + after,
            lambda k, h=head, u=unit, t=tail: before + (h + u + t + " ") * k + after,
        ):
            ratio, k, _ = pumps.growth(
                lambda k, make=make: steps(make(k)), lambda k, make=make: len(make(k))
            )
            if ratio > worst[0]:
                worst = (ratio, (head, unit, tail, k))
    assert worst[0] <= pumps.MAX_RATIO, worst


# ─── every other pattern the front end applies to text ───────────────────────────


@cache
def front_end_patterns() -> dict[str, tuple[re.Pattern, set]]:
    """Every compiled pattern `dsl` and `interpreter` keep at the top of a module (alone
    or in a dict), by its name, with how the code applies it (read from the sources:
    `match` for match and fullmatch, `search` for scans; both when it is not seen)."""
    sources = "\n".join(
        path.read_text(encoding="utf-8")
        for package in ("dsl", "interpreter")
        for path in sorted((ROOT / package).rglob("*.py"))
    )
    found: dict[str, tuple[re.Pattern, set]] = {}
    seen: set[int] = set()
    for package in (dsl, interpreter):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                for pattern in value.values() if isinstance(value, dict) else (value,):
                    if not isinstance(pattern, re.Pattern) or id(pattern) in seen:
                        continue
                    if not isinstance(pattern.pattern, str):
                        continue
                    seen.add(id(pattern))
                    used = re.findall(rf"\b{name}(?:\[[^\]\n]*\])?\.(\w+)\(", sources)
                    methods = {_METHODS[m] for m in used if m in _METHODS} or {"match", "search"}
                    found[f"{info.name}.{name}:{len(found)}"] = (pattern, methods)
    return found


_METHODS = {"match": "match", "fullmatch": "match"}
_METHODS.update(dict.fromkeys(("search", "finditer", "findall", "sub", "subn", "split"), "search"))


def test_every_pattern_is_found():
    names = {key.split(":")[0] for key in front_end_patterns()}
    # the ones that read untrusted text: rulebooks, sheets, parameters, typed expressions
    for name in (
        "dsl.load._SCAN",
        "dsl.load._LANGUAGE",
        "dsl.spellings._INLINE_ROLL",
        "dsl.build.dice.UNIT",
        "dsl.parser._LAST_WORD",
        "interpreter.sheets.field_positions._QUOTE_END",
        "interpreter.bounds._NUMBER_TEXT",
    ):
        assert name in names


@pytest.mark.parametrize("key", sorted(front_end_patterns()))
def test_every_pattern_of_the_front_end_is_linear(key):
    pattern, methods = front_end_patterns()[key]
    cases = pumps.hard_texts(pattern.pattern, pattern.flags)
    for method in sorted(methods):
        found = pumps.worst_growth(pattern, cases, method)
        assert found.ratio <= pumps.MAX_RATIO, (method, found)
        assert found.held <= pumps.MAX_HELD, (method, found)


# ─── the new DICE terminal reads what the old one read ───────────────────────────

PAREN_VALUES = st.sampled_from(["(1)", "(x)", "(a+(b))", "(1.5)", "(", "()", "(1))"])
NUMBERS = st.from_regex(r"-?[0-9]{1,3}", fullmatch=True)
HEADS = st.tuples(
    st.sampled_from(["", "1", "3", "10", "(2)", "(n)"]),
    st.sampled_from(["d", "D"]),
    st.sampled_from(["6", "20", "%", "F", "f", "(6)", "{1,1,2}", "{0..9}", "{-1, 0,1}", "{"]),
).map("".join)
MODIFIER_NAMES = st.sampled_from(
    [
        *["k", "d", "x", "!", "p", "r", "o", "s", "e", "f", "m", "a", "b", "z", "K"],
        *[
            "kh",
            "kl",
            "dh",
            "dl",
            "xo",
            "!!",
            "!p",
            "rr",
            "ro",
            "cs",
            "cf",
            "df",
            "min",
            "max",
            "even",
            "odd",
            "sa",
            "sd",
            "mi",
            "ra",
        ],
    ]
)
OPERATORS = st.sampled_from(["", "", ">=", "<=", "<", ">", "=", "!="])
UNITS = st.tuples(MODIFIER_NAMES, OPERATORS, st.one_of(st.just(""), NUMBERS, PAREN_VALUES))
DICE_TERMS = st.tuples(
    HEADS,
    st.lists(UNITS.map("".join), max_size=6).map("".join),
    st.sampled_from(["", "", "[fire]", "[", "[a b]"]),
    st.sampled_from(["", " ", ")", "+1", ",", "\n", "_", "é", "a", "1", "!", "=5", "[x]y", ">=3"]),
).map("".join)


@given(DICE_TERMS)
@example("1 + 5d6aaaaaaaa_")
@example("d6!!!=1")
@example("3d6kh(1)_")
@example("2d6!=7")
@example("d6!!p")
@example("1dF_")
@example("2dBoost")
def test_the_dice_terminal_reads_every_term_as_the_old_one_did(text):
    """Where the new terminal matches, it matches what the old one did; it refuses only
    a term the old one cut before an operator, because what came after it ran into a
    character no modifier takes (`3d6kh(1)_` was `3d6kh`, then `(1)_`, a syntax error
    further on). And a text is one whole term for both or for neither. The one exception:
    a count, `d` and a name, a pool of a declared die of symbols (`2dBoost`, `1dF_`), which
    the old one refused."""
    old, new = re.compile(OLD_DICE), dice()
    for start in range(min(len(text), 4)):
        before, after = old.match(text, start), new.match(text, start)
        if after is not None and (before is None or after.group() != before.group()):
            assert SYMBOL_POOL.fullmatch(after.group()), text
        elif after is None and before is not None:
            assert text[before.end()] in "!<>=-(", text
    whole = old.match(text)
    if not SYMBOL_POOL.fullmatch(text):
        assert (new.fullmatch(text) is not None) == (whole is not None and whole.end() == len(text))


#: a pool of a die of symbols, which the dice terminal reads since symbol dice were added
SYMBOL_POOL = re.compile(
    r"(?:[0-9]++|\((?:[^()\n]++|\([^()\n]*+\))*+\))[dD][^\W\d]\w*+(?:\[[^\[\]\n]*+\])?"
)


def test_digits_other_than_ascii_are_no_number_nor_dice():
    # `\d` took any script's digits: 3d٦ was dice, ١٢٣ a number
    assert re.compile(OLD_DICE).fullmatch("3d٦") is not None
    assert dice().fullmatch("3d٦") is None
    assert terminals()["NUMBER"].fullmatch("١٢٣") is None
    assert terminals()["NUMBER"].fullmatch("123") is not None


@pytest.mark.parametrize("length", [100_000, 1_600_000])
def test_a_long_text_literal_is_read_in_memory_proportional_to_it(length, tmp_path, monkeypatch):
    # 1.9 MB of text between quotes took 578 MB (a state per character in the matcher's
    # stack, a list of one-character texts in the builder): now a few copies of it, read
    # by the parser (an empty cache folder) and then from the cache (its JSON decoder's
    # own tables are a fixed ~0.7 MB)
    import tracemalloc

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    dsl.load_text('action a() { result { v: "x" } }\n')  # (the parser built before)
    text = 'action a() { result { v: "' + "x" * length + '" } }\n'
    for fixed in (0, 1_000_000):  # parsed, then read from the cache
        tracemalloc.start()
        try:
            book = dsl.load_text(text, f"long{length}.rules")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert len(book.actions["a"].body[0].fields[0][1].value) == length
        assert peak < 6 * length + fixed
