"""Character sheets: read from YAML or JSON, checked against the rulebook, never mutated.

A sheet file is a mapping of field names to values. Resources give their current value
(their maximum is computed, never stored); a resource kept per group is a mapping
(`dinamis: {Virtus: 5, ...}`); skills outside the rulebook's named ones go under
`skills:`; a catalog is a mapping of entry names to their fields. The key `rulebook`
may name the rulebook the sheet is for.

Saving is atomic (a temporary file, fsync, rename) and keeps the file's format.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from types import MappingProxyType

import yaml

from interpreter.compile import Compiler
from interpreter.errors import SheetError
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.sheet_rules import complete
from interpreter.sheet_schema import META_KEYS, validate
from interpreter.values import Record

#: largest sheet file read, in bytes
MAX_SHEET_SIZE = 1_000_000


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors and aliases (no billion-laughs sheets)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases are not allowed", event.start_mark
            )
        return super().compose_node(parent, index)


class Sheet:
    """A character: field values checked against a rulebook's sheet schema. Immutable."""

    __slots__ = ("_values", "meta", "path", "rulebook", "text_format")

    def __init__(
        self,
        rulebook,
        values: dict,
        meta: dict | None = None,
        path: str | None = None,
        text_format: str = "yaml",
    ):
        self.rulebook = rulebook
        self._values = values  # never mutated; a run copies before writing
        self.meta = dict(meta or {})
        self.path = path
        self.text_format = text_format

    @property
    def values(self):
        return MappingProxyType(self._values)

    def __getitem__(self, name):
        value = self._values[name]
        return MappingProxyType(value) if isinstance(value, dict) else value

    def get(self, path: str, default=None):
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
    def load(cls, path: str | Path, rulebook, limits: Limits = DEFAULT_LIMITS) -> Sheet:
        """A sheet file (YAML, or JSON by its suffix), checked against the rulebook."""
        data, text_format = read_file(path)
        return cls.from_data(data, rulebook, str(path), text_format, limits)

    @classmethod
    def from_data(
        cls,
        data,
        rulebook,
        path: str | None = None,
        text_format: str = "yaml",
        limits: Limits = DEFAULT_LIMITS,
    ) -> Sheet:
        """A sheet from plain data (as a YAML or JSON file gives), checked and completed:
        resources left out start full; bounds and `ensure` rules are checked."""
        if not isinstance(data, dict):
            raise SheetError("a sheet is a mapping of field names to values", path=path)
        meta = {k: data[k] for k in META_KEYS if k in data}
        values = validate(data, rulebook, path)
        complete(Compiler.of(rulebook), values, limits, path)
        return cls(rulebook, values, meta, path, text_format)

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
        text_format = text_format or self.text_format
        data = self.to_data()
        if text_format == "json":
            return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)

    def save(self, path: str | Path | None = None) -> None:
        """Write atomically: a temporary file beside the target, fsync, then rename."""
        target = Path(path or self.path)
        text = self.dumps("json" if target.suffix.lower() == ".json" else "yaml")
        folder = target.parent
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            if target.exists():
                os.chmod(temporary, target.stat().st_mode & 0o777)
            os.replace(temporary, target)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise


def read_file(path: str | Path) -> tuple:
    """A sheet file's data and format ("yaml", or "json" by its suffix)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_SHEET_SIZE:
            raise SheetError(f"larger than {MAX_SHEET_SIZE} bytes", path=str(path))
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SheetError("not UTF-8 text", path=str(path)) from None
    except OSError as error:
        raise SheetError(f"cannot be read ({error.strerror})", path=str(path)) from None
    text_format = "json" if path.suffix.lower() == ".json" else "yaml"
    return parse_text(text, text_format, str(path)), text_format


def parse_text(text: str, text_format: str, path: str | None = None):
    try:
        if text_format == "json":
            return json.loads(text)
        return yaml.load(text, Loader=_NoAliasLoader)
    except json.JSONDecodeError as error:
        raise SheetError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}", path=path
        ) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise SheetError(f"not valid YAML: {problem}{where}", path=path) from None
    except RecursionError:
        raise SheetError("nested too deeply", path=path) from None


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Record):
        return {k: _plain(v) for k, v in value.items() if k != "name"}
    return value
