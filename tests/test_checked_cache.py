"""The checked rulebook kept on disk (dsl.checked_cache): the same rulebook back, data
never code, a bad entry ignored and made again, its key following its text and the code."""

from __future__ import annotations

import importlib
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

import dsl
from dsl import cache, checked_cache
from dsl import nodes as n
from dsl.bounded import Bounded
from dsl.errors import RulebookSyntaxError, Source

LOAD = importlib.import_module("dsl.load")
SMALL = """rulebook "Pequeño" { language "es" }
sheet {
  attribute Fuerza in 1..5
}
table T { a: 1, b: 2 }
check tirada(x: int) {
  roll d20 + Fuerza + x >= 10
}
action golpe(t: T = "a") {
  let r = tirada(T[t])
  result { éxito: r.success, total: r.total }
}
"""


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(LOAD, "_PARSED", Bounded(LOAD.PARSED_TEXT))
    return tmp_path / "rulebook"


def _meaning(book) -> list:
    """Every node of every definition, by where it is written, with what the checker
    resolved for it: what the compiler reads of a checked rulebook."""
    out = []
    for table in ("actions", "checks", "opposed", "tables", "rolls", "formulas", "ladders",
                  "fields", "groups", "derived", "dice"):  # fmt: skip
        for name, definition in getattr(book, table).items():
            nodes = [x for x in n.walk(definition) if type(x).__module__.startswith("dsl.nodes")]
            for node in sorted(nodes, key=lambda x: (x.span.start, x.span.end, repr(x))):
                span = (node.span.start, node.span.end)
                found = (book.bindings.get(id(node)), book.types.get(id(node)))
                out.append((table, name, type(node).__name__, span, *found))
    rest = [f.name for f in attrs.fields(type(book)) if f.name not in ("bindings", "types", "base")]
    base = None if book.base is None else _meaning(book.base)  # (a house rule's)
    return [out, [getattr(book, name) for name in rest], base]


def _loaded_again(text: str, name: str):
    LOAD._PARSED.clear()
    return dsl.load_text(text, name)


@pytest.mark.parametrize("name", sorted(dsl.shipped_rulebooks()))
def test_a_checked_rulebook_comes_back_the_same(cache_home, name):
    path = dsl.shipped_rulebooks()[name]
    text = path.read_text(encoding="utf-8")
    book = dsl.load(name)
    data = checked_cache.dumps(book, 1, Source(str(path), text))
    again = checked_cache.loads(data, Source(str(path), text), LOAD.MAX_WORDS, book.base)
    assert _meaning(again) == _meaning(book)
    assert again.bindings and again.types


def test_a_warm_load_neither_parses_nor_checks(cache_home, monkeypatch):
    first = dsl.load_text(SMALL, "small.rules")
    assert list(cache_home.glob("checked-*.json"))
    calls = []
    monkeypatch.setattr(LOAD, "parse_cached", lambda *a, **k: calls.append("parse"))
    monkeypatch.setattr(LOAD, "check_rulebook", lambda *a, **k: calls.append("check"))
    again = _loaded_again(SMALL, "small.rules")
    assert calls == []
    assert _meaning(again) == _meaning(first)


def test_the_checked_rulebook_runs_as_the_one_checked(cache_home):
    from interpreter import Engine, ForcedDice

    first = dsl.load_text(SMALL, "small.rules")
    again = _loaded_again(SMALL, "small.rules")
    assert again is not first
    outcomes = []
    for book in (first, again):
        engine = Engine(book)
        sheet = engine.sheet({"Fuerza": 3})
        out = engine.run("golpe", sheet, {"t": "b"}, dice=ForcedDice([6]))
        outcomes.append((out.result, [str(step) for step in out.trace]))
    assert outcomes[0] == outcomes[1]


