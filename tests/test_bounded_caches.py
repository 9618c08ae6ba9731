"""Caches bounded by size (dsl.bounded): what a process keeps of the rulebooks it parsed,
checked and compiled stays within its bound however many new texts it is given (a
server's editor posts a new one on every edit)."""

from __future__ import annotations

import gc
import importlib

from hypothesis import given
from hypothesis import strategies as st

import dsl
from dsl.bounded import Bounded, text_size
from dsl.rulebook import Rulebook
from interpreter.compile import compiler as compiler_module
from interpreter.engine import Engine
from interpreter.web.library import Library

engine_module = importlib.import_module("interpreter.engine")
load_module = importlib.import_module("dsl.load")
BASE = """rulebook "Small" {
}

sheet {
  attribute Fuerza in 1..5
}

action golpe() {
  let r = 2d6 + Fuerza
  result { total: r, success: r >= 8 }
}
"""
KEPT = 5  # texts each cache keeps in these tests


@given(
    st.lists(
        st.tuples(st.sampled_from(["put", "get"]), st.integers(0, 20), st.integers(1, 40)),
        max_size=80,
    )
)
def test_a_bounded_cache_keeps_its_bound_and_the_last_used(operations):
    cache = Bounded(100, count=8)
    for op, key, size in operations:
        if op == "put":
            cache.put(key, f"v{key}", size)
            assert cache.get(key) == f"v{key}"  # what was just kept is there
        elif cache.get(key) is not None:
            assert cache.get(key) == f"v{key}"
        assert cache.size <= 100 and len(cache) <= 8
        assert cache.size == sum(s for _v, s in cache._items.values())


def test_the_least_recently_used_leaves_first():
    cache = Bounded(30)
    for key in "abc":
        cache.put(key, key, 10)
    cache.get("a")  # used: "b" is now the oldest
    cache.put("d", "d", 10)
    assert "b" not in cache and {"a", "c", "d"} <= {k for k in "abcd" if k in cache}
    assert cache.put("huge", "x", 31) == "x" and "huge" not in cache  # larger than the bound


def _alive() -> int:
    gc.collect()
    return sum(isinstance(o, Rulebook) for o in gc.get_objects())


def _small_bounds(monkeypatch) -> int:
    """Every cache of rulebooks bounded to KEPT texts of BASE's size; that size."""
    size = text_size(dsl.load_text(BASE, "b.rules"))
    monkeypatch.setattr(engine_module, "_ENGINES", Bounded(KEPT * size))
    monkeypatch.setattr(compiler_module, "_COMPILERS", Bounded(KEPT * size))
    monkeypatch.setattr(load_module, "_PARSED", Bounded(KEPT * size))
    return size


def test_engines_of_new_texts_do_not_pile_up(monkeypatch):
    _small_bounds(monkeypatch)
    before = _alive()
    for i in range(6 * KEPT):
        book = dsl.load_text(f"{BASE}\n# edit {i}\n", "b.rules")
        assert Engine.of(book) is Engine.of(book)  # kept while among the last used
        assert Engine.of(book).run("golpe", Engine.of(book).sheet({"Fuerza": 3})).result
    del book
    assert _alive() - before <= KEPT + 1


def test_a_servers_texts_do_not_pile_up(tmp_path, monkeypatch):
    size = _small_bounds(monkeypatch)
    library = Library(tmp_path)
    library._texts = Bounded(KEPT * size)
    before = _alive()
    for i in range(6 * KEPT):
        text = f"{BASE}\n# edit {i}\n"
        assert library.rulebook_text(text) is library.rulebook_text(text)
        Engine.of(library.rulebook_text(text))
    assert _alive() - before <= KEPT + 1
