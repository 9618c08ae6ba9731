"""The grammar's LALR tables shipped beside it (dsl.parser_tables): current, used, and safe."""

from __future__ import annotations

import lark
import pytest

import dsl
from dsl import cache as disk
from dsl import parser, parser_tables

DIGEST, OPTIONS = parser.grammar_digest_and_options()


def _texts() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in dsl.shipped_rulebooks().values()]


def test_the_shipped_tables_are_made_from_the_grammar_as_it_is():
    data = parser_tables.shipped_path().read_bytes()
    stamp, _tables, _memo = disk.loads(data)
    assert stamp["grammar"] == DIGEST, (
        "grammar/rulebook.lark changed: make its tables again with `python -m dsl.parser_tables`"
    )


def test_the_shipped_tables_parse_as_the_parser_built_from_the_grammar():
    shipped = parser_tables.read(DIGEST)
    if shipped is None:  # another Lark than the one that made the file: it is not used
        stamp, _tables, _memo = disk.loads(parser_tables.shipped_path().read_bytes())
        assert stamp["lark"] != lark.__version__
        pytest.skip(f"the tables were made with Lark {stamp['lark']}, not {lark.__version__}")
    built = lark.Lark(parser.grammar_text(), **OPTIONS)
    for text in _texts():
        assert shipped.parse(text, start="rulebook") == built.parse(text, start="rulebook")
    for text in ("1 + 2 * 3", "floor(3d6 / 2)", "4d6kh3 + max(1d20, 1d20)", "x.y[1]"):
        assert shipped.parse(text, start="expression") == built.parse(text, start="expression")


@pytest.mark.parametrize(
    "stamp",
    [
        {"grammar": "0" * 64, "lark": lark.__version__},  # another grammar
        {"grammar": DIGEST, "lark": "0.0.1"},  # another Lark
    ],
)
def test_tables_stamped_for_another_grammar_or_lark_are_not_used(stamp):
    _stamp, tables, memo = disk.loads(parser_tables.shipped_path().read_bytes())
    assert parser_tables.decode(disk.dumps([stamp, tables, memo]), DIGEST) is None


@pytest.mark.parametrize("data", [b"", b"{", b"[1, 2]", b'{"d": []}', b'[{"d": []}, 1, 2]'])
def test_a_file_that_is_no_tables_is_not_used(data):
    assert parser_tables.decode(data, DIGEST) is None


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    parser.lark_parser.cache_clear()
    yield tmp_path / "rulebook"
    parser.lark_parser.cache_clear()


def test_a_first_load_reads_the_shipped_tables_and_builds_nothing(empty_cache, monkeypatch):
    if parser_tables.read(DIGEST) is None:
        pytest.skip("the shipped tables were made with another Lark")

    def no_building(*args, **kwargs):
        raise AssertionError("the parser was built from the grammar")

    monkeypatch.setattr(parser, "Lark", no_building)
    assert parser.lark_parser().parse("1 + 2", start="expression")
    assert not list(empty_cache.glob("parser-*.json"))


def test_without_the_shipped_tables_the_parser_is_built_and_kept_in_the_cache(
    empty_cache, monkeypatch
):
    monkeypatch.setattr(parser_tables, "read", lambda digest: None)
    assert parser.lark_parser().parse("1 + 2", start="expression")
    assert len(list(empty_cache.glob("parser-*.json"))) == 1


def test_making_the_tables_again_for_the_same_grammar_keeps_the_file(monkeypatch, capsys):
    if parser_tables.read(DIGEST) is None:
        pytest.skip("the shipped tables were made with another Lark")

    def no_building(*args, **kwargs):  # (Lark numbers states anew each build: bytes differ)
        raise AssertionError("the tables were built again")

    before = parser_tables.shipped_path().read_bytes()
    monkeypatch.setattr(parser_tables, "build", no_building)
    assert parser_tables.main([]) == 0
    assert "up to date" in capsys.readouterr().out
    assert parser_tables.shipped_path().read_bytes() == before
    with pytest.raises(AssertionError, match="built again"):
        parser_tables.main(["--force"])
