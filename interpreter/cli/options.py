"""What several commands share: dice from the options, rulebooks, characters, parameters."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

import dsl
from dsl.errors import did_you_mean
from interpreter.dice import ForcedDice, SeededDice, TypedDice
from interpreter.errors import DiceError, ParameterError, SheetError
from interpreter.sheet import Sheet


def dice_source(args):
    if getattr(args, "ask", False):
        return TypedDice(ask_at_the_table)
    if args.dice is not None:
        return ForcedDice(faces_of(args.dice))
    return SeededDice(args.seed)


def faces_of(text: str) -> list[int]:
    faces = []
    for position, part in enumerate(text.replace(" ", "").split(","), 1):
        if not part:
            continue
        try:
            faces.append(int(part))
        except ValueError:
            raise ParameterError(
                f"--dice: value {position} ({part!r}) is not a whole number",
                None,
                "write the faces as 6,5,3,1",
            ) from None
    return faces


def ask_at_the_table(die, position: int) -> int:
    """Ask the person at the table what a physical die showed."""
    while True:
        sys.stderr.write(f"die {position} ({die.label}, {die.low}..{die.high})? ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise DiceError(f"no face typed for die {position} ({die.label})")
        text = line.strip()
        try:
            value = int(text)
        except ValueError:
            sys.stderr.write(f"  {text!r} is not a number; type the face the die shows\n")
            continue
        if die.low <= value <= die.high:
            return value
        sys.stderr.write(f"  {value} is not a face of {die.label}\n")


def origin_note(origin: str, words: dict) -> str:
    if origin == "forced":
        return f"  ({words['forced']})"
    if origin == "typed":
        return f"  ({words['typed']})"
    return ""


def load_rulebook(reference: str) -> dsl.Rulebook:
    return dsl.load(reference)


def resolve_character(reference: str, book) -> Path:
    path = Path(reference)
    if path.is_file():
        return path
    folder = characters_folder()
    for suffix in (".yaml", ".yml", ".json"):
        candidate = folder / f"{reference}{suffix}"
        if candidate.exists():
            return candidate
    known = sorted(p.stem for p in folder.glob("*.yaml")) + sorted(
        p.stem for p in folder.glob("*.json")
    )
    hint = did_you_mean(reference, known) or "shipped characters: " + ", ".join(known)
    raise ParameterError(f"--char: no file or shipped character named {reference!r}", None, hint)


def characters_folder() -> Path:
    return Path(str(resources.files("rulebooks.characters")))


def params_of(pairs: list[str]) -> dict:
    params = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ParameterError(f"--set {pair!r}: write NAME=VALUE")
        params[name.strip()] = value
    return params


def sheet_for(args, book, engine) -> Sheet:
    if args.char is None:
        try:
            return engine.sheet({})  # a rulebook whose sheet needs nothing given
        except SheetError as error:
            shipped = sorted(p.stem for p in characters_folder().glob("*.y*ml"))
            raise ParameterError(
                f"{book.title} needs a character: {error.message}",
                None,
                "pass --char FILE, or a shipped character: " + ", ".join(shipped),
            ) from None
    return engine.load_sheet(resolve_character(args.char, book))


def journal_option(p, default: str = "journal.sqlite in the sheet's folder") -> None:
    p.add_argument("--journal", metavar="PATH", help=f"the journal (default: {default})")


def open_journal(args):
    """The journal a journal command reads: --journal PATH, or the current folder's."""
    from interpreter.journal import Journal
    from interpreter.journal.store import default_journal

    return Journal(args.journal or default_journal(), create=False)
