"""What several commands share: dice from the options, rulebooks, characters, parameters."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

import dsl
from dsl.errors import did_you_mean
from dsl.messages import language_for, tr
from interpreter.dice import ForcedDice, SeededDice, TypedDice
from interpreter.errors import DiceError, ParameterError, SheetError
from interpreter.sheet import Sheet


def dice_source(args, language: str | None = None):
    if getattr(args, "ask", False):
        return TypedDice(asker(language or getattr(args, "lang", None)))
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
                tr(
                    "--dice: value {position} ({part}) is not a whole number",
                    position=position,
                    part=repr(part),
                ),
                None,
                tr("write the faces as 6,5,3,1"),
            ) from None
    return faces


def asker(language: str | None):
    """A function asking the person at the table, in `language`, what each die showed."""

    def ask(die, position: int) -> int:
        return ask_at_the_table(die, position, language)

    return ask


def ask_at_the_table(die, position: int, language: str | None = None) -> int:
    """Ask the person at the table what a physical die showed."""
    while True:
        question = tr(
            "die {position} ({die}, {low}..{high})? ",
            position=position,
            die=die.label,
            low=die.low,
            high=die.high,
        )
        sys.stderr.write(question.render(language))
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise DiceError(
                tr("no face typed for die {position} ({die})", position=position, die=die.label)
            )
        text = line.strip()
        try:
            value = int(text)
        except ValueError:
            answer = tr("{text} is not a number; type the face the die shows", text=repr(text))
            sys.stderr.write(f"  {answer.render(language)}\n")
            continue
        if die.low <= value <= die.high:
            return value
        answer = tr("{value} is not a face of {die}", value=value, die=die.label)
        sys.stderr.write(f"  {answer.render(language)}\n")


#: what the end of a run says of dice that were not rolled at random
ORIGIN_NOTES = {"forced": tr("forced dice"), "typed": tr("dice typed in")}


def origin_note(origin: str, language: str | None) -> str:
    note = ORIGIN_NOTES.get(origin)
    return f"  ({note.render(language)})" if note is not None else ""


def language(args, book=None) -> str:
    """The language of the output: `--lang`, else the rulebook's, else English."""
    return language_for(getattr(args, "lang", None), book.language if book else None)


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
    hint = did_you_mean(reference, known) or tr(
        "shipped characters: {names}", names=", ".join(known)
    )
    raise ParameterError(
        tr("--char: no file or shipped character named {name}", name=repr(reference)), None, hint
    )


def characters_folder() -> Path:
    return Path(str(resources.files("rulebooks.characters")))


def params_of(pairs: list[str]) -> dict:
    params = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ParameterError(tr("--set {pair}: write NAME=VALUE", pair=repr(pair)))
        params[name.strip()] = value
    return params


def sheet_for(args, book, engine, target: str | None = None) -> Sheet:
    """The character of --char; without one, an empty sheet if the rulebook's sheet needs
    nothing given, or if `target` (the action, check or roll asked for) reads no sheet."""
    if args.char is None:
        try:
            return engine.sheet({})  # a rulebook whose sheet needs nothing given
        except SheetError as error:
            empty = engine.empty_sheet(target) if target is not None else None
            if empty is not None:
                return empty
            shipped = sorted(p.stem for p in characters_folder().glob("*.y*ml"))
            raise ParameterError(
                tr("{title} needs a character: {reason}", title=book.title, reason=error.message),
                None,
                tr("pass --char FILE, or a shipped character: {names}", names=", ".join(shipped)),
            ) from None
    return engine.load_sheet(resolve_character(args.char, book))


def journal_option(p, default: str = "journal.sqlite in the sheet's folder") -> None:
    p.add_argument("--journal", metavar="PATH", help=f"the journal (default: {default})")


def open_journal(args):
    """The journal a journal command reads: --journal PATH, or the current folder's."""
    from interpreter.journal import Journal
    from interpreter.journal.store import default_journal

    return Journal(args.journal or default_journal(), create=False)
