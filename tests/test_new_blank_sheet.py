"""`rulebook new RULEBOOK FILE`: a blank character of a rulebook, every field with what it
takes (interpreter/cli/sheet_template.py), a sheet the rulebook loads once its rules hold."""

from __future__ import annotations

import pytest
import yaml

import dsl
from interpreter import Engine
from interpreter.cli import main

TEXT = """rulebook "Roll under" { language "en" }
sheet {
  attribute WS, 'Ballistic Skill' in 1..100
  skill Dodge in 0..60
  counter Advantage in 0..10 default 2
  resource Wounds max floor(WS / 10)
  flag Prone
  text Career
  list Talents
  catalog Spells { cost: int }
  skills in 0..60
  ensure WS >= 5 else "a character has WS 5 or more"
}
action act() { result { ws: WS } }
"""


def test_a_rulebooks_blank_sheet_lists_every_field_and_loads(tmp_path, capsys):
    rules = tmp_path / "under.rules"
    rules.write_text(TEXT, encoding="utf-8")
    sheet = tmp_path / "hero.yaml"
    assert main(["new", str(rules), str(sheet)]) == 0
    assert "a blank character of Roll under" in capsys.readouterr().out
    text = sheet.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert data == {
        "rulebook": "under",
        "WS": 1,
        "Ballistic Skill": 1,
        "Dodge": 0,
        "Advantage": 2,
        "Prone": False,
        "Career": "",
        "Talents": [],
        "Spells": {},
        "skills": {},
    }
    assert "WS: 1  # attribute, 1..100: no default, set it" in text
    assert "# Wounds: ...  # resource, at most floor(WS / 10); left out, it starts full" in text
    assert "#   a character has WS 5 or more" in text  # (its rules, which 1 breaks)
    engine = Engine(dsl.load(str(rules)))
    data["WS"] = 45
    assert engine.sheet(data).values["Wounds"] == 4  # (set, it loads: Wounds full)
    assert main(["new", str(rules), str(sheet)]) != 0  # (never over a file)
    assert "the file exists" in capsys.readouterr().err


def test_a_resource_saved_into_a_blank_sheet_takes_its_commented_place(tmp_path, capsys):
    """The first run saved writes a resource the blank sheet left out on its own
    `# Wounds: ...` line (it went after the last field, the placeholder left below)."""
    rules = tmp_path / "hurt.rules"
    rules.write_text(
        'rulebook "Hurt" { language "en" }\n'
        "sheet {\n  counter Stress in 0..9 default 1\n  resource Wounds max 6\n"
        "  resource Luck max 3\n}\n"
        'action hurt() "Hurt" {\n  lose 2 from Wounds\n  gain 1 to Stress\n}\n',
        encoding="utf-8",
    )
    sheet = tmp_path / "hero.yaml"
    assert main(["new", str(rules), str(sheet)]) == 0
    for _ in range(2):
        assert main(["run", str(rules), "hurt", "--char", str(sheet), "--save"]) == 0
    capsys.readouterr()
    lines = sheet.read_text(encoding="utf-8").splitlines()
    assert "Wounds: 2  # resource, at most 6; left out, it starts full" in lines
    assert not any(line.startswith("# Wounds:") for line in lines)
    assert "# Luck: ...  # resource, at most 3; left out, it starts full" in lines
    assert yaml.safe_load("\n".join(lines))["Stress"] == 3


@pytest.mark.parametrize("game", sorted(dsl.shipped_rulebooks()))
def test_every_shipped_rulebooks_blank_sheet_is_yaml_of_its_fields(tmp_path, game):
    sheet = tmp_path / f"{game}.yaml"
    assert main(["new", game, str(sheet)]) == 0
    data = yaml.safe_load(sheet.read_text(encoding="utf-8"))
    book = dsl.load(game)
    assert data["rulebook"] == game
    written = set(data) - {"rulebook", "skills"}
    assert written <= set(book.fields) and written
    engine = Engine(book)
    if not book.ensures:  # (else its rules may want more than the low ends)
        engine.sheet(data)


@pytest.mark.parametrize("written", ["hello world\n", "a: [1, 2\n", "- a list\n"])
def test_a_file_that_is_not_a_sheet_is_never_copied(tmp_path, capsys, written):
    source = tmp_path / "notes.yaml"
    source.write_text(written, encoding="utf-8")
    target = tmp_path / "copy.yaml"
    assert main(["new", str(source), str(target)]) == 2
    assert "not a character sheet" in capsys.readouterr().err
    assert not target.exists()
