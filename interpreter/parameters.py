"""Parameter values: checked against their types, read from text, defaults filled in."""

from __future__ import annotations

import operator
import weakref
from typing import Any

from dsl import nodes as n
from dsl.errors import did_you_mean
from dsl.messages import tr
from dsl.rulebook import Rulebook
from dsl.unicode_text import HALF_CHARACTER, digits_refused, lone_surrogate
from interpreter.bounds import number_fits, read_number
from interpreter.dice import ForcedDice
from interpreter.errors import ParameterError
from interpreter.limits import DEFAULT_LIMITS
from interpreter.parameter_hints import asked_as_choice, how_given
from interpreter.runtime import Roller
from interpreter.sheets.character import Sheet
from interpreter.state import Character
from interpreter.values import Record, is_number, quoted

#: the types of parameter values a Binder's last binding is remembered for: values that
#: cannot change in place (a character's Sheet is immutable), so that the same objects
#: under the same names bind alike
UNCHANGING = frozenset({str, int, bool, float, type(None), Sheet, Character})
_IS = operator.is_


#: a binding given again is recognised by a function made for it (`again`): the names
#: read from the dict one by one, each value tested to be the very object given before,
#: in one call for the commonest numbers of names; False: by `prepared` itself (a
#: reader of the values in order, then a test of each)
WRITTEN_OUT = True
#: a `bool` parameter given yes or no taken as it is (as an `int` given a whole number),
#: without `convert`, which makes its message's opening first; False: every one converted
BOOL_AT_ONCE = True


def again(general: Any, names: tuple, values: tuple, keyed: Any, bound: tuple) -> Any:
    """`prepared` for a binding just made: `bound` again when given the very same
    values under the same names, as many (and, if `keyed`, that same sheet); anything
    else to `general` (the Binder's own `prepared`). Written out for up to three names
    (a KeyError: a name given that was not given before)."""
    size = len(names)
    if size == 0:

        def none(sheet: Sheet, params: dict) -> tuple:
            if not params and (keyed is None or keyed is sheet):
                return bound
            return general(sheet, params)

        return none
    if size > 3:

        def many(sheet: Sheet, params: dict) -> tuple:
            if len(params) == size and (keyed is None or keyed is sheet):
                try:
                    if all(map(_IS, map(params.__getitem__, names), values)):
                        return bound
                except KeyError:
                    pass
            return general(sheet, params)

        return many
    a, b, c = (*names, *names, *names)[:3]  # (fewer than three: a name read again)
    x, y, z = (*values, *values, *values)[:3]

    def same(sheet: Sheet, params: dict) -> tuple:
        try:
            if (
                len(params) == size
                and params[a] is x
                and params[b] is y
                and params[c] is z
                and (keyed is None or keyed is sheet)
            ):
                return bound
        except KeyError:
            pass
        return general(sheet, params)

    return same


def _all_same(got: tuple, given: tuple) -> bool:
    """Whether the values read are the very objects given before, one by one."""
    return all(map(_IS, got, given))


#: the engine classes and limits whose engines of one rulebook share their runnables
#: (`shared`: kept on its compiler); engines under any other limits make their own
SHARED_RUNNABLES = 8


