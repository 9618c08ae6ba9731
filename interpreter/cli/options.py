"""What several commands share: dice from the options, rulebooks, characters, parameters."""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import dsl
from dsl.errors import Diagnostic, Source, Span, did_you_mean
from dsl.messages import language_for, tr, tr_n
from dsl.spellings import inline_roll
from dsl.unicode_text import digits_refused
from interpreter.dice import Asked, ForcedDice, SeededDice, TypedDice, zero_hint
from interpreter.errors import DiceError, ParameterError, SheetError

if TYPE_CHECKING:  # (what a command does not use is not imported: `rulebook roll d20`)
    from interpreter.sheets.character import Sheet
    from interpreter.symbols import SymbolDie


def dice_source(args, language: str | None = None, symbols: bool = False, book=None):
    """The dice of the options; `symbols`: a rulebook with dice of symbols, whose faces
    `--dice` may give by their symbols; `book`, the rulebook whose check, roll or action
    a die typed in is for (`--ask` says it)."""
    if getattr(args, "ask", False):
        return TypedDice(TableAsker(language or getattr(args, "lang", None), book), tell=True)
    if args.dice is not None:
        return ForcedDice(faces_of(args.dice, symbols))
    return SeededDice(args.seed)


def faces_of(text: str, symbols: bool = False) -> list:
    """The faces of `--dice 6,5,3,1`: whole numbers written with the digits 0-9 (Python's
    int would read `١٢` and `1_0` too); a symbol die's face by its symbols
    (`success+advantage`, `2 advantage`, `blank`), which the die reads when drawn."""
    faces: list = []
    for position, written in enumerate(typed_parts(text), 1):
        part = written.strip()
        if not part:
            continue
        if symbols and SYMBOL_FACE.fullmatch(part) is not None:
            faces.append(" ".join(part.split()))
            continue
        part = part.replace(" ", "")
        if WHOLE_NUMBER.fullmatch(part) is None:
            raise ParameterError(
                tr(
                    "--dice: value {position} ({part}) is not a whole number",
                    position=position,
                    part=repr(part),
                ),
                None,
                digits_refused(part)
                or (
                    tr("write the faces as 6,5,3,1 (a symbol die's as success+advantage)")
                    if symbols
                    else tr("write the faces as 6,5,3,1")
                ),
            )
        faces.append(int(part))
    return faces


#: a whole number as typed in: a sign, then the digits 0-9
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]++")
#: a symbol die's face as typed in: `success + advantage`, `2 advantage`, `blank`
SYMBOL_FACE = re.compile(
    r"(?:[0-9]{1,2} ++)?[^\W\d]\w*+(?: *+\+ *+(?:[0-9]{1,2} ++)?[^\W\d]\w*+)*+"
)


class TableAsker:
    """What asks the person at the table, in `language`, what each die showed (and whose
    it is, what for and why: `Asked`, the definition it is in `book`). A line may give
    several dice's faces (`6 3 6`, `6,3,6`; symbol dice's with commas): those after the
    first answer the next dice asked, each shown as if typed (`typed_ahead`)."""

    def __init__(self, language: str | None, book=None):
        self.language, self.book = language, book
        self.typed_ahead: list[str] = []

    def __call__(self, die, position: int, asked: Asked | None = None) -> int:
        from dsl.rulebook import defined_at  # (plain dice typed in need no rulebook's nodes)

        book = self.book
        what = defined_at(book, asked.span) if book is not None and asked is not None else None
        return ask_at_the_table(die, position, self.language, asked, what, self.typed_ahead)


def faces_left_over(dice, language: str | None) -> None:
    """Say the faces typed ahead that no die of the run took (more faces than dice on a
    line: one of them was meant for something else)."""
    ask = getattr(dice, "ask", None)
    left = ask.typed_ahead if isinstance(ask, TableAsker) else None
    if left:
        said = tr_n(
            "warning: {n} face typed was not needed by any die: {faces}",
            "warning: {n} faces typed were not needed by any die: {faces}",
            len(left),
            faces=", ".join(left),
        )
        print(said.render(language), file=sys.stderr)


def typed_parts(text: str) -> list[str]:
    """The faces a text of them gives, in order (`6 3 6`, `6, 3, 6`, `success+advantage,
    2 threat`): parts apart by commas, and a part of whole numbers apart by spaces split
    at them, as `--ask` reads a line and `--dice` its value (string methods: linear)."""
    faces: list[str] = []
    for part in text.strip().split(","):
        words = part.split()
        if len(words) > 1 and all(WHOLE_NUMBER.fullmatch(word) for word in words):
            faces.extend(words)
        elif part.strip():
            faces.append(part.strip())
    return faces


