"""The server's FOLDER: rulebooks and characters by name, shipped or the folder's, confined.

The client names things; it never gives a path. A name is a file's stem (`brujeria`,
`menecma`); the folder's files come first, then the shipped ones. Nothing outside the
folder is read or written: files are listed from it (symbolic links leading out are
left out), and a rulebook's `extends` reads a shipped rulebook or a `.rules` file inside
its own folder (dsl.load.extended: the same message for a file missing and a file it
may not read).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import time
from importlib import resources
from pathlib import Path

import dsl
from dsl.bounded import Bounded, text_size
from dsl.errors import RulebookError, did_you_mean
from dsl.load import language_written_in, read
from dsl.messages import tr
from interpreter.errors import ParameterError
from interpreter.safe_files import Refused
from interpreter.sheets.character import NOT_A_SHEET, read_file, rulebook_named_in

#: what a client may call a rulebook or a character: a file stem, never a path
NAME = re.compile(r"[^\W_][\w-]{0,99}")
CHARACTER_SUFFIXES = (".yaml", ".yml", ".json")
#: files of one kind listed from the folder, at most
MAX_FILES = 500
#: characters of rulebook text kept checked: the folder's and shipped rulebooks', and
#: apart, the texts given in requests (the editor's: a new one on every edit)
BOOKS_TEXT = 1_000_000
TEXTS_TEXT = 1_000_000
#: characters of sheet text kept read (each sheet by its file's stamp and its rulebook)
SHEETS_TEXT = 4_000_000
#: nanoseconds: a file written this close to when it was read may be written again
#: within the same tick of its clock (same stamp): it is compared by its text when asked
#: for again, the parse alone spared (as git's "racily clean" entries are); a folder
#: changed this close to now is listed again. The tick of a file system that stamps in
#: whole seconds (FAT's is 2 s)
RACY_NS = 2_000_000_000
#: the same, for a stamp with a fraction of a second: its file system's clock ticks every
#: few milliseconds (Linux's at each kernel tick, at most 10 ms; NTFS's about 16 ms). The
#: table's journal (journal.sqlite, in the folder) makes and removes its files as the
#: table's thread comes and goes: the folder changes every few seconds, and with the
#: 2 s of a coarse clock, nearly every run listed the folder anew (a fifth of a worker's
#: time on a cheap run)
RACY_FINE_NS = 50_000_000
#: whether a stamp's fraction of a second says its clock is fine (off: RACY_NS for all)
FINE_STAMPS = True


_SHIPPED = Bounded(BOOKS_TEXT)  # a shipped rulebook's path → (file stamps, Rulebook)


class NotFound(ParameterError):
    """A rulebook or character name the server does not offer (HTTP 404)."""

    code = "not_found"


class VersionRequired(ParameterError):
    """A rulebook file saved over without naming the version it replaces (HTTP 428)."""

    code = "version_required"


class VersionMismatch(ParameterError):
    """A rulebook file saved over that is not the version named any more (HTTP 412)."""

    code = "version_mismatch"


def version_of(text: str) -> str:
    """A rulebook file's version, as its ETag: the hash of its text, quoted."""
    return '"' + hashlib.sha256(text.encode("utf-8")).hexdigest() + '"'


_UNSEEN = object()  # (no stamp given: Library._listed takes one)


