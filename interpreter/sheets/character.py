"""Character sheets: read from YAML or JSON, checked against the rulebook, never mutated.

A sheet file is a mapping of field names to values. Resources give their current value
(their maximum is computed, never stored); a resource kept per group is a mapping
(`dinamis: {Virtus: 5, ...}`); skills outside the rulebook's named ones go under
`skills:`; a catalog is a mapping of entry names to their fields. The key `rulebook`
may name the rulebook the sheet is for.

Saving writes back only the values that changed, into the file's own text (comments,
order and style kept: `interpreter.sheets.writer`), after checking that the file is still
what was read; it is atomic (a temporary file, fsync, rename, folder fsync) and holds
the folder's lock (`interpreter.safe_files`). A shipped character is never written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from dsl.messages import tr
from dsl.reading import TooLarge, read_text
from interpreter import safe_files
from interpreter.compile import Compiler
from interpreter.errors import SheetChanged, SheetError, ShippedSheet
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.sheets import parsing, writer
from interpreter.sheets.key_warnings import key_warnings
from interpreter.sheets.rules import complete
from interpreter.sheets.validation import META_KEYS, validate
from interpreter.values import PLAIN_TYPES, Record

_ABSENT = object()

#: largest sheet file read, in bytes
MAX_SHEET_SIZE = 1_000_000


if TYPE_CHECKING:  # for the type hints only
    from dsl.rulebook import Rulebook


class Sheet:
    """A character: field values checked against a rulebook's sheet schema. Immutable."""

    __slots__ = ("_values", "meta", "path", "rulebook", "text", "text_format", "warnings")

    def __init__(
        self,
        rulebook: Rulebook,
        values: dict,
        meta: dict | None = None,
        path: str | None = None,
        text_format: str = "yaml",
        text: str | None = None,
    ):
        self.rulebook = rulebook
        self._values = values  # never mutated; a run copies before writing
        self.meta = dict(meta or {})
        self.path = path
        self.text_format = text_format
        self.text = text  # the file's text as read (None: not read from a file)
        #: what the file says that may not be what it seems (interpreter.sheets.key_warnings),
        #: each a SheetWarning placed at its line and column
        self.warnings: tuple = ()

    @property
    def values(self) -> Mapping:
        """Every field's value, read-only."""
        return MappingProxyType(self._values)

    def __getitem__(self, name):
        value = self._values[name]
        return MappingProxyType(value) if isinstance(value, dict) else value

    def get(self, path: str, default: object = None) -> object:
        """A value by path: `Fides`, `dinamis.Virtus`, `skills.Sigilo`."""
        name, _, key = path.partition(".")
        if name == "skills" and key:
            return self._values.get(key, default)
        value = self._values.get(name, default)
        if key and isinstance(value, dict):
            return value.get(key, default)
        return value

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Sheet)
            and other._values == self._values
            and other.rulebook is self.rulebook
        )

    def __hash__(self):
        return hash(id(self))

    def __repr__(self) -> str:
        return f"Sheet({self.path or 'unsaved'})"

    # ─── reading ────────────────────────────────────────────────────────────

    @classmethod
    def load(cls, path: str | Path, rulebook: Rulebook, limits: Limits = DEFAULT_LIMITS) -> Sheet:
        """A sheet file (YAML, or JSON by its suffix), checked against the rulebook."""
        text, text_format = read_file(path)
        return cls.from_text(text, rulebook, str(path), text_format, limits)

    @classmethod
    def from_text(
        cls,
        text: str,
        rulebook: Rulebook,
        path: str | None = None,
        text_format: str = "yaml",
        limits: Limits = DEFAULT_LIMITS,
    ) -> Sheet:
        """A sheet from a file's text (kept, so that a save writes only what changed)."""
        if len(text) > MAX_SHEET_SIZE:
            raise SheetError(
                tr("larger than {max_sheet_size} characters", max_sheet_size=MAX_SHEET_SIZE),
                path=path,
            )
        data, places = parsing.read(text, text_format, path)
        try:
            sheet = cls.from_data(data, rulebook, path, text_format, limits, text)
        except SheetError as error:  # placed from the reading's own nodes: not read again
            for each in error.every_value:
                places.locate(each)
            raise places.locate(error) from None
        sheet.warnings = tuple(places.locate(w) for w in key_warnings(data, rulebook, path))
        return sheet

    @classmethod
    def from_data(
        cls,
        data: dict,
        rulebook: Rulebook,
        path: str | None = None,
        text_format: str = "yaml",
        limits: Limits = DEFAULT_LIMITS,
        text: str | None = None,
        compiler: Compiler | None = None,
    ) -> Sheet:
        """A sheet from plain data (as a YAML or JSON file gives), checked and completed:
        resources left out start full; bounds and `ensure` rules are checked. (`compiler`:
        the rulebook's, where the caller holds it: an Engine's.)"""
        if not isinstance(data, dict):
            raise SheetError(tr("a sheet is a mapping of field names to values"), path=path)
        meta = {k: data[k] for k in META_KEYS if k in data}
        values = validate(data, rulebook, path, limits)
        complete(compiler or Compiler.of(rulebook), values, limits, path)
        sheet = cls(rulebook, values, meta, path, text_format, text)
        sheet.warnings = tuple(key_warnings(data, rulebook, path))  # (placed by from_text)
        return sheet

    # ─── writing ────────────────────────────────────────────────────────────

    def to_data(self) -> dict:
        """The sheet as plain data, in the shape of a sheet file."""
        out = dict(self.meta)
        skills = {}
        fields = self.rulebook.fields
        for name, value in self._values.items():
            if name not in fields:  # a skill from the open list
                skills[name] = value
                continue
            out[name] = _plain(value)
        if skills:
            out["skills"] = skills
        return out

    def dumps(self, text_format: str | None = None) -> str:
        """The whole sheet as a new file's text (for a sheet that has no file yet)."""
        return writer.render_new(self.to_data(), text_format or self.text_format)

    def file_text(self, base: Sheet | None = None, current: str | None = None) -> str:
        """The text to save: `current` (the file as it is, by default the text `base`
        was read from) with only the values that differ from `base` written in, checked
        by reading it back. `base` is the sheet as read; by default this sheet itself."""
        base = base if base is not None else self
        current = current if current is not None else base.text
        if current is None:
            return self.dumps()
        if base.text is None or current != base.text:
            base = Sheet.from_text(current, self.rulebook, self.path, base.text_format)
        old, new = base.to_data(), self.to_data()
        order = self.rulebook.fields
        text = writer.rewrite(current, base.text_format, old, new, order)
        stale = self._read_back_otherwise(text, base.text_format)
        if stale:  # left out of the file, they read back otherwise: written out
            written = parse_text(current, base.text_format, self.path)
            for key in stale:
                if key in written:
                    old[key] = written[key]
                else:
                    old.pop(key, None)
            text = writer.rewrite(current, base.text_format, old, new, order)
        self.check_written(text, base.text_format)
        return text

    def _read_back_otherwise(self, text: str, text_format: str) -> list[str]:
        """The fields of the rulebook that `text` reads back with another value than
        this sheet's: a resource the file leaves out (read back full) whose maximum
        moved with a value the run changed. Empty when the text does not read back
        (check_written says why)."""
        try:
            again = Sheet.from_text(text, self.rulebook, self.path, text_format)
        except SheetError:
            return []
        fields = self.rulebook.fields
        return [
            key
            for key, value in self._values.items()
            if key in fields and again._values.get(key, _ABSENT) != value
        ]

    def check_written(self, text: str, text_format: str) -> None:
        """Raise unless `text` reads back as exactly this sheet (nothing lost, nothing
        added): the last guard before a file is replaced."""
        try:
            again = Sheet.from_text(text, self.rulebook, self.path, text_format)
        except SheetError as error:
            raise SheetError(
                tr(
                    "the sheet could not be written back safely ({message}); nothing was saved",
                    message=error.message,
                ),
                path=self.path,
            ) from None
        if again._values != self._values or again.meta != self.meta:
            raise SheetError(
                tr(
                    "the sheet could not be written back without "
                    "changing other values; nothing was saved"
                ),
                path=self.path,
            )

    def save(self, path: str | Path | None = None, base: Sheet | None = None) -> str:
        """Write the sheet back: only its changed values, atomically, under the folder's
        lock, and only if the file is still what `base` (the sheet as read, by default
        this one) was read from; raise SheetChanged otherwise. Returns the text written."""
        where = path or self.path
        if where is None:
            raise SheetError(tr("this sheet has no file to save to: give one"))
        target = Path(where)
        refuse_shipped(target)
        base = base if base is not None else self
        same_file = base.path is not None and Path(base.path).resolve() == target.resolve()
        with safe_files.FolderLock(target.parent):
            safe_files.remove_strays(target.parent, target.name)
            current = read_current(target)
            if same_file and base.text is not None and current != base.text:
                raise changed_since_read(target)
            source = base.text if base.text is not None else current
            if source is None or format_of(target) != base.text_format:
                text = self.dumps(format_of(target))
            else:
                text = self.file_text(base, source)
            safe_files.write_atomic(target, text)
        return text


