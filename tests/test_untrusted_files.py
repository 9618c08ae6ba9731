"""Issue 9's attacks through files: sheets, saving, `extends`, the parse cache."""

from __future__ import annotations

import json
import os
import re
from fractions import Fraction

import pytest

import dsl
from dsl.bounded import Bounded
from interpreter import Engine, ParameterError, SheetError
from interpreter.cli import main

BOOK = """
sheet {
  attribute Fuerza in 1..10
  skill Pelea in 0..10
  skills in 0..10 default 0
  resource Vida max 10
  list Dones
  catalog Hechizos { grado: int }
}
action subir(n: number = 1) { set Fuerza to 5  result { v: n } }
"""
SHEET = "Fuerza: 5\nPelea: 2\n"


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "s.rules").write_text(BOOK, encoding="utf-8")
    return tmp_path


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load_text(BOOK, "s.rules"))


def load(engine, tmp_path, text, name="c.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return engine.load_sheet(path)


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# ─── 3. numbers too long to print ───────────────────────────────────────────


def test_a_sheet_number_past_what_python_reads_is_refused_at_its_line(engine, tmp_path):
    with pytest.raises(SheetError) as caught:
        load(engine, tmp_path, "Pelea: 1\nFuerza: " + "9" * 5000 + "\n")
    error = caught.value
    assert (error.line, error.column) == (2, 9) and "4300 digits" in error.message
    assert error.render().startswith(f"{tmp_path / 'c.yaml'}:2:9: error:")


def test_a_json_sheet_number_past_what_python_reads_is_refused_at_its_line(engine, tmp_path):
    with pytest.raises(SheetError) as caught:
        load(engine, tmp_path, '{"Pelea": 1,\n "Fuerza": ' + "9" * 5000 + "}\n", "c.json")
    assert (caught.value.line, caught.value.column) == (2, 12)


def test_a_sheet_number_past_number_digits_names_the_limit_and_the_field(engine, tmp_path):
    with pytest.raises(SheetError, match="number_digits") as caught:
        load(engine, tmp_path, "Fuerza: 5\nskills: {Sigilo: " + "9" * 2000 + "}\n")
    assert caught.value.line == 2 and "skills.Sigilo" in caught.value.message


def test_a_parameter_with_a_huge_exponent_is_refused_before_any_arithmetic(engine):
    sheet = engine.sheet({"Fuerza": 5})
    for text in ("1e100000000", "9" * 5000, "1/" + "3" * 3000):
        with pytest.raises(ParameterError, match="number_digits"):
            engine.run("subir", sheet, {"n": text})
    assert engine.run("subir", sheet, {"n": "7/2"}).result["v"] == Fraction(7, 2)
    assert engine.run("subir", sheet, {"n": "1e3"}).result["v"] == 1000
    with pytest.raises(ParameterError, match="number_digits"):
        engine.run("subir", sheet, {"n": 10**1000})


def test_a_literal_past_the_digits_a_rulebook_may_write_is_a_syntax_error(capsys):
    code, _, err = cli(capsys, "roll", "1" * 5000)
    assert code == 3 and "<expression>:1:1: error: a number of more than 1000 digits" in err
    with pytest.raises(dsl.RulebookSyntaxError, match="1000 digits"):
        dsl.load_text("sheet { attribute A in 1.." + "9" * 2000 + " }", "x.rules")


# ─── 8. the sheet's rulebook key ────────────────────────────────────────────


def test_a_sheet_whose_rulebook_is_not_a_text_is_refused_at_its_line(engine, tmp_path):
    with pytest.raises(SheetError, match="is not a text") as caught:
        load(engine, tmp_path, "Fuerza: 5\nrulebook: 2020-01-01\n")
    assert caught.value.line == 2


def test_json_output_never_meets_a_date(folder, capsys):
    (folder / "c.yaml").write_text("rulebook: 2020-01-01\n" + SHEET, encoding="utf-8")
    code, _, err = cli(capsys, "run", folder / "s.rules", "subir", "--char", folder / "c.yaml")
    assert code == 3 and "c.yaml:1:1: error: rulebook:" in err


# ─── 11. sheet errors have a line and a column ──────────────────────────────


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("Fuerza: 5\nDones: [a, 3]\n", 2, 1, "Dones: a list of texts"),
        ("Fuerza: 5\nFuerzza: 3\n", 2, 1, "not a field"),
        ("Fuerza: 11\n", 1, 1, "above its maximum"),
        ("Fuerza: 5\nVida: 11\n", 2, 1, "above its maximum 10"),
        ("Fuerza: 5\nHechizos:\n  Luz: {grado: x}\n", 3, 9, "is not a number"),
        ("Fuerza: 5\nPelea: [1\n", 3, 1, "not valid YAML"),
    ],
)
def test_sheet_errors_name_the_file_line_and_column(engine, tmp_path, text, line, column, message):
    with pytest.raises(SheetError, match=message) as caught:
        load(engine, tmp_path, text)
    error = caught.value
    assert (error.line, error.column) == (line, column), error.render()
    rendered = error.render()
    assert rendered.startswith(f"{tmp_path / 'c.yaml'}:{line}:{column}: error:")
    assert "\n    " + text.split("\n")[line - 1] in rendered and "^" in rendered