class Library:
    """The rulebooks and characters a server offers, and the only files it touches."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).resolve()
        if not self.folder.is_dir():
            raise ParameterError(tr("{folder}: not a folder", folder=str(folder)))
        self.shipped_characters = Path(str(resources.files("rulebooks.characters")))
        self._books = Bounded(BOOKS_TEXT)  # path → (file stamps, Rulebook)
        self._texts = Bounded(TEXTS_TEXT)  # sha256 of a text → (file stamps, Rulebook)
        self._listings: dict = {}  # a pattern → (the folder's stamp, its files)
        self._made: dict = {}  # "rules", "characters" → (the listings, the files by name)
        # (path, rulebook, limits) → (rulebook, file stamp, text if racy, Sheet)
        self._sheets = Bounded(SHEETS_TEXT)

    # ─── rulebooks ──────────────────────────────────────────────────────────

    def rulebook_files(self) -> dict[str, tuple[Path, str]]:
        """Every rulebook by name: (its file, "folder" or "shipped"); not to be changed
        (made again only when a listing it is made of is)."""
        shipped, mine = _shipped_rulebooks(), self._listed("*.rules")
        return self._files("rules", (shipped, mine), lambda: self._rulebooks_of(shipped, mine))

    @staticmethod
    def _rulebooks_of(shipped: dict, mine: list) -> dict[str, tuple[Path, str]]:
        found = {name: (path, "shipped") for name, path in shipped.items()}
        found.update({path.stem: (path, "folder") for path in mine})
        return dict(sorted(found.items()))

    def _files(self, kind: str, made_of: tuple, make) -> dict:
        """A listing of `kind` kept while the listings it is `made_of` are the very same
        objects (each kept while its folder does not change)."""
        kept = self._made.get(kind)
        if kept is not None and all(a is b for a, b in zip(kept[0], made_of, strict=True)):
            return kept[1]
        files = make()
        self._made[kind] = (made_of, files)
        return files

    def rulebook_path(self, name: str, files: dict | None = None) -> Path:
        """The file of the rulebook NAME (of `files`, the listing just read, if given)."""
        files = self.rulebook_files() if files is None else files
        if isinstance(name, str) and name in files:  # (the messages below only when not)
            return files[name][0]
        unknown = tr("no rulebook named {name}", name=repr(name))
        return _named(files, name, unknown, tr("rulebooks: {names}", names=", ".join(files)))

    def rulebook(self, name: str) -> dsl.Rulebook:
        """A rulebook by name, checked; compiled once while its files do not change."""
        files = self.rulebook_files()
        path = self.rulebook_path(name, files)
        # The shipped rulebooks are the same for every folder: kept once per process
        # (a server's worker processes start with them loaded: interpreter.web.preload).
        # (a folder's rulebook named as a shipped one is the folder's: listed so)
        books = _SHIPPED if files[name][1] == "shipped" else self._books
        kept = books.get(path)
        if kept is not None and kept[0] == _stamps(kept[1]):
            return kept[1]
        text = read(path)
        book = self._load(text, str(path), path.parent)
        books.put(path, (_stamps(book), book), text_size(book))
        return book

    def rulebook_text(self, text: str, name: str = "<editor>") -> dsl.Rulebook:
        """A rulebook given as text (a house rule being written); its bases from the folder."""
        key = hashlib.sha256(f"{name}\n{text}".encode()).hexdigest()
        kept = self._texts.get(key)
        if kept is not None and kept[0] == _stamps(kept[1]):
            return kept[1]
        book = self._load(text, name, self.folder)
        self._texts.put(key, (_stamps(book), book), text_size(book))
        return book

    def _load(self, text: str, name: str, folder: Path) -> dsl.Rulebook:
        """Loaded as `dsl.load` does, its errors and warnings in the rulebook's language
        (the editor's diagnostics of a Spanish rulebook are in Spanish)."""
        try:
            book = dsl.load_text(text, name, folder=folder)
        except RulebookError as error:
            raise error.speak(language_written_in(text)) from None
        for warning in book.warnings:
            warning.speak(book.language)
        return book

    def name_of(self, book: dsl.Rulebook) -> str | None:
        """The name a loaded rulebook is offered under (None for an editor's text)."""
        for name, (path, _source) in self.rulebook_files().items():
            if str(path) == book.path:
                return name
        return None

    def rulebook_target(self, name: str, text: str) -> Path:
        """Where a rulebook saved as NAME is written (FOLDER/NAME.rules), once its text
        loads; never a shipped rulebook, never through a link."""
        _check_name(name)
        if name in dsl.shipped_rulebooks():
            raise ParameterError(
                tr("{name} is a shipped rulebook and is not overwritten", name=name),
                None,
                tr("save it under another name; a house rule starts `extends {name}`", name=name),
            )
        target = self.folder / f"{name}.rules"
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise Refused(  # the file's state refuses the save (409), as a sheet's link does
                tr(
                    "{file} in the folder is a link or not a file: it is not written",
                    file=target.name,
                ),
                hint=tr("save under another name"),
                path=str(target),
            )
        self.rulebook_text(text, str(target))  # raises with every diagnostic if it is bad
        return target

    # ─── characters ─────────────────────────────────────────────────────────

    def character_files(self) -> dict[str, tuple[Path, str]]:
        """Every character by name: (its file, "folder" or "shipped"); not to be changed
        (made again only when a listing it is made of is)."""
        shipped = _shipped_characters(self.shipped_characters)
        stamp = _folder_stamp(self.folder)  # (one look at the folder for every suffix)
        listed = tuple(self._listed(f"*{suffix}", stamp) for suffix in CHARACTER_SUFFIXES)
        return self._files(
            "characters", (shipped, *listed), lambda: self._characters_of(shipped, listed)
        )

    @staticmethod
    def _characters_of(shipped: dict, listed: tuple) -> dict[str, tuple[Path, str]]:
        found = dict(shipped)
        mine: dict = {}
        for paths in listed:
            for path in paths:
                mine.setdefault(path.stem, (path, "folder"))
        found.update(mine)
        return dict(sorted(found.items()))

    def character_path(self, name: str) -> Path:
        files = self.character_files()
        if isinstance(name, str) and name in files:  # (the messages below only when not)
            return files[name][0]
        unknown = tr("no character named {name}", name=repr(name))
        return _named(files, name, unknown, tr("characters: {names}", names=", ".join(files)))

    def sheet(self, engine, path: Path):
        """The character's sheet at `path` as `engine` reads it: read once per file stamp
        (its inode, size, modification and change times), again once the file changes.
        A sheet is immutable, so the one kept is given out again as it is."""
        stamp = _file_stamp(path)
        key = (str(path), id(engine.rulebook), engine.limits)
        kept = self._sheets.get(key)
        if kept is not None and kept[0] is engine.rulebook and kept[1] == stamp:
            racy = kept[2]
            if racy is None:
                return kept[3]
            now = time.time_ns()
            if _text_now(path) == racy:
                # read well after its write: a later write has a later stamp, so its text
                # need not be read again
                if stamp is not None and not _racy(stamp[2], now):
                    self._sheets.put(key, (*kept[:2], None, kept[3]), len(racy))
                return kept[3]
        sheet = engine.load_sheet(path)
        if stamp is not None and sheet.text is not None:
            racy = sheet.text if _racy(stamp[2], time.time_ns()) else None
            self._sheets.put(key, (engine.rulebook, stamp, racy, sheet), len(sheet.text))
        return sheet

    def forget_sheets(self, paths=None) -> None:
        """Drop the sheets kept for these files (just written: read again when asked);
        every sheet, without `paths`."""
        if paths is None:
            self._sheets.clear()
            return
        gone = {str(path) for path in paths}
        for key in [key for key in self._sheets.kept() if key[0] in gone]:
            self._sheets.pop(key)

    def characters(self, book: dsl.Rulebook | None = None) -> list[dict]:
        """The characters, each with the rulebook its file names; only those for `book`
        (or a rulebook it extends) when one is given."""
        wanted: set | None = None
        if book is not None:
            wanted = set()
            current: dsl.Rulebook | None = book
            while current is not None:
                wanted.add(Path(current.path).stem)
                current = current.base
        out = []
        for name, (path, source) in self.character_files().items():
            rulebook = rulebook_named_in(path)
            if rulebook is NOT_A_SHEET:
                continue
            if wanted is not None and rulebook is not None and rulebook not in wanted:
                continue
            out.append({"name": name, "rulebook": rulebook, "source": source})
        return out

    def save_target(self, name: str) -> Path:
        """Where a character's changed sheet is written: its own file in the folder, or,
        for a shipped character, a copy in the folder (the package is never written)."""
        path = self.character_path(name)
        if self.character_files()[name][1] == "shipped":
            return self.folder / path.name
        return path

    # ─── the folder ─────────────────────────────────────────────────────────

    def _listed(self, pattern: str, stamp=_UNSEEN) -> list[Path]:
        """The folder's files of a pattern (`*.rules`), as named, inside the folder: listed
        again when the folder changes (an entry made, removed or renamed changes its
        stamp, taken now unless given); a listing with a link in it, every time (where a
        link leads may change without its folder changing)."""
        if stamp is _UNSEEN:
            stamp = _folder_stamp(self.folder)
        kept = self._listings.get(pattern)
        if kept is not None and stamp is not None and kept[0] == stamp:
            return kept[1]
        out, links = [], False
        for path in sorted(self.folder.glob(pattern))[:MAX_FILES]:
            if not NAME.fullmatch(path.stem) or not path.is_file():
                continue
            links = links or path.is_symlink()
            if path.resolve().is_relative_to(self.folder):
                out.append(path)
        if not links:
            self._listings[pattern] = (stamp, out)
        return out


_LISTED: dict = {}  # a shipped folder → (its stamp, its listing)


def _folder_stamp(folder: Path) -> tuple | None:
    """What tells that a folder's entries changed; None if it cannot be read."""
    try:
        info = os.stat(folder)
    except OSError:
        return None
    if _racy(info.st_mtime_ns, time.time_ns()):  # changed just now: listed again
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_ctime_ns)


