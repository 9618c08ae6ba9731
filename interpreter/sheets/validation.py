"""A sheet file's values checked against the rulebook's sheet block, field by field."""

from __future__ import annotations

from dsl import nodes as n
from dsl.errors import did_you_mean
from dsl.messages import tr
from dsl.unicode_text import digits_refused
from interpreter.bounds import long_denominator, long_list, long_number, number_fits
from interpreter.errors import SheetError
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.values import YES_NO, Record, is_number, quoted

#: keys of a sheet file that are about the file, not fields of the character
META_KEYS = ("rulebook",)


def validate(data: dict, rulebook, path: str | None, limits: Limits = DEFAULT_LIMITS) -> dict:
    """A sheet file's field values, checked against the rulebook's sheet block and the
    limits on numbers and lists, and completed with the defaults of the fields it leaves
    out (resources excepted)."""
    fields = rulebook.fields
    values: dict = {}
    wrong: list[SheetError] = []  # every value wrong, said together (up to MAX_WRONG)
    for key, raw in data.items():
        try:
            _read_entry(key, raw, fields, values, rulebook, path, limits)
        except SheetError as error:
            wrong.append(error)
            if len(wrong) == MAX_WRONG:
                break
    for name, field in fields.items():
        if name not in values and name not in data:  # (a value given wrong is said above)
            try:
                value = _default(field, path)
            except SheetError as error:
                wrong.append(error)
                continue
            if value is not _LATER:
                values[name] = value
    if wrong:
        first = wrong[0]
        first.every_value = wrong if len(wrong) > 1 else []
        raise first
    return values


#: how many wrong values of one sheet are said at once
MAX_WRONG = 20


def _read_entry(key, raw, fields, values: dict, rulebook, path, limits: Limits) -> None:
    """One key of a sheet file read into `values` (the file's meta keys only checked)."""
    if key in META_KEYS:
        if not isinstance(raw, str):
            raise SheetError(
                tr("{key}: {quoted} is not a text", key=key, quoted=quoted(raw)),
                key,
                tr("write the name of the rulebook the sheet is for, as `rulebook: brujeria`"),
                path,
            )
        return
    if not isinstance(key, str):
        raise SheetError(tr("{quoted}: field names are texts", quoted=quoted(key)), path=path)
    _within_limits(raw, key, limits, path)
    if key == "skills":
        values.update(_open_skills(raw, rulebook, path))
        return
    field = fields.get(key)
    if field is None:
        raise _unknown(key, rulebook, path)
    values[key] = _field_value(field, raw, rulebook, path)


#: a field's value that passes a limit: `Fuerza: a number of more than 1000 digits (...)`
PROBLEM = tr("{where}: {problem}")


def _within_limits(value, where: str, limits: Limits, path) -> None:
    """No number longer, and no list or catalog larger, than a run could build (checked
    on the file's data, before anything else quotes a value)."""
    if is_number(value) and not number_fits(value, limits):
        if abs(numerator(value)) >= limits.number_bound:
            problem = long_number(limits)
        else:
            problem = long_denominator(limits)
        raise SheetError(PROBLEM.fill(where=where, problem=problem), where, path=path)
    if isinstance(value, dict | Record | tuple | list):
        if len(value) > limits.list_length:
            problem = long_list(limits)
            raise SheetError(PROBLEM.fill(where=where, problem=problem), where, path=path)
        if isinstance(value, tuple | list):
            for item in value:
                _within_limits(item, where, limits, path)
        else:
            for key, item in value.items():
                _within_limits(item, f"{where}.{key}", limits, path)


def digits_hint(value):
    """For a text where a number goes: the digit in it that is not one of 0-9, if any
    (`١٢٣` is 123 to Python's int, and to no one reading the sheet as numbers)."""
    return digits_refused(value) if isinstance(value, str) else None


def numerator(value) -> int:
    return value if type(value) is int else value.numerator


_LATER = object()  # resources: filled in from their maximum (interpreter.sheets.rules)


def _unknown(key: str, rulebook, path):
    names = list(rulebook.fields)
    # (`skils:`: the open list's own key among those it may have meant)
    hint = did_you_mean(key, [*names, "skills"] if rulebook.open_skills is not None else names)
    if hint is None and key.lower() in ("name", "nombre"):  # (a first sheet often starts so)
        hint = tr("a character's name is its file's name; a note goes in a comment (# ...)")
    elif hint is None:  # the fields it may have meant, in the sheet's language
        hint = tr("fields: {names}", names=", ".join(names)) if names else None
        if rulebook.open_skills is not None:
            hint = (
                tr("{fields}; a skill the rulebook does not list goes under `skills:`", fields=hint)
                if hint
                else tr("a skill goes under `skills:`")
            )
    return SheetError(
        tr("{key}: not a field of the {title} sheet", key=key, title=rulebook.title),
        key,
        hint,
        path,
    )


