"""Character sheets: read from YAML or JSON, checked against the rulebook, never mutated.

A sheet file is a mapping of field names to values. Resources give their current value
(their maximum is computed, never stored); a resource kept per group is a mapping
(`dinamis: {Virtus: 5, ...}`); skills outside the rulebook's named ones go under
`skills:`; a catalog is a mapping of entry names to their fields. The key `rulebook`
may name the rulebook the sheet is for.

Saving writes back only the values that changed, into the file's own text (comments,
order and style kept: `interpreter.sheet_writer`), after checking that the file is still
what was read; it is atomic (a temporary file, fsync, rename, folder fsync) and holds
the folder's lock (`interpreter.files`). A shipped character is never written.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from types import MappingProxyType

import yaml

from dsl import nodes as n
from dsl.errors import did_you_mean
from interpreter import files, sheet_writer
from interpreter.errors import SheetChanged, SheetError, ShippedSheet
from interpreter.values import Record, is_number

#: largest sheet file read, in bytes
MAX_SHEET_SIZE = 1_000_000
_META_KEYS = ("rulebook",)


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

    __slots__ = ("_values", "meta", "path", "rulebook", "text", "text_format")

    def __init__(
        self,
        rulebook,
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
    def load(cls, path: str | Path, rulebook, engine=None) -> Sheet:
        path = Path(path)
        try:
            if path.stat().st_size > MAX_SHEET_SIZE:
                raise SheetError(f"larger than {MAX_SHEET_SIZE} bytes", path=str(path))
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise SheetError("not UTF-8 text", path=str(path)) from None
        except OSError as error:
            raise SheetError(f"cannot be read ({error.strerror})", path=str(path)) from None
        return cls.from_text(text, rulebook, str(path), format_of(path), engine)

    @classmethod
    def from_text(
        cls, text: str, rulebook, path: str | None = None, text_format: str = "yaml", engine=None
    ) -> Sheet:
        """A sheet from a file's text (kept, so that a save writes only what changed)."""
        data = parse_text(text, text_format, path)
        return cls.from_data(data, rulebook, path, text_format, engine, text)

    @classmethod
    def from_data(
        cls,
        data,
        rulebook,
        path: str | None = None,
        text_format: str = "yaml",
        engine=None,
        text: str | None = None,
    ) -> Sheet:
        if not isinstance(data, dict):
            raise SheetError("a sheet is a mapping of field names to values", path=path)
        if engine is None:
            from interpreter.engine import Engine

            engine = Engine.of(rulebook)
        meta = {k: data[k] for k in _META_KEYS if k in data}
        values = _validate(data, rulebook, path)
        sheet = cls(rulebook, values, meta, path, text_format, text)
        engine.complete_sheet(sheet)  # resources default to their maximum; bounds; ensures
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
        return sheet_writer.render_new(self.to_data(), text_format or self.text_format)

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
        text = sheet_writer.rewrite(
            current, base.text_format, base.to_data(), self.to_data(), self.rulebook.fields
        )
        self.check_written(text, base.text_format)
        return text

    def check_written(self, text: str, text_format: str) -> None:
        """Raise unless `text` reads back as exactly this sheet (nothing lost, nothing
        added): the last guard before a file is replaced."""
        try:
            again = Sheet.from_text(text, self.rulebook, self.path, text_format)
        except SheetError as error:
            raise SheetError(
                f"the sheet could not be written back safely ({error.message}); nothing was saved",
                path=self.path,
            ) from None
        if again._values != self._values or again.meta != self.meta:
            raise SheetError(
                "the sheet could not be written back without changing other values; "
                "nothing was saved",
                path=self.path,
            )

    def save(self, path: str | Path | None = None, base: Sheet | None = None) -> str:
        """Write the sheet back: only its changed values, atomically, under the folder's
        lock, and only if the file is still what `base` (the sheet as read, by default
        this one) was read from; raise SheetChanged otherwise. Returns the text written."""
        target = Path(path or self.path)
        refuse_shipped(target)
        base = base if base is not None else self
        same_file = base.path is not None and Path(base.path).resolve() == target.resolve()
        with files.FolderLock(target.parent):
            files.remove_strays(target.parent, target.name)
            current = read_current(target)
            if same_file and base.text is not None and current != base.text:
                raise changed_since_read(target)
            source = base.text if base.text is not None else current
            if source is None or format_of(target) != base.text_format:
                text = self.dumps(format_of(target))
            else:
                text = self.file_text(base, source)
            files.write_atomic(target, text)
        return text


def format_of(path) -> str:
    return "json" if Path(path).suffix.lower() == ".json" else "yaml"


