"""What the fuzzing tries, as hypothesis strategies: expressions, small rulebooks, mutated sheets.

Shared by tests/test_fuzz.py (a few examples in CI) and benchmarks/fuzz.py (many, with
counts). Each `try_*` function runs one case through the public API and returns the
name of the project's error it ended in (or "ok"); any other exception escapes, and
that is the bug the fuzzing looks for.
"""

from __future__ import annotations

import json

import yaml
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from dsl.functions import FUNCTIONS as BUILTINS
from interpreter import Engine, Limits, SeededDice, roll
from interpreter.odds import expression_odds

#: tight limits, so that a case costs milliseconds, and past them only our errors come out
LIMITS = Limits(
    dice_per_evaluation=2_000,
    steps_per_run=2_000,
    repeat_count=50,
    number_digits=60,
    list_length=200,
    text_length=2_000,
    odds_seconds=0.2,
    odds_outcomes=5_000,
)
ODDS = {"trials": 100, "budget": 2_000}

# ─── expressions ────────────────────────────────────────────────────────────

HOSTILE_NUMBERS = ["0", "1", "7", "-3", "1.5", "9" * 80, "1e5", "0.0000001", "10000000"]
DICE_COUNTS = ["", "0", "1", "3", "12", "100000", "(2)", "(1+1)"]
DICE_SIDES = ["1", "2", "6", "20", "%", "F", "1000001", "(3)", "(0)"]
MODIFIERS = ["", "kh1", "kl2", "dh1", "dl3", "k2", "x", "xo", "x>=5", "rr=1", "ro<=2", "cs>=4"]
MODIFIERS += ["cs>=4df=1", "x>=1", "rr>=1", "k(2)", "cs>=(3)"]
#: the built-in functions of values (not of pools, lists, ladders, effects): from the registry
FUNCTIONS = [
    name
    for name, function in BUILTINS.items()
    if function.rule in ("numbers", "aggregate", "size", "fallback")
]
JUNK = list("()[]{}+-*/<>=!\"'.,:;dDkKxX0123456789 ")


@st.composite
def dice_terms(draw) -> str:
    modifiers = "".join(draw(st.lists(st.sampled_from(MODIFIERS), max_size=2)))
    return draw(st.sampled_from(DICE_COUNTS)) + "d" + draw(st.sampled_from(DICE_SIDES)) + modifiers


def leaves(names=()) -> st.SearchStrategy:
    options = [
        st.sampled_from(HOSTILE_NUMBERS),
        dice_terms(),
        st.sampled_from(['"abc"', '""', "yes", "no", "none", "[1, 2]", "[]", '["a", "b"]']),
    ]
    if names:
        options.append(st.sampled_from(sorted(names)))
    return st.one_of(*options)