def _open_skills(raw, rulebook, path) -> dict:
    if rulebook.open_skills is None:
        raise SheetError(tr("skills: this rulebook has no open skill list"), "skills", path=path)
    if not isinstance(raw, dict):
        raise SheetError(tr("skills: a mapping of skill names to numbers"), "skills", path=path)
    out = {}
    for name, value in raw.items():
        name = str(name)
        if name in rulebook.fields and not isinstance(rulebook.fields[name], n.Stat):
            raise SheetError(
                tr("skills.{name}: {name2} is another kind of field", name=name, name2=name),
                name,
                path=path,
            )
        out[name] = _number_in(value, rulebook.open_skills.range, f"skills.{name}", path)
    return out


def _number_in(value, range_: n.Range | None, where: str, path) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SheetError(
            tr("{where}: {quoted} is not a whole number", where=where, quoted=quoted(value)),
            where,
            digits_hint(value),
            path,
        )
    if range_ is not None:
        if range_.low is not None and value < range_.low:
            raise SheetError(
                tr(
                    "{where}: {value} is below its minimum {low}",
                    where=where,
                    value=value,
                    low=range_.low,
                ),
                where,
                path=path,
            )
        if range_.high is not None and value > range_.high:
            raise SheetError(
                tr(
                    "{where}: {value} is above its maximum {high}",
                    where=where,
                    value=value,
                    high=range_.high,
                ),
                where,
                path=path,
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
                tr(
                    "{name}: a mapping with one value per {key_group} ({join})",
                    name=name,
                    key_group=field.key_group,
                    join=", ".join(members),
                ),
                name,
                path=path,
            )
        out = {}
        for key, value in raw.items():
            if key not in members:
                hint = did_you_mean(str(key), members) or "keys: " + ", ".join(members)
                raise SheetError(
                    tr(
                        "{name}.{key}: not one of {key_group}",
                        name=name,
                        key=key,
                        key_group=field.key_group,
                    ),
                    name,
                    hint,
                    path,
                )
            out[key] = _number_in(value, None, f"{name}.{key}", path)
        return out
    if isinstance(field, n.Flag):
        if isinstance(raw, str):  # yes/no written as words (JSON data, an app): either spelling
            raw = YES_NO.get(raw.strip().lower(), raw)
        if not isinstance(raw, bool):
            raise SheetError(
                tr("{name}: {quoted} is not yes or no", name=name, quoted=quoted(raw)),
                name,
                path=path,
            )
        return raw
    if isinstance(field, n.TextField):
        if not isinstance(raw, str):
            raise SheetError(
                tr("{name}: {quoted} is not a text", name=name, quoted=quoted(raw)), name, path=path
            )
        return raw
    if isinstance(field, n.ListField):
        if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
            raise SheetError(tr("{name}: a list of texts", name=name), name, path=path)
        return tuple(raw)
    if isinstance(field, n.Catalog):
        return _catalog(field, raw, rulebook, path)
    if isinstance(field, n.Effects):
        return _effects(field, raw, rulebook, path)
    raise SheetError(tr("{name}: cannot be set in a sheet", name=name), name, path=path)


def _catalog(field: n.Catalog, raw, rulebook, path) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SheetError(
            tr("{name}: a mapping of entry names to their fields", name=field.name),
            field.name,
            path=path,
        )
    entries = {}
    declared = {f.name: f for f in field.fields}
    for entry_name, entry in raw.items():
        where = f"{field.name}.{entry_name}"
        if not isinstance(entry, dict):
            raise SheetError(
                tr("{where}: a mapping of {join}", where=where, join=", ".join(declared)),
                where,
                path=path,
            )
        record = {"name": str(entry_name)}
        for key, value in entry.items():
            if key not in declared:
                hint = did_you_mean(str(key), declared) or "fields: " + ", ".join(declared)
                raise SheetError(
                    tr(
                        "{where}.{key}: not a field of {name}",
                        where=where,
                        key=key,
                        name=field.name,
                    ),
                    where,
                    hint,
                    path,
                )
            record[key] = _typed(declared[key].type, value, f"{where}.{key}", rulebook, path)
        missing = [k for k in declared if k not in record]
        if missing:
            raise SheetError(
                tr("{where}: missing {join}", where=where, join=", ".join(missing)),
                where,
                path=path,
            )
        entries[str(entry_name)] = Record(record, kind=field.name)
    return entries


#: what a lasting effect on a sheet file holds (its name is its key)
EFFECT_KEYS = ("modifier", "targets", "left", "unit")