def _racy(stamp_ns: int, now_ns: int) -> bool:
    """Whether a file or folder stamped at `stamp_ns` may change again within the same
    tick of its clock (the same stamp), seen at `now_ns`: a stamp in whole seconds is
    of a clock that may tick every 2 s, one with a fraction of a second of a fine one
    (a whole second by chance, one stamp in many: the coarse clock's bound, as before)."""
    fine = FINE_STAMPS and stamp_ns % 1_000_000_000 != 0
    return now_ns - stamp_ns < (RACY_FINE_NS if fine else RACY_NS)


def _listing_of(folder: Path, make) -> dict:
    """A shipped folder's listing, made again only when the folder changes (its stamp)."""
    stamp = _folder_stamp(folder)
    kept = _LISTED.get((folder, make))
    if kept is not None and stamp is not None and kept[0] == stamp:
        return kept[1]
    listing = make(folder)
    _LISTED[folder, make] = (stamp, listing)
    return listing


def _shipped_rulebooks() -> dict[str, Path]:
    """dsl.shipped_rulebooks(), listed again only when their folder changes."""
    return _listing_of(_shipped_folder(), _list_rulebooks)


@functools.cache
def _shipped_folder() -> Path:
    return Path(str(resources.files("rulebooks")))


def _list_rulebooks(folder: Path) -> dict[str, Path]:  # noqa: ARG001 (a listing of `folder`: _listing_of)
    return dsl.shipped_rulebooks()