def _planted(cache_home, entry=None) -> list:
    """Entries a stranger (or a broken disk) could leave under the checked entry's name."""

    class Payload:
        def __reduce__(self):
            return (open, (str(cache_home / "ran"), "w"))

    good = (entry or next(cache_home.glob("checked-*.json"))).read_bytes()
    document = json.loads(good)
    unknown = json.dumps([*document[:2], [{"Popen": ["rm -rf /"]}], *document[3:]])
    far = good.replace(b'{"r":0}', b'{"r":99999999}', 1)
    flipped = json.dumps(["checked-0", *document[1:]])
    last_span = re.compile(rb"\[\d+,\d+\]\]\}")  # a node's span, its last field
    literal = re.compile(rb'\{"Literal":\[\d+,')
    assert last_span.search(good) and literal.search(good)
    return [
        last_span.sub(b"[0,99999999]]}", good, count=1),  # a span past the text's end
        last_span.sub(b"[9,2]]}", good, count=1),  # a span that ends before it starts
        last_span.sub(b"7]}", good, count=1),  # a span field without a span
        last_span.sub(b"[1,2],3]}", good, count=1),  # a field too many
        literal.sub(b'{"Literal":[{"q":[1,0]},', good, count=1),  # a fraction over 0
        literal.sub(b'{"Literal":[{"q":[1,"2"]},', good, count=1),
        b"not json",
        good[: len(good) // 2],
        pickle.dumps(Payload()),
        unknown.encode(),
        far,
        flipped.encode(),
        json.dumps([document[0], "many", *document[2:]]).encode(),
        b"[" * 100_000,
        b"0" * (cache.MAX_ENTRY_BYTES + 1),
    ]


def test_a_bad_entry_is_ignored_and_made_again_never_run(cache_home):
    first = dsl.load_text(SMALL, "small.rules")
    (entry,) = cache_home.glob("checked-*.json")
    good = entry.read_bytes()
    for planted in _planted(cache_home):
        entry.write_bytes(planted)
        again = _loaded_again(SMALL, "small.rules")
        assert _meaning(again) == _meaning(first)
        assert entry.read_bytes() == good  # checked again, and kept again
    assert not (cache_home / "ran").exists()


def test_the_key_follows_the_text_the_name_and_the_code(cache_home, monkeypatch):
    key = checked_cache.entry_name(SMALL, "small.rules")
    assert checked_cache.entry_name(SMALL + "\n", "small.rules") != key
    assert checked_cache.entry_name(SMALL, "other.rules") != key
    version = checked_cache.checker_version()
    version_file = LOAD.Path(checked_cache.__file__).parent.parent / "interpreter" / "version.py"
    status = version_file.stat()
    try:  # a new version of the package (or any module of the front end): a new key
        os.utime(version_file, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
        checked_cache.checker_version.cache_clear()
        assert checked_cache.checker_version() != version
        assert checked_cache.entry_name(SMALL, "small.rules") != key
    finally:
        os.utime(version_file, ns=(status.st_atime_ns, status.st_mtime_ns))
        checked_cache.checker_version.cache_clear()
    assert checked_cache.checker_version() == version


def test_a_smaller_max_words_still_refuses_a_kept_rulebook(cache_home):
    dsl.load_text(SMALL, "small.rules")
    LOAD._PARSED.clear()
    with pytest.raises(RulebookSyntaxError, match="max_words"):
        dsl.load_text(SMALL, "small.rules", max_words=10)


def test_a_rulebook_with_warnings_is_checked_every_time(cache_home):
    text = SMALL + "action quieta() {\n  let x = 1d6kh1\n  result { x: x }\n}\n"
    first = dsl.load_text(text, "w.rules")
    assert first.warnings
    assert not list(cache_home.glob("checked-*.json"))
    assert _loaded_again(text, "w.rules").warnings


WARM = """
import json, sys
import dsl
from dsl import cache, checked_cache
book = dsl.load(sys.argv[1])
if sys.argv[2:] == ["forget"]:  # the house rule's own entry removed: checked again next
    text = open(book.path, encoding="utf-8").read()
    (cache.folder() / checked_cache.entry_name(text, book.path, book.base)).unlink()
print(json.dumps(sorted(sys.modules)))
"""


def test_a_warm_load_imports_no_parser(tmp_path):
    """A house rule, warm: its base's checked rulebook and its own parse and checked
    rulebook are read back, without Lark (tens of milliseconds to import), the builder or
    the checker. Without its own entry it is checked again, still without Lark or the
    builder: the checker takes what it needs of the grammar from dsl.dice_terminal."""
    root = Path(__file__).resolve().parent.parent
    env = {"PYTHONPATH": str(root), "XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def modules(*more: str) -> list:
        command = [sys.executable, "-c", WARM, "brujeria_miedo_duro", *more]
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        return json.loads(done.stdout)

    def heavy(names: list) -> list:
        return [m for m in names if m.split(".")[0] == "lark" or m.startswith("dsl.build")] + [
            m for m in names if m == "dsl.parser"
        ]

    modules()  # the cache filled
    warm = modules("forget")
    assert "dsl.check" not in warm and heavy(warm) == []
    checked_again = modules()
    assert "dsl.check" in checked_again and heavy(checked_again) == []


BASE = SMALL
HOUSE = """rulebook "Casa" extends "base.rules" { }
replace table T { a: 3, b: 4 }
action doble(t: T = "a") {
  let r = tirada(T[t] * 2)
  result { éxito: r.success, total: r.total }
}
"""


def _house(folder: Path, base: str = BASE):
    """A house rule on a rulebook of its folder, loaded (its entry, and its base's, kept)."""
    (folder / "base.rules").write_text(base, encoding="utf-8")
    (folder / "house.rules").write_text(HOUSE, encoding="utf-8")
    LOAD._PARSED.clear()
    return dsl.load(str(folder / "house.rules"))


def _house_entry(book) -> Path:
    text = Path(book.path).read_text(encoding="utf-8")
    name = checked_cache.entry_name(text, book.path, book.base)
    assert name is not None
    return cache.folder() / name


def test_a_warm_house_rule_is_not_checked_again(cache_home, tmp_path, monkeypatch):
    first = _house(tmp_path)
    assert first.base is not None and first.changes
    assert _house_entry(first).exists()
    calls = []
    monkeypatch.setattr(LOAD, "check_rulebook", lambda *a, **k: calls.append("check"))
    again = _house(tmp_path)
    assert calls == []
    assert again.base is not first.base  # (its base read back too)
    assert _meaning(again) == _meaning(first)


def test_a_warm_house_rule_runs_as_the_one_checked(cache_home, tmp_path):
    from interpreter import Engine, ForcedDice

    first = _house(tmp_path)
    again = _house(tmp_path)
    outcomes = []
    for book in (first, again):
        engine = Engine(book)
        sheet = engine.sheet({"Fuerza": 3})
        for action in ("golpe", "doble"):
            out = engine.run(action, sheet, {"t": "b"}, dice=ForcedDice([6]))
            outcomes.append((out.result, [str(step) for step in out.trace]))
    assert outcomes[:2] == outcomes[2:]


def test_a_bad_house_rule_entry_is_ignored_and_made_again(cache_home, tmp_path):
    first = _house(tmp_path)
    entry = _house_entry(first)
    good = entry.read_bytes()
    document = json.loads(good)
    assert document[4]  # (bindings: pairs of numbers)
    planted = _planted(cache_home, entry)
    planted.append(json.dumps([*document[:4], [-1, *document[4][1:]], document[5]]).encode())
    for bad in planted:
        entry.write_bytes(bad)
        again = _house(tmp_path)
        assert _meaning(again) == _meaning(first)
        assert entry.read_bytes() == good  # checked again, and kept again
    assert not (cache_home / "ran").exists()


def test_a_house_rule_key_follows_its_base(cache_home, tmp_path):
    first = _house(tmp_path)
    entry = _house_entry(first)
    changed = _house(tmp_path, BASE.replace("d20", "d12"))
    assert _house_entry(changed) != entry
    assert changed.checks["tirada"] != first.checks["tirada"]
    assert checked_cache.entry_name(HOUSE, first.path, None) != _house_entry(first).name
    made, data = checked_cache._KEPT[first.base]  # the base's entry written otherwise
    checked_cache._KEPT[first.base] = (made, data + b" ")
    assert _house_entry(first) not in (entry, _house_entry(changed))


def test_a_house_rule_on_a_base_with_warnings_is_checked_every_time(cache_home, tmp_path):
    base = BASE + "action quieta() {\n  let x = 1d6kh1\n  result { x: x }\n}\n"
    first = _house(tmp_path, base)
    assert first.base.warnings
    assert checked_cache.entry_name(HOUSE, first.path, first.base) is None
    assert not list(cache_home.glob("checked-*.json"))