def read_current(target: Path) -> str | None:
    """The file's text now (None if there is none), for the check before a save."""
    try:
        return target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise SheetError(f"cannot be read ({error})", path=str(target)) from None


def changed_since_read(target: Path) -> SheetChanged:
    return SheetChanged(
        "the file changed since it was read (another save, or an edit): nothing was written",
        hint="run the action again on the sheet as it is now",
        path=str(target),
    )


def shipped_characters_folder() -> Path:
    return Path(str(resources.files("rulebooks.characters")))


def is_shipped(path) -> bool:
    try:
        return Path(path).resolve().parent == shipped_characters_folder().resolve()
    except OSError:
        return False


def refuse_shipped(target: Path) -> None:
    if is_shipped(target):
        stem = Path(target).stem
        raise ShippedSheet(
            f"{stem} is a character shipped with rulebook; it is never written",
            hint=f"make your own copy: `rulebook new {stem} {stem}{Path(target).suffix}` "
            f"(then --char {stem}{Path(target).suffix} --save), or save this run to a new "
            f"file with --save-as FILE",
            path=str(target),
        )


def text_digest(text: str) -> str:
    """The content hash the journal stores texts under."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


# ─── validation ─────────────────────────────────────────────────────────────


def _validate(data: dict, rulebook, path: str | None) -> dict:
    fields = rulebook.fields
    values: dict = {}
    for key, raw in data.items():
        if key in _META_KEYS:
            continue
        if not isinstance(key, str):
            raise SheetError(f"{key!r}: field names are texts", path=path)
        if key == "skills":
            values.update(_open_skills(raw, rulebook, path))
            continue
        field = fields.get(key)
        if field is None:
            raise _unknown(key, rulebook, path)
        values[key] = _field_value(field, raw, rulebook, path)
    for name, field in fields.items():
        if name not in values:
            value = _default(field, rulebook, path)
            if value is not _LATER:
                values[name] = value
    return values


_LATER = object()  # resources: filled in by the engine, from their maximum


def _unknown(key: str, rulebook, path):
    names = list(rulebook.fields)
    hint = did_you_mean(key, names)
    if rulebook.open_skills is not None and hint is None:
        hint = "skills outside the rulebook's list go under `skills:`"
    return SheetError(
        f"{key}: not a field of the {rulebook.title} sheet",
        key,
        hint or "fields: " + ", ".join(names),
        path,
    )


def _open_skills(raw, rulebook, path) -> dict:
    if rulebook.open_skills is None:
        raise SheetError("skills: this rulebook has no open skill list", "skills", path=path)
    if not isinstance(raw, dict):
        raise SheetError("skills: a mapping of skill names to numbers", "skills", path=path)
    out = {}
    for name, value in raw.items():
        name = str(name)
        if name in rulebook.fields and not isinstance(rulebook.fields[name], n.Stat):
            raise SheetError(f"skills.{name}: {name} is another kind of field", name, path=path)
        out[name] = _number_in(value, rulebook.open_skills.range, f"skills.{name}", path)
    return out


def _number_in(value, range_: n.Range | None, where: str, path) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SheetError(f"{where}: {value!r} is not a whole number", where, path=path)
    if range_ is not None:
        if range_.low is not None and value < range_.low:
            raise SheetError(
                f"{where}: {value} is below its minimum {range_.low}", where, path=path
            )
        if range_.high is not None and value > range_.high:
            raise SheetError(
                f"{where}: {value} is above its maximum {range_.high}", where, path=path
            )
    return value


def _field_value(field, raw, rulebook, path):
    name = field.name
    if isinstance(field, n.Stat):
        return _number_in(raw, field.range, name, path)
    if isinstance(field, n.Counter):
        return _number_in(raw, field.range or n.Range(0, None), name, path)
    if isinstance(field, n.Resource):
        if field.key_group is None:
            return _number_in(raw, None, name, path)  # bounds are checked by the engine
        members = rulebook.groups[field.key_group].members
        if not isinstance(raw, dict):
            raise SheetError(
                f"{name}: a mapping with one value per {field.key_group} ({', '.join(members)})",
                name,
                path=path,
            )
        out = {}
        for key, value in raw.items():
            if key not in members:
                hint = did_you_mean(str(key), members) or "keys: " + ", ".join(members)
                raise SheetError(f"{name}.{key}: not one of {field.key_group}", name, hint, path)
            out[key] = _number_in(value, None, f"{name}.{key}", path)
        return out
    if isinstance(field, n.Flag):
        if not isinstance(raw, bool):
            raise SheetError(f"{name}: {raw!r} is not yes or no", name, path=path)
        return raw
    if isinstance(field, n.TextField):
        if not isinstance(raw, str):
            raise SheetError(f"{name}: {raw!r} is not a text", name, path=path)
        return raw
    if isinstance(field, n.ListField):
        if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
            raise SheetError(f"{name}: a list of texts", name, path=path)
        return tuple(raw)
    if isinstance(field, n.Catalog):
        return _catalog(field, raw, rulebook, path)
    raise SheetError(f"{name}: cannot be set in a sheet", name, path=path)


def _catalog(field: n.Catalog, raw, rulebook, path) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SheetError(
            f"{field.name}: a mapping of entry names to their fields", field.name, path=path
        )
    entries = {}
    declared = {f.name: f for f in field.fields}
    for entry_name, entry in raw.items():
        where = f"{field.name}.{entry_name}"
        if not isinstance(entry, dict):
            raise SheetError(f"{where}: a mapping of {', '.join(declared)}", where, path=path)
        record = {"name": str(entry_name)}
        for key, value in entry.items():
            if key not in declared:
                hint = did_you_mean(str(key), declared) or "fields: " + ", ".join(declared)
                raise SheetError(f"{where}.{key}: not a field of {field.name}", where, hint, path)
            record[key] = _typed(declared[key].type, value, f"{where}.{key}", rulebook, path)
        missing = [k for k in declared if k not in record]
        if missing:
            raise SheetError(f"{where}: missing {', '.join(missing)}", where, path=path)
        entries[str(entry_name)] = Record(record, kind=field.name)
    return entries


def _typed(type_node, value, where: str, rulebook, path):
    """A catalog field's value, checked against the type written in the rulebook."""
    if isinstance(type_node, n.EnumType):
        if value not in type_node.choices:
            hint = did_you_mean(str(value), type_node.choices)
            raise SheetError(
                f"{where}: {value!r} is not one of {', '.join(type_node.choices)}",
                where,
                hint,
                path,
            )
        return value
    if isinstance(type_node, n.ListType):
        if not isinstance(value, list):
            raise SheetError(f"{where}: a list", where, path=path)
        return tuple(_typed(type_node.item, v, where, rulebook, path) for v in value)
    name = type_node.name
    if name in ("int", "number"):
        if not is_number(value):
            raise SheetError(f"{where}: {value!r} is not a number", where, path=path)
        return value
    if name == "bool":
        if not isinstance(value, bool):
            raise SheetError(f"{where}: {value!r} is not yes or no", where, path=path)
        return value
    if name == "text":
        return str(value)
    choices = _names_for(name, rulebook)
    if (
        choices is not None
        and value not in choices
        and not (name == "skill" and rulebook.open_skills is not None)
    ):
        hint = did_you_mean(str(value), choices) or "choices: " + ", ".join(map(str, choices))
        raise SheetError(f"{where}: {value!r} is not a {name}", where, hint, path)
    return value