def faces_of_line(line: str) -> list[str]:
    """The faces one typed line gives, in order (`typed_parts`; an empty line, one empty)."""
    return typed_parts(line) or [""]


def answer_to(question: str) -> str:
    """The line typed in answer to a question on the terminal ('' at the end of input).
    Typed into a terminal, the answer ends the question's line; read from a pipe or a
    file it is not echoed, so it is written after the question here (else the next
    output would go on on the question's line)."""
    sys.stderr.write(question)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not sys.stdin.isatty():
        sys.stderr.write(line.strip() + "\n")
        sys.stderr.flush()
    return line


def next_answer(question: str, typed_ahead: list[str] | None) -> str:
    """The next face typed: one typed ahead on an earlier line (shown after the question,
    as if typed), else the first of a new line, the rest of it kept ahead ('' at the end
    of input)."""
    if typed_ahead:
        face = typed_ahead.pop(0)
        sys.stderr.write(f"{question}{face}\n")
        sys.stderr.flush()
        return face
    line = answer_to(question)
    if not line:
        return ""
    first, *rest = faces_of_line(line)
    if typed_ahead is not None:
        typed_ahead.extend(rest)
    elif rest:
        return line.strip()  # (nobody to give the rest to: refused as it is)
    return first


def ask_at_the_table(
    die,
    position: int,
    language: str | None = None,
    asked: Asked | None = None,
    what: str | None = None,
    typed_ahead: list[str] | None = None,
) -> int:
    """Ask the person at the table what a physical die showed (and, when `asked` says,
    whose die it is, `what` it is rolled for and why: "for thug", "Defend", "the 10
    exploded"); `typed_ahead`: faces typed on an earlier line for the dice after it."""
    from interpreter.symbols import SymbolDie

    if isinstance(die, SymbolDie):
        return ask_symbols(die, position, language, typed_ahead)
    said = []
    if asked is not None and asked.who is not None:
        whose = tr("{what} for {who}", what=what, who=asked.who) if what else None
        said.append((whose or tr("for {who}", who=asked.who)).render(language))
    if asked is not None and asked.why is not None:
        said.append(asked.why.render(language))
    the_die = {"position": position, "die": die.label, "low": die.low, "high": die.high}
    if said:
        question = tr(
            "die {position} ({die}, {low}..{high}), {context}? ", context="; ".join(said), **the_die
        )
    else:
        question = tr("die {position} ({die}, {low}..{high})? ", **the_die)
    while True:
        text = next_answer(question.render(language), typed_ahead).strip()
        if not text:
            raise DiceError(
                tr("no face typed for die {position} ({die})", position=position, die=die.label)
            )
        if WHOLE_NUMBER.fullmatch(text) is None:
            answer = digits_refused(text) or tr(
                "{text} is not a number; type the face the die shows", text=repr(text)
            )
        else:
            value = int(text)
            if die.has(value):
                return value
            answer = tr("{value} is not a face of {die}", value=value, die=die.label)
            if (zero := zero_hint(die, value)) is not None:
                answer = tr("{answer}: {hint}", answer=answer, hint=zero)
        _refused(answer, language, typed_ahead)


def _refused(answer, language: str | None, typed_ahead: list[str] | None) -> None:
    """Say why a face typed is not taken; the faces typed after it on its line are
    dropped with it (they were meant for the dice after this one)."""
    sys.stderr.write(f"  {answer.render(language)}\n")
    if typed_ahead:
        dropped = tr_n(
            "the {n} face typed after it is not taken either: type it again",
            "the {n} faces typed after it are not taken either: type them again",
            len(typed_ahead),
        )
        sys.stderr.write(f"  {dropped.render(language)}\n")
        typed_ahead.clear()


def ask_symbols(
    die: SymbolDie, position: int, language: str | None, typed_ahead: list[str] | None = None
) -> int:
    """Ask what a die of symbols showed: its symbols (`success+advantage`, `blank`)."""
    while True:
        question = tr(
            "die {position} ({die}: {faces})? ",
            position=position,
            die=die.label,
            faces=die.faces_text(),
        )
        text = next_answer(question.render(language), typed_ahead).strip()
        if not text:
            raise DiceError(
                tr("no face typed for die {position} ({die})", position=position, die=die.label)
            )
        face = die.read(int(text) if WHOLE_NUMBER.fullmatch(text) else text)
        if face is not None:
            return face
        answer = tr(
            "{text} is not a face of {die}: type its symbols, as in {example}",
            text=repr(text),
            die=die.label,
            example=die.names[-1],
        )
        _refused(answer, language, typed_ahead)


