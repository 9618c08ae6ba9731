"""The grammar's LALR tables shipped with the package, so that a first load builds nothing.

Building Lark's tables for the grammar takes most of a second (the grammar read, the LALR
automaton made, every pair of terminals compared); reading them back takes a tenth of it.
`dsl.cache` keeps them in the user's cache folder after the first build; this module keeps
a copy beside the grammar (`grammar/rulebook.tables.json`), made by

    python -m dsl.parser_tables          # after any change to grammar/rulebook.lark
                                         # (or to Lark's version; --force: in any case)

so that a fresh install, an empty cache folder or a read-only home start as fast as a warm
one. The file is the same tagged JSON as the cache's (data only: reading it runs nothing),
stamped with a digest of the grammar's text and Lark's options, and with Lark's version:
it is used only when both match the running ones (a grammar edited without making the
file again, or another Lark, fall back to the cache folder and to building), and
tests/test_parser_tables.py fails when the grammar's digest does not match.
"""

from __future__ import annotations

import hashlib
import sys
from importlib import resources
from pathlib import Path

import lark

from dsl import cache as disk
from dsl.dice_terminal import grammar_text

#: the file beside the grammar (in the `grammar` package)
FILE_NAME = "rulebook.tables.json"

#: Lark's options for the language's parser
OPTIONS = dict(parser="lalr", start=["rulebook", "expression"], maybe_placeholders=True)


def grammar_digest() -> str:
    """What the tables depend on besides Lark's version: the grammar's text and options."""
    return hashlib.sha256(f"{sorted(OPTIONS.items())}\n{grammar_text()}".encode()).hexdigest()


def encode(digest: str, parser: lark.Lark) -> bytes:
    """The shipped file's bytes for `parser`, built from a grammar of this digest."""
    tables, memo = parser.memo_serialize([lark.lexer.TerminalDef, lark.grammar.Rule])
    stamp = {"grammar": digest, "lark": lark.__version__}
    return disk.dumps([stamp, tables, memo])


def read(digest: str) -> lark.Lark | None:
    """The parser the shipped file holds, if it was made for this grammar (`digest`) and
    this Lark; None otherwise (or if the file is missing or does not decode)."""
    try:
        data = resources.files("grammar").joinpath(FILE_NAME).read_bytes()
    except OSError:
        return None
    return decode(data, digest)


def decode(data: bytes, digest: str) -> lark.Lark | None:
    """The parser `data` (a shipped file's bytes) holds, if it was made for this grammar
    (`digest`) and this Lark; None otherwise."""
    try:
        stamp, tables, memo = disk.loads(data)
    except (ValueError, TypeError):
        return None
    if stamp != {"grammar": digest, "lark": lark.__version__}:
        return None
    try:
        return lark.Lark.load({"data": tables, "memo": memo})
    except Exception:  # anything Lark cannot make a parser of: the caller builds it
        return None


def shipped_path() -> Path:
    """Where the shipped file lives in this checkout (the `grammar` package's folder)."""
    return Path(str(resources.files("grammar").joinpath(FILE_NAME)))


def build() -> lark.Lark:
    """The parser built from the grammar as it is now (most of a second)."""
    return lark.Lark(grammar_text(), **OPTIONS)


def main(argv: list[str] | None = None) -> int:
    """Build the tables from the grammar as it is now and write the shipped file; a file
    already made for this grammar and this Lark is kept (`--force` makes it again).

    Lark numbers the automaton's states and terminals in an order that changes from one
    build to the next, so a file made again for the same grammar differs byte for byte
    while meaning the same: kept, a checkout has no change to commit."""
    force = "--force" in (sys.argv[1:] if argv is None else argv)
    digest = grammar_digest()
    path = shipped_path()
    if not force and read(digest) is not None:
        print(f"{path} is up to date (Lark {lark.__version__}); --force makes it again")
        return 0
    built = build()
    path.write_bytes(encode(digest, built))
    print(f"wrote {path} ({path.stat().st_size:,} bytes, Lark {lark.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
