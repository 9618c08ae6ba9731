"""Issue 9's big texts: a rulebook's size is bounded before it is parsed (`max_words`),
and what is loaded within the bound goes fast and is cached exactly."""

from __future__ import annotations

import pytest

import dsl
import dsl.build as dsl_build
import dsl.build.walk as dsl_walk
from dsl import cache
from dsl.load import MAX_WORDS, count_words, parse_cached
from interpreter.cli import main

HEADER = 'rulebook "big" {\n  language "en"\n}\n'


def formulas(count: int) -> str:
    """The issue's generator: `count` unused formulas."""
    return HEADER + "".join(f"formula f{i}(x: int) = x + {i}\n" for i in range(count))


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_words_are_counted_outside_comments_and_inside_texts():
    assert count_words("formula f(x: int) = x + 1") == 11
    assert count_words("# a comment (with + symbols)\nx + 1  # and another") == 3
    assert count_words('note "a {x + 1} # not a comment"') == 13
    assert count_words("2d6 + Fuerza") == 3


def test_every_shipped_rulebook_is_well_within_the_bound():
    for name, path in dsl.shipped_rulebooks().items():
        assert count_words(path.read_text(encoding="utf-8")) * 2 < MAX_WORDS, name


def test_a_text_past_max_words_is_refused_before_parsing_where_it_passes(
    tmp_path, capsys, monkeypatch
):
    text = formulas(20_000)  # 220 000 words and symbols, 678 KB
    path = tmp_path / "big.rules"
    path.write_text(text, encoding="utf-8")
    parsed = []  # the work counted, not timed: not one parse of it (it would take seconds)
    for module in (dsl_build, dsl_walk):
        monkeypatch.setattr(module, "parse_tree", lambda *a, **k: parsed.append(a) or None)
    assert main(["check", str(path)]) != 0
    assert parsed == []
    err = capsys.readouterr().err
    # formula i has 11 words and symbols, the header 10: word 20 001 is the `x` of f1817
    assert f"{path}:1821:15:" in err and "formula f1817(x: int) = x + 1817" in err
    assert "^" in err
    assert "220010 words and symbols" in err and "max_words (20000)" in err


def test_the_refusal_points_at_the_first_word_past_the_bound():
    text = "table T {\n  a: 1\n  b: 2\n}\n"  # 11 words and symbols
    with pytest.raises(dsl.RulebookSyntaxError, match="max_words") as caught:
        dsl.load_text(text, "t.rules", max_words=6)
    span = caught.value.span
    assert (span.location(), text[span.start : span.end]) == ("t.rules:3:3", "b")


def test_an_app_may_raise_the_bound_and_a_house_rules_base_is_bounded_too():
    text = formulas(2000)
    with pytest.raises(dsl.RulebookSyntaxError, match="max_words"):
        dsl.load_text(text, "big.rules", max_words=5000)
    assert len(dsl.load_text(text, "big.rules", max_words=30_000).formulas) == 2000
    house = 'rulebook "h" extends base { }\n'
    resolver = {"base": ("base", text)}.__getitem__
    with pytest.raises(dsl.RulebookSyntaxError, match="max_words") as caught:
        dsl.load_text(house, "h.rules", resolver=resolver, max_words=5000)
    assert caught.value.span.source.name == "base"
    book = dsl.load_text(house, "h.rules", resolver=resolver, max_words=30_000)
    assert len(book.formulas) == 2000


def test_a_cached_text_is_still_bounded():
    text = formulas(1000)
    parse_cached(text, "big.rules", max_words=30_000)
    with pytest.raises(dsl.RulebookSyntaxError, match="max_words"):
        parse_cached(text, "big.rules", max_words=1000)


def test_the_ast_encoding_keeps_every_tuple_span_and_fraction():
    text = 'formula f(x: int) = [x, 1.5, -2] + [(x)d6]\ntable T { 1..2: "a {1 + 1}" }\n'
    parsed = parse_cached(text, "t.rules")
    again = cache.loads_tree(cache.dumps_tree(parsed, parsed.span.source), parsed.span.source)
    assert again == parsed and again is not parsed
    planted = (b'{"Popen": []}', b'{"s": [1]}', b'{"Literal": [1]}', b"[1, 2", b'{"a": 1, "b": 2}')
    for bad in planted:
        with pytest.raises(ValueError):
            cache.loads_tree(bad, parsed.span.source)