def _names_for(type_name: str, rulebook):
    if type_name in rulebook.groups:
        return list(rulebook.groups[type_name].members)
    kinds = {"attribute": ("attribute",), "skill": ("skill",), "stat": ("attribute", "skill")}
    if type_name in kinds:
        return [
            k
            for k, f in rulebook.fields.items()
            if isinstance(f, n.Stat) and f.kind in kinds[type_name]
        ]
    if type_name in ("resource", "counter"):
        cls = n.Resource if type_name == "resource" else n.Counter
        return [k for k, f in rulebook.fields.items() if isinstance(f, cls)]
    table = rulebook.tables.get(type_name)
    if table is not None:
        return [row.key.low for row in table.rows if row.key.kind == "value"]
    ladder = rulebook.ladders.get(type_name)
    if ladder is not None:
        return [s.sides if isinstance(s, n.Dice) else s.value for s in ladder.steps]
    return None


def _default(field, rulebook, path):
    """A field the sheet file leaves out (the checker makes every default a constant)."""
    if isinstance(field, n.Stat):
        if field.default is not None:
            return field.default.value
        if field.kind == "skill":
            return field.range.low if field.range.low is not None else 0
        raise SheetError(
            f"{field.name}: missing (the attribute has no default)", field.name, path=path
        )
    if isinstance(field, n.Counter):
        if field.default is not None:
            return field.default.value
        return field.range.low if field.range and field.range.low is not None else 0
    if isinstance(field, n.Flag):
        return field.default.value if field.default is not None else False
    if isinstance(field, n.TextField):
        return ""
    if isinstance(field, n.ListField):
        return ()
    if isinstance(field, n.Catalog):
        return {}
    return _LATER  # a resource: it starts full, once the engine knows its maximum
