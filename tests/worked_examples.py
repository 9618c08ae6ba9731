"""The shipped games' worked examples as data (tests/examples/<game>.yaml): reading them,
running each one, and holding the run to the numbers its source passage states.

A file names its rulebook, the book it reproduces and a default character; each example
names its section of the book, an action, the character, parameters, forced dice, and a
list of claims. A claim quotes its passage (`says`) and states what the run must show:

- `result`: these fields of the result, with these values;
- `check NAME`: these fields of the one check NAME in the trace;
- `changes`: every change to the sheet, {path: [before, after]}, nothing else;
- `characters`: every change to each other character's sheet, {role: {path: [before, after]}};
- `sheet`: these paths of the sheet after the run, with these values;
- `notes`: notes the trace holds; `trace`: texts its rendering shows (plain or verbose);
- `dice`: every face drawn, in order; `rolls`: the faces of each dice term rolled;
- `raises`: {error: the project's error class, match: a pattern of its message}.

`each` lists variants of an example (a list of such lists: every combination), each
merged over it: its parameters over the example's, its claims after the example's.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

import yaml

import dsl
import interpreter
from interpreter import Engine, ForcedDice, render_text

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = Path(__file__).resolve().parent / "examples"

#: what a claim may state (anything else in a claim is a mistake in the data)
CLAIMS = {
    "says",
    "result",
    "changes",
    "characters",
    "sheet",
    "notes",
    "trace",
    "dice",
    "rolls",
    "raises",
}


def games() -> list[Path]:
    return sorted(EXAMPLES.glob("*.yaml"))


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def examples(path: Path) -> list[dict]:
    """Every example of a game's file, its variants spelled out, each with its game's
    rulebook, book and character filled in."""
    game = load(path)
    out = []
    for example in game["examples"]:
        base = {
            "rulebook": game["rulebook"],
            "book": game["book"],
            "character": game.get("character"),
            "parameters": {},
            **example,
        }
        base.setdefault("claims", [])
        variants = base.pop("each", None)
        if not variants:
            out.append(base)
            continue
        groups = variants if isinstance(variants[0], list) else [variants]
        for combination in itertools.product(*groups):
            merged = dict(base)
            names = [base["name"]]
            for row in combination:
                names.append(row.get("name", ""))
                merged = _merge(merged, row)
            merged["name"] = "/".join(n for n in names if n)
            out.append(merged)
    return out


def _merge(example: dict, row: dict) -> dict:
    merged = {**example, **{k: v for k, v in row.items() if k not in ("parameters", "claims")}}
    merged["parameters"] = {**example["parameters"], **row.get("parameters", {})}
    merged["claims"] = [*example["claims"], *row.get("claims", [])]
    return merged


_ENGINES: dict = {}


def engine_of(rulebook: str) -> Engine:
    if rulebook not in _ENGINES:
        _ENGINES[rulebook] = Engine(dsl.load(str(ROOT / rulebook)))
    return _ENGINES[rulebook]


def run_example(example: dict) -> None:
    """Run one example; AssertionError naming the passage where the run disagrees."""
    assert example.get("section") and example["claims"], f"{example['name']}: no passage"
    engine = engine_of(example["rulebook"])
    sheet = engine.load_sheet(ROOT / example["character"])
    before = sheet.to_data()
    targets = {
        role: engine.load_sheet(ROOT / path) for role, path in example.get("targets", {}).items()
    }
    raising = [c for c in example["claims"] if "raises" in c]

    def run():
        return engine.run(
            example["action"],
            sheet,
            example["parameters"],
            dice=ForcedDice(list(example.get("dice", []))),
            targets=targets or None,
        )

    if raising:
        (claim,) = raising
        error = getattr(interpreter, claim["raises"]["error"])
        try:
            run()
        except error as raised:
            assert re.search(claim["raises"]["match"], str(raised)), (claim["says"], raised)
        else:
            raise AssertionError(f"{claim['says']}: no {error.__name__}")
        return
    out = run()
    print(render_text(out.trace))
    for claim in example["claims"]:
        _hold(out, claim)
    assert sheet.to_data() == before, "the character given is never changed"


def _hold(out, claim: dict) -> None:
    says = claim.get("says")
    assert says, f"a claim quotes no passage: {claim}"
    unknown = {k for k in claim if k not in CLAIMS and not k.startswith("check ")}
    assert not unknown, f"{says}: unknown claims {unknown}"
    for key, expected in claim.items():
        if key == "result":
            result = plain(out.result)
            for field, value in expected.items():
                assert same(result[field], value), (says, field, result[field], value)
        elif key.startswith("check "):
            found = [plain(data) for data in _checks(out, key[len("check ") :])]
            assert len(found) == 1, (says, key, f"{len(found)} checks in the trace")
            for field, value in expected.items():
                assert same(found[0][field], value), (says, key, field, found[0][field], value)
        elif key == "changes":
            made = {c.path: [plain(c.before), plain(c.after)] for c in out.changes}
            assert made == expected, (says, made)
        elif key == "characters":
            made = {
                c.role: {d.path: [plain(d.before), plain(d.after)] for d in c.changes}
                for c in out.characters
            }
            assert made == expected, (says, made)
        elif key == "sheet":
            for path, value in expected.items():
                assert same(plain(out.sheet.get(path)), value), (says, path, out.sheet.get(path))
        elif key == "notes":
            held = _notes(out)
            for note in expected:
                assert note in held, (says, note, held)
        elif key == "trace":
            shown = render_text(out.trace) + "\n" + render_text(out.trace, verbose=True)
            for text in expected:
                assert text in shown, (says, text)
        elif key == "dice":
            assert list(out.dice) == expected, (says, list(out.dice))
        elif key == "rolls":
            rolled = [plain(s.data["faces"]) for s in out.trace if s.kind == "roll"]
            assert rolled == expected, (says, rolled)


def _checks(out, name: str) -> list:
    return [
        step.data
        for step in out.trace
        if step.kind == "check" and step.data and step.data.get("check") == name
    ]


def _notes(out) -> list[str]:
    held = []
    for step in out.trace:
        if step.kind == "note":
            held.append(step.text)
            if step.data and "note" in step.data:
                held.append(step.data["note"])
    return held


def same(got, expected) -> bool:
    """Equal, and a yes/no only where a yes/no is expected (True is not the number 1)."""
    return got == expected and isinstance(got, bool) == isinstance(expected, bool)


def plain(value):
    """A value as YAML writes it: mappings as dicts, sequences as lists, a whole
    fraction as its integer and any other as the text "p/q"."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return value
