"""A rulebook as the journal keeps it: every file it was built from, and one hash of them.

A house rule is its own file and the files it `extends`, so the bundle lists them all,
the house rule first, each with the `extends` reference it was written with. The hash
covers names and texts, so two different rulebooks never share one. `rebuild` turns a
stored bundle back into a checked Rulebook without reading the files it came from (they
may have changed since): the texts are laid out in a private temporary folder, named as
their `extends` references name them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tempfile
from pathlib import Path

import attrs

import dsl
from dsl.errors import RulebookError
from dsl.load import parse_cached, read
from dsl.messages import tr

#: rulebooks rebuilt from stored texts, by hash, kept for the process (replays reuse them)
_REBUILT: dict = {}


@attrs.frozen
class Source:
    file: str  # the file's name (its folder is not part of the rulebook)
    extends: str | None  # the reference its `extends` names, as written
    text: str


@attrs.frozen
class Bundle:
    name: str
    title: str
    path: str
    sources: tuple  # of Source, the rulebook's own file first
    hash: str


def bundle_of(book: dsl.Rulebook) -> Bundle:
    """Every file `book` was built from, read from the sources its nodes point at."""
    texts = _texts_in(book)
    sources, current = [], book
    while current is not None:
        text = texts.get(current.path)
        if text is None:
            text = read(Path(current.path))
        header = parse_cached(text, current.path).header
        extends = header.extends if header is not None else None
        sources.append(Source(Path(current.path).name, extends, text))
        current = current.base
    return Bundle(
        name=Path(book.path).stem,
        title=book.title,
        path=str(book.path),
        sources=tuple(sources),
        hash=bundle_hash(sources),
    )


def bundle_hash(sources) -> str:
    canonical = json.dumps([[s.file, s.extends, s.text] for s in sources], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def bundle_from_row(row: dict, text_of) -> Bundle:
    """A bundle from its journal row; `text_of(hash)` gives a stored text."""
    sources = tuple(Source(s["file"], s["extends"], text_of(s["text"])) for s in row["sources"])
    return Bundle(row["name"], row["title"], row["path"], sources, row["hash"])


def rebuild(bundle: Bundle) -> dsl.Rulebook:
    """The checked rulebook of a stored bundle: the file it was loaded from if that file
    still has the same texts, else the stored texts themselves."""
    found = _REBUILT.get(bundle.hash)
    if found is not None:
        return found
    if bundle_hash(bundle.sources) != bundle.hash:
        raise RulebookError(
            tr("the stored texts of {name} do not match their hash", name=bundle.name)
        )
    book = None
    try:
        candidate = dsl.load(bundle.path)
        if bundle_of(candidate).hash == bundle.hash:
            book = candidate
    except RulebookError:
        pass
    if book is None:
        book = _from_texts(bundle)
    if len(_REBUILT) >= 16:
        _REBUILT.pop(next(iter(_REBUILT)))
    _REBUILT[bundle.hash] = book
    return book


def _from_texts(bundle: Bundle) -> dsl.Rulebook:
    with tempfile.TemporaryDirectory(prefix="rulebook-replay-") as folder:
        root = Path(folder).resolve()
        sources = bundle.sources
        here = root
        for source, base in itertools.pairwise(sources):
            # the base is found under the very name the `extends` line gives, beside it
            target = (here / source.extends).resolve()
            here = target.parent
            if root not in target.parents:
                raise RulebookError(
                    tr(
                        (
                            "{name}: `extends {extends}` cannot be rebuilt from the "
                            "journal (it names a file outside its folder)"
                        ),
                        name=bundle.name,
                        extends=source.extends,
                    )
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(base.text, encoding="utf-8")
        main = root / sources[0].file
        main.write_text(sources[0].text, encoding="utf-8")
        return dsl.load_text(sources[0].text, bundle.path, folder=root)


def _texts_in(book: dsl.Rulebook) -> dict[str, str]:
    """The text of every source file some definition of `book` (or its bases) came from."""
    texts: dict[str, str] = {}
    current = book
    while current is not None:
        tables = (
            current.fields,
            current.groups,
            current.derived,
            current.rolls,
            current.ladders,
            current.formulas,
            current.tables,
            current.checks,
            current.opposed,
            current.actions,
        )
        nodes = [node for table in tables for node in table.values()] + list(current.ensures)
        for node in nodes:
            span = getattr(node, "span", None)
            source = getattr(span, "source", None)
            if source is not None and source.name not in texts:
                texts[source.name] = source.text
        current = current.base
    return texts