#: what the end of a run says of dice that were not rolled at random
ORIGIN_NOTES = {"forced": tr("forced dice"), "typed": tr("dice typed in")}


def origin_note(origin: str, language: str | None, seed: int | None = None) -> str:
    """How the dice were had, after them: forced, typed in, or the seed that replays them."""
    note = ORIGIN_NOTES.get(origin)
    if note is None and seed is not None:
        note = tr("seed {seed}", seed=str(seed))
    return f"  ({note.render(language)})" if note is not None else ""


def language(args, book=None) -> str:
    """The language of the output: `--lang`, else the rulebook's, else English."""
    return language_for(getattr(args, "lang", None), book.language if book else None)


def load_rulebook(reference: str) -> dsl.Rulebook:
    return dsl.load(reference)


#: what a character sheet file's name ends in
SHEET_SUFFIXES = (".yaml", ".yml", ".json")


def resolve_character(reference: str, book, option: str = "--char") -> Path:
    """The file of a character given on the command line: a path, or a shipped
    character's name (whose own file is then read, never written)."""
    path = Path(reference)
    if path.is_file() or (
        (path.suffix.lower() in SHEET_SUFFIXES or os.sep in reference) and os.path.lexists(path)
    ):
        return path  # (a named pipe, `<(...)` or a folder of that name: reading it says so)
    folder = characters_folder()
    for suffix in SHEET_SUFFIXES:
        candidate = folder / f"{reference}{suffix}"
        if candidate.exists():
            return candidate
    known = shipped_characters(book)
    if known:
        hint = did_you_mean(reference, known) or tr(
            "shipped characters: {names}", names=", ".join(known)
        )
    else:  # (a rulebook of the user's own: only a file can be meant)
        hint = tr("no character is shipped for this rulebook: give a sheet's file")
    raise ParameterError(
        tr(
            "{option}: no file or shipped character named {name}",
            option=option,
            name=repr(reference),
        ),
        None,
        hint,
    )


def shipped_characters(book) -> list[str]:
    """The shipped characters of `book`'s game (their `rulebook:` is the book or one it
    extends, or they name none); every one when no book is given."""
    from interpreter.sheets.character import NOT_A_SHEET, rulebook_named_in

    games = set()
    while book is not None:
        games.add(Path(book.path).stem)
        book = book.base
    found = set()
    for path in characters_folder().iterdir():
        if path.suffix not in SHEET_SUFFIXES:
            continue
        named = rulebook_named_in(path)
        if named is not NOT_A_SHEET and (not games or named is None or named in games):
            found.add(path.stem)
    return sorted(found)


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
            shipped = shipped_characters(book)
            raise ParameterError(
                tr("{title} needs a character: {reason}", title=book.title, reason=error.message),
                None,
                tr("pass --char FILE, or a shipped character: {names}", names=", ".join(shipped)),
            ) from None
    return shown(engine.load_sheet(resolve_character(args.char, book)), args, book)


def targets_of(args, book, engine, action: str | None) -> dict:
    """The other characters of a run, from `--target NAME=FILE` (NAME may be left out when
    the action has one character parameter): parameter name → Sheet."""
    files = target_files(args, book, action)
    return {role: shown(engine.load_sheet(path), args, book) for role, path in files.items()}


def shown(sheet: Sheet, args, book) -> Sheet:
    """The sheet, its warnings printed on stderr (stdout is the result)."""
    for warning in sheet.warnings:
        print(warning.render(language(args, book)), file=sys.stderr)
    return sheet


def target_files(args, book, action: str | None) -> dict:
    """The files of `--target NAME=FILE`, by the parameter they are: name → Path."""
    pairs = getattr(args, "targets", None) or []
    if not pairs:
        return {}
    from dsl import nodes as n

    definition = book.definition(action) if action else None
    roles = [
        p.name
        for p in getattr(definition, "params", ())
        if isinstance(p.type, n.NamedType) and p.type.name == "character"
    ]
    out = {}
    for pair in pairs:
        name, equals, file = pair.partition("=")
        if not equals:
            if len(roles) != 1:
                raise ParameterError(
                    tr("--target {pair}: write NAME=FILE", pair=pair),
                    None,
                    tr("characters it takes: {names}", names=", ".join(roles) or "-"),
                )
            name, file = roles[0], pair
        name = name.strip()
        if roles and name not in roles:
            raise ParameterError(
                tr("--target {name}: {action} takes no such character", name=name, action=action),
                None,
                did_you_mean(name, roles) or tr("characters: {names}", names=", ".join(roles)),
            )
        if name in out:
            raise ParameterError(tr("--target {name} is given twice", name=name))
        option = " ".join(("--target", name))  # an option as typed: not words to translate
        out[name] = resolve_character(file.strip(), book, option)
    return out


