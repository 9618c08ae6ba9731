"""Control characters written in rulebooks, sheets and journals are shown by the command
line, never obeyed by the terminal (interpreter.cli.terminal, dsl.errors.shown)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.errors import shown as excerpt_shown
from interpreter.cli import main
from interpreter.cli.terminal import CONTROLS, shown

ESC = "\x1b[2J"
#: what may reach a terminal raw: none of these (a tab and a new line are layout)
RAW = [chr(c) for c in range(0x20) if chr(c) not in "\t\n"] + ["\x7f", "\x9b", "\u202e", "\u2066"]
NICE = "café 👩\u200d🔬 Fuerza"
BOOK = (
    "sheet {\n  attribute Fuerza in 1..10\n  text Lema\n}\n"
    f'action hola(t: text = "p{ESC}q") {{\n  let x = d6\n'
    f'  result {{ v: "x{ESC}\u202e\x9b\x07", t: t, lema: Lema, nice: "{NICE}" }}\n}}\n'
)
SHEET = 'rulebook: esc\nFuerza: 5\nLema: "grito\\e[2J\\u202e\\x9b"\n'


def raw_in(text: str) -> list[str]:
    return [char for char in RAW if char in text]


@pytest.fixture
def table(tmp_path, monkeypatch):
    (tmp_path / "esc.rules").write_text(BOOK, encoding="utf-8")
    (tmp_path / "hero.yaml").write_text(SHEET, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def printed(capsys, *argv) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_runs_logs_and_shows_print_no_raw_control(table, capsys):
    run = ("run", "esc.rules", "hola", "--char", "hero.yaml", "--seed", "1")
    for argv in (
        (*run, "--save", "--verbose"),
        (*run, "--set", f"t=a{ESC}\u202eb"),
        ("log",),
        ("show", "1"),
        ("describe", "esc.rules"),
        ("check", "esc.rules"),
    ):
        code, out = printed(capsys, *argv)
        assert code == 0, out
        assert raw_in(out) == [], (argv, out)
    _, out = printed(capsys, *run, "--verbose")
    assert "\\u001b[2J" in out and "\\u202e" in out and NICE in out  # visible, and intact


def test_json_output_means_the_same_with_controls_escaped(table, capsys):
    code, out = printed(capsys, "run", "esc.rules", "hola", "--char", "hero.yaml", "--json")
    assert code == 0 and raw_in(out) == []
    result = json.loads(out)["result"]
    assert result["v"] == f"x{ESC}\u202e\x9b\x07" and result["nice"] == NICE


def test_errors_place_their_caret_under_a_control(table, capsys):
    bad = f'action a() {{ result {{ v: "{ESC}" + nope{ESC} }} }}\n'
    (table / "bad.rules").write_text(bad, encoding="utf-8")
    code, out = printed(capsys, "check", "bad.rules")
    assert code == 3 and raw_in(out) == []
    source, caret = [line for line in out.splitlines() if line.startswith("    ")][:2]
    assert source[caret.index("^")] == "␛"  # one picture for one character
    (table / "bad.yaml").write_text('rulebook: esc\n"Fuerza\\e[2J": 5\n', encoding="utf-8")
    code, out = printed(capsys, "run", "esc.rules", "hola", "--char", "bad.yaml")
    assert code != 0 and raw_in(out) == [] and "Fuerza" in out


@given(st.text())
def test_shown_leaves_no_control_and_changes_nothing_else(text):
    out = shown(text)
    assert not CONTROLS.search(out)
    if not CONTROLS.search(text):
        assert out == text
    assert json.loads(shown(json.dumps(text, ensure_ascii=False))) == text
    line = text.replace("\n", " ").replace("\t", " ")
    assert len(excerpt_shown(line)) == len(line)
    assert raw_in(excerpt_shown(line)) == []


@settings(max_examples=40, deadline=None)
@given(
    before=st.integers(0, 90),  # (a chain of at most 180 operations: within MAX_DEPTH)
    after=st.integers(0, 90),
    name=st.text(alphabet="abcxyz_", min_size=1, max_size=30),
)
def test_an_excerpt_of_a_long_line_is_cut_around_its_span_with_the_caret_under_it(
    before, after, name
):
    import dsl
    from dsl.errors import EXCERPT_WIDTH, RulebookError

    line = "1 + " * before + "unknown_" + name + " + 1" * after
    text = f'rulebook "r" {{}}\naction a() "a" {{ let x = {line}\n result {{ x: x }} }}\n'
    with pytest.raises(RulebookError) as caught:
        dsl.load_text(text)
    message, shown_line, caret = caught.value.render().splitlines()[:3]
    assert "unknown name" in message
    assert len(shown_line) <= 4 + EXCERPT_WIDTH + 2  # (its indent, and … at each cut end)
    at = caret.index("^")
    assert shown_line[at:].startswith("unknown_" + name[: len(shown_line) - at - 8])
    assert caret.count("^") <= len("unknown_" + name)


def test_a_name_longer_than_a_screen_is_refused_at_its_first_letter():
    import dsl
    from dsl.build.walk import MAX_NAME_LENGTH
    from dsl.errors import RulebookError

    for name, ok in (("a" * MAX_NAME_LENGTH, True), ("a" * (MAX_NAME_LENGTH + 1), False)):
        text = f'rulebook "r" {{}}\naction {name}() "a" {{ result {{ x: 1 }} }}\n'
        if ok:
            dsl.load_text(text)
            continue
        with pytest.raises(RulebookError) as caught:
            dsl.load_text(text)
        assert f"a name of more than {MAX_NAME_LENGTH} characters" in str(caught.value)
        assert caught.value.span.end - caught.value.span.start == 1


def test_a_sheet_error_on_a_long_line_shows_the_part_around_it(tmp_path, capsys):
    from dsl.errors import EXCERPT_WIDTH

    sheet = tmp_path / "long.yaml"
    sheet.write_text("Sanity: 50\nLuck: " + "x" * 5000 + "\n", encoding="utf-8")
    cthulhu = str(Path(__file__).parents[1] / "examples" / "games" / "cthulhu.rules")
    assert main(["run", cthulhu, "skill_roll", "--char", str(sheet), "--set", "skill=Spot"]) == 3
    shown_line, caret = capsys.readouterr().err.splitlines()[1:3]
    assert len(shown_line) <= 4 + EXCERPT_WIDTH + 2 and "…" in shown_line
    assert "^" in caret and caret.index("^") < len(shown_line)