class Binder:
    """An action's (or check's) parameters, prepared once: for each, how to check a
    value given for it, and its default when it is left out."""

    def __init__(self, engine: Any, node: Any) -> None:
        self.engine = engine
        self.node = node
        self.names = [p.name for p in node.params]
        self.known = frozenset(self.names)
        self.constant: dict = {}
        for param in node.params:
            if isinstance(param.default, n.Literal):
                value = param.default.value
                if not (isinstance(value, str) and is_catalog(param.type, engine.rulebook)):
                    self.constant[param.name] = convert(
                        param.name, param.type, value, engine.rulebook, None, engine.limits
                    )
        self.catalogs = {p.name for p in node.params if is_catalog(p.type, engine.rulebook)}
        self.convert = {p.name: self._converter(p) for p in node.params}
        # Bindings depend on the sheet when an entry is taken from it, or a default is
        # computed from it.
        self.needs_sheet = bool(self.catalogs) or any(
            p.default is not None and p.name not in self.constant for p in node.params
        )
        self.seen: dict = {}
        #: the last binding `prepared` made (without `WRITTEN_OUT`): (how many names, a
        #: reader of their values in order, those values, sheet, (args, shown, warnings))
        self.last: tuple | None = None
        # skill parameters when the rulebook keeps an open list: a name it does not know
        # may be a skill the character lacks, or a misspelling (see `warnings`)
        self.open_skills = (
            frozenset(
                p.name
                for p in node.params
                if isinstance(p.type, n.NamedType) and p.type.name in ("skill", "stat")
            )
            if engine.rulebook.open_skills is not None
            else frozenset()
        )

    def warnings(self, sheet: Sheet, params: dict) -> tuple:
        """What the values given may mean without saying: an open skill the sheet does not
        have, whose name is close to one it has, reads the open list's default."""
        out = []
        book = self.engine.rulebook
        for name in self.open_skills:
            value = params.get(name)
            if not isinstance(value, str) or value in book.fields or value in sheet.values:
                continue
            skills = [
                k
                for k in sheet.values
                if k not in book.fields or n.kind_of(book.fields[k]) == "skill"
            ]
            hint = did_you_mean(value, skills)
            if hint is not None:
                default = self.engine.compiler.open_default
                out.append(
                    tr(
                        "parameter {name}: the sheet has no skill {value!r}, so it reads "
                        "{default} (the open list's default); {hint}",
                        name=name,
                        value=value,
                        default=default,
                        hint=hint,
                    )
                )
        return tuple(out)

    def _converter(self, param):
        """The common cases checked in one step; anything else by `_convert`."""
        engine = self.engine

        def general(value, sheet):
            return convert(param.name, param.type, value, engine.rulebook, sheet, engine.limits)

        type_node = param.type
        if isinstance(type_node, n.NamedType):
            if type_node.name == "int":
                return lambda v, sheet: v if type(v) is int else general(v, sheet)
            if type_node.name == "bool" and BOOL_AT_ONCE:
                return lambda v, sheet: v if type(v) is bool else general(v, sheet)
            choices = (
                choices_for(type_node.name, engine.rulebook)
                if not is_catalog(type_node, engine.rulebook)
                else None
            )
            if choices:
                return lambda v, sheet: v if among(v, choices) else general(v, sheet)
        return general

    def __call__(self, sheet: Sheet, params: dict) -> tuple:
        # The same parameters again (an app rolling one check many times): no work. The
        # values' types are part of the key (True == 1 and 1.0 == 1, but neither is 1
        # given); a tuple, whose items' types are not, is not remembered.
        key: tuple | None
        found: tuple | None
        types = tuple(map(type, params.values()))
        key = found = None
        if tuple not in types:
            try:
                key = (tuple(params.items()), types, sheet if self.needs_sheet else None)
                found = self.seen.get(key)
            except TypeError:  # a list among the values: not remembered
                key = None
        if found is not None:
            return found[0], dict(found[1])
        args, shown = self.bind(sheet, params)
        if key is not None:
            if len(self.seen) >= 256:
                self.seen.pop(next(iter(self.seen)))
            self.seen[key] = (args, dict(shown))
        return args, shown

    def prepared(self, sheet: Sheet, params: dict) -> tuple:
        """(args, shown, warnings) for a run: the last ones again when given the very
        same values (the same objects, each of a type that cannot change in place) under
        the same names, as many, and, if the binding or its warnings read it, the same
        sheet; `shown` is shared by the runs that get it: never written to."""
        last = self.last
        if last is not None:
            size, values_of, given, keyed, bound = last
            if len(params) == size and (keyed is None or keyed is sheet):
                if values_of is None:  # (no parameters, none given)
                    return bound
                try:  # each name's value, read as the binding reads it (C: itemgetter)
                    if _all_same(values_of(params), given):
                        return bound
                except KeyError:  # a name given that was not given before
                    pass
        args, shown = self(sheet, params)
        warnings = self.warnings(sheet, params) if self.open_skills else ()
        names, values = tuple(params), tuple(params.values())
        if all(type(value) in UNCHANGING for value in values):
            keyed = sheet if self.needs_sheet or self.open_skills else None
            bound = (args, shown, warnings)
            if WRITTEN_OUT:  # (an attribute of the instance: called instead of this method)
                general = Binder.prepared.__get__(self)
                self.prepared = again(general, names, values, keyed, bound)  # type: ignore[method-assign]
            else:  # (one name is read twice: an itemgetter of one name gives no tuple)
                read = names if len(names) != 1 else names * 2
                values_of = operator.itemgetter(*read) if read else None
                given = values if len(names) != 1 else values * 2
                self.last = (len(names), values_of, given, keyed, bound)
        return args, shown, warnings

    def default(self, param: n.Param, ctx, sheet: Sheet):
        """A default computed from the sheet (or naming one of its entries)."""
        compiler = self.engine.compiler
        value = compiler.value_or_ref(param.default, compiler.param_type(param))(ctx)
        if isinstance(value, str):
            engine = self.engine
            return convert(param.name, param.type, value, engine.rulebook, sheet, engine.limits)
        return value

    def bind(self, sheet: Sheet, params: dict) -> tuple:
        engine, node = self.engine, self.node
        for name in params:
            if name not in self.known:
                hint = (
                    asked_as_choice(node, name)
                    or did_you_mean(str(name), self.names)
                    or (
                        tr("parameters: {names}", names=", ".join(self.names))
                        if self.names
                        else tr("it takes no parameters")
                    )
                )
                raise ParameterError(
                    tr("{name} has no parameter {name2}", name=node.name, name2=repr(name)),
                    None,
                    hint,
                )
        args, shown = [], {}
        defaults_ctx = None
        for param in node.params:
            name = param.name
            if name in params:
                value = self.convert[name](params[name], sheet)
            elif name in self.constant:
                value = self.constant[name]
            elif param.default is not None:
                if defaults_ctx is None:
                    defaults_ctx = engine.context(Roller(ForcedDice(()), engine.limits), sheet)
                value = self.default(param, defaults_ctx, sheet)
            else:
                given = how_given(param, engine.rulebook)
                raise ParameterError(
                    tr(
                        "{name} needs the parameter {name2} ({text})",
                        name=node.name,
                        name2=repr(name),
                        text=param.type.span.text,
                    ),
                    None,
                    given,
                )
            args.append(value)
            # A catalog entry is shown by its name, as it was given; a character by its own.
            if name in self.catalogs and value is not None:
                shown[name] = value["name"]
            else:
                shown[name] = value.label if isinstance(value, Character) else value
        return tuple(args), shown