def _effects(field: n.Effects, raw, rulebook, path) -> dict:
    """A sheet's lasting effects: `Temblores: {modifier: -2, targets: [acciones],
    left: 2, unit: turno}`. `left` is kept in the first unit of the unit's clock."""
    if raw is None:
        return {}
    keys = ", ".join(EFFECT_KEYS)
    if not isinstance(raw, dict):
        raise SheetError(
            tr("{field}: a mapping of effect names to {{{keys}}}", field=field.name, keys=keys),
            field.name,
            path=path,
        )
    effects = {}
    for effect_name, entry in raw.items():
        where = f"{field.name}.{effect_name}"
        if not isinstance(entry, dict):
            raise SheetError(
                tr("{where}: a mapping of {keys}", where=where, keys=keys), where, path=path
            )
        for key in entry:
            if key not in EFFECT_KEYS:
                hint = did_you_mean(str(key), EFFECT_KEYS) or tr("keys: {keys}", keys=keys)
                raise SheetError(
                    tr("{where}.{key}: not part of an effect", where=where, key=str(key)),
                    where,
                    hint,
                    path,
                )
        modifier = entry.get("modifier", 0)
        if not is_number(modifier):
            raise SheetError(
                tr(
                    "{where}.modifier: {value} is not a number", where=where, value=quoted(modifier)
                ),
                where,
                digits_hint(modifier),
                path,
            )
        # (not `on`: YAML reads an unquoted `on` as yes)
        on = entry.get("targets", [])
        if not isinstance(on, list) or not all(isinstance(v, str) for v in on):
            raise SheetError(
                tr("{where}.targets: a list of targets", where=where), where, path=path
            )
        for target in on:
            if target not in field.targets and target not in rulebook.fields:
                hint = did_you_mean(target, field.targets) or tr(
                    "targets: {targets}", targets=", ".join(field.targets)
                )
                raise SheetError(
                    tr(
                        "{where}.targets: {target} is not a target of {field}",
                        where=where,
                        target=quoted(target),
                        field=field.name,
                    ),
                    where,
                    hint,
                    path,
                )
        unit = entry.get("unit")
        found = field.unit(unit) if isinstance(unit, str) else None
        if found is None:
            units = [u.name for clock in field.clocks for u in clock]
            hint = did_you_mean(str(unit), units) or tr("units: {units}", units=", ".join(units))
            raise SheetError(
                tr("{where}.unit: {unit} is not a unit of time", where=where, unit=quoted(unit)),
                where,
                hint,
                path,
            )
        left = entry.get("left")
        if isinstance(left, bool) or not isinstance(left, int) or left < 1:
            raise SheetError(
                tr(
                    "{where}.left: how much is left, a whole number of {unit} (1 or more)",
                    where=where,
                    unit=unit,
                ),
                where,
                path=path,
            )
        base, length = found
        effects[str(effect_name)] = Record(
            {
                "name": str(effect_name),
                "modifier": modifier,
                "targets": tuple(on),
                "left": left * length,
                "unit": base,
            },
            kind=field.name,
        )
    return effects


def _typed(type_node, value, where: str, rulebook, path):
    """A catalog field's value, checked against the type written in the rulebook."""
    if isinstance(type_node, n.EnumType):
        if value not in type_node.choices:
            hint = did_you_mean(str(value), type_node.choices)
            raise SheetError(
                tr(
                    "{where}: {quoted} is not one of {join}",
                    where=where,
                    quoted=quoted(value),
                    join=", ".join(type_node.choices),
                ),
                where,
                hint,
                path,
            )
        return value
    if isinstance(type_node, n.ListType):
        if not isinstance(value, list | tuple):
            raise SheetError(tr("{where}: a list", where=where), where, path=path)
        return tuple(_typed(type_node.item, v, where, rulebook, path) for v in value)
    name = type_node.name
    if name in ("int", "number"):
        if not is_number(value):
            raise SheetError(
                tr("{where}: {quoted} is not a number", where=where, quoted=quoted(value)),
                where,
                digits_hint(value),
                path,
            )
        if type(value) is not int:  # a sheet file holds whole numbers (YAML has no 7/2)
            raise SheetError(
                tr(
                    "{where}: {value} is not a whole number, and a sheet holds whole numbers",
                    where=where,
                    value=value,
                ),
                where,
                tr("round it with floor, ceil or round"),
                path,
            )
        return value
    if name == "bool":
        if not isinstance(value, bool):
            raise SheetError(
                tr("{where}: {quoted} is not yes or no", where=where, quoted=quoted(value)),
                where,
                path=path,
            )
        return value
    if name == "text":
        return str(value)
    choices = rulebook.choices_of(name)
    if (
        choices is not None
        and value not in choices
        and not (name == "skill" and rulebook.open_skills is not None)
    ):
        hint = did_you_mean(str(value), choices) or "choices: " + ", ".join(map(str, choices))
        raise SheetError(
            tr("{where}: {quoted} is not a {name}", where=where, quoted=quoted(value), name=name),
            where,
            hint,
            path,
        )
    return value


def entry_value(type_node, value, where: str, rulebook):
    """A value a run puts into a catalog entry, checked as the sheet file will be read
    back (so that a save never writes a sheet the next load refuses); SheetError if not."""
    text = isinstance(type_node, n.NamedType) and type_node.name == "text"
    if text and not isinstance(value, str):
        raise SheetError(tr("{where}: {value} is not a text", where=where, value=value), where)
    return _typed(type_node, value, where, rulebook, None)


def _default(field, path):
    """A field the sheet file leaves out (the checker makes every default a constant)."""
    if isinstance(field, n.Stat):
        if field.default is not None:
            return field.default.value
        if field.kind == "skill":
            return field.range.low if field.range.low is not None else 0
        raise SheetError(
            tr("{name}: missing (the attribute has no default)", name=field.name),
            field.name,
            path=path,
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
    if isinstance(field, n.Catalog | n.Effects):
        return {}
    return _LATER  # a resource: it starts full, once the engine knows its maximum
