"""`rulebook fmt [--check | --diff] PATH...`: rulebooks in the canonical layout (dsl.format)."""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

from dsl.errors import RulebookError
from dsl.messages import tr
from interpreter.cli import options
from interpreter.cli.terminal import unescaped
from interpreter.errors import ParameterError
from interpreter.safe_files import write_atomic

#: the exit code of `--check` and `--diff` when a file is not in the layout (as gofmt -l,
#: ruff format --check): 0 all formatted, 3 a file that does not parse
UNFORMATTED = 1


def add_parser(commands) -> None:
    p = commands.add_parser(
        "fmt",
        help=tr("write rulebooks in the canonical layout"),
        description=tr(
            "Write rulebooks in one canonical layout: indentation, spacing, aligned tables, "
            "long lines broken; comments and line breaks kept, the meaning unchanged "
            "(docs/formatting.md). Files are rewritten in place; a folder means every .rules "
            "file in it; - reads standard input and writes standard output."
        ),
    )
    p.add_argument("paths", metavar="PATH", nargs="+", help=tr("a .rules file, a folder, or -"))
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help=tr(
            "change nothing; list the files not in the layout and exit 1 if there are any"
        ).render(p.language),
    )
    mode.add_argument(
        "--diff",
        action="store_true",
        help=tr("change nothing; print what would change, and exit 1 if anything would").render(
            p.language
        ),
    )


def cmd_fmt(args) -> int:
    language = options.language(args)
    worst = 0
    for path in _files(args.paths):
        try:
            worst = max(worst, _format_one(path, args, language))
        except RulebookError as error:
            print(error.render(language), file=sys.stderr)
            worst = max(worst, error.exit_code)
    return worst


def _files(paths: list[str]) -> list[Path | None]:
    """The files named: a folder's .rules files (sorted, its subfolders' too); None is
    standard input."""
    from dsl.load import rulebook_file

    out: list[Path | None] = []
    for name in paths:
        if name == "-":
            out.append(None)
            continue
        path = Path(name)
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*.rules") if p.is_file()))
        elif os.path.lexists(path):  # (a named pipe, a link: reading it says what it is)
            out.append(rulebook_file(path))
        else:
            raise ParameterError(tr("{path}: no such file or folder", path=name))
    return out


def _format_one(path: Path | None, args, language: str | None) -> int:
    from dsl.format import format_text
    from dsl.load import read

    if path is None:
        text, name = sys.stdin.read(), "<stdin>"
    else:
        text, name = read(path), str(path)
    new = format_text(text, name)
    if args.diff:
        if new != text:
            diff = difflib.unified_diff(
                text.splitlines(keepends=True), new.splitlines(keepends=True), name, name
            )
            sys.stdout.writelines(diff)
        return UNFORMATTED if new != text else 0
    if args.check:
        if new != text:
            print(tr("{path}: not in the canonical layout", path=name).render(language))
            return UNFORMATTED
        return 0
    if path is None:
        unescaped(sys.stdout).write(new)  # the file's own text, as a file would hold it
    elif new != text:
        write_atomic(path, new)
        print(tr("{path}: formatted", path=name).render(language))
    return 0
