"""A rulebook as the journal keeps it: every file it was built from, and one hash of them.

A house rule is its own file and the files it `extends`, so the bundle lists them all,
the house rule first, each with the `extends` reference it was written with. The hash
covers names and texts, so two different rulebooks never share one. `rebuild` turns a
stored bundle back into a checked Rulebook from its texts alone, in memory: the files it
came from may have changed since, and a record's or a journal's names are never paths to
read or write (`extends` is answered by the bundle's own next text).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath

import attrs

import dsl
from dsl.errors import RulebookError
from dsl.load import language_written_in, parse_cached, read
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
    sources = []
    current: dsl.Rulebook | None = book
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
    """The checked rulebook of a stored bundle, from its own texts alone: nothing is read
    from a file and nothing written (its names are only names, shown in traces). Each
    `extends` is answered with the bundle's next text, so the rulebook is the one the
    bundle holds whatever files are here now."""
    key = (bundle.hash, bundle.path)
    found = _REBUILT.get(key)
    if found is not None:
        return found
    if not bundle.sources or bundle_hash(bundle.sources) != bundle.hash:
        raise RulebookError(
            tr("the stored texts of {name} do not match their hash", name=bundle.name)
        )
    chain = _Chain(bundle)
    book = dsl.load_text(bundle.sources[0].text, bundle.path, resolver=chain)
    if chain.given != len(bundle.sources):
        raise RulebookError(
            tr(
                "the stored texts of {name} do not fit together: {count} of them are "
                "extended by none",
                name=bundle.name,
                count=len(bundle.sources) - chain.given,
            )
        )
    if len(_REBUILT) >= 16:
        _REBUILT.pop(next(iter(_REBUILT)))
    _REBUILT[key] = book
    return book


class _Chain:
    """The resolver of a bundle's `extends`: the first gets the bundle's second text,
    the next its third, and so on, each under the name it had (a shipped rulebook's
    file, or the path beside the file that extends it)."""

    def __init__(self, bundle: Bundle):
        self.bundle = bundle
        self.given = 1
        self.names = [bundle.path]

    def __call__(self, reference: str) -> tuple[str, str]:
        sources = self.bundle.sources
        if self.given >= len(sources) or sources[self.given - 1].extends != reference:
            raise RulebookError(
                tr(
                    "{name}: `extends {extends}` names no text the journal keeps of it",
                    name=self.bundle.name,
                    extends=reference,
                )
            )
        shipped = dsl.shipped_rulebooks()
        if reference in shipped:
            name = str(shipped[reference])
        else:
            name = str(PurePosixPath(self.names[-1]).parent / reference)
        self.names.append(name)
        self.given += 1
        return name, sources[self.given - 1].text


def _texts_in(book: dsl.Rulebook) -> dict[str, str]:
    """The text of every source file some definition of `book` (or its bases) came from."""
    texts: dict[str, str] = {}
    current: dsl.Rulebook | None = book
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


def written_language(texts) -> str | None:
    """The `language` a rulebook's header names, from its texts (the house rule first,
    then what it extends: the first that names one), read without parsing them."""
    for text in texts:
        found = language_written_in(text) if isinstance(text, str) else None
        if found is not None:
            return found
    return None


def entry_language(journal, entry) -> str | None:
    """The language of the rulebook a journal entry was run with (a rulebook file saved
    over: the language its text names); None when it names none or cannot be read."""
    try:
        if entry.kind == "rulebook":
            return written_language(journal.text(s.after) for s in entry.sheets)
        if entry.rulebook is None:
            return None
        row = journal.rulebook_row(entry.rulebook)
        return written_language(journal.text(s["text"]) for s in row["sources"])
    except RulebookError:  # (a damaged row: the command that reads it says so)
        return None


def journal_language(journal, entries) -> str | None:
    """The language of the newest of `entries` (a journal's, newest first) that names one:
    what a command about the whole journal speaks."""
    for entry in entries:
        found = entry_language(journal, entry)
        if found is not None:
            return found
    return None
