"""`rulebook fmt` (dsl.format): one layout, idempotent, the AST unchanged, comments kept.

docs/formatting.md is the layout these tests hold the formatter to.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl.build import parse_rulebook_file
from dsl.errors import RulebookSyntaxError, Source
from dsl.format import WIDTH, format_text, same_tree
from dsl.format.tokens import stream
from dsl.parser import parse_tree
from interpreter.cli.main import main
from tests.fuzz_cases import rulebooks

ROOT = Path(__file__).resolve().parent.parent
#: every rulebook of the repository: shipped, examples, the tests' own
RULEBOOKS = sorted(
    [
        *(ROOT / "rulebooks").glob("*.rules"),
        *(ROOT / "examples").rglob("*.rules"),
        *(ROOT / "tests" / "data").glob("*.rules"),
    ]
)
_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|(#[^\n]*)')


def comments_of(text: str) -> list[str]:
    return [m.group(1) for m in _COMMENT.finditer(text) if m.group(1)]


def assert_formats_faithfully(text: str, name: str = "<rulebook>") -> str:
    """Format `text` and check every promise of the layout; return the result."""
    out = format_text(text, name)
    assert same_tree(parse_rulebook_file(text, name), parse_rulebook_file(out, name))
    assert format_text(out, name) == out  # idempotent
    assert comments_of(out) == comments_of(text)  # every comment, in its order
    assert out.endswith("\n") and not out.startswith("\n") and "\n\n\n" not in out
    assert all(line == line.rstrip() for line in out.splitlines())
    return out


@pytest.mark.parametrize("path", RULEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rulebook_of_the_repository_formats_faithfully(path):
    text = path.read_text(encoding="utf-8")
    out = assert_formats_faithfully(text, str(path))
    # The author's line breaks are kept: a line is added only where one was too long.
    added = len(out.splitlines()) - len(text.rstrip("\n").splitlines())
    too_long = sum(1 for line in text.splitlines() if len(line) > WIDTH)
    assert -text.count("\n\n\n") <= added <= 3 * too_long


def test_the_shipped_rulebooks_and_examples_are_formatted(capsys):
    # What CI checks (it runs this test): `rulebook fmt --check` over them.
    shipped = [ROOT / "rulebooks", ROOT / "examples"]
    assert main(["fmt", "--check", *map(str, shipped)]) == 0, capsys.readouterr().out


# ─── the layout, rule by rule ───────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # spacing: operators, commas, colons, calls, indexes, fields, unary signs
        ("formula f( a:int,b : int )=a+b*-2", "formula f(a: int, b: int) = a + b * -2"),
        ("formula g(x: int) = f (x , 1)[0] . y", "formula g(x: int) = f(x, 1)[0].y"),
        ("formula g(x: int) = 2d6 [0]", "formula g(x: int) = 2d6 [0]"),  # 2d6[0] is a label
        ("formula g(x: int) = d (x)", "formula g(x: int) = d (x)"),  # d(x) is dice
        ("formula g(x: int) = x in - 2..5", "formula g(x: int) = x in - 2..5"),
        ("formula g(x: int) = not(x>=1 and x<=-3)", "formula g(x: int) = not (x >= 1 and x <= -3)"),
        ('rulebook "x" {}', 'rulebook "x" { }'),
        # indentation: two spaces a block, continuation lines two more, `} else {`
        (
            "action a() {\nif yes {\nnote 1\n}\n   else {\nnote 2 }\n}",
            "action a() {\n  if yes {\n    note 1\n  }\n  else {\n    note 2 }\n}",
        ),
        (
            'action a() {\nrequire 1 > 0\nelse "no"\n}',
            'action a() {\n  require 1 > 0\n    else "no"\n}',
        ),
        # a bracket followed by text on its line: what follows aligns under that text
        (
            "formula f(a: int,\nb: int) = a",
            "formula f(a: int,\n          b: int) = a",
        ),
        # statements side by side in one block stand two spaces apart
        ("action a() { note 1 note 2 }", "action a() { note 1  note 2 }"),
        # table rows: values in one column, cells' `{` in another; a blank line ends a run
        (
            'table T {\na: "x" { v: 1 }\nlong: "yy" { v: 2 }\n\nb: 3\n}',
            'table T {\n  a:    "x"  { v: 1 }\n  long: "yy" { v: 2 }\n\n  b: 3\n}',
        ),
        # comments: kept, indented with the code after them, aligned after code
        (
            "# head\nsheet {\n# a\nflag A # one\nflag Bbb # two\n    # end\n}",
            "# head\nsheet {\n  # a\n  flag A    # one\n  flag Bbb  # two\n  # end\n}",
        ),
        # blank lines: at most one in a row, none at the start or the end
        ("\n\nsheet {\n\n\n\nflag A\n}\n\n\n", "sheet {\n\n  flag A\n}"),
    ],
)
def test_the_layout(text, expected):
    assert assert_formats_faithfully(text) == expected + "\n"


def test_a_long_line_is_broken_where_the_pieces_fit_and_left_whole_where_none_does():
    names = ", ".join(f"Atributo{i}" for i in range(12))
    out = assert_formats_faithfully(f"sheet {{\n  attribute {names} in 1..10\n}}\n")
    assert all(len(line) <= WIDTH for line in out.splitlines())
    assert len(out.splitlines()) > 3
    long_text = "x" * 120
    text = f'action a() {{\n  note "{long_text}"\n}}\n'
    assert format_text(text) == text  # nothing to break at: left as it was
    sums = " + ".join(f"valor{i} * 2" for i in range(14))
    out = assert_formats_faithfully(f"formula f(valor: int) = {sums}\n".replace("valor0", "valor"))
    assert all(line.lstrip().startswith("+") for line in out.splitlines()[1:])  # before a +


def test_comments_are_not_aligned_where_the_column_would_push_a_line_past_the_width():
    long_code = "let total = " + " + ".join(["1"] * 20)  # 73 columns, indented
    remark = "# a remark that is long enough"  # past the width in that column
    text = f"action a() {{\n  let x = 1 {remark}\n  {long_code} # two\n}}\n"
    out = assert_formats_faithfully(text)
    lines = out.splitlines()
    assert all(len(line) <= WIDTH for line in lines), out
    assert lines[1] == f"  let x = 1  {remark}"  # (not pushed to the long line's column)
    tidy = "action a() {\n  let x = 1   # short\n  let yy = 2  # two\n}\n"
    assert assert_formats_faithfully(tidy) == tidy  # where the column fits, still aligned


def test_statements_side_by_side_break_between_statements_not_inside_one():
    sets = "  ".join(f"set total{i} to total{i} + 1" for i in range(4))
    lets = "  ".join(f"let total{i} = 0" for i in range(4))
    out = assert_formats_faithfully(f"action a() {{\n  {lets}\n  if yes {{ {sets} }}\n}}\n")
    lines = out.splitlines()
    assert all(len(line) <= WIDTH for line in lines) and len(lines) == 5
    assert lines[3].lstrip().startswith("set total")  # (a whole statement, not `+ 1 }`)


def test_a_text_that_does_not_parse_is_refused_at_its_error():
    with pytest.raises(RulebookSyntaxError) as caught:
        format_text("sheet {\n  flag\n}\n", "bad.rules")
    assert caught.value.span.location() == "bad.rules:3:1"


# ─── generated rulebooks, and the same ones written untidily ────────────────


@st.composite
def untidy(draw, text: str) -> str:
    """`text` with the spaces between its tokens changed: more, fewer (never none where
    there was some: `2d6 x` and `2d6x` differ), tabs; indentation taken away or added."""
    tree = parse_tree(text, Source("<untidy>", text), "rulebook")
    tokens, comments = stream(text, tree)
    lines: list[list] = [[] for _ in range(text.count("\n") + 1)]
    for piece in sorted([*tokens, *comments], key=lambda p: p.start):
        lines[piece.line].append(piece)
    spaces = st.sampled_from([" ", "  ", "\t", " \t "])
    out = []
    for pieces in lines:
        line = draw(st.sampled_from(["", "  ", "\t", "        "]))
        for before, piece in zip([None, *pieces], pieces):
            adjacent = before is not None and before.end == piece.start
            line += "" if before is None or adjacent else draw(spaces)
            line += piece.text
        out.append(line if pieces else "")
    return "\n".join(out) + draw(st.sampled_from(["", "\n", "\n\n\n"]))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rulebooks(), st.data())
def test_generated_rulebooks_format_faithfully(text, data):
    try:
        parse_rulebook_file(text, "<generated>")
    except RulebookSyntaxError:
        return  # the generator also makes texts that do not parse: nothing to format
    assert_formats_faithfully(text)
    assert_formats_faithfully(data.draw(untidy(text)))


SAMPLES = [p for p in RULEBOOKS if p.stat().st_size < 10_000]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.data())
def test_untidy_rulebooks_come_back_to_the_same_layout(path, data):
    text = path.read_text(encoding="utf-8")
    messy = data.draw(untidy(text))
    assert same_tree(parse_rulebook_file(text, "a"), parse_rulebook_file(messy, "a"))
    assert format_text(messy) == format_text(text)


# ─── the command ────────────────────────────────────────────────────────────

UNTIDY = 'rulebook "x" {}\nformula  f( a:int )=a+1 # c\n'
TIDY = 'rulebook "x" { }\nformula f(a: int) = a + 1  # c\n'


def test_fmt_rewrites_files_and_folders_in_place(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    one, two, tidy = tmp_path / "one.rules", tmp_path / "sub" / "two.rules", tmp_path / "t.rules"
    for path in (one, two):
        path.write_text(UNTIDY, encoding="utf-8")
    tidy.write_text(TIDY, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(UNTIDY, encoding="utf-8")
    assert main(["fmt", str(tmp_path)]) == 0
    assert one.read_text(encoding="utf-8") == two.read_text(encoding="utf-8") == TIDY
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == UNTIDY  # not a rulebook
    out = capsys.readouterr().out
    assert "one.rules" in out and "two.rules" in out and "t.rules" not in out


def test_fmt_check_and_diff_change_nothing_and_exit_1_when_a_file_would_change(tmp_path, capsys):
    path = tmp_path / "a.rules"
    path.write_text(UNTIDY, encoding="utf-8")
    assert main(["fmt", "--check", str(path)]) == 1
    assert str(path) in capsys.readouterr().out
    assert main(["fmt", "--diff", str(path)]) == 1
    diff = capsys.readouterr().out
    assert "-formula  f( a:int )=a+1 # c" in diff and "+formula f(a: int) = a + 1  # c" in diff
    assert path.read_text(encoding="utf-8") == UNTIDY
    path.write_text(TIDY, encoding="utf-8")
    assert main(["fmt", "--check", str(path)]) == 0
    assert main(["fmt", "--diff", str(path)]) == 0
    assert capsys.readouterr().out == ""


def test_fmt_reads_standard_input_and_writes_standard_output(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(UNTIDY))
    assert main(["fmt", "-"]) == 0
    assert capsys.readouterr().out == TIDY


def test_fmt_refuses_a_text_that_does_not_parse_and_leaves_it_as_it_was(tmp_path, capsys):
    bad, good = tmp_path / "bad.rules", tmp_path / "good.rules"
    bad.write_text("sheet {\n  flag\n}\n", encoding="utf-8")
    good.write_text(UNTIDY, encoding="utf-8")
    assert main(["fmt", str(bad), str(good)]) == 3
    assert "bad.rules:3:1" in capsys.readouterr().err
    assert bad.read_text(encoding="utf-8") == "sheet {\n  flag\n}\n"
    assert good.read_text(encoding="utf-8") == TIDY  # the others are still formatted
    assert main(["fmt", str(tmp_path / "missing.rules")]) == 2
    assert main(["fmt", str(tmp_path / "bad.txt")]) == 2
