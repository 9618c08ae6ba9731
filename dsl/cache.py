"""The front end's cache on disk: data (JSON) that cannot run code, in a bounded folder.

Two things are kept, both because they are slow to make and quick to read: Lark's parse
tables for the grammar (building them takes most of a second) and the AST of each
rulebook file parsed (a 1000-line rulebook takes a tenth of a second or more to parse).
They live in the user's own cache folder (`$XDG_CACHE_HOME/rulebook`, else
`~/.cache/rulebook`), one file each, named by a hash of everything they depend on.

What is read back is only data: a tagged JSON encoding of ints, texts, lists, tuples,
mappings, fractions, spans and the AST's own node classes (found by name among
`dsl.nodes`, nothing else). Unlike a pickle, a file planted in the folder cannot make
the loader run anything; a file that does not decode is ignored and made again. Files
someone else owns are never read. The folder is bounded: an entry larger than
MAX_ENTRY_BYTES is not kept, and after each write the oldest entries go until at most
MAX_ENTRIES files and MAX_BYTES bytes remain.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import MemberDescriptorType

import attrs

from dsl import nodes as n
from dsl.errors import Source, Span
from dsl.reading import read_regular

#: most files the cache folder holds, and most bytes in all, and in one entry
MAX_ENTRIES = 64
MAX_BYTES = 32_000_000
MAX_ENTRY_BYTES = 4_000_000

#: the AST classes an entry may name (every attrs class of dsl.nodes, and only those)
NODE_CLASSES = {
    name: value
    for name, value in vars(n).items()
    if isinstance(value, type) and attrs.has(value) and value.__module__.startswith("dsl.nodes")
}


class NotCached(Exception):
    """A value the cache's encoding does not hold (it is simply not kept)."""


# ─── the folder ─────────────────────────────────────────────────────────────


def folder() -> Path | None:
    """The cache folder, made if need be; None when there is none to be had."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "rulebook"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path


def read(name: str) -> bytes | None:
    """An entry's bytes, if it is there, ours, and not too large (and mark it as used)."""
    where = folder()
    if where is None:
        return None
    path = where / name
    try:
        status = path.stat()
        if status.st_uid != os.getuid() or status.st_size > MAX_ENTRY_BYTES:
            return None
        data = read_regular(path, MAX_ENTRY_BYTES, follow=False)
        os.utime(path)  # recently used: pruned last
        return data
    except OSError:
        return None


def write(name: str, data: bytes) -> None:
    """Keep an entry (atomically: another process reads the old one or the new one), then
    prune the folder to its bounds. A cache that cannot be written is no error."""
    where = folder()
    if where is None or len(data) > MAX_ENTRY_BYTES:
        return
    temporary = where / f".{name}.{os.getpid()}.tmp"
    try:
        temporary.write_bytes(data)
        os.replace(temporary, where / name)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return
    prune(where)


def prune(where: Path) -> None:
    """Remove the least recently used entries past MAX_ENTRIES or MAX_BYTES (and any
    file of the old pickle caches, which are never read)."""
    entries = []
    for path in where.iterdir():
        try:
            if path.suffix in (".pickle", ".cache"):  # an older version's, never read
                path.unlink()
                continue
            status = path.stat()
        except OSError:
            continue
        entries.append((status.st_mtime, status.st_size, path))
    entries.sort(reverse=True)  # newest first
    kept_bytes = 0
    for count, (_mtime, size, path) in enumerate(entries, 1):
        kept_bytes += size
        if count > MAX_ENTRIES or kept_bytes > MAX_BYTES:
            with contextlib.suppress(OSError):
                path.unlink()


# ─── the encoding: JSON, with tags for what JSON lacks ──────────────────────
#
# JSON objects appear only as tags of one key: {"Class": [...]} an AST node with its
# fields in order, {"s": [start, end]} a span of the one source being cached, {"q": [num,
# den]} a fraction; in `dumps` also {"t": [...]} a tuple and {"d": [[k, v], ...]} a
# mapping (keys of any type). `dumps_tree` writes an AST, which holds tuples but no list
# or mapping, as json's own encoder does: a tuple is an array, read back as a tuple.


def dumps(value, source: Source | None = None) -> bytes:
    """The encoding of any value of those (spans must all be of `source`); NotCached if
    it holds a value the encoding does not, or if it is certainly longer than
    MAX_ENTRY_BYTES (so that an entry too large to keep is not encoded to the end only to
    be dropped)."""
    return _bounded(json.dumps(_Encoder(source).encode(value), separators=(",", ":")))


def loads(data: bytes, source: Source | None = None):
    """The value `dumps` encoded (spans made again over `source`); ValueError if the
    data is not such an encoding. Each JSON object is decoded as the parser meets it,
    innermost first (`object_pairs_hook`): no second walk over what was read."""
    return json.loads(data.decode("utf-8"), object_pairs_hook=_decoder(source, False))


def dumps_tree(node, source: Source) -> bytes:
    """The encoding of an AST (nodes, spans of `source`, tuples, texts, numbers, None),
    made by json's own encoder, which calls back only for a node, a span or a fraction.
    NotCached as `dumps`."""
    encoder = _Encoder(source)
    return _bounded(
        json.dumps(node, default=encoder.tagged, separators=(",", ":"), check_circular=False)
    )


