"""`rulebook sweep RULEBOOK ACTION`: the exact odds of an action over a grid.

As a table (CSV, Parquet) and a picture (SVG, PNG)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import dsl
from dsl.messages import tr
from interpreter.cli import options, words
from interpreter.cli.options import SHEET_SUFFIXES
from interpreter.errors import ParameterError
from interpreter.json_data import dumps, sweep_data
from interpreter.safe_files import write_atomic

EXAMPLES = """\
  rulebook sweep brujeria chequeo_sencillo --char brujeria_bruja --field éxito --vary Voluntad=1..6
  rulebook sweep brujeria asustarse --char rulebooks/characters/ --param fuente=all --field turnos
  rulebook sweep brujeria chequeo_sencillo --char brujeria_bruja --field éxito --csv out.csv
  rulebook sweep brujeria asustarse --char bruja.yaml --field turnos --compare brujeria_miedo_duro
  rulebook sweep brujeria asustarse --char bruja.yaml --field turnos --scheduler tcp://10.0.0.5:8786
"""


class _ExamplesKept(argparse.HelpFormatter):
    """The description filled to the terminal's width; the examples kept line by line."""

    def _fill_text(self, text, width, indent):
        if text.lstrip().startswith("rulebook "):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_parser(commands) -> None:
    p = commands.add_parser(
        "sweep",
        help=tr("exact odds of an action over a grid of characters, parameters and rules"),
        description=tr(
            "The exact odds of ACTION for every case of a grid: characters (--char, files "
            "or folders), parameters (--param NAME=1..5, a,b,c or all), sheet values "
            "(--vary FIELD=1..10) and rulebooks (--compare a house rule). A row per case "
            "(CSV, Parquet) and a picture (SVG, PNG). Cases are kept in a cache, so an "
            "interrupted sweep resumes and a repeated one is free."
        ),
        epilog=EXAMPLES,
        formatter_class=_ExamplesKept,
    )
    p.add_argument("rulebook", metavar="RULEBOOK")
    p.add_argument("action", metavar="ACTION")
    add = p.add_argument
    add(
        "--char",
        action="append",
        default=[],
        metavar="FILE",
        help=tr("a character sheet, a folder of them, or a shipped character (repeat for several)"),
    )
    add("--field", metavar="NAME", help=tr("the result field (or sheet path) to study"))
    add(
        "--outcome",
        action="append",
        default=[],
        metavar="VALUE",
        help=tr("an outcome of the field whose probability to show (repeat; default: all)"),
    )
    add(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUES",
        help=tr("a parameter's values: LOW..HIGH, a,b,c, or all its choices (repeat)"),
    )
    add(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=tr("a parameter's one value (repeat)"),
    )
    add(
        "--vary",
        action="append",
        default=[],
        metavar="FIELD=VALUES",
        help=tr("a sheet value's values: LOW..HIGH or a,b,c (repeat)"),
    )
    add(
        "--compare",
        action="append",
        default=[],
        metavar="RULEBOOK",
        help=tr("another rulebook (such as a house rule) to sweep side by side (repeat)"),
    )
    add("--csv", metavar="FILE", help=tr("write the table as CSV (`-`: standard output)"))
    add("--parquet", metavar="FILE", help=tr("write the table as Parquet"))
    add(
        "--json",
        action="store_true",
        help=tr("print the table as JSON (a document of kind sweep) instead of CSV"),
    )
    add(
        "--picture",
        action="append",
        default=[],
        metavar="FILE",
        help=tr("draw the picture, .svg or .png (repeat for both)"),
    )
    add(
        "--plot",
        metavar="COLUMN",
        help=tr(
            "the column drawn: an outcome's P(...) or mean (default: the mean of a number, "
            "else the first outcome's)"
        ),
    )
    add("--x", metavar="INPUT", help=tr("the input along the picture's x axis"))
    add("--y", metavar="INPUT", help=tr("a second input: the picture is a heatmap"))
    add(
        "--workers",
        type=words.number(int, above_zero=True),
        metavar="N",
        help=tr("local worker processes (default: one per CPU; 1: in this process)"),
    )
    add(
        "--scheduler",
        metavar="ADDRESS",
        help=tr("a Dask distributed scheduler to run the cases on, tcp://HOST:PORT"),
    )
    add(
        "--cache",
        metavar="DIR",
        help=tr("the folder cases are kept in (default: the user's cache folder)"),
    )
    add("--no-cache", action="store_true", help=tr("compute every case, keep none"))
    add(
        "--budget",
        type=words.number(int, above_zero=True),
        metavar="N",
        help=tr("exact work allowed per case before falling back to sampling"),
    )
    add(
        "--trials",
        type=words.number(int, above_zero=True),
        metavar="N",
        help=tr("trials when a case is sampled"),
    )
    add(
        "--timeout",
        type=words.number(float, above_zero=True),
        metavar="SECONDS",
        help=tr("seconds of computing per case for sampling"),
    )


