"""Generated code (interpreter.compile.codegen): no rulebook text in it, and the same runs.

The generated functions and the closures must agree on every shipped action (each
character, each parameter variant: the cases of benchmarks/run_cost.py) and on
generated rulebooks (tests/fuzz_cases.py): the same results, sheets, dice, choices,
steps and errors. A rulebook whose names and texts are hostile (Python's keywords, the
generated code's own words, quotes, backslashes, braces, newlines, other scripts) never
reaches the generated source: its names and texts are constants.
"""

from __future__ import annotations

import io
import keyword
import sys
import tokenize
from pathlib import Path

import pytest
from fuzz_cases import LIMITS, rulebooks
from hypothesis import HealthCheck, assume, given
from hypothesis import strategies as st
from profiles import fewer
from test_fuzz_runs import HEAD, actions
from test_fuzz_runs import LIMITS as FUZZ_LIMITS

import dsl
from dsl.errors import RulebookError
from dsl.functions import FUNCTIONS
from interpreter import Engine, SeededDice
from interpreter.compile.codegen import SWITCH, closures_only
from interpreter.compile.codegen.emitted import GENERATED, SAFE_WORDS, UnsafeSource, check_source

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(autouse=True, scope="module")
def generated_at_once():
    """Every run here through the generated code from the first (not after a few)."""
    before, SWITCH.after = SWITCH.after, 0
    yield
    SWITCH.after = before


def outcome(engine, name, sheet, params, seed, choices=None):
    """What a run gives, as plain values to compare: its result, sheets, changes, dice,
    choices and steps; or its error, where and after how many steps."""
    try:
        out = engine.run(name, sheet, params, SeededDice(seed), choices=choices)
    except RulebookError as error:
        return ("error", type(error).__name__, str(error), getattr(error, "steps", None))
    others = [(c.role, dict(c.after._values), c.changes) for c in out.characters]
    made = [repr(choice) for choice in out.choices]
    return (out.result, dict(out.sheet._values), out.changes, out.dice, others, made, out.steps)


def both_ways(engine, name, sheet, params, seed, choices=None):
    """(the generated path's outcome, the closures')."""
    assert SWITCH.generated
    generated = outcome(engine, name, sheet, params, seed, choices)
    with closures_only():
        closures = outcome(engine, name, sheet, params, seed, choices)
    return generated, closures


# ─── the shipped actions ──────────────────────────────────────────────────────


def shipped_cases():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import run_cost
    finally:
        sys.path.remove(str(BENCHMARKS))
    return list(run_cost.cases([]))


def test_the_generated_code_and_the_closures_agree_on_every_shipped_action():
    cases = shipped_cases()
    assert len(cases) > 500
    engines, ran = set(), 0
    for label, engine, name, sheet, params, choices in cases:
        engines.add(engine)
        for seed in (0, 1, 7):
            generated, closures = both_ways(engine, name, sheet, params, seed, choices)
            assert generated == closures, f"{label}, seed {seed}"
            ran += 1
    compiled = [
        made
        for engine in engines
        for key, made in engine.compiler.compiled.items()
        if key[0] in ("action", "check")
    ]
    tried = [made for made in compiled if made.fast is not None]
    # every shipped action and check run had its generated function (none left to the
    # closures), and so has every formula called
    assert len(tried) > 100 and all(made.fast for made in tried)
    formulas = [
        made
        for engine in engines
        for key, made in engine.compiler.compiled.items()
        if key[0] == "generated formula"
    ]
    assert formulas and False not in formulas
    assert ran == 3 * len(cases)


def test_a_run_traces_the_same_recorded_or_replayed():
    # A traced run (its own generated code: tests/test_codegen_traced.py) and the replay of
    # an untraced (generated) run give the same steps, from the same dice.
    for label, engine, name, sheet, params, choices in shipped_cases()[::40]:
        try:
            out = engine.run(name, sheet, params, SeededDice(5), choices=choices)
            traced = engine.run(name, sheet, params, SeededDice(5), choices=choices, trace=True)
        except RulebookError:
            continue
        assert (out.result, out.dice, out.steps) == (traced.result, traced.dice, traced.steps)
        assert [str(s.text) for s in out.trace] == [str(s.text) for s in traced.trace], label


# ─── generated rulebooks ──────────────────────────────────────────────────────


@fewer(2, 20, HealthCheck.filter_too_much)
@given(rulebooks(), st.integers(0, 2**32))
def test_the_generated_code_and_the_closures_agree_on_generated_rulebooks(text, seed):
    try:
        engine = Engine(dsl.load_text(text, "fuzz.rules"), LIMITS)
        sheet = engine.sheet({"A": 5, "B": 4, "S": 1})
    except RulebookError:
        assume(False)
        return
    for action in ("act", "other"):
        for params in ({}, {"p": 7}) if action == "act" else ({},):
            generated, closures = both_ways(engine, action, sheet, params, seed)
            assert generated == closures, action


@fewer(2, 20, HealthCheck.filter_too_much)
@given(actions())
def test_the_generated_code_and_the_closures_agree_on_actions_over_pools_lists_and_loops(text):
    try:
        engine = Engine(dsl.load_text(text, "fuzz.rules"), FUZZ_LIMITS)
    except RulebookError:
        assume(False)
        return
    sheet = engine.sheet({"A": 4})
    for seed in range(3):
        generated, closures = both_ways(engine, "act", sheet, {}, seed)
        assert generated == closures


