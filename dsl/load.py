"""Load a rulebook: read, parse, merge a house rule with the rulebook it extends, check."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from dsl import cache, checked_cache
from dsl import nodes as n
from dsl.bounded import Bounded
from dsl.errors import (
    TOO_DEEP,
    CheckError,
    RulebookError,
    RulebookSyntaxError,
    Source,
    Span,
    did_you_mean,
)
from dsl.messages import tr
from dsl.reading import TooLarge, read_text
from dsl.rulebook import Rulebook
from dsl.unicode_text import HALF_CHARACTER, lone_surrogate

#: how many rulebooks a house rule may stand on, one on another
MAX_EXTENDS = 8
#: largest rulebook file read, in bytes
MAX_FILE_SIZE = 2_000_000
#: most words and symbols a rulebook's text may have outside its comments (see
#: `count_words`), refused before parsing: what loading costs goes with them, about a
#: second (of CPU, on a 2-core machine) per 20 000 as densely written as they can be, so
#: that any text within it is loaded and checked in about a second. Well over twice the
#: largest shipped rulebook (arcana_mundi has about 8 300). An app may pass its own.
MAX_WORDS = 20_000

# A word: letters and digits in a row; a symbol: any other character but a space. A
# comment counts for nothing (`#` up to the end of its line, outside a quoted text); a
# quoted text for the words inside it (its `{...}` parts are parsed too).
_WORD = re.compile(r"\w++|\S")
_QUOTED = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'  # possessive: no backtracking, no stack per character
_QUOTED_OR_COMMENT = re.compile(rf"({_QUOTED})|#[^\n]*+")
_SCAN = re.compile(rf"({_QUOTED})|(#[^\n]*+)|\w++|\S")


def shipped_rulebooks() -> dict[str, Path]:
    """The rulebooks that come with the package, by name (`arcana_mundi`, ...)."""
    folder = resources.files("rulebooks")
    return {
        entry.name[: -len(".rules")]: Path(str(entry))
        for entry in folder.iterdir()
        if entry.name.endswith(".rules")
    }


def resolve(reference: str | Path) -> Path:
    """The file of a rulebook named on a command line or by an app: a path to a `.rules`
    file, or the name of a shipped rulebook."""
    path = Path(reference)
    if path.is_file() or (path.suffix == ".rules" and os.path.lexists(path)):
        return rulebook_file(path)  # (a pipe or a folder of that name: `read` says so)
    shipped = shipped_rulebooks()
    name = str(reference)
    if name in shipped:
        return shipped[name]
    hint = did_you_mean(name, list(shipped)) or tr(
        "shipped rulebooks: {names}", names=", ".join(sorted(shipped))
    )
    raise RulebookError(
        tr("no rulebook file or shipped rulebook named {name}", name=repr(name)), None, hint
    )


def rulebook_file(path: Path) -> Path:
    """`path`, if its name says it is a rulebook: nothing else is ever read (nor quoted
    in an error)."""
    if path.suffix != ".rules":
        raise RulebookError(
            tr("{path}: not a rulebook file (a rulebook's name ends in .rules)", path=str(path))
        )
    return path


Resolver = Callable[[str], tuple[str, str]]
"""An app's own way to find what `extends NAME` names: NAME → (name, text), or a
RulebookError. It replaces the default (shipped names, files beside the house rule)."""


def extended(reference: str, folder: Path | None, span) -> tuple[str, str]:
    """What `extends` may read by default: a shipped rulebook by name, or a `.rules` file
    by a relative path inside the extending file's own folder (no absolute path, no
    `..` out of it, no link leading out of it). Returns (name, text).

    Every reference it does not read gets the same message, whether the file it names is
    missing, outside the folder or not a rulebook: the message never tells whether a
    file exists where the rulebook may not look (a server's client would learn it)."""
    shipped = shipped_rulebooks()
    if reference in shipped:
        return str(shipped[reference]), read(shipped[reference])
    names = tr("shipped rulebooks: {names}", names=", ".join(sorted(shipped)))
    if folder is None:
        raise CheckError(
            tr(
                "no shipped rulebook named {name} (this text is in no folder, so `extends` "
                "names a shipped rulebook)",
                name=reference,
            ),
            span,
            did_you_mean(reference, list(shipped)) or names,
        )
    target = _inside(Path(folder), reference)
    if target is None:
        raise CheckError(
            tr(
                "`extends {name}`: no shipped rulebook of that name, and no .rules file of "
                "that path inside this rulebook's folder",
                name=reference,
            ),
            span,
            did_you_mean(reference, list(shipped))
            or tr(
                "a house rule extends a shipped rulebook by its name, or a .rules file by a "
                "relative path inside its own folder (no absolute path, no `..` out of it, no "
                "link leading out of it); {names}",
                names=names,
            ),
        )
    return str(Path(folder) / reference), read(target)


def _inside(folder: Path, reference: str) -> Path | None:
    """The `.rules` file `reference` names inside `folder`, or None: an absolute path, a
    path out of the folder (by `..` or by a link) or no such file. Paths that leave the
    folder as written are refused before the file system is asked anything."""
    path = Path(reference)
    if path.is_absolute() or path.suffix != ".rules" or "\0" in reference:
        return None
    if os.path.normpath(reference).split(os.sep)[0] == os.pardir:
        return None
    try:
        root = folder.resolve()
        target = (root / path).resolve()
        if root not in target.parents or not target.is_file():
            return None
    except (OSError, RuntimeError, ValueError):  # unreadable, a loop of links
        return None
    return target


def read(path: Path) -> str:
    """A rulebook file's text: a regular file of at most MAX_FILE_SIZE bytes of UTF-8
    (a named pipe or a device is refused, never waited on)."""
    try:
        return read_text(path, MAX_FILE_SIZE)
    except TooLarge:
        raise RulebookError(
            tr("{path}: larger than {max_file_size} bytes", path=path, max_file_size=MAX_FILE_SIZE)
        ) from None
    except UnicodeDecodeError:
        raise RulebookError(tr("{path}: not UTF-8 text", path=path)) from None
    except OSError as error:
        raise RulebookError(
            tr("{path}: cannot be read ({strerror})", path=path, strerror=error.strerror)
        ) from None


def load(
    reference: str | Path, resolver: Resolver | None = None, *, max_words: int = MAX_WORDS
) -> Rulebook:
    """Parse and check a rulebook (a path or a shipped name); raise with positions if bad.
    A house rule's `extends` is found by `resolver`, if given (see `extended`). A text
    of more than `max_words` words and symbols (each of a house rule's chain) is refused
    before it is parsed (see `count_words`).

    Its errors and warnings speak the rulebook's `language` (see `RulebookError.render`)."""
    path = resolve(reference)
    text = read(path)
    try:
        book = load_text(
            text, str(path), folder=path.parent, resolver=resolver, max_words=max_words
        )
    except RulebookError as error:
        raise error.speak(language_written_in(text)) from None
    for warning in book.warnings:
        warning.speak(book.language)
    return book


# `[ \t]*` (not `\s*`) before the word: a search from every line start would otherwise
# scan every blank line after it again
_LANGUAGE = re.compile(r'(?:^|\{)[ \t]*+language\s++"([^"\n]{1,20})"', re.MULTILINE)


def language_written_in(text: str) -> str | None:
    """The `language "es"` of a rulebook's header, read even from text that does not parse."""
    found = _LANGUAGE.search(text[:20_000])
    return found.group(1) if found else None


def load_text(
    text: str,
    name: str = "<rulebook>",
    folder: Path | None = None,
    resolver: Resolver | None = None,
    *,
    max_words: int = MAX_WORDS,
) -> Rulebook:
    """Parse and check rulebook text. A house rule's `extends` names a shipped rulebook,
    or a file inside `folder` (without a folder, only a shipped one); or whatever the
    app's `resolver` says. Each text is at most `max_words` words and symbols."""
    try:
        return _loaded(text, name, folder, resolver, (), max_words)
    except RecursionError:  # an app deep in its own stack left too little of it
        raise CheckError(TOO_DEEP, None) from None


def _loaded(text: str, name: str, folder, resolver, chain: tuple, max_words: int) -> Rulebook:
    """load_text, with the rulebooks already on the way (a house rule's bases)."""
    entry = checked_cache.entry_name(text, name)
    book = None if entry is None else checked_cache.read(entry, Source(name, text), max_words)
    if book is not None:
        return book
    parsed = parse_cached(text, name, max_words)
    header = parsed.header
    if header is None or header.extends is None:
        definitions = [d.definition if isinstance(d, n.Replace) else d for d in parsed.definitions]
        for replaced in (d for d in parsed.definitions if isinstance(d, n.Replace)):
            raise CheckError(
                tr("`replace` is for house rules: this rulebook extends none"),
                replaced.span,
                tr('start with `rulebook "..." extends base { }`'),
            )
        book = check_rulebook(header, definitions, name)
        if entry is not None:
            checked_cache.keep(entry, book, count_words(text), parsed.span.source)
        return book
    if len(chain) >= MAX_EXTENDS:
        raise CheckError(
            tr("more than {max_extends} rulebooks extend one another", max_extends=MAX_EXTENDS),
            header.span,
        )
    if resolver is not None:
        base_name, base_text = resolver(header.extends)
        base_folder = None
    else:
        base_name, base_text = extended(header.extends, folder, header.span)
        base_folder = Path(base_name).parent
    key = str(Path(base_name).resolve()) if resolver is None else base_name
    if key in chain:
        raise CheckError(
            tr("{extends} extends itself, through other rulebooks", extends=header.extends),
            header.span,
        )
    base = _loaded(base_text, base_name, base_folder, resolver, (*chain, key), max_words)
    entry = checked_cache.entry_name(text, name, base)  # (None: the base has no entry)
    if entry is not None:
        book = checked_cache.read(entry, parsed.span.source, max_words, base)
        if book is not None:
            return book
    definitions, changes = merge(_definitions_of(base), parsed.definitions)
    merged_header = n.Header(
        header.title,
        header.extends,
        tuple({**base.header, **dict(header.fields)}.items()),
        span=header.span,
    )
    try:
        book = check_rulebook(merged_header, definitions, name, changes, base)
    except RulebookError as error:  # (a house rule speaks its base's language, unless its own)
        raise error.speak(dict(merged_header.fields).get("language")) from None
    if entry is not None:
        checked_cache.keep(entry, book, count_words(text), parsed.span.source)
    return book


#: characters of rulebook text whose parsed files are kept in memory (a parsed file holds
#: about 14 bytes per character of its text)
PARSED_TEXT = 1_000_000
_PARSED = Bounded(PARSED_TEXT, count=64)


def parse_cached(text: str, name: str, max_words: int = MAX_WORDS) -> n.RulebookFile:
    """Parse a rulebook file, remembering the result by its text; a text of more than
    `max_words` words and symbols is refused before anything else (`within_words`).

    Parsing is most of the cost of loading (a 1000-line rulebook takes a tenth of a
    second or more; reading its AST back, a few hundredths), so parsed files are kept in
    memory and in the user's cache folder as data (`dsl.cache`: JSON, never code); the
    key covers the text, its name and the front end's code, so a change to either parses
    again. Checking always runs.
    """
    within_words(text, name, max_words)
    half = lone_surrogate(text)
    if half is not None:  # (a file read never holds one; an app's text may)
        span = Span(Source(name, text), half, half + 1)
        raise RulebookSyntaxError(HALF_CHARACTER, span)
    written = f"{_FRONT_END}\n{name}\n{text}".encode("utf-8", "surrogatepass")  # (a name's may)
    key = hashlib.sha256(written).hexdigest()
    found = _PARSED.get(key)
    if found is None:
        entry = f"ast-{key[:32]}.json"
        found = _from_cache(entry, name, text)
        if found is None:
            from dsl.build import parse_rulebook_file  # (the parser: when nothing is kept)

            found = parse_rulebook_file(text, name)
            with contextlib.suppress(cache.NotCached, RecursionError):
                cache.write(entry, cache.dumps_tree(found, found.span.source))
    return _PARSED.put(key, found, len(text))


def count_words(text: str) -> int:
    """The words and symbols of a rulebook's text, outside its comments: what its size is
    measured in. A word is letters and digits in a row (`Fuerza`, `2d6`, `10`); a
    symbol is any other character but a space (`(`, `+`, `"`); a comment is nothing;
    a quoted text counts the words and symbols inside it."""
    return len(_WORD.findall(_QUOTED_OR_COMMENT.sub(r"\1", text)))


def within_words(text: str, name: str, max_words: int = MAX_WORDS) -> None:
    """Refuse a text of more than `max_words` words and symbols, at the one past them."""
    if len(text) <= max_words:  # every word or symbol is at least a character
        return
    count = count_words(text)
    if count <= max_words:
        return
    span = _word_span(text, max_words, Source(name, text))
    raise RulebookSyntaxError(
        tr(
            "this rulebook has {count} words and symbols, more than the limit "
            "max_words ({max_words}): it is not parsed",
            count=count,
            max_words=max_words,
        ),
        span,
        tr(
            "split it into a rulebook and house rules that extend it, or an app may pass "
            "a larger max_words to dsl.load"
        ),
    )


def _word_span(text: str, skip: int, source: Source) -> Span:
    """The span of the word or symbol that comes after the first `skip` of them."""
    for found in _SCAN.finditer(text):
        if found.group(2) is not None:  # a comment
            continue
        if found.group(1) is None:
            words = [found]
        else:  # a quoted text: the words inside it
            words = list(_WORD.finditer(text, found.start(), found.end()))
        if skip < len(words):
            word = words[skip]
            return Span(source, word.start(), word.end())
        skip -= len(words)
    return Span(source, len(text), len(text))


def _from_cache(entry: str, name: str, text: str) -> n.RulebookFile | None:
    data = cache.read(entry)
    if data is None:
        return None
    try:
        found = cache.loads_tree(data, Source(name, text))
    except (ValueError, TypeError, KeyError, RecursionError):  # not one of ours: parse again
        return None
    return found if isinstance(found, n.RulebookFile) else None


def check_rulebook(header, definitions: list, name: str, changes=(), base=None) -> Rulebook:
    """`dsl.check.check_definitions`, imported when a rulebook is checked (a warm load
    reads the checked rulebook: it imports neither the checker nor the parser)."""
    from dsl.check import check_definitions

    return check_definitions(header, definitions, name, changes, base)


def _front_end_version() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).parent
    modules = [here / "parser.py", here / "errors.py", here / "cache.py"]
    modules += sorted((here / "build").glob("*.py")) + sorted((here / "nodes").glob("*.py"))
    for module in modules:
        digest.update(module.read_bytes())
    digest.update(resources.files("grammar").joinpath("rulebook.lark").read_bytes())
    return digest.hexdigest()[:16]


