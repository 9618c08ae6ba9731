"""Checked rulebooks kept on disk as data: a warm `dsl.load` neither parses nor checks again.

Loading a rulebook is parsing it (kept by `dsl.load.parse_cached`) and checking it; the
check is half of a warm load, so what is kept here is the checked `Rulebook` itself: its
definitions, and what the checker resolved (`bindings` and `types`, keyed by the nodes
themselves). It is written in `dsl.cache`'s folder and encoding (JSON: ints, texts,
arrays; nodes only of `dsl.nodes`' classes, types of `dsl.types`, bindings of
`dsl.rulebook`; never code, and a file that does not decode is ignored and made again).

A node met twice (a definition, and the binding that names it) is written once and then
referred to as {"r": i}, the i-th object made: objects are numbered in the order the
JSON parser finishes them (innermost first), which is the order they were written, so a
reference always names one already made. The bindings and types are two arrays of those
numbers, pairs (node, binding) and (node, type).

A house rule's entry is kept when its base's was (read back or written in this
process): what it shares with its base (the definitions it does not replace, their
bindings and types) is referred to by the numbers of the base's own entry, whose objects
come first. Its key holds a digest of the bytes of the base's entry it was numbered
against (so the base's text, and the bases' below it, are in it too; and a base's entry
written again in another order, however that might come, is another key, never a
reference to the wrong object).

Kept only what this encoding holds exactly: a rulebook with no warnings (a warning is a
message with its values, shown in a language later; such a rulebook is checked again on
every load). The key is the text, its name, and every module of the front end with the
grammar and the package's version (`checker_version`): a new checker, a new version of
the package, checks again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import weakref
from collections.abc import Callable
from fractions import Fraction
from importlib import resources

import attrs

from dsl import cache
from dsl import types as t
from dsl.errors import Source, Span
from dsl.rulebook import Binding, Rulebook

#: the version of this encoding, written first in every entry
FORMAT = "checked-1"
#: the classes an entry may name: the AST's, a type's, a binding's
CLASSES = {**cache.NODE_CLASSES, "Type": t.Type, "Binding": Binding}
_FIELDS = {kind: tuple(f.name for f in attrs.fields(kind)) for kind in CLASSES.values()}
#: the fields that hold a span (`span`, `op_span`, ...), written as [start, end] in place
_SPAN_FIELDS = frozenset(name for fields in _FIELDS.values() for name in fields if "span" in name)
#: the Rulebook's fields written in an entry (bindings and types are written apart)
BOOK_FIELDS = tuple(
    f.name for f in attrs.fields(Rulebook) if f.name not in ("bindings", "types", "base")
)


#: each checked rulebook kept or read back in this process: its objects in the order its
#: entry numbers them, and the entry's bytes (what a house rule's entry refers to, and
#: is keyed by); gone with the rulebook
_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def entry_name(text: str, name: str, base: Rulebook | None = None) -> str | None:
    """The name of the cache entry of a checked rulebook: a hash of its text, its name,
    the front end's code (`checker_version`) and, for a house rule, a digest of its
    base's entry; None for a house rule whose base has no entry (it is checked every
    time)."""
    based_on = ""
    if base is not None:
        kept = _KEPT.get(base)
        if kept is None:
            return None
        based_on = hashlib.sha256(kept[1]).hexdigest()
    key = f"{checker_version()}\n{name}\n{based_on}\n{text}".encode("utf-8", "surrogatepass")
    return f"checked-{hashlib.sha256(key).hexdigest()[:32]}.json"


def read(entry: str, source: Source, max_words: int, base: Rulebook | None = None):
    """The checked rulebook kept under `entry` (a house rule's over `base`), if there is
    one, it decodes, and it has at most `max_words` words (else None: it is loaded the
    long way, which says why)."""
    data = cache.read(entry)
    if data is None:
        return None
    try:
        found = _loads(data, source, max_words, base)
    except (ValueError, TypeError, KeyError, RecursionError):  # not one of ours: check again
        return None
    if found is None:
        return None
    book, made = found
    _KEPT[book] = (made, data)
    return book


def keep(entry: str, book: Rulebook, words: int, source: Source) -> None:
    """Write the entry of a checked rulebook (if this encoding holds it: `dumps`)."""
    made: list = []
    with contextlib.suppress(cache.NotCached, RecursionError):
        data = dumps(book, words, source, made)
        cache.write(entry, data)
        _KEPT[book] = (made, data)


@functools.cache
def checker_version() -> str:
    """What a checked rulebook depends on besides its text: every module of the front
    end, the grammar, and the package's version (`interpreter/version.py`), by their
    sizes and times of change (as Python's own bytecode cache)."""
    digest = hashlib.sha256(FORMAT.encode())
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(
        os.path.join(folder, name)
        for folder, _, names in os.walk(here)  # (not pathlib's rglob: five times slower)
        for name in names
        if name.endswith(".py")
    )
    files += [os.path.join(os.path.dirname(here), "interpreter", "version.py")]
    files += [str(resources.files("grammar").joinpath("rulebook.lark"))]
    for path in files:
        with contextlib.suppress(OSError):
            status = os.stat(path)
            digest.update(f"{path} {status.st_size} {status.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def dumps(book: Rulebook, words: int, source: Source, made: list | None = None) -> bytes:
    """The entry of a checked rulebook whose own spans are all of `source` (`words`: its
    count of words and symbols, which a load with a lower `max_words` refuses), and its
    objects in the order numbered (put in `made`); cache.NotCached if it holds what this
    encoding does not (a warning, a value of another kind, a span of another text, a
    base without an entry)."""
    if book.warnings:
        raise cache.NotCached("warnings")
    encoder = _Encoder(source)
    if book.base is not None:  # the base's objects first, numbered as its entry numbers them
        kept = _KEPT.get(book.base)
        if kept is None:
            raise cache.NotCached("a house rule whose base has no entry")
        encoder.start_from(kept[0])
    fields = [encoder.encode(getattr(book, name)) for name in BOOK_FIELDS]
    inline: list = []  # bindings and types first met here, and values that are no objects
    pairs: tuple = ([], [])
    for table, out in zip((book.bindings, book.types), pairs, strict=True):
        for key, value in table.items():
            number = encoder.numbers.get(key)
            if number is None:  # a node the checker made and let go: nobody can ask for it
                continue
            encoded = encoder.encode(value)
            if type(value) in _BY_VALUE or id(value) in encoder.numbers:  # an object
                if "r" not in encoded:  # written here first: made where it is read
                    inline.append(encoded)
                found = encoder.number_of(value)
            else:  # a value written where it is used: -1 is the first in `inline`
                inline.append(encoded)
                found = -len(inline)
            out.extend((number, found))
    document = [FORMAT, words, fields, inline, *pairs]
    data = json.dumps(document, separators=(",", ":"))
    if len(data) > cache.MAX_ENTRY_BYTES:
        raise cache.NotCached("longer than an entry may be")
    if made is not None:
        made.extend(encoder.made)
    return data.encode("utf-8")


def loads(data: bytes, source: Source, max_words: int, base: Rulebook | None = None):
    """The checked rulebook of an entry (a house rule's over `base`), its spans over
    `source`; None if it has more than `max_words` words and symbols; ValueError if it
    is not such an entry."""
    found = _loads(data, source, max_words, base)
    return None if found is None else found[0]


def _loads(data: bytes, source: Source, max_words: int, base: Rulebook | None):
    """`loads`, and the objects the entry numbers, in order (its base's first)."""
    tagged, made = _decoder(source)
    if base is not None:
        kept = _KEPT.get(base)
        if kept is None:
            raise ValueError("a house rule's entry, without its base's")
        made.extend(kept[0])
    try:
        found = json.loads(data.decode("utf-8"), object_pairs_hook=tagged)
        form, words, fields, inline, pairs, types = found
        if form != FORMAT or type(words) is not int or len(fields) != len(BOOK_FIELDS):
            raise ValueError("not a checked rulebook")
        if words > max_words:
            return None
        if min(pairs, default=0) < 0 or min(types[::2], default=0) < 0:
            raise ValueError("a reference before the first object")
        bindings = {id(made[a]): made[b] for a, b in zip(pairs[::2], pairs[1::2], strict=True)}
        kinds = {
            id(made[a]): made[b] if b >= 0 else _frozen(inline[-b - 1])
            for a, b in zip(types[::2], types[1::2], strict=True)
        }
    except (TypeError, KeyError, IndexError, AttributeError) as error:
        raise ValueError("not a checked rulebook") from error
    if not all(type(v) is Binding for v in bindings.values()):
        raise ValueError("not a checked rulebook")
    if not all(type(v) is t.Type or type(v) is tuple for v in kinds.values()):
        raise ValueError("not a checked rulebook")
    values = {name: _frozen(value) for name, value in zip(BOOK_FIELDS, fields, strict=True)}
    for name, field in attrs.fields_dict(Rulebook).items():
        kind = field.type
        if (
            name in values
            and kind in ("dict", "tuple", "str")
            and type(values[name]).__name__ != kind
        ):
            raise ValueError("not a checked rulebook")
    return Rulebook(**values, bindings=bindings, types=kinds, base=base), made


#: the classes whose equal values are written once (they are compared by value)
_BY_VALUE = (t.Type, Binding)


class _Encoder:
    """A value as JSON-ready data, each object written once (then referred to by its
    number: the objects are numbered as they are finished, innermost first)."""

    def __init__(self, source: Source):
        self.source = source
        self.numbers: dict = {}  # id(object) → its number
        self.made: list = []  # the objects numbered (alive while their ids are keys)
        self.by_value: dict = {}  # a type or a binding → its number (equal ones once)

    def start_from(self, made: list) -> None:
        """Number first the objects of a base's entry, in its order (a house rule's
        entry refers to them)."""
        for value in made:
            self.numbers[id(value)] = len(self.made)
            if type(value) in _BY_VALUE:
                self.by_value.setdefault(value, len(self.made))
            self.made.append(value)

    def number_of(self, value) -> int:
        """The number of an object already written."""
        number = self.numbers.get(id(value))
        return self.by_value[value] if number is None else number

    def encode(self, value):
        kind = type(value)
        if value is None or kind in (bool, int, str):
            return value
        if kind is tuple:
            return [self.encode(v) for v in value]
        if kind is dict:
            return {"d": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if kind is frozenset:
            if not all(type(v) is str for v in value):
                raise cache.NotCached("a set of other than texts")
            return {"f": sorted(value)}
        if kind is Fraction:
            return {"q": [value.numerator, value.denominator]}
        if kind is Span:
            if value.source is not self.source and value.source != self.source:
                raise cache.NotCached("a span of another text")
            return {"s": [value.start, value.end]}
        fields = _FIELDS.get(kind)
        if fields is None or CLASSES.get(kind.__name__) is not kind:
            raise cache.NotCached(f"a {kind.__name__}")
        number = self.numbers.get(id(value))
        if number is None and kind in _BY_VALUE:
            number = self.by_value.get(value)
        if number is not None:
            return {"r": number}
        encoded = {kind.__name__: [self.field(value, f) for f in fields]}
        self.numbers[id(value)] = number = len(self.made)
        self.made.append(value)
        if kind in _BY_VALUE:
            self.by_value[value] = number
        return encoded

    def field(self, node, name: str):
        """A field of an object: a span as [start, end] (None as null), else its value."""
        value = getattr(node, name)
        if name not in _SPAN_FIELDS or value is None:
            return self.encode(value)
        if type(value) is not Span:
            raise cache.NotCached("a span field without a span")
        if value.source is not self.source and value.source != self.source:
            raise cache.NotCached("a span of another text")
        return [value.start, value.end]


#: each class an entry may name, by its tag: the class, and for each of its fields in
#: order, the setter of its slot and whether it holds a span
_PLANS = {
    tag: (kind, tuple(zip(cache.slot_setters(kind), [f in _SPAN_FIELDS for f in _FIELDS[kind]])))
    for tag, kind in CLASSES.items()
}


def _decoder(source: Source) -> tuple[Callable, list]:
    """The JSON parser's hook that makes each tagged object (as its list of pairs: one)
    back into its value, and the list of the objects it made, in the order made.

    Only what the encoding holds comes out: an object of CLASSES with all its fields, a
    span field None or a span inside the text, a fraction of a positive denominator;
    anything else is a ValueError (or a TypeError, KeyError...), and the entry is
    checked again. (A closure, its names local, slots set by their own setters: it runs
    for each of the thousands of objects of a warm load.)"""
    made: list = []
    keep = made.append
    new = object.__new__
    plans = _PLANS
    span_of = cache.span_maker(source)

    def tagged(pairs: list):
        ((tag, value),) = pairs  # (ValueError unless one key)
        plan = plans.get(tag)
        if plan is not None and type(value) is list:  # the most frequent: an object
            kind, setters = plan
            if len(value) != len(setters):
                raise ValueError("not a node, a type or a binding")
            obj: object = new(kind)
            for (setter, is_span), field in zip(setters, value):  # (lengths checked)
                if is_span:
                    if field is not None:
                        field = span_of(field)
                elif type(field) is list:
                    field = _frozen(field)
                setter(obj, field)
            keep(obj)
            return obj
        if type(value) is not list:
            if tag == "r" and type(value) is int and 0 <= value < len(made):
                return made[value]
            raise ValueError("not a checked rulebook")
        if tag == "s":
            return span_of(value)
        if tag == "d":
            return {_frozen(k): _frozen(v) for k, v in value}
        if tag == "f":
            return frozenset(_frozen(v) for v in value)
        if tag == "q":
            return cache.fraction(value)
        raise ValueError("not a node, a type or a binding")

    return tagged, made


def _frozen(value):
    """JSON's arrays as the tuples they were written from (hashable, as nodes' are)."""
    if type(value) is list:
        return tuple(_frozen(v) for v in value) if list in map(type, value) else tuple(value)
    return value