def character(name: str, value, book: Rulebook) -> Character:
    """Another character of the run: its sheet, read for the same rulebook."""
    if isinstance(value, Character):
        return value
    if not isinstance(value, Sheet):
        raise ParameterError(
            tr(
                "parameter {name}: a character's sheet, not {value}",
                name=name,
                value=quoted(value),
            ),
            None,
            tr("on the command line: --target {name}=FILE", name=name),
        )
    if value.rulebook is not book:
        raise ParameterError(
            tr("parameter {name}: this sheet was loaded for another rulebook", name=name)
        )
    return Character(name, value)


def is_catalog(type_node, book: Rulebook) -> bool:
    return isinstance(type_node, n.NamedType) and isinstance(
        book.fields.get(type_node.name), n.Catalog
    )


def convert(
    name: str, type_node, value, book: Rulebook, sheet: Sheet | None, limits=DEFAULT_LIMITS
):
    """Check (and, for text from a command line, read) one parameter value."""
    where = tr("parameter {name}", name=name)
    if value is None:
        return None
    if isinstance(value, str) and lone_surrogate(value) is not None:  # undecodable bytes typed in
        raise ParameterError(tr("{where}: {problem}", where=where, problem=HALF_CHARACTER))
    if isinstance(type_node, n.EnumType):
        return _enum_value(where, type_node, value)
    if isinstance(type_node, n.ListType):
        if isinstance(value, str):
            value = list_items(value)
        if not isinstance(value, list | tuple):
            raise ParameterError(tr("{where}: a list", where=where))
        if len(value) > limits.list_length:
            raise ParameterError(
                tr(
                    "{where}: more than {list_length} items (limit list_length)",
                    where=where,
                    list_length=limits.list_length,
                )
            )
        return tuple(convert(name, type_node.item, v, book, sheet, limits) for v in value)
    kind = type_node.name
    if kind == "character":
        return character(name, value, book)
    if kind in ("int", "number"):
        return _number_value(where, kind, value, limits)
    if kind == "bool":
        return yes_no(where, value)
    if kind == "text":
        return str(value)
    if kind in book.fields and isinstance(book.fields[kind], n.Catalog):
        return _catalog_entry(where, kind, value, sheet)
    return _choice(where, kind, value, book, limits)


