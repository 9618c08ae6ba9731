"""Caches bounded by size: the least recently used leave once the sizes pass the bound.

A server keeps what it parsed, checked and compiled so that the next request for the
same rulebook is quick, but every edit of a text in the page is a new text: kept
without a bound, every text ever posted would stay in memory. Each entry has a size
(characters of rulebook text: what parsing, checking and compiling it holds grows with
them, about 15–20 bytes kept per character), and a cache keeps at most `most` of them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class Bounded:
    """A mapping of at most `most` (summed sizes) and `count` entries, least recently
    used out first; safe to share between threads."""

    def __init__(self, most: int, count: int = 1_000):
        self.most = most
        self.count = count
        self.size = 0
        self._items: OrderedDict = OrderedDict()  # key → (value, size)
        self._lock = threading.Lock()

    def get(self, key, default=None):
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return default
            self._items.move_to_end(key)
            return item[0]

    def put(self, key, value, size: int):
        """Keep `value` under `key` (one larger than the whole bound is not kept); the
        oldest entries leave until the bound holds again. Returns `value`."""
        size = max(1, int(size))
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.size -= old[1]
            if size > self.most:
                return value
            self._items[key] = (value, size)
            self.size += size
            while self.size > self.most or len(self._items) > self.count:
                _key, (_value, gone) = self._items.popitem(last=False)
                self.size -= gone
        return value

    def of(self, rulebook: Any, make: Callable[[Any], Any]) -> Any:
        """What `make(rulebook)` made for this very rulebook object (kept by identity,
        under its text's size: `text_size`), made now if it is not kept."""
        found = self.get(id(rulebook))
        if found is not None and found[0] is rulebook:
            return found[1]
        made = make(rulebook)
        self.put(id(rulebook), (rulebook, made), text_size(rulebook))
        return made

    def pop(self, key, default=None):
        with self._lock:
            item = self._items.pop(key, None)
            if item is None:
                return default
            self.size -= item[1]
            return item[0]

    def kept(self) -> list:
        """The keys kept now, least recently used first."""
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.size = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items


_DEFINITIONS: tuple[str, ...] = ("actions", "checks", "opposed", "rolls", "formulas")
_DEFINITIONS += ("tables", "ladders", "fields", "groups", "derived")


def text_size(rulebook) -> int:
    """The characters of every text a checked rulebook was made from (a house rule's
    bases too): the size it is kept under."""
    sources = {}
    current = rulebook
    while current is not None:
        for kind in _DEFINITIONS:
            for definition in getattr(current, kind, {}).values():
                span = getattr(definition, "span", None)
                source = getattr(span, "source", None)
                if source is not None:
                    sources[id(source)] = len(source.text)
        current = getattr(current, "base", None)
    return max(1, sum(sources.values()))