def cmd_sweep(args) -> int:
    from interpreter.balance import grid
    from interpreter.balance.case_cache import SweepCache
    from interpreter.balance.picture import draw
    from interpreter.balance.table import csv_text, write_parquet
    from interpreter.engine import Engine

    book = dsl.load(args.rulebook)
    engine = Engine.of(book)
    language = options.language(args, book)
    characters = _characters(args, book, engine)
    params = grid.pairs_of(args.param, "--param")
    params.update({name: [value] for name, value in options.params_of(args.set).items()})
    vary = grid.pairs_of(args.vary, "--vary")
    compare = [dsl.load(other) for other in args.compare]
    extra = {
        k: v
        for k, v in (("budget", args.budget), ("trials", args.trials), ("seconds", args.timeout))
        if v is not None
    }
    rows = engine.sweep(
        args.action,
        characters,
        compare=compare,
        params=params,
        vary=vary,
        field=args.field,
        outcomes=args.outcome,
        workers=args.workers,
        scheduler=args.scheduler,
        cache=None if args.no_cache else SweepCache(args.cache),
        on_progress=_progress(sys.stderr, language),
        **extra,
    )
    wrote = False
    if args.csv is not None:
        _write(args.csv, csv_text(rows))
        wrote = True
    if args.parquet is not None:
        write_parquet(rows, args.parquet)
        wrote = True
    for picture in args.picture:
        draw(rows, picture, args.plot, args.x, args.y, language)
        wrote = True
    if args.json:
        print(dumps(sweep_data(rows, args.action, language)))
    elif not wrote:
        sys.stdout.write(csv_text(rows))
    failed = [row["error"] for row in rows if row["error"] is not None]
    if not failed:
        return 0
    said = tr(
        "{count} of {total} cases failed; the first: {error}",
        count=len(failed),
        total=len(rows),
        error=failed[0],
    )
    print(said.render(language), file=sys.stderr)
    return 4 if len(failed) == len(rows) else 0  # as `rulebook odds`: nothing could be counted


def _write(target: str, text: str) -> None:
    if target == "-":
        sys.stdout.write(text)
        return
    try:
        write_atomic(Path(target), text)
    except OSError as error:
        raise ParameterError(
            tr("{target}: cannot be written ({strerror})", target=target, strerror=error.strerror)
        ) from None


def _characters(args, book, engine) -> list:
    """(label, Sheet) of every --char: a file, each sheet of a folder, a shipped one."""
    if not args.char:
        namespace = argparse.Namespace(char=None, lang=args.lang)
        return [("-", options.sheet_for(namespace, book, engine, args.action))]
    out = []
    for reference in args.char:
        folder = Path(reference)
        if folder.is_dir():
            files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SHEET_SUFFIXES)
            files = [p for p in files if _of_game(p, book)]
            if not files:
                raise ParameterError(
                    tr(
                        "--char {folder}: no sheet of {title} in it",
                        folder=reference,
                        title=book.title,
                    )
                )
        else:
            files = [options.resolve_character(reference, book)]
        for path in files:
            sheet = options.shown(engine.load_sheet(path), args, book)
            out.append((path.stem, sheet))
    return out


def _of_game(path: Path, book) -> bool:
    """A sheet of `book`'s game: it names the book or one it extends, or none."""
    from interpreter.sheets.character import NOT_A_SHEET, rulebook_named_in

    games = set()
    while book is not None:
        games.add(Path(book.path).stem)
        book = book.base
    named = rulebook_named_in(path)
    return named is not NOT_A_SHEET and (named is None or named in games)


def _progress(stream, language):
    """Cases done and left on one line of the terminal (nothing when not a terminal)."""
    if not stream.isatty():
        return None

    def show(done: int, total: int) -> None:
        line = tr(
            "{done}/{total} cases done, {left} left", done=done, total=total, left=total - done
        )
        stream.write(f"\r  {line.render(language)} ")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show
