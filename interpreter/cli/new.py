"""`rulebook new CHARACTER FILE`: your own copy of a shipped character, comments and all."""

from __future__ import annotations

from pathlib import Path

from dsl.messages import language_for, tr
from interpreter.cli import options
from interpreter.errors import ParameterError
from interpreter.safe_files import create_exclusive


def add_parser(commands) -> None:
    p = commands.add_parser(
        "new",
        help=tr("copy a shipped character to a file of your own"),
        description=tr("Copy a shipped character (or any sheet) to FILE, to play and --save it."),
    )
    p.add_argument(
        "character", metavar="CHARACTER", help=tr("a shipped character's name, or a file")
    )
    p.add_argument("file", metavar="FILE", help=tr("the new sheet file (it must not exist)"))


def cmd_new(args) -> int:
    from interpreter.sheets.character import read_file

    source = options.resolve_character(args.character, None, "CHARACTER")
    language = args.spoken = sheet_language(args, source)  # (its errors too: cli.main)
    target = Path(args.file)
    if source.suffix.lower() != target.suffix.lower() and target.suffix.lower() in (".json",):
        raise ParameterError(
            tr("{target}: {name} is YAML; name the copy .yaml", target=target, name=source.name)
        )
    text, _ = read_file(source)  # a regular file of a sheet's size, never a named pipe
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
    print(tr("created {target} from {stem}", target=target, stem=source.stem).render(language))
    print(
        tr("  play it: rulebook run RULEBOOK ACTION --char {target} --save", target=target).render(
            language
        )
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