def _list_characters(folder: Path) -> dict[str, tuple[Path, str]]:
    found: dict = {}
    for suffix in CHARACTER_SUFFIXES:
        for path in sorted(folder.glob(f"*{suffix}")):
            found.setdefault(path.stem, (path, "shipped"))
    return found


def _shipped_characters(folder: Path) -> dict[str, tuple[Path, str]]:
    return _listing_of(folder, _list_characters)


def _named(files: dict, name, unknown, listing) -> Path:
    """The file offered under `name`, or NotFound with a did-you-mean (else the list)."""
    if not isinstance(name, str) or name not in files:
        raise NotFound(unknown, None, did_you_mean(str(name), list(files)) or listing)
    return files[name][0]


def _check_name(name) -> None:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ParameterError(
            tr("{name} is not a name for a rulebook", name=repr(name)),
            None,
            tr("a name is letters, digits, _ and -, starting with a letter or digit (no path)"),
        )


def _file_stamp(path: Path) -> tuple | None:
    """What tells that a file changed: (inode, size, mtime, ctime), ns; None if unreadable."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_dev)


def _text_now(path: Path) -> str | None:
    try:
        return read_file(path)[0]
    except RulebookError:
        return None


def _stamps(book) -> tuple:
    """What tells that a rulebook's files changed: each file's size and time, base first."""
    out: list[tuple] = []
    current = book
    while current is not None:
        try:
            info = os.stat(current.path)
            out.append((current.path, info.st_mtime_ns, info.st_size))
        except OSError:
            out.append((current.path, None, None))
        current = current.base
    return tuple(out)
