"""Runtime values: exact numbers, texts, booleans, lists and records; how they print."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

from dsl.messages import KEEPS_SHOWN, show_value

#: the types of values that hold no other value (numbers, texts, yes/no, none): never a
#: list or a record, and asked about before `isinstance(value, Record)`, which for any
#: other type goes through the Mapping ABC's hook
PLAIN_TYPES = frozenset({int, str, bool, type(None), Fraction})
#: the slots `Record.__init__` gives None, besides `_fields` and `kind`: generated code
#: that makes a record without calling it gives them so (interpreter.compile.codegen.returned).
#: `_shown` and `_whole` too (`SET_KEPT`): a slot never set is read through `__getattr__`,
#: two exceptions (about 1 µs) each time a new record is first shown in a trace
UNSET_SLOTS = ("_hash", "_cells", "_shown", "_whole")
#: whether a record's kept texts start as None (off: unset, found so by `__getattr__`)
SET_KEPT = True


class Record(Mapping):
    """Named values: a check's result (total, success, ...), a table row, a catalog entry.

    An immutable mapping, compared by value (also with a plain dict). `label` is the text
    a table row shows ("Bueno"). Fields are read as `record["total"]` or, where the name
    is not one of a mapping's own (`kind`, `get`, `items`, `keys`, `values`), as
    `record.total`; `to_json()` gives plain JSON data (docs/json.md).
    """

    __slots__ = ("_cells", "_fields", "_hash", "_shown", "_whole", "kind")
    #: whether it is shown whole, by (as data, length): set when first asked (interpreter.shown)
    _whole: dict[tuple[bool, int], bool] | None
    #: its text as people read it, by language: set when first shown (dsl.messages.show_value)
    _shown: dict[str | None, str] | None

    def __init__(self, fields: dict, kind: str = "record"):
        self._fields = fields  # a fresh dict, owned by the record from now on
        self.kind = kind
        self._hash: int | None = None
        self._cells: int | None = None  # its size once counted (interpreter.bounds.cells), if flat
        if SET_KEPT:
            self._shown = self._whole = None

    def get(self, name, default=None):
        return self._fields.get(name, default)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return object.__getattribute__(self, "_fields")[name]
        except (KeyError, AttributeError):
            raise AttributeError(f"the record has no field {name!r}") from None

    def to_json(self, fractions: dict | None = None) -> dict:
        """The record as plain JSON data: numbers as JSON numbers, the exact value of one
        that is not whole noted in `fractions` (by JSON pointer) when a dict is given."""
        return plain(self, fractions)

    def __getitem__(self, name):
        return self._fields[name]

    def __contains__(self, name) -> bool:
        return name in self._fields

    def __iter__(self):
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def items(self):
        return self._fields.items()

    def keys(self):
        return self._fields.keys()

    def values(self):
        return self._fields.values()

    def __eq__(self, other) -> bool:
        if type(other) is Record:
            return self is other or self._fields == other._fields
        if isinstance(other, Mapping):
            return dict(self._fields) == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        found = self._hash
        if found is None:
            try:  # the usual case: every value hashable as it is
                found = hash(frozenset(self._fields.items()))
            except TypeError:
                found = hash(frozenset((k, _hashable(v)) for k, v in self._fields.items()))
            self._hash = found
        return found

    def __repr__(self) -> str:
        return f"Record({dict(self._fields)!r})"


KEEPS_SHOWN.add(Record)  # (immutable: its text in a language is the same every time)


def cut_record(record: Record, fields: tuple) -> Record:
    """The record with only `fields` (those it lacks as None), of its kind (a function,
    not a method: a record's fields are read as its attributes)."""
    get = record._fields.get
    return Record({k: get(k) for k in fields}, record.kind)


class Range:
    """`1..10`, `5..`, `..2`: the whole numbers between two ends (either may be open)."""

    __slots__ = ("high", "low")

    def __init__(self, low, high):
        self.low, self.high = low, high

    def holds(self, value) -> bool:
        if not is_number(value):
            return False
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def __eq__(self, other) -> bool:
        return type(other) is Range and (self.low, self.high) == (other.low, other.high)

    def __hash__(self) -> int:
        return hash((Range, self.low, self.high))

    def __repr__(self) -> str:
        return f"Range({self.low!r}, {self.high!r})"

    def __str__(self) -> str:
        low = "" if self.low is None else str(self.low)
        high = "" if self.high is None else str(self.high)
        return f"{low}..{high}"


def _hashable(value):
    if isinstance(value, dict):
        return frozenset((k, _hashable(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


#: yes/no written as words, in every spelling the API accepts (English, Spanish, JSON's)
YES_NO = {"yes": True, "true": True, "sí": True, "si": True, "no": False, "false": False}


def is_number(value) -> bool:
    return type(value) is int or type(value) is Fraction


def normalize(value):
    """A Fraction that is whole becomes an int, so that 6/2 prints and compares as 3."""
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def type_name(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes/no"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, tuple):
        return "list"
    if isinstance(value, Record):
        return "record"
    if isinstance(value, Range):
        return "range"
    return type(value).__name__


def show(value, language: str | None = None) -> str:
    """A value as the trace and the text output print it (`dsl.messages.show_value`)."""
    return show_value(value, language)


#: bits of a fraction's denominator written out exactly (about 3,000 digits: Python will
#: not turn an int of more than 4,300 digits into text, and nobody reads one); an exact
#: probability's denominator may pass it
FRACTION_BITS = 10_000


def fraction_text(value: Fraction) -> str | None:
    """A fraction as `num/den`, or None when it is too long to write out."""
    if max(value.denominator.bit_length(), value.numerator.bit_length()) > FRACTION_BITS:
        return None
    return f"{value.numerator}/{value.denominator}"


def rounded(value, places: int = 4) -> Decimal:
    """`value` (a whole number or a Fraction) rounded to `places` decimals, a half to
    even, as an exact Decimal for showing: its digits are the value's at any size, where
    a float keeps 17 and overflows past 1.8e308 (outcomes may have a thousand digits)."""
    return decimal_of(round(Fraction(value) * 10**places), places)


def decimal_of(scaled: int, places: int) -> Decimal:
    """`scaled` × 10^-places as an exact Decimal (read from text: no context rounds it)."""
    return Decimal(f"{scaled}e-{places}")


def plain(value, fractions: dict | None = None, pointer: str = "", text=str):
    """A value as the JSON documents hold it (docs/json.md): a number as a JSON number
    (a whole one exactly); the exact value of one that is not whole, "7/2", noted in
    `fractions` under its JSON pointer; yes/no as booleans, a record as an object, a
    range as {min, max}, a set as a sorted array; texts through `text` (a translation)."""
    kind = type(value)  # (the commonest kinds first, by their exact type: no ABC asked)
    if kind is int or kind is bool or value is None:
        return value
    if kind is str:
        return text(value)
    if kind is dict:
        return _plain_mapping(value, fractions, pointer, text)
    if kind is list or kind is tuple:
        return _plain_items(value, fractions, pointer, text)
    if kind is Record:  # (before the ABCs below: a Mapping's hook asked of it is slow)
        return _plain_mapping(value, fractions, pointer, text)
    if isinstance(value, str):
        return text(value)
    if isinstance(value, float):
        return value
    if type(value) is Fraction:
        if value.denominator == 1:
            return value.numerator
        exact = fraction_text(value)
        if fractions is not None and exact is not None:
            fractions[pointer] = exact
        try:
            return value.numerator / value.denominator
        except OverflowError:  # past what a float holds (a value of ~1000 digits)
            return exact
    if isinstance(value, Mapping):
        return _plain_mapping(value, fractions, pointer, text)
    if isinstance(value, tuple | list):
        return _plain_items(value, fractions, pointer, text)
    if isinstance(value, set | frozenset):
        ordered = sorted(value, key=lambda v: (str(type(v)), str(v)))
        return [plain(v, fractions, f"{pointer}/{i}", text) for i, v in enumerate(ordered)]
    if isinstance(value, Range):
        return {"min": plain(value.low), "max": plain(value.high)}
    to_data = getattr(value, "to_json", None)
    if callable(to_data):  # a value kind that knows its own data
        return plain(to_data(), fractions, pointer, text)
    return str(value)


def _plain_mapping(value: Mapping, fractions: dict | None, pointer: str, text) -> dict:
    out = {}
    for k, v in value.items():  # (a number, yes/no or text as it is: no pointer made)
        kind = type(v)
        if kind is int or v is None or kind is bool:
            out[k if type(k) is str else str(k)] = v
        elif kind is str:
            out[k if type(k) is str else str(k)] = text(v)
        else:
            out[str(k)] = plain(v, fractions, f"{pointer}/{escape_key(k)}", text)
    return out


def _plain_items(value: list | tuple, fractions: dict | None, pointer: str, text) -> list:
    return [
        v if type(v) is int else plain(v, fractions, f"{pointer}/{i}", text)
        for i, v in enumerate(value)
    ]


def escape_key(key) -> str:
    """A key as a JSON pointer writes it (RFC 6901: `~` and `/` escaped)."""
    return str(key).replace("~", "~0").replace("/", "~1")


def quoted(value) -> str:
    """A value given from outside (a sheet, a parameter) as an error message quotes it:
    its repr, a long one cut short."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 300:
        return f"a number of about {round(value.bit_length() * 0.30103)} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:50] + "…" + text[-5:]


class FractionText(str):
    """A fraction as `to_json` gives it: the text "7/2", which stays a fraction for
    whoever keeps it (the journal stores a text that reads the same, "1/2", escaped)."""

    __slots__ = ()

    def fraction(self) -> Fraction:
        return Fraction(self)


#: the form of a FractionText (a text of that form is not a fraction unless tagged)
FRACTION_FORM = re.compile(r"-?[0-9]+/[0-9]+")


def to_json(value):
    """A value as JSON data: fractions as "7/2" strings (FractionText), records as
    objects (the journal's lossless form; documents for programs use `plain`)."""
    if type(value) is Fraction:
        return FractionText(f"{value.numerator}/{value.denominator}")
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, Record):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, Range):
        return str(value)
    return value


def round_half_away(value):
    """`round`: halves go away from zero (2.5 → 3, -2.5 → -3), as people round."""
    if type(value) is int:
        return value
    floor = math.floor(abs(value) + Fraction(1, 2))
    return floor if value >= 0 else -floor
