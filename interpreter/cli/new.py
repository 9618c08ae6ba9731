"""`rulebook new CHARACTER FILE`: your copy of a shipped character; of a RULEBOOK, a blank one."""

from __future__ import annotations

from pathlib import Path

from dsl.messages import language_for, tr
from interpreter.cli import options
from interpreter.errors import ParameterError
from interpreter.safe_files import create_exclusive


def add_parser(commands) -> None:
    p = commands.add_parser(
        "new",
        help=tr("copy a character to a file of your own, or write a blank one of a rulebook"),
        description=tr(
            "Copy a shipped character (or any sheet) to FILE, to play and --save it; given "
            "a rulebook, write a blank character of it, each field with what it takes."
        ),
    )
    p.add_argument(
        "character",
        metavar="CHARACTER",
        help=tr("a shipped character's name, or a file; or a rulebook (a blank character)"),
    )
    p.add_argument("file", metavar="FILE", help=tr("the new sheet file (it must not exist)"))


def cmd_new(args) -> int:
    from interpreter.sheets.character import NOT_A_SHEET, read_file, rulebook_named_in

    if _names_a_rulebook(args.character):
        return _blank_sheet(args)
    source = options.resolve_character(args.character, None, "CHARACTER")
    language = args.spoken = sheet_language(args, source)  # (its errors too: cli.main)
    target = Path(args.file)
    if source.suffix.lower() != target.suffix.lower() and target.suffix.lower() in (".json",):
        raise ParameterError(
            tr("{target}: {name} is YAML; name the copy .yaml", target=target, name=source.name)
        )
    text, _ = read_file(source)  # a regular file of a sheet's size, never a named pipe
    if rulebook_named_in(source) is NOT_A_SHEET:  # (notes, broken YAML: never copied)
        raise ParameterError(
            tr(
                "{name}: not a character sheet (a YAML or JSON mapping of its fields)",
                name=source.name,
            ),
            None,
            tr("a blank character of a rulebook: rulebook new RULEBOOK FILE"),
        )
    _written(target, text)
    print(tr("created {target} from {stem}", target=target, stem=source.stem).render(language))
    print(
        tr("  play it: rulebook run RULEBOOK ACTION --char {target} --save", target=target).render(
            language
        )
    )
    return 0


def _written(target: Path, text: str) -> None:
    """`text` written to a new file `target`; refused if it exists or cannot be written."""
    try:
        create_exclusive(target, text)
    except FileExistsError:
        raise ParameterError(
            tr("{target}: the file exists", target=target), None, tr("name a new file")
        ) from None
    except OSError as error:
        raise ParameterError(
            tr("{target}: cannot be written ({strerror})", target=target, strerror=error.strerror)
        ) from None


def _names_a_rulebook(reference: str) -> bool:
    """A rulebook's file (`.rules`) or a shipped rulebook's name, not a character's."""
    import dsl

    if reference.lower().endswith(".rules"):
        return True
    shipped = options.characters_folder()
    is_character = any((shipped / f"{reference}{s}").exists() for s in options.SHEET_SUFFIXES)
    return not is_character and reference in dsl.shipped_rulebooks()


def _blank_sheet(args) -> int:
    """`rulebook new RULEBOOK FILE`: a blank character of that rulebook, to fill in."""
    from interpreter.cli.sheet_template import template

    book = options.load_rulebook(args.character)
    language = args.spoken = options.language(args, book)
    target = Path(args.file)
    if target.suffix.lower() not in (".yaml", ".yml"):
        raise ParameterError(tr("{target}: a new sheet is YAML; name it .yaml", target=target))
    game = Path(book.path).stem
    _written(target, template(book, game, language))
    made = tr("created {target}, a blank character of {title}", target=target, title=book.title)
    print(made.render(language))
    print(
        tr(
            "  set its values, then play it: rulebook run {rulebook} ACTION --char {target}",
            rulebook=args.character,
            target=target,
        ).render(language)
    )
    return 0


def sheet_language(args, source: Path) -> str:
    """`--lang`, else the language of the shipped rulebook the sheet names (`rulebook:`),
    read from its header without loading it, else English."""
    import dsl
    from dsl.load import language_written_in
    from interpreter.sheets.character import rulebook_named_in

    named = rulebook_named_in(source)
    path = dsl.shipped_rulebooks().get(named) if isinstance(named, str) else None
    try:
        written = language_written_in(path.read_text(encoding="utf-8")) if path else None
    except OSError:
        written = None
    return language_for(args.lang, written)
