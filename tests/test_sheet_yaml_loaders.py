"""A sheet reads the same with libyaml's parser (PyYAML's C loader, where the machine has
it) and with PyYAML's pure-Python one (the fallback, forced here): the same data, the
same places of errors, the same text spliced when a changed sheet is saved."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import dsl
from interpreter import Engine, SeededDice
from interpreter.errors import SheetError
from interpreter.sheets import parsing
from interpreter.sheets.character import shipped_characters_folder
from interpreter.sheets.writer import rewrite

ROOT = Path(__file__).resolve().parent.parent
SHEETS = [
    *sorted(shipped_characters_folder().glob("*.yaml")),
    *sorted((ROOT / "examples").rglob("*.yaml")),
]
#: texts that read, and texts that do not, each in a way a loader could tell apart
TEXTS = [
    "a: 1\nb: [1, 2\n",
    "a: 1\n  b: 2\n",
    "a: 'x\n",
    "a: &x 1\nb: *x\n",
    "a: &x 1\nb: 2\n",
    "a:\n\t- 1\n",
    "a: 1\na: 2\n",
    "a: {b: 1, b: 2}",
    "a: " + "9" * 5000 + "\n",
    "<<: {a: 1}\nb: 2\n",
    "[" * 300 + "]" * 300,
    "- " * 3000 + "x\n",
    'a: "\\ud800"\n',
    'a: "\\ud83d\\ude00"\n',
    "a: yes\nb: ~\nc: 1.5\nd: 0x1F\ne: 2001-12-14\nf: 1_000\n",
    "---\na: 1\n---\nb: 2\n",
    "",
    "? [1, 2]\n: x\n",
    "a: !!python/object:os.system x\n",
    "a: b: c\n",
    "key with spaces: 1\n'q': \"é\"\n",
    "- 1\n- a\n",
    "a: |\n  text\n  more\n",
    "a: 1 # a comment\n# another\nb: [x, {c: d}]\n",
]

needs_libyaml = pytest.mark.skipif(
    not yaml.__with_libyaml__, reason="PyYAML built without libyaml: only the fallback"
)


def read_with(loader, text: str):
    """What reading `text` gives with `loader`: the data, or the error's place."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parsing, "Loader", loader)
        try:
            return ("data", parsing.read(text, "yaml", "s.yaml")[0])
        except SheetError as error:
            said = error.message.render()
            return ("error", error.line, error.column, said.split(":")[0])


def test_the_loader_is_libyamls_where_pyyaml_has_it():
    expected = parsing.CLoader if yaml.__with_libyaml__ else parsing.PureLoader
    assert parsing.Loader is expected


@needs_libyaml
@pytest.mark.parametrize("text", TEXTS)
def test_both_loaders_read_a_text_alike(text):
    fast, pure = read_with(parsing.CLoader, text), read_with(parsing.PureLoader, text)
    assert fast == pure


@needs_libyaml
@pytest.mark.parametrize("path", SHEETS, ids=lambda p: p.stem)
def test_both_loaders_read_every_shipped_sheet_alike(path):
    text = path.read_text(encoding="utf-8")
    fast, pure = read_with(parsing.CLoader, text), read_with(parsing.PureLoader, text)
    assert fast == pure and fast[0] == "data"


@pytest.mark.parametrize("loader", ["CLoader", "PureLoader"])
def test_a_save_splices_the_same_text_with_either_loader(loader, monkeypatch):
    if not hasattr(parsing, loader):
        pytest.skip("PyYAML built without libyaml")
    monkeypatch.setattr(parsing, "Loader", getattr(parsing, loader))
    engine = Engine(dsl.load("brujeria"))
    path = shipped_characters_folder() / "brujeria_malherido.yaml"
    sheet = engine.load_sheet(path)
    out = engine.run("recibir_daño", sheet, {"daño": 3, "tipo": "Filo"}, SeededDice(1))
    assert out.changes
    text = path.read_text(encoding="utf-8")
    written = rewrite(text, "yaml", sheet.to_data(), out.sheet.to_data())
    # the text reads back as the new sheet, and only the changed values were written
    assert engine.sheet(yaml.safe_load(written)) == out.sheet
    before, after = text.splitlines(), written.splitlines()
    assert [a for a, b in zip(before, after, strict=False) if a != b] == ["Vida: -12"]
    assert after[len(before) :] == ["Muerto: yes"]