def test_json_sheet_errors_have_their_line_too(engine, tmp_path):
    text = json.dumps({"Fuerza": 5, "Dones": ["a", 3]}, indent=2)
    with pytest.raises(SheetError, match="a list of texts") as caught:
        load(engine, tmp_path, text, "c.json")
    assert caught.value.line == 3
    with pytest.raises(SheetError, match="not valid JSON") as caught:
        load(engine, tmp_path, '{"Fuerza": 5,\n  "Pelea": }', "c.json")
    assert (caught.value.line, caught.value.column) == (2, 12)


# ─── 6. `extends` reads only rulebooks: shipped ones, or files in its own folder ─


HOUSE = 'rulebook "Casa" extends {} {{ }}\ntable Nueva {{ a: 1 }}\n'


def house(folder, extends: str, name="casa.rules"):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HOUSE.format(extends), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "extends", ['"/etc/passwd"', '"../secret.rules"', '"/etc/hostname"', '"sub/../../secret.rules"']
)
def test_extends_never_reads_outside_its_folder_nor_quotes_what_it_did_not_read(tmp_path, extends):
    (tmp_path / "secret.rules").write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    path = house(tmp_path / "games", extends)
    with pytest.raises(dsl.CheckError) as caught:
        dsl.load(path)
    rendered = caught.value.render()
    assert "root:x" not in rendered and "bash" not in rendered
    assert caught.value.span is not None and caught.value.span.line == 1


def test_extends_does_not_follow_a_link_out_of_its_folder(tmp_path):
    (tmp_path / "secret.rules").write_text("root:x:0:0\n", encoding="utf-8")
    games = tmp_path / "games"
    games.mkdir()
    (games / "base.rules").symlink_to(tmp_path / "secret.rules")
    with pytest.raises(dsl.CheckError, match=r"no \.rules file of that path") as caught:
        dsl.load(house(games, '"base.rules"'))
    assert "root:x" not in caught.value.render()


def test_extends_reads_a_shipped_rulebook_or_a_rulebook_beside_it(tmp_path):
    assert "Nueva" in dsl.load(house(tmp_path, "brujeria")).tables
    (tmp_path / "bases").mkdir()
    (tmp_path / "bases" / "base.rules").write_text("table Vieja { a: 1 }\n", encoding="utf-8")
    book = dsl.load(house(tmp_path, '"bases/base.rules"'))
    assert {"Nueva", "Vieja"} <= set(book.tables)


def test_a_text_in_no_folder_extends_only_shipped_rulebooks(tmp_path):
    (tmp_path / "base.rules").write_text("table Vieja { a: 1 }\n", encoding="utf-8")
    with pytest.raises(dsl.CheckError, match="shipped"):
        dsl.load_text(HOUSE.format('"base.rules"'), "<editor>")
    assert "Nueva" in dsl.load_text(HOUSE.format("brujeria"), "<editor>").tables


def test_an_app_finds_what_extends_names_with_its_own_resolver():
    stored = {"mi_base": ("db:mi_base", "table Vieja { a: 1 }\n")}

    def resolver(name):
        if name not in stored:
            raise dsl.RulebookError(f"no rulebook {name!r} in the database")
        return stored[name]

    book = dsl.load_text(HOUSE.format("mi_base"), "<editor>", resolver=resolver)
    assert {"Nueva", "Vieja"} <= set(book.tables)
    with pytest.raises(dsl.RulebookError, match="database"):
        dsl.load_text(HOUSE.format("brujeria"), "<editor>", resolver=resolver)