def _enum_value(where, type_node, value):
    if not among(value, type_node.choices):
        raise ParameterError(
            tr(
                "{where}: {quoted} is not one of {join}",
                where=where,
                quoted=quoted(value),
                join=", ".join(type_node.choices),
            ),
            None,
            did_you_mean(str(value), type_node.choices),
        )
    return value


def _number_value(where, kind: str, value, limits):
    """An `int` or `number` parameter: a number, or a text read as one."""
    if isinstance(value, str):
        refused = digits_refused(value)
        if refused is not None:
            raise ParameterError(tr("{where}: {problem}", where=where, problem=refused))
        try:
            number = read_number(value, limits)
        except ValueError as error:
            raise ParameterError(
                tr("{where}: {problem}", where=where, problem=error.args[0])
            ) from None
        if number is None:
            raise ParameterError(
                tr("{where}: {quoted} is not a number", where=where, quoted=quoted(value))
            )
        value = number
    if not is_number(value):
        hint = None
        if type(value) is float:  # (inexact: `0.1` is not 1/10; its text is read exactly)
            hint = tr("give an int, a Fraction or a text, as in {example}", example=f'"{value!r}"')
        raise ParameterError(
            tr("{where}: {quoted} is not a number", where=where, quoted=quoted(value)),
            None,
            hint,
        )
    if not number_fits(value, limits):
        raise ParameterError(
            tr(
                "{where}: a number of more than {number_digits} digits (limit number_digits)",
                where=where,
                number_digits=limits.number_digits,
            )
        )
    if kind == "int" and not isinstance(value, int):
        raise ParameterError(tr("{where}: {value} is not a whole number", where=where, value=value))
    return value


def yes_no(where, value) -> bool:
    """A `bool` parameter: yes/no, or a text that spells one (`sí`, `true`, `0`)."""
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("yes", "true", "sí", "si", "1"):
            return True
        if lowered in ("no", "false", "0"):
            return False
    if not isinstance(value, bool):
        raise ParameterError(
            tr("{where}: {quoted} is not yes or no", where=where, quoted=quoted(value))
        )
    return value


def _catalog_entry(where, kind: str, value, sheet: Sheet | None):
    """A parameter typed by a catalog on the sheet: the entry of that name."""
    entries: Any = (sheet.get(kind) or {}) if sheet is not None else {}  # (a catalog: a mapping)
    if isinstance(value, Record):
        return value
    if not among(value, entries):
        hint = did_you_mean(str(value), entries) or (
            tr("entries: {entries}", entries=", ".join(entries))
            if entries
            else tr("the sheet has none")
        )
        raise ParameterError(
            tr(
                "{where}: the sheet has no {kind} entry {quoted}",
                where=where,
                kind=kind,
                quoted=quoted(value),
            ),
            None,
            hint,
        )
    return entries[value]


