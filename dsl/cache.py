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
import json
import os
from fractions import Fraction
from pathlib import Path

import attrs

from dsl import nodes as n
from dsl.errors import Source, Span

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
        data = path.read_bytes()
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
# JSON objects appear only as tags: {"t": [...]} a tuple, {"d": [[k, v], ...]} a mapping
# (keys of any type), {"q": [num, den]} a fraction, {"s": [start, end]} a span of the one
# source being cached, {"n": "Class", "f": [...]} an AST node with its fields in order.


def dumps(value, source: Source | None = None) -> bytes:
    """The encoding of `value` (spans must all be of `source`); NotCached if it holds a
    value the encoding does not."""
    return json.dumps(_encode(value, source), separators=(",", ":")).encode("utf-8")


def loads(data: bytes, source: Source | None = None):
    """The value `dumps` encoded (spans made again over `source`); ValueError if the
    data is not such an encoding."""
    return _decode(json.loads(data.decode("utf-8")), source)


def _encode(value, source):
    if value is None or type(value) in (bool, int, str):
        return value
    kind = type(value)
    if kind is list:
        return [_encode(v, source) for v in value]
    if kind is tuple:
        return {"t": [_encode(v, source) for v in value]}
    if kind is dict:
        return {"d": [[_encode(k, source), _encode(v, source)] for k, v in value.items()]}
    if kind is Fraction:
        return {"q": [value.numerator, value.denominator]}
    if kind is Span:
        if value.source is not source:
            raise NotCached("a span of another source")
        return {"s": [value.start, value.end]}
    if NODE_CLASSES.get(kind.__name__) is kind:
        return {
            "n": kind.__name__,
            "f": [_encode(getattr(value, f.name), source) for f in attrs.fields(kind)],
        }
    raise NotCached(f"a {kind.__name__}")


def _decode(data, source):
    if data is None or type(data) in (bool, int, str):
        return data
    if type(data) is list:
        return [_decode(v, source) for v in data]
    if type(data) is not dict or len(data) not in (1, 2):
        raise ValueError("not a cache entry")
    if "t" in data:
        return tuple(_decode(v, source) for v in data["t"])
    if "d" in data:
        return {_decode(k, source): _decode(v, source) for k, v in data["d"]}
    if "q" in data:
        numerator, denominator = data["q"]
        return Fraction(numerator, denominator)
    if "s" in data:
        start, end = data["s"]
        if source is None or type(start) is not int or type(end) is not int:
            raise ValueError("a span without its source")
        return Span(source, start, end)
    kind = NODE_CLASSES.get(data.get("n"))
    fields = data.get("f")
    if kind is None or type(fields) is not list or len(fields) != len(attrs.fields(kind)):
        raise ValueError("not a node of dsl.nodes")
    node = object.__new__(kind)
    for field, value in zip(attrs.fields(kind), fields):
        object.__setattr__(node, field.name, _decode(value, source))
    return node