def journal_option(p, here: bool = False) -> None:
    """`--journal PATH`: by default the journal of the sheet's folder, or (`here`) of
    the current folder."""
    if here:
        said = tr("the journal (default: journal.sqlite in the current folder)")
    else:
        said = tr("the journal (default: journal.sqlite in the sheet's folder)")
    p.add_argument("--journal", metavar="PATH", help=said)
    database_option(p)


def database_option(p) -> None:
    """`--database URL`: the journal (and the shared table) in a PostgreSQL database."""
    p.add_argument(
        "--database",
        metavar="URL",
        help=tr(
            "keep the journal (and the shared table) in this PostgreSQL database, "
            "postgresql://... (default: $RULEBOOK_DATABASE, else journal.sqlite in the folder)"
        ),
    )


@contextmanager
def database_of(args):
    """While a command runs: its `--database`, as every journal it opens finds it (and the
    server's worker processes: $RULEBOOK_DATABASE)."""
    url = getattr(args, "database", None)
    if url is None:  # (nothing imported: `rulebook roll d20` stays light)
        yield
        return
    from interpreter.journal.postgres import DATABASE_ENV, is_postgres

    if not is_postgres(url):
        raise ParameterError(
            tr("--database takes a PostgreSQL URL (postgresql://...)"),
            None,
            tr("leave --database out: the journal is journal.sqlite in the folder"),
        )
    before = os.environ.get(DATABASE_ENV)
    os.environ[DATABASE_ENV] = url
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(DATABASE_ENV, None)
        else:
            os.environ[DATABASE_ENV] = before


def open_journal(args):
    """The journal a journal command reads: --journal PATH, or the current folder's."""
    from interpreter.journal import Journal
    from interpreter.journal.store import default_journal

    return Journal(args.journal or default_journal(), create=False)


#: how many of a journal's newest entries are read for the language it speaks
NEWEST_ENTRIES = 8


def journal_language(args, journal, entries=None) -> str:
    """The language of a journal command: `--lang`, else that of the rulebook of the
    newest of `entries` (by default the journal's newest) that names one, else English.
    An error the command raises from here on is shown in it too (`cli.main`)."""
    from interpreter.journal.bundle import journal_language as newest_language

    if entries is None:
        entries = journal.entries(newest_first=True, limit=NEWEST_ENTRIES)
    language = language_for(getattr(args, "lang", None), newest_language(journal, entries))
    args.spoken = language
    return language


def entry_languages(args, journal, entries) -> dict:
    """Each entry's language by its number: `--lang`, else its own rulebook's."""
    from interpreter.journal.bundle import entry_language

    by_rulebook: dict = {}
    out = {}
    for entry in entries:
        key = (entry.kind, entry.rulebook if entry.kind != "rulebook" else entry.id)
        if key not in by_rulebook:
            by_rulebook[key] = language_for(
                getattr(args, "lang", None), entry_language(journal, entry)
            )
        out[entry.id] = by_rulebook[key]
    return out


def print_warnings(expression: str, language) -> None:
    """What the checker noted about a dice expression (a spelling another dice roller
    reads otherwise, a modifier that changes nothing), on stderr: stdout is the result."""
    from interpreter.expression import expression_warnings

    for warning in expression_warnings(expression):
        print(warning.render(language), file=sys.stderr)
    inline = inline_roll(expression)
    if inline is not None:
        message, start, end, hint = inline
        span = Span(Source("<expression>", expression), start, end)
        print(Diagnostic("warning", message, span, hint).render(language), file=sys.stderr)


#: a dice expression given as an argument may start with a minus: `rulebook roll -1d6`
NEGATIVE_EXPRESSION = re.compile(r"-[0-9(d{]")


def expressions_with_a_minus(argv: list) -> list:
    """`rulebook roll -1d6`, `rulebook odds -2d4`: a leading minus is an expression, not an
    option. argparse takes what starts with `-` for an option, so it gets a space first
    (which the expression, and --dice's list, read past)."""
    if not argv or argv[0] not in ("roll", "odds"):
        return argv
    return [argv[0]] + [" " + arg if NEGATIVE_EXPRESSION.match(arg) else arg for arg in argv[1:]]