def format_of(path) -> str:
    return "json" if Path(path).suffix.lower() == ".json" else "yaml"


def read_current(target: Path) -> str | None:
    """The file's text now (None if there is none), for the check before a save."""
    try:
        return read_text(target, MAX_SHEET_SIZE)
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise SheetError(tr("not UTF-8 text"), path=str(target)) from None
    except OSError as error:
        raise SheetError(
            tr("cannot be read ({strerror})", strerror=error.strerror or error), path=str(target)
        ) from None


def changed_since_read(target: Path) -> SheetChanged:
    return SheetChanged(
        tr("the file changed since it was read (another save, or an edit): nothing was written"),
        hint=tr("run the action again on the sheet as it is now"),
        path=str(target),
    )


def shipped_characters_folder() -> Path:
    return Path(str(resources.files("rulebooks.characters")))


def is_shipped(path) -> bool:
    try:
        return Path(path).resolve().parent == shipped_characters_folder().resolve()
    except OSError:
        return False


#: what `rulebook_named_in` says of a file that is not a character sheet at all
NOT_A_SHEET = object()
_NAMED_RULEBOOKS: dict = {}


def rulebook_named_in(path: Path):
    """The `rulebook:` a character file names (None if it names none), read once per
    version of the file; NOT_A_SHEET for a file that is not a mapping (another
    program's YAML or JSON in the same folder) or cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return NOT_A_SHEET
    key = (str(path), info.st_mtime_ns, info.st_size)
    if key in _NAMED_RULEBOOKS:
        return _NAMED_RULEBOOKS[key]
    found = NOT_A_SHEET
    if info.st_size <= MAX_SHEET_SIZE:
        try:
            text = read_text(path, MAX_SHEET_SIZE)
            data = parse_text(text, format_of(path), str(path))
        except (SheetError, OSError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict):
            named = data.get("rulebook")
            if isinstance(named, str) or named is None:
                found = named
            # (else a record of a run, `rulebook export`'s, whose rulebook is an object)
    _NAMED_RULEBOOKS[key] = found
    return found


def refuse_shipped(target: Path) -> None:
    if is_shipped(target):
        stem = Path(target).stem
        raise ShippedSheet(
            tr("{stem} is a character shipped with rulebook; it is never written", stem=stem),
            hint=tr(
                (
                    "make your own copy: `rulebook new {stem} {stem2}{suffix}` (then --char "
                    "{stem3}{suffix2} --save), or save this run to a new file with --save-as FILE"
                ),
                stem=stem,
                stem2=stem,
                suffix=Path(target).suffix,
                stem3=stem,
                suffix2=Path(target).suffix,
            ),
            path=str(target),
        )


def text_digest(text: str) -> str:
    """The content hash the journal stores texts under."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_file(path: str | Path) -> tuple:
    """A sheet file's text and format ("yaml", or "json" by its suffix)."""
    path = Path(path)
    try:
        text = read_text(path, MAX_SHEET_SIZE)
    except TooLarge:
        raise SheetError(
            tr("larger than {max_sheet_size} bytes", max_sheet_size=MAX_SHEET_SIZE),
            path=str(path),
        ) from None
    except UnicodeDecodeError:
        raise SheetError(tr("not UTF-8 text"), path=str(path)) from None
    except OSError as error:
        raise SheetError(
            tr("cannot be read ({strerror})", strerror=error.strerror), path=str(path)
        ) from None
    return text, format_of(path)


def parse_text(text: str, text_format: str, path: str | None = None):
    """A sheet file's data; a file that is not valid YAML or JSON (or gives a key twice)
    is a SheetError placed at the line and column where reading it failed."""
    return parsing.read(text, text_format, path)[0]


def _plain(value):
    if type(value) in PLAIN_TYPES:  # (a number or text: no Record asked, an ABC's hook)
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Record):
        return {k: _plain(v) for k, v in value.items() if k != "name"}
    return value