def test_an_entry_past_its_bound_is_not_encoded_to_the_end(monkeypatch):
    parsed = parse_cached(formulas(300), "big.rules")
    size = len(cache.dumps_tree(parsed, parsed.span.source))
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", size // 10)
    # a span of another text at the very end: encoding to the end would stop there instead
    last = dsl.Span(dsl.Source("other", "x"), 0, 1)
    with pytest.raises(cache.NotCached, match="longer than an entry may be"):
        cache.dumps_tree((parsed, last), parsed.span.source)
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", size * 2)
    with pytest.raises(cache.NotCached, match="another source"):
        cache.dumps_tree((parsed, last), parsed.span.source)


# ─── last wave's leftovers: long chains, deep sheets ────────────────────────


@pytest.mark.parametrize(
    "text, where",
    [("+".join(["1"] * 300), "+"), (" and ".join(["x"] * 300), "x"), ("x or " * 300 + "x", "x")],
    ids=["sum", "and", "or"],
)
def test_a_long_flat_chain_is_said_as_a_chain_at_the_operation_past_the_bound(text, where):
    with pytest.raises(dsl.RulebookSyntaxError, match="chain of operations") as caught:
        dsl.parse_expression(text)
    error = caught.value
    assert "nested more than 200 levels deep here (limit MAX_DEPTH)" in str(error)
    assert error.span.text == where and 0 < error.span.start < len(text) - 10
    assert "^" in error.render()


def test_a_chain_within_the_bound_is_built_and_real_nesting_is_still_said_as_nesting():
    assert dsl.parse_expression("+".join(["1"] * 150)).span.end == 299
    with pytest.raises(dsl.RulebookSyntaxError, match="nested more than 200 levels") as caught:
        dsl.parse_expression("-" * 300 + "1")
    assert "chain" not in str(caught.value)


@pytest.mark.parametrize(
    "name, text, line, column",
    [
        ("deep.yaml", "Fuerza: 5\nDones: " + "[" * 5000 + "]" * 5000 + "\n", 2, 107),
        ("deep.json", '{"Fuerza": 5,\n "Dones": ' + "[" * 5000 + "]" * 5000 + "}\n", 2, 110),
        ("block.yaml", "Fuerza: 5\nDones:\n" + "- " * 3000 + "x\n", 3, 199),
    ],
)
def test_a_sheet_nested_past_the_stack_is_refused_at_the_line_where_it_passes(
    tmp_path, name, text, line, column
):
    from interpreter import Engine, SheetError

    engine = Engine(dsl.load_text("sheet { attribute Fuerza in 1..10  list Dones }", "s.rules"))
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SheetError, match="nested more than 100 levels deep") as caught:
        engine.load_sheet(path)
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert f"{name}:{line}:{column}:" in error.render()


@pytest.mark.parametrize(
    "text, value",
    [
        ("Fuerza: 5\nNota: '" + "[" * 500 + "'\n", "[" * 500),  # in a quoted text
        ('Fuerza: 5\nNota: "\\"' + "{" * 500 + '"\n', '"' + "{" * 500),
        ("Fuerza: 5\nNota: x # " + "[" * 500 + "\n", "x"),  # in a comment
        ("Fuerza: 5\nNota: a" + "[" * 500 + "\n", "a" + "[" * 500),  # inside a plain text
        ("Fuerza: 5\nNota: it's " + "[" * 500 + "\n", "it's " + "[" * 500),
    ],
    ids=["single quotes", "double quotes", "comment", "plain", "apostrophe"],
)
def test_brackets_that_are_not_nesting_never_count_as_nesting(text, value):
    # the quick look at the brackets before the YAML reader (whose time grows with the
    # square of flow nesting) may count these: the parser's own events set it right
    from interpreter.sheets.character import parse_text

    assert parse_text(text, "yaml", "n.yaml") == {"Fuerza": 5, "Nota": value}


def test_flow_nesting_is_found_before_the_yaml_reader_reads_it_all(monkeypatch):
    # only the text up to the first bracket past the bound reaches the parser
    import yaml

    from interpreter import SheetError
    from interpreter.sheets.character import parse_text

    seen = []
    real = yaml.parse
    monkeypatch.setattr(
        yaml, "parse", lambda text, **kw: seen.append(len(text)) or real(text, **kw)
    )
    text = "Fuerza: 5\nDones: " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(SheetError, match="nested more than 100 levels deep") as caught:
        parse_text(text, "yaml", "deep.yaml")
    assert (caught.value.line, caught.value.column) == (2, 107)
    assert seen == [len("Fuerza: 5\nDones: ") + 101]
