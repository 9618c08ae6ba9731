"""What the fuzzing of the front end's inputs tries: sheets with keys given twice, odd
Unicode and other scripts' digits; dice terms built to make a matcher backtrack;
rulebooks and parameters with characters that read otherwise than they are.

Shared by tests/test_fuzz_inputs.py (a few examples in CI) and benchmarks/fuzz.py (many,
with counts). Each `try_*` runs one case and returns how it ended ("ok", or the name of
the project's error); any other exception escapes, and that is the bug looked for. What
a case prints (an error, a warning) must be writable as UTF-8, as the command line and
the server write it.
"""

from __future__ import annotations

import json

import yaml
from fuzz_cases import GOOD_SHEET, LIMITS, rulebooks
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, SeededDice, roll
from interpreter.sheets.character import Sheet

#: characters that read otherwise than they are: direction controls, invisible ones,
#: Cyrillic and Greek look-alikes of Latin letters, other scripts' digits, half characters
ODD = [
    "\u202e",
    "\u2066",
    "\u200f",
    "\u061c",
    "\u200b",
    "\u200d",
    "\ufeff",
    "а",
    "е",
    "о",
    "Α",
    "ο",
    "١",
    "٣",
    "०",
    "０",
    "²",
    "\ud800",
    "\udfff",
    "é",
    "\x00",
]


def odd_text(base: str) -> st.SearchStrategy:
    """`base` with a few odd characters put in, or put in place of others."""

    @st.composite
    def edited(draw) -> str:
        text = base
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(text)))
            odd = draw(st.sampled_from(ODD))
            keep = draw(st.integers(0, 1))
            text = text[:at] + odd + text[at + 1 - keep :]
        return text

    return edited()


def written(case: RulebookError | Sheet | object) -> None:
    """What a case shows, as the command line writes it (refused if not UTF-8)."""
    if isinstance(case, RulebookError):
        case.render().encode("utf-8")
    for warning in getattr(case, "warnings", ()):
        warning.render().encode("utf-8")


# ─── sheets ─────────────────────────────────────────────────────────────────────

KEYS = [*GOOD_SHEET, "skills", "Nada"]


@st.composite
def odd_sheets(draw) -> tuple[str, str]:
    """A sheet's text, YAML or JSON, with a key given twice (at the top or inside), odd
    characters in keys and values, numbers in other scripts' digits."""
    data = json.loads(json.dumps(GOOD_SHEET))
    text_format = draw(st.sampled_from(["yaml", "json"]))
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.sampled_from(KEYS))
        data[draw(odd_text(key))] = draw(st.sampled_from([1, "١٢", "x", [1], {"g": 1}]))
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()]
    if draw(st.booleans()):  # a key given twice
        at = draw(st.integers(0, len(lines)))
        again = draw(st.sampled_from(sorted(data)))
        lines.insert(at, f"{json.dumps(again)}: {json.dumps(data[again])}")
    if draw(st.booleans()):  # inside a mapping too
        lines.append('"K": {"e1": {"g": 1, "g": 2}}')
    if text_format == "json":
        text = "{\n" + ",\n".join(lines) + "\n}"
    else:
        text = "\n".join(lines) + "\n"
    if draw(st.booleans()):
        text = draw(odd_text(text))
    if draw(st.booleans()):  # an escape of half a character, as JSON writes one
        text = text.replace('"texto"', '"te\\ud800xto"')
    return text, text_format


def try_odd_sheet(engine: Engine, text: str, text_format: str) -> str:
    try:
        sheet = Sheet.from_text(text, engine.rulebook, f"fuzz.{text_format}", text_format, LIMITS)
        written(sheet)
        engine.run("act", sheet, {}, SeededDice(1))
        sheet.dumps().encode("utf-8")
    except RulebookError as error:
        written(error)
        return type(error).__name__
    return "ok"


def checked_yaml(text: str) -> bool:
    """Whether PyYAML itself reads `text` (a case the reading must then agree with)."""
    try:
        yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    return True


# ─── dice terms built to backtrack ──────────────────────────────────────────────

HEADS = ["1d6", "5d6", "d6", "(2)d(6)", "3D6", "{1d6, 2d6}", "d{1,2}", "10d10"]
UNITS = ["a", "kh", "!", "!!", "!!p", "!p", "x>=", "(1)", "k>", "1", "-1", "cs>=1", "pa", "ro"]
ENDINGS = ["_", "é", "", "!", "[a]b", ")", "1", "\u202e", "١", "=", "(", "'"]


@st.composite
def backtracking_dice(draw) -> str:
    """A dice term whose modifiers are a run made to be split many ways, then a
    character that makes the term fail at its very end."""
    head = draw(st.sampled_from(HEADS))
    units = draw(st.lists(st.sampled_from(UNITS), min_size=1, max_size=3))
    run = "".join(units) * draw(st.integers(1, 120))
    before = draw(st.sampled_from(["", "1 + ", "x * "]))
    return before + head + run + draw(st.sampled_from(ENDINGS))


def try_dice(text: str) -> str:
    try:
        roll(text, SeededDice(1), LIMITS)
    except RulebookError as error:
        written(error)
        return type(error).__name__
    return "ok"


# ─── rulebooks and parameters ───────────────────────────────────────────────────


def odd_rulebooks() -> st.SearchStrategy:
    """The fuzzing's small rulebooks, with odd characters put in anywhere (names,
    comments, texts, numbers)."""
    return rulebooks().flatmap(odd_text)


def try_odd_rulebook(text: str) -> str:
    try:
        book = dsl.load_text(text, "fuzz.rules")
        written(book)
        engine = Engine(book, LIMITS)
        engine.run("act", engine.sheet({"A": 5, "B": 4, "S": 1}), {}, SeededDice(1))
    except RulebookError as error:
        written(error)
        return type(error).__name__
    return "ok"


PARAMETERS = dsl.load_text(
    "sheet {\n  attribute A in 1..10\n}\n"
    'action p(n: number, k: int, t: text, e: "uno" | "dos", l: list of int, s: attribute) '
    "{ result { v: n + k + size(l) + s } }\n",
    "params.rules",
)
GOOD_PARAMETERS = {"n": "1.5", "k": "2", "t": "x", "e": "uno", "l": "1,2", "s": "A"}


@st.composite
def odd_parameters(draw) -> dict:
    """The parameters of an action as typed in, a few with odd characters put in."""
    params = dict(GOOD_PARAMETERS)
    for name in draw(st.lists(st.sampled_from(sorted(params)), min_size=1, max_size=3)):
        params[name] = draw(odd_text(params[name]))
    return params


def try_parameters(params: dict) -> str:
    engine = Engine(PARAMETERS, LIMITS)
    try:
        outcome = engine.run("p", engine.sheet({"A": 3}), params, SeededDice(1))
        json.dumps(outcome.result, ensure_ascii=False, default=str).encode("utf-8")
    except RulebookError as error:
        written(error)
        return type(error).__name__
    return "ok"