def test_literal_conditions_and_values_agree():
    # a condition or a check's target that is a constant (never assigned to)
    text = HEAD + (
        "action act() { let x = 1  if true { set x to 2 } else { set x to 3 }  "
        'require not false else "no"  if 3 > x and true { set x to -x } '
        "result { x: x, y: if true then 1 else 2 } }\n"
    )
    engine = Engine(dsl.load_text(text, "literal.rules"), FUZZ_LIMITS)
    generated, closures = both_ways(engine, "act", engine.sheet({"A": 4}), {}, 1)
    assert generated == closures and generated[0] == {"x": -2, "y": 1}


# ─── no rulebook text in the generated source ─────────────────────────────────

#: names a rulebook may use that read as something in Python or in the generated code
HOSTILE_NAMES = sorted(
    {"class", "def", "lambda", "import", "None", "True", "False", "return", "yield"}
    | {"exec", "eval", "__import__", "os", "sys", "_k1", "_v2", "_f1", "print", "open"}
    | (set(SAFE_WORDS) - {"int", "dict", "type", "abs", "range", "zip"})
    | {"名前", "Δξ", "fuerza_ñ", "ʃa", "Ωμέγα", "x٣"}
)
RESERVED = {"let", "set", "spend", "gain", "lose", "require", "if", "then", "else", "match"}
RESERVED |= {"case", "for", "each", "repeat", "result", "note", "do", "add", "and", "or"}
RESERVED |= {"not", "in", "total", "success", "margin", "target", "degree", "roll"}
names = st.one_of(
    st.sampled_from(HOSTILE_NAMES),
    st.from_regex(r"[a-zA-Zñé_][a-zA-Z0-9_ñé]{0,6}", fullmatch=True),
).filter(lambda name: name not in RESERVED and name not in FUNCTIONS)
#: pieces of texts: quotes, a backslash, braces, %, newlines, other scripts, code words
PIECES = [*"\"'\\{}%\n\tab _-:;()=#$ñ名", '"""', "if", "ctx", "{x}", "%s", "\\n", "_k1"]
texts = st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join)


def written(text: str) -> str:
    """A text as the rulebook writes it: quoted, escaped, braces doubled."""
    for plain, escaped in (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\t", "\\t")):
        text = text.replace(plain, escaped)
    return '"' + text.replace("{", "{{").replace("}", "}}") + '"'


BOOK = """rulebook {t0} {{
  system "s"
  language "en"
}}
sheet {{
  attribute {i0}, {i1} in 1..10
}}
table {i2} by total {{
  ..8: {t1}
  9..: {t2}
}}
formula {i14}({i15}: int) = {i15} * 2 + 1
check {i3}({i4}: attribute, {i5}: int = 0) {t3} {{
  roll d10 + {i4} + {i5} >= 9
  {i6} = {i2}[total]
}}
action {i7}({i8}: attribute, {i9}: int = 1) {t4} {{
  let {i10} = {i3}({i8}, {i9})
  let {i11} = {i10}.total * 2 - {i9} + {i14}({i9})
  if {i11} > 10 and {i10}.success {{ note {t5} }} else {{ set {i11} to {i11} + 1 }}
  require {i11} >= -100 or {i11} < 0 else {t6}
  repeat 2 times {{ set {i11} to if {i11} > 5 then {i11} + {i0} else {i11} - 1 }}
  result {{ {i12}: {i10}.{i6}, {i13}: {i11}, {i16}: {t7} }}
}}
"""


@fewer(4, 15, HealthCheck.filter_too_much, HealthCheck.too_slow)
@given(
    st.lists(names, min_size=17, max_size=17, unique=True),
    st.lists(texts, min_size=8, max_size=8),
)
def test_no_name_or_text_of_the_rulebook_reaches_the_generated_source(idents, words):
    values = {f"i{i}": name for i, name in enumerate(idents)}
    values |= {f"t{i}": written(text) for i, text in enumerate(words)}
    try:
        book = dsl.load_text(BOOK.format(**values), "hostile.rules")
    except RulebookError:
        assume(False)
        return
    engine = Engine(book)
    action, check = engine.compiler.action(idents[7]), engine.compiler.check(idents[3])
    assert action.make_fast(now=True) and check.make_fast(now=True)
    for _, source in (action.generated, check.generated):
        check_source(source)  # only the generator's own words (it compiled: it ran)
        assert source.isascii()
        assert not set(source) & set("\"'\\%#$\t")
        words_of = {
            token.string
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.NAME
        }
        for name in idents:
            ours = keyword.iskeyword(name) or name in SAFE_WORDS or GENERATED.match(name)
            assert ours or name not in words_of, name
        for text in words:  # (one of code's own characters alone may be in it: `(ctx)`)
            if set(text) & set("\"'\\%#$\t") or not text.isascii():
                assert text not in source
    sheet = engine.sheet({idents[0]: 3, idents[1]: 4})
    for seed in range(3):
        generated, closures = both_ways(engine, idents[7], sheet, {idents[8]: idents[1]}, seed)
        assert generated == closures


def test_the_code_is_generated_after_a_few_runs_only():
    engine = Engine(dsl.load_text(HEAD + "action act() { result { x: A + 1 } }\n", "few.rules"))
    sheet, compiled = engine.sheet({"A": 4}), engine.compiler.action("act")
    before, SWITCH.after = SWITCH.after, 2
    try:
        made = []
        for seed in range(4):
            assert engine.run("act", sheet, {}, SeededDice(seed)).result == {"x": 5}
            made.append(compiled.fast is not None)
    finally:
        SWITCH.after = before
    assert made == [False, False, True, True]


def test_the_check_refuses_what_the_generator_must_never_write():
    for bad in ('x = "text"\n', "x = 3\n", "x = os\n", "x = _k1 # note\n"):
        with pytest.raises(UnsafeSource):
            check_source(bad)
    check_source("_v1 = _k1(ctx)\n")