_FRONT_END = _front_end_version()


def _definitions_of(rulebook: Rulebook) -> list:
    """The definitions a checked rulebook was made from, in a stable order."""
    sheet_items = (
        list(rulebook.fields.values())
        + list(rulebook.groups.values())
        + list(rulebook.derived.values())
        + list(rulebook.ensures)
    )
    if rulebook.open_skills is not None:
        sheet_items.append(rulebook.open_skills)
    out: list = []
    if sheet_items:
        out.append(n.Sheet(tuple(sheet_items), span=sheet_items[0].span))
    out.extend(rulebook.symbol_declarations)
    for table in (
        rulebook.rolls,
        rulebook.ladders,
        rulebook.formulas,
        rulebook.tables,
        rulebook.checks,
        rulebook.opposed,
        rulebook.actions,
        rulebook.dice,
    ):
        out.extend(table.values())
    return out


def merge(base: list, house: tuple) -> tuple[list, list]:
    """A house rule's definitions on top of its base: `replace` swaps, new names add."""
    merged = list(base)
    by_name = {d.name: i for i, d in enumerate(merged) if not isinstance(d, n.Sheet | n.Symbols)}
    sheet_names = {
        item.name
        for d in merged
        if isinstance(d, n.Sheet)
        for item in d.items
        if hasattr(item, "name")
    }
    changes = []
    for definition in house:
        if isinstance(definition, n.Replace):
            new = definition.definition
            if isinstance(new, n.Sheet):
                raise CheckError(
                    tr("a sheet is not replaced; a house rule's sheet block adds fields"),
                    definition.span,
                )
            if isinstance(new, n.Symbols):
                raise CheckError(
                    tr("symbols are not replaced; a house rule's `symbols` adds symbols"),
                    definition.span,
                )
            if new.name not in by_name:
                raise CheckError(
                    tr(
                        "there is no {kind_of} `{name}` in the base rulebook to replace",
                        kind_of=n.kind_of(new),
                        name=new.name,
                    ),
                    new.span,
                    tr("leave out `replace` to add a new definition"),
                )
            old = merged[by_name[new.name]]
            if type(old) is not type(new):
                raise CheckError(
                    tr(
                        (
                            "`{name}` is a {kind_of} in the base rulebook; a "
                            "{kind_of2} cannot replace it"
                        ),
                        name=new.name,
                        kind_of=n.kind_of(old),
                        kind_of2=n.kind_of(new),
                    ),
                    new.span,
                )
            if isinstance(new, n.Action):
                _same_signature(old, new)
            merged[by_name[new.name]] = new
            changes.append(("replaced", n.kind_of(new), new.name))
        elif isinstance(definition, n.Symbols):
            merged.append(definition)
            changes.extend(("added", "symbol", name) for name, _ in definition.names)
        elif isinstance(definition, n.Sheet):
            for item in definition.items:
                if getattr(item, "name", None) in sheet_names:
                    raise CheckError(
                        tr("the base rulebook's sheet already has `{name}`", name=item.name),
                        item.span,
                    )
            merged.append(definition)
            changes.extend(
                ("added", "sheet field", item.name)
                for item in definition.items
                if hasattr(item, "name")
            )
        else:
            if definition.name in by_name:
                raise CheckError(
                    tr("`{name}` is already defined by the base rulebook", name=definition.name),
                    definition.span,
                    tr(
                        "write `replace {kind_of} {name} ...` to change it",
                        kind_of=n.kind_of(definition),
                        name=definition.name,
                    ),
                )
            by_name[definition.name] = len(merged)
            merged.append(definition)
            changes.append(("added", n.kind_of(definition), definition.name))
    return merged, changes