def loads_tree(data: bytes, source: Source):
    """The AST `dumps_tree` encoded, its spans made again over `source` (ValueError if
    the data is not such an encoding)."""
    return json.loads(data.decode("utf-8"), object_pairs_hook=_decoder(source, True))


def _bounded(text: str) -> bytes:
    data = text.encode("utf-8")
    if len(data) > MAX_ENTRY_BYTES:
        raise NotCached("longer than an entry may be")
    return data


#: the field names of every node class, in order
_FIELDS = {kind: tuple(f.name for f in attrs.fields(kind)) for kind in NODE_CLASSES.values()}
#: the fewest bytes an encoded node or span takes: `{"":[]}` and `{"s":[0,0]}`
_NODE_BYTES = 7
_SPAN_BYTES = 11


class _Encoder:
    """The JSON-ready form of a value, counting the fewest bytes it can take as it goes."""

    def __init__(self, source: Source | None):
        self.source = source
        self.left = MAX_ENTRY_BYTES  # bytes the entry may still take, at the least

    def encode(self, value):
        """`dumps`'s form of any value: containers tagged, and their items encoded too."""
        if value is None or type(value) in (bool, int, str):
            return value
        kind = type(value)
        if kind is list:
            return [self.encode(v) for v in value]
        if kind is tuple:
            return {"t": [self.encode(v) for v in value]}
        if kind is dict:
            return {"d": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        ((tag, fields),) = self.tagged(value).items()
        return {tag: [self.encode(field) for field in fields]}

    def tagged(self, value):
        """A node, span or fraction as its tag and its fields (not encoded themselves:
        json's encoder, or `encode`, goes on into them)."""
        kind = type(value)
        if kind is Span:
            if value.source is not self.source:
                raise NotCached("a span of another source")
            self.spend(_SPAN_BYTES)
            return {"s": [value.start, value.end]}
        fields = _FIELDS.get(kind)
        if fields is not None:
            self.spend(_NODE_BYTES + len(kind.__name__))
            return {kind.__name__: [getattr(value, f) for f in fields]}
        if kind is Fraction:
            return {"q": [value.numerator, value.denominator]}
        raise NotCached(f"a {kind.__name__}")

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise NotCached("longer than an entry may be")


def slot_setters(kind) -> tuple:
    """The setter of each field of an attrs class, in order: its slot's own (found once:
    no name looked up for each object made; it sets a frozen class's slot as attrs' own
    __init__ does), or, for a class without slots, one that sets the field by name."""
    setters = []
    for name in (f.name for f in attrs.fields(kind)):
        slot = kind.__dict__.get(name)
        if isinstance(slot, MemberDescriptorType):
            setters.append(slot.__set__)
        else:
            setters.append(functools.partial(_set_named, name))
    return tuple(setters)


def _set_named(name: str, made, value) -> None:
    object.__setattr__(made, name, value)


def span_maker(source: Source | None) -> Callable[[list], Span]:
    """What makes a span of `source` from its [start, end] (ValueError unless two offsets
    into the text, or without a source): as Span's own __init__, without its call (a
    warm load makes thousands)."""
    new = object.__new__
    set_source, set_start, set_end = slot_setters(Span)
    size = -1 if source is None else len(source.text)

    def span_of(value: list) -> Span:
        start, end = value
        if type(start) is not int or type(end) is not int or not 0 <= start <= end <= size:
            raise ValueError("a span is two offsets into the text of its source")
        span = new(Span)
        set_source(span, source)
        set_start(span, start)
        set_end(span, end)
        return span

    return span_of


def fraction(value: list) -> Fraction:
    """A fraction from its [numerator, denominator] (ValueError unless two ints, the
    second above 0)."""
    numerator, denominator = value
    if type(numerator) is not int or type(denominator) is not int or denominator <= 0:
        raise ValueError("a fraction is two numbers, the second above 0")
    return Fraction(numerator, denominator)


#: each node class by its tag, with the setters of its fields
_NODE_PLANS = {tag: (kind, slot_setters(kind)) for tag, kind in NODE_CLASSES.items()}


def _decoder(source: Source | None, tuples: bool) -> Callable[[list], object]:
    """The JSON parser's hook that makes each tagged object (its list of pairs: one) back
    into its value; with `tuples`, a node's arrays are tuples (`dumps_tree`), else lists
    (`dumps` tags its tuples). A closure, its names local: it runs for each node and span."""
    new = object.__new__
    plans = _NODE_PLANS
    span_of = span_maker(source)

    def tagged(pairs: list):
        ((tag, value),) = pairs  # (ValueError unless one key)
        if type(value) is not list:
            raise ValueError("not a cache entry")
        if tag == "s":  # the most frequent: a span
            return span_of(value)
        plan = plans.get(tag)
        if plan is not None:
            kind, setters = plan
            if len(value) != len(setters):
                raise ValueError("not a node of dsl.nodes")
            node = new(kind)
            for setter, field in zip(setters, value):  # (lengths checked)
                if tuples and type(field) is list:
                    field = _tuples(field)
                setter(node, field)
            return node
        if tag == "t" and not tuples:
            return tuple(value)
        if tag == "d" and not tuples:
            return {key: item for key, item in value}
        if tag == "q":
            return fraction(value)
        raise ValueError("not a node of dsl.nodes")

    return tagged


def _tuples(items: list) -> tuple:
    if list in map(type, items):  # tuples within: each made one too
        return tuple(_tuples(item) if type(item) is list else item for item in items)
    return tuple(items)
