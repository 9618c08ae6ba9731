"""A document checked as `rulebook check` checks it.

Everything an editor asks about one text is computed once per version of that text and
kept (a few documents at a time): its parse index, the checked rulebook if it checks,
its diagnostics in the rulebook's own language.
"""

from __future__ import annotations

import threading
from pathlib import Path

import attrs

import dsl
from dsl.errors import RulebookError, RulebookInvalid
from dsl.load import language_written_in
from dsl.rulebook import Rulebook
from interpreter.lsp.index import Index, index_of

#: documents whose analysis is kept (an editor has a few open at a time)
KEPT = 16


@attrs.define
class Analysis:
    """One version of a document: its text, where it is, what the checker made of it."""

    text: str
    path: str  # a file's path, or a name such as "<editor>" for a text in no folder
    index: Index
    book: Rulebook | None
    findings: list  # the errors (if it does not check) and the warnings, as RulebookErrors
    language: str | None


_LOCK = threading.Lock()
_KEPT: dict[tuple[str, str], Analysis] = {}
_CHECKED: dict[str, Rulebook] = {}  # the last version of each document that checked
_PARSED: dict[str, Index] = {}  # and the last that parsed


def last_checked(path: str) -> Rulebook | None:
    """The rulebook of the last version of a document that checked (what an editor
    completes with while the text being typed does not check)."""
    return _CHECKED.get(path)


def last_parsed(path: str) -> Index | None:
    """The index of the last version of a document that parsed."""
    return _PARSED.get(path)


def _remember(kept: dict, key, value) -> None:
    """Keep `value` under `key`, the oldest of more than KEPT going (the page's server
    answers from several threads: one at a time here)."""
    with _LOCK:
        kept.pop(key, None)
        kept[key] = value
        while len(kept) > KEPT:
            kept.pop(next(iter(kept)))


def analyse(text: str, path: str = "<editor>") -> Analysis:
    """The analysis of a document's text (a file's path lets `extends` read the files
    beside it; shipped rulebooks are always there)."""
    key = (path, text)
    found = _KEPT.get(key)
    if found is not None:
        return found
    language = language_written_in(text)
    folder = Path(path).parent if Path(path).is_absolute() else None
    book, findings = None, []
    try:
        book = dsl.load_text(text, path, folder=folder)
        findings = list(book.warnings)
    except RulebookInvalid as invalid:
        findings = list(invalid.diagnostics)
    except RulebookError as error:
        findings = [error]
    except RecursionError:  # an app's (the server's) stack: said as the checker says it
        findings = [RulebookError(dsl.errors.TOO_DEEP)]
    analysis = Analysis(text, path, index_of(text, path), book, findings, language)
    _remember(_KEPT, key, analysis)
    if book is not None:
        _remember(_CHECKED, path, book)
    if analysis.index.tree is not None:
        _remember(_PARSED, path, analysis.index)
    return analysis