def _same_signature(old: n.Action, new: n.Action) -> None:
    """A replaced action still accepts every call the base action accepted."""
    new_params = {p.name: p for p in new.params}
    for param in old.params:
        match = new_params.get(param.name)
        if match is None:
            raise CheckError(
                tr(
                    (
                        "the replaced action {name} drops the parameter "
                        "`{name2}`; callers of the base action pass it"
                    ),
                    name=new.name,
                    name2=param.name,
                ),
                new.span,
            )
        if match.type != param.type:
            raise CheckError(
                tr(
                    "the replaced action {name} changes the type of `{name2}`",
                    name=new.name,
                    name2=param.name,
                ),
                match.span,
                tr(
                    "the base action has `{name}: {text}`",
                    name=param.name,
                    text=param.type.span.text,
                ),
            )
        if match.default is None and param.default is not None:
            raise CheckError(
                tr(
                    "`{name}` had a default in the base action; the replacement must keep one",
                    name=param.name,
                ),
                match.span,
            )
    old_names = {p.name for p in old.params}
    for param in new.params:
        if param.name not in old_names and param.default is None:
            raise CheckError(
                tr(
                    (
                        "the new parameter `{name}` needs a default, so that calls "
                        "written for the base action still work"
                    ),
                    name=param.name,
                ),
                param.span,
            )