def test_only_rulebook_files_are_loaded_by_path(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("root:x:0:0\n", encoding="utf-8")
    with pytest.raises(dsl.RulebookError, match="not a rulebook file") as caught:
        dsl.load(notes)
    assert "root:x" not in caught.value.render()


# ─── 10. the parse cache holds data, never code, and stays bounded ──────────


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    import importlib

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    load_module = importlib.import_module("dsl.load")
    monkeypatch.setattr(load_module, "_PARSED", Bounded(load_module.PARSED_TEXT))
    return tmp_path / "rulebook"


def test_a_pickle_planted_in_the_cache_never_runs(cache_home, tmp_path):
    import pickle

    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    cache_home.mkdir(parents=True, exist_ok=True)
    for name in ("ast-planted.pickle", "parser-planted.cache"):
        (cache_home / name).write_bytes(pickle.dumps(Payload()))
    text = 'rulebook "Plantado" { }\ntable T { a: 1 }\n'
    book = dsl.load_text(text, "planted.rules")
    assert "T" in book.tables and not marker.exists()
    # an old pickle cache is swept away when the cache is next written
    assert not list(cache_home.glob("*.pickle")) and not list(cache_home.glob("*.cache"))


def test_a_cache_entry_that_is_not_ours_is_ignored(cache_home):
    from dsl import cache

    text = "table T { a: 1 }\n"
    dsl.load_text(text, "t.rules")
    (entry,) = cache_home.glob("ast-*.json")
    good = entry.read_bytes()
    far = re.sub(rb'\{"s":\[\d+,\d+\]\}', b'{"s":[0,99999]}', good, count=1)  # past the text
    assert far != good
    for planted in (b'{"n": "system", "f": ["rm -rf /"]}', b"not json", b'{"t": [1, 2', far):
        entry.write_bytes(planted)
        for checked in cache_home.glob("checked-*.json"):  # (else the AST is not read)
            checked.unlink()
        importlib_load()._PARSED.clear()
        assert "T" in dsl.load_text(text, "t.rules").tables
    assert cache.loads(cache.dumps((1, "a", [None], {2: Fraction(1, 3)}))) == (
        1,
        "a",
        [None],
        {2: Fraction(1, 3)},
    )
    with pytest.raises(ValueError):
        cache.loads(b'{"n": "Popen", "f": []}')
    with pytest.raises(ValueError):  # (not a ZeroDivisionError)
        cache.loads(b'{"q": [1, 0]}')
    with pytest.raises(ValueError):
        cache.loads_tree(b'{"s": [0, 3]}', dsl.Source("x", "ab"))


def importlib_load():
    import importlib

    return importlib.import_module("dsl.load")


def test_the_cache_keeps_the_ast_exactly(cache_home):
    import attrs

    def spans(node, out):
        if attrs.has(type(node)):
            for field in attrs.fields(type(node)):
                value = getattr(node, field.name)
                if field.name.endswith("span") and value is not None:
                    out.append((value.start, value.end))
                spans(value, out)
        elif isinstance(node, tuple | list):
            for item in node:
                spans(item, out)
        return out

    load = importlib_load()
    for name, path in sorted(dsl.shipped_rulebooks().items()):
        text = path.read_text(encoding="utf-8")
        parsed = load.parse_cached(text, str(path))
        load._PARSED.clear()
        again = load.parse_cached(text, str(path))  # from the cache's file this time
        assert again is not parsed and again == parsed, name
        assert spans(again, []) == spans(parsed, [])
        assert (
            again.span.source.text is not None and again.span.location() == parsed.span.location()
        )


def test_the_cache_folder_is_bounded(cache_home, monkeypatch):
    from dsl import cache

    monkeypatch.setattr(cache, "MAX_ENTRIES", 5)
    monkeypatch.setattr(cache, "MAX_BYTES", 20_000)
    for i in range(12):
        dsl.load_text(f"table T{i} {{ a: {i} }}\n", f"t{i}.rules")
    entries = list(cache_home.iterdir())
    assert len(entries) <= 5 and sum(p.stat().st_size for p in entries) <= 20_000
    cache.write("big.json", b"0" * (cache.MAX_ENTRY_BYTES + 1))
    assert not (cache_home / "big.json").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs to give a file to another user")
def test_a_cache_entry_someone_else_owns_is_never_read(cache_home):
    from dsl import cache

    cache.write("theirs.json", cache.dumps([1, 2]))
    assert cache.read("theirs.json") is not None
    os.chown(cache_home / "theirs.json", 65534, 65534)
    assert cache.read("theirs.json") is None


def test_the_parser_read_back_from_the_cache_parses_as_the_one_built(cache_home, monkeypatch):
    from dsl import parser, parser_tables

    # (the tables shipped beside the grammar would otherwise be read before the cache)
    monkeypatch.setattr(parser_tables, "read", lambda digest: None)
    parser.lark_parser.cache_clear()
    try:
        built = parser.lark_parser()  # and written to the cache
        (entry,) = cache_home.glob("parser-*.json")
        from lark import Lark

        from dsl import cache

        tables, memo = cache.loads(entry.read_bytes())
        assert Lark.load({"data": tables, "memo": memo}).parse("1 + 2", start="expression")
        parser.lark_parser.cache_clear()
        loaded = parser.lark_parser()  # read from it
        assert loaded is not built
        for path in dsl.shipped_rulebooks().values():
            text = path.read_text(encoding="utf-8")
            assert loaded.parse(text, start="rulebook") == built.parse(text, start="rulebook")
    finally:
        parser.lark_parser.cache_clear()