def combined(parts: st.SearchStrategy) -> st.SearchStrategy:
    binary = st.sampled_from(["+", "-", "*", "/", ">=", "<", "=", "!=", "and", "or", "in"])
    return st.one_of(
        st.tuples(parts, binary, parts).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["-", "not "]), parts).map("".join),
        parts.map(lambda p: f"({p})"),
        st.tuples(parts, parts, parts).map(lambda t: f"if {t[0]} then {t[1]} else {t[2]}"),
        st.tuples(st.sampled_from(FUNCTIONS), st.lists(parts, min_size=1, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.lists(parts, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    )


def expressions(names=()) -> st.SearchStrategy:
    """Expression texts that mostly follow the grammar, and some that do not."""
    grammatical = st.recursive(leaves(names), combined, max_leaves=8)
    junk = st.lists(st.sampled_from(JUNK), max_size=20).map("".join)
    return st.one_of(grammatical, grammatical, grammatical, junk)


def try_expression(text: str, seed: int, odds: bool) -> str:
    try:
        roll(text, SeededDice(seed), LIMITS)
        if odds:
            expression_odds(text, limits=LIMITS, **ODDS)
    except RulebookError as error:
        return type(error).__name__
    return "ok"


# ─── small rulebooks ────────────────────────────────────────────────────────

SHEET = """sheet {{
  attribute A, B in 1..10 default {a}
  skill S in 0..5
  resource R max A * {r}
  counter C in 0..{c}
  flag F
  text T
  list L
  catalog K {{ g: int  n: text }}
}}
"""
NUMERIC = ("A", "B", "S", "R", "C", "p", "x")


def numeric(names) -> st.SearchStrategy:
    """Numeric expressions over the names in scope (and hostile literals)."""
    literals = [n for n in HOSTILE_NUMBERS if "e" not in n]  # the language writes no 1e5
    leaf = st.one_of(st.sampled_from(sorted(names)), st.sampled_from(literals), dice_terms())
    return st.recursive(
        leaf,
        lambda parts: st.one_of(
            st.tuples(parts, st.sampled_from(["+", "-", "*", "/"]), parts).map(" ".join),
            parts.map(lambda p: f"floor({p})"),
            st.tuples(parts, parts).map(lambda t: f"max({t[0]}, {t[1]})"),
        ),
        max_leaves=5,
    )


def conditions(names) -> st.SearchStrategy:
    comparison = st.sampled_from([">=", "<", "=", "!="])
    return st.tuples(numeric(names), comparison, numeric(names)).map(" ".join)


@st.composite
def statements(draw, names: set, depth: int = 0) -> str:
    """One statement of an action, over the names in scope (a `let` adds one)."""
    kinds = ["let", "set", "set_local", "gain", "spend", "add", "add_entry", "note", "require"]
    if depth < 2:
        kinds += ["if", "repeat", "for"]
    kind = draw(st.sampled_from(kinds))
    value = draw(numeric(names))
    if kind == "let":
        name = draw(st.sampled_from(["x", "y", "l"]))
        names.add(name)
        if name == "l":
            return draw(st.sampled_from(["let l = [1]", "let l = []", "let l = [x]"]))
        return f"let {name} = {value}"
    if kind == "set":
        return f"set {draw(st.sampled_from(['A', 'R', 'C', 'S']))} to {value}"
    if kind == "set_local":
        target = draw(st.sampled_from(sorted(names & {"x", "y", "l"}) or ["p"]))
        grow = draw(st.sampled_from([value, f"{target} * {target}", f"{target} + {target}"]))
        return f"set {target} to {grow}" if target != "l" else "set l to l + l"
    if kind in ("gain", "spend"):
        return f"{kind} {value} {'to' if kind == 'gain' else 'from'} R"
    if kind == "add":
        item = draw(st.sampled_from(['"don"', '"{x}"', value, '"{p}"']))
        return f"add {item} to {draw(st.sampled_from(['L', 'l'] if 'l' in names else ['L']))}"
    if kind == "add_entry":
        return f'add "e{draw(st.integers(0, 3))}" to K {{ g: {value}, n: "n" }}'
    if kind == "note":
        return f'note "v {{{value}}}"'
    if kind == "require":
        return f'require {draw(conditions(names))} else "no"'
    body = " ".join(draw(st.lists(statements(set(names), depth + 1), min_size=1, max_size=3)))
    if kind == "if":
        return f"if {draw(conditions(names))} {{ {body} }} else {{ {body} }}"
    if kind == "repeat":
        return f"repeat {draw(st.sampled_from(['3', '40', value]))} times {{ {body} }}"
    return f"for each v in [1, 2] {{ {body} }}"


@st.composite
def rulebooks(draw) -> str:
    """A small rulebook: a sheet, a formula, a check, actions with lets, sets, repeats,
    lists, adds; mostly valid, so that it runs."""
    sizes = {"a": st.integers(1, 10), "r": st.integers(0, 3), "c": st.integers(0, 20)}
    parts = [SHEET.format(**{k: draw(v) for k, v in sizes.items()})]
    parts.append(f"formula f(x: int) = {draw(numeric({'x', 'A'}))}\n")
    parts.append(f'check c(a: attribute = "A") {{ roll d10 + a >= {draw(numeric({"a"}))} }}\n')
    names = {"A", "B", "S", "R", "C", "p"}
    body = " ".join(draw(st.lists(statements(names), min_size=1, max_size=5)))
    result = draw(st.sampled_from(["f(p)", "c().total", "x", "p", "size(L)"]))
    if result == "x" and "x" not in names:
        result = "p"
    parts.append(f"action act(p: int = 2) {{ {body} result {{ v: {result} }} }}\n")
    parts.append("action other() { do act(3) }\n")
    return "".join(parts)


def try_rulebook(text: str, seed: int, odds: bool) -> str:
    try:
        engine = Engine(dsl.load_text(text, "fuzz.rules"), LIMITS)
        sheet = engine.sheet({"A": 5, "B": 4, "S": 1})
        for action in ("act", "other"):
            engine.run(action, sheet, {}, SeededDice(seed))
        if odds:
            engine.odds("act", sheet, {}, "v", **ODDS)
    except RulebookError as error:
        return type(error).__name__
    return "ok"


# ─── mutated sheets ─────────────────────────────────────────────────────────

GOOD_SHEET = {
    "rulebook": "fuzz",
    "A": 5,
    "B": 4,
    "S": 1,
    "R": 6,
    "C": 2,
    "F": True,
    "T": "texto",
    "L": ["uno", "dos"],
    "K": {"e1": {"g": 1, "n": "x"}},
}
HOSTILE_VALUES = [
    None,
    -1,
    10**80,
    1.5,
    float("inf"),
    "5",
    "9" * 5000,
    [],
    [1, [2]],
    {"a": {"b": {}}},
    True,
    "2020-01-01",
    {"g": "x"},
    ["a"] * 500,
]
TEXT_EDITS = [":", "{", "}", "[", "]", "&a ", "*a", "!!python/object:os.system ", "\t", "- ", "'"]
TEXT_EDITS += ["9" * 5000, "\x00", "é", ",", '"', "\n  "]


@st.composite
def sheets(draw) -> tuple[str, str]:
    """A sheet file's text (YAML or JSON), from a good one with values replaced, keys
    added or dropped, and then characters inserted or deleted."""
    data = json.loads(json.dumps(GOOD_SHEET))
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from([*sorted(data), "Nada", "skills", "K"]))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            data.pop(key, None)
        else:
            data[key] = draw(st.sampled_from(HOSTILE_VALUES))
    text_format = draw(st.sampled_from(["yaml", "json"]))
    if text_format == "json":
        text = json.dumps(data, indent=1)
    else:
        text = yaml.safe_dump(data, allow_unicode=True)
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:at] + draw(st.sampled_from(TEXT_EDITS)) + text[at:]
        else:
            text = text[:at] + text[at + draw(st.integers(1, 5)) :]
    return text, text_format


def try_sheet(engine: Engine, text: str, text_format: str) -> str:
    from interpreter.sheets.character import Sheet

    try:
        sheet = Sheet.from_text(text, engine.rulebook, f"fuzz.{text_format}", text_format, LIMITS)
        engine.run("act", sheet, {}, SeededDice(1))
        sheet.dumps()
    except RulebookError as error:
        return type(error).__name__
    return "ok"


SHEET_BOOK = SHEET.format(a=3, r=2, c=10) + (
    'action act() { gain 1 to R  add "x" to L  add "n{C}" to K { g: A, n: T }  set C to C + 1 }\n'
)


def sheet_engine() -> Engine:
    return Engine(dsl.load_text(SHEET_BOOK, "fuzz.rules"), LIMITS)
