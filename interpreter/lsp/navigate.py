"""A name's definition, its uses, its renaming.

In the document and in the rulebooks it extends (a house rule's base, shipped or beside
it)."""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from dsl.errors import RulebookError
from dsl.load import read, shipped_rulebooks
from dsl.messages import tr
from dsl.parser import keywords
from interpreter.lsp.analysis import Analysis, analyse
from interpreter.lsp.index import LOCAL_KINDS, Index, Site, index_of

_NAME = re.compile(r"[^\W\d]\w*")


@attrs.frozen
class Place:
    """A name's site in a file: the file's path and text, its index, the site."""

    path: str
    text: str
    index: Index
    site: Site


def chain(analysis: Analysis) -> list[tuple[str, str]]:
    """(path, text) of the document and of every rulebook it extends, nearest first."""
    out = [(analysis.path, analysis.text)]
    book = analysis.book.base if analysis.book is not None else None
    while book is not None:
        source = _source_of(book)
        if source is not None and source not in out:
            out.append(source)
        book = book.base
    return out


def _source_of(book) -> tuple[str, str] | None:
    """(path, text) of the file a checked rulebook was read from."""
    for table in (book.actions, book.checks, book.tables, book.formulas, book.fields):
        for node in table.values():
            if node.span is not None and node.span.source.name == book.path:
                return book.path, node.span.source.text
    return None


def definition(text: str, path: str, offset: int) -> Place | None:
    """Where the name at `offset` is defined (in this file or a base), or None."""
    analysis = analyse(text, path)
    site = analysis.index.site_at(offset)
    if site is None:
        return None
    found = analysis.index.resolve(site)
    if found is not None:
        return Place(path, text, analysis.index, found)
    if site.field:
        return None
    for base_path, base_text in chain(analysis)[1:]:
        index = index_of(base_text, base_path)
        found = index.definitions().get(site.name)
        if found is not None:
            return Place(base_path, base_text, index, found)
    return None


def references(text: str, path: str, offset: int, declaration: bool = True) -> list[Place]:
    """Every use of the name at `offset` (its definition too, if `declaration`), in the
    document and the rulebooks of its chain, that names the same definition."""
    target = definition(text, path, offset)
    if target is None:
        return []
    analysis = analyse(text, path)
    local = target.site.kind in LOCAL_KINDS
    out = []
    for file_path, file_text in chain(analysis):
        index = analysis.index if file_path == path else index_of(file_text, file_path)
        for site in index.sites:
            if site.name != target.site.name or site.field or (site.kind and not declaration):
                continue
            resolved = index.resolve(site)
            if local:
                same = (
                    resolved is not None
                    and file_path == target.path
                    and resolved.start == target.site.start
                )
            else:  # a global means one thing along a house rule's chain (`replace` too)
                same = resolved is None or resolved.kind not in LOCAL_KINDS
            if same:
                out.append(Place(file_path, file_text, index, site))
    return out


class RenameError(RulebookError):
    """A rename that cannot be done: said why."""

    code = "invalid_input"


def rename(text: str, path: str, offset: int, new_name: str) -> dict[str, list[tuple]]:
    """The edits that rename the name at `offset` everywhere it names the same thing:
    {path: [(start, end, new text)]}. A name that is not a plain word is written
    'quoted'. Raises RenameError where nothing can be renamed."""
    new_name = new_name.strip()
    if not new_name or "'" in new_name or "\n" in new_name:
        raise RenameError(tr("{name} cannot be a name", name=repr(new_name)))
    written = new_name if _NAME.fullmatch(new_name) and not _reserved(new_name) else f"'{new_name}'"
    places = references(text, path, offset)
    if not places:
        raise RenameError(tr("there is no name here that can be renamed"))
    shipped = {str(p) for p in shipped_rulebooks().values()}
    for place in places:
        if place.path in shipped and place.path != path:
            raise RenameError(
                tr(
                    "`{name}` is also written in the shipped rulebook {path}, which is not changed",
                    name=place.site.name,
                    path=place.path,
                )
            )
    edits: dict[str, list[tuple]] = {}
    for place in places:
        edits.setdefault(place.path, []).append((place.site.start, place.site.end, written))
    return edits


def _reserved(word: str) -> bool:
    return word in keywords()[0]


def read_text(path: str) -> str:
    """The text of a file of a rulebook's chain (for placing edits in it)."""
    return read(Path(path))