def _choice(where, kind: str, value, book: Rulebook, limits):
    """A parameter of a named type with choices (attributes, skills, a table's keys):
    one of them (a number typed as text read as one); any other type takes the value."""
    choices = choices_for(kind, book)
    if choices is None:
        return value
    if isinstance(value, str) and not among(value, choices):
        number = maybe_number(value, limits)
        if number in choices:
            value = number
    if among(value, choices):
        return value
    open_list = kind == "skill" and book.open_skills is not None
    if open_list and isinstance(value, str) and not _writes_a_number(value, limits):
        return value  # (any name: a skill the sheet lacks reads the open list's default)
    choices = sorted(choices, key=str)
    refused = digits_refused(value) if isinstance(value, str) else None
    hint = (
        refused
        or did_you_mean(str(value), [str(c) for c in choices])
        or (open_list and tr("a skill's name: the action reads its value from the sheet"))
        or tr("choices: {choices}", choices=", ".join(map(str, choices)))
    )
    raise ParameterError(
        tr(
            "{where}: {quoted} is not one of its choices ({kind})",
            where=where,
            quoted=quoted(value),
            kind=kind,
        ),
        None,
        hint,
    )


def among(value, choices) -> bool:
    """`value in choices`, where a list or a mapping (which no set of choices can hold:
    unhashable) is simply not among them."""
    try:
        return value in choices
    except TypeError:
        return False


def list_items(text: str) -> list[str]:
    """The items of a list typed in: `4,3`, `[4, 3]`, `[]`, `["Luna llena", Mediodía]`."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    items = [item.strip() for item in text.split(",")]
    # a quoted item keeps its inner text: "Luna llena" or 'Luna llena'
    return [
        item[1:-1] if len(item) >= 2 and item[0] == item[-1] and item[0] in "\"'" else item
        for item in items
        if item
    ]


def _writes_a_number(text: str, limits) -> bool:
    """Whether a text writes a number (`50`): never a skill's name, even in an open list."""
    try:
        return read_number(text, limits) is not None
    except ValueError:
        return False


def maybe_number(text: str, limits=DEFAULT_LIMITS):
    """The number a choice's text writes (`8`, or `d8` for a die size on a ladder), or the
    text itself."""
    if len(text) > 1 and text[0] in "dD" and text[1:].isdigit():
        text = text[1:]  # a die size on a ladder: d8 is 8
    try:
        number = read_number(text, limits)
    except ValueError:
        return text
    return text if number is None else number


_CHOICES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def choices_for(kind: str, book: Rulebook):
    """The values a parameter of a named type may take (cached per rulebook)."""
    per_book = _CHOICES.get(book)
    if per_book is None:
        per_book = _CHOICES[book] = {}
    if kind not in per_book:
        names = book.choices_of(kind)
        per_book[kind] = None if names is None else frozenset(names)
    return per_book[kind]


def shared(compiler: Any, cls: type, limits: Any) -> dict:
    """The runnables (name → Runnable: an action's compiled form and its Binder) that the
    engines of `compiler`'s rulebook of class `cls` under `limits` share: a binder reads
    only the rulebook, its compiler, the limits and the class's `context`, so a fresh
    Engine binds as the last did, preparing nothing again. Kept on the compiler while it
    lives (a binder names an engine of it: a weak key would never go), for at most
    SHARED_RUNNABLES classes and limits; past them, a dict of the engine's own."""
    kept: dict = compiler.__dict__.setdefault("_runnables_shared", {})
    found = kept.get((cls, limits))
    if found is None:
        found = {}
        if len(kept) < SHARED_RUNNABLES:
            found = kept.setdefault((cls, limits), found)
    return found
