"""The `rulebook` command line: saving, typed-in dice, files made on the spot.

The whole answers of representative commands (roll, run, odds, check, describe: output,
errors and exit codes) are golden transcripts, tests/golden/cli/ (test_golden_cli.py)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import command, run_cli

import dsl

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
RULES = str(DATA / "showcase.rules")


def cast(capsys, sheet, spell: str, dice: str, *extra):
    """`rulebook run` of the showcase's cast_spell on a sheet, with forced dice."""
    line = f"run {RULES} cast_spell --char {sheet} --set spell={spell} --dice '{dice}'"
    return command(capsys, line, *extra)


# ─── run ────────────────────────────────────────────────────────────────────


@pytest.fixture
def sheet_copy(tmp_path):
    path = tmp_path / "showcase.yaml"
    shutil.copy(DATA / "showcase.yaml", path)
    return path


def test_spending_more_than_the_sheet_holds_exits_4_and_saves_nothing(capsys, sheet_copy):
    before = sheet_copy.read_bytes()
    code, _, err = cast(capsys, sheet_copy, "Drown", "", "--save")
    assert code == 4
    assert "You cannot spend 12 dinamis[Virtus]: you have 5" in err
    assert sheet_copy.read_bytes() == before


def test_save_writes_the_new_sheet_in_its_format(capsys, sheet_copy):
    code, out, _ = cast(capsys, sheet_copy, "Fireball", "3,4", "--save")
    assert code == 0 and f"saved {sheet_copy}" in out
    import yaml

    saved = yaml.safe_load(sheet_copy.read_text(encoding="utf-8"))
    assert saved["dinamis"]["Fides"] == 8 and saved["Strength"] == 3
    # saving again from the saved file changes nothing else
    again = dsl.load(RULES)
    from interpreter import Engine

    assert Engine(again).load_sheet(sheet_copy)["dinamis"]["Fides"] == 8


def test_dice_and_ask_give_the_same_outcome(capsys, sheet_copy, monkeypatch):
    code, forced, _ = run_cli(
        capsys, "run", RULES, "scare", "--char", str(sheet_copy), "--dice", "1,3", "--json"
    )
    assert code == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("x\n11\n0\n1\n3\n"))
    code, typed, err = run_cli(
        capsys, "run", RULES, "scare", "--char", str(sheet_copy), "--ask", "--json"
    )
    assert code == 0
    assert "die 1 (d10, 1..10)?" in err and "'x' is not a number" in err
    assert "11 is not a face of d10" in err
    assert "0 is not a face of d10: the d10's 0 is typed 10" in err  # (its face shows 0)
    forced, typed = json.loads(forced), json.loads(typed)
    assert typed["origin"] == "typed" and forced["origin"] == "forced"
    for key in ("result", "changes", "sheet", "dice"):
        assert typed[key] == forced[key]
    # the same steps, each roll marked with where its dice came from
    rolls = [s for s in typed["trace"] if s["kind"] == "roll"]
    assert rolls and all(s["text"].endswith("(typed in)") for s in rolls)
    assert [s["text"].replace("(typed in)", "(forced)") for s in typed["trace"]] == [
        s["text"] for s in forced["trace"]
    ]


def test_a_bad_sheet_exits_3_naming_the_field(capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("Strength: 3\nWits: 4\nFides: 13\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "run", RULES, "heal", "--char", str(path), "--set", "amount=1")
    assert code == 3 and "Fides: 13 is above its maximum 12" in err


# ─── check and describe ─────────────────────────────────────────────────────


def test_check_every_shipped_rulebook(capsys):
    shipped = sorted(dsl.shipped_rulebooks().values())
    assert {p.stem for p in shipped} >= {
        "arcana_mundi",
        "brujeria",
        "brujeria_miedo_duro",
        "pentagrama",
        "mago",
        "nuevos_dioses",
    }
    code, out, err = run_cli(capsys, "check", *map(str, shipped))
    assert code == 0, err
    assert out.count(": ok") == len(shipped) and "error" not in out


def test_describe_a_shipped_house_rule_lists_its_changes(capsys):
    code, out, _ = run_cli(capsys, "describe", "brujeria_miedo_duro", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["extends"] == "Brujería"
    assert {"change": "replaced", "kind": "table", "name": "Miedo"} in data["changes"]


def test_describe_writes_options_built_as_the_run_goes(capsys):
    code, out, _ = run_cli(
        capsys, "describe", str(GOLDEN.parent.parent / "examples/games/seventh_sea.rules")
    )
    assert code == 0 and "choose reroll: no, d in r.sorted" in out


def test_a_house_rule_changes_only_what_it_says():
    base = dsl.load(GOLDEN / "check" / "bases" / "base.rules")
    house = dsl.load(GOLDEN / "check" / "house_ok.rules")
    assert house.base is not None and house.base.title == "Base"
    assert house.changes == (("replaced", "table", "Nivel"), ("added", "action", "nueva"))
    assert house.tables["Nivel"] is not base.tables["Nivel"]
    assert house.actions["asustarse"] == base.actions["asustarse"]
    assert house.header["language"] == "es" and house.header["source"] == "tests"


# ─── a failure shows what happened ─────────────────────────────────────────


def test_a_failed_require_shows_the_trace_up_to_it(tmp_path, capsys):
    rules = tmp_path / "r.rules"
    rules.write_text(
        'action a() {\n  let x = d6\n  note "rolled {x}"\n  require x > 3 else "too low: {x}"\n'
        '  note "never"\n}\n'
    )
    code, out, err = run_cli(capsys, "run", str(rules), "a", "--dice", "2")
    assert code == 4
    assert "d6 [2] = 2" in out and "rolled 2" in out and "never" not in out
    assert "too low: 2" in err


# ─── a refused run: the trace up to the refusal, then the refusal, once ─────


NESTED = """rulebook "T" { language "en" }
sheet { attribute A in 1..5 }
check c() { roll d6 + A >= 4 }
action a() "Try" {
  let r = c()
  require r.total > 20 else "too low"
}
action b() "Outer" {
  do a()
}
"""


def test_a_refusal_inside_a_called_action_keeps_the_calls_line(capsys, tmp_path):
    rules, sheet = tmp_path / "t.rules", tmp_path / "s.yaml"
    rules.write_text(NESTED, encoding="utf-8")
    sheet.write_text("A: 2\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "run", str(rules), "b", "--char", str(sheet), "--dice", "3")
    assert code == 4
    assert out == (
        "T · b\n"
        "    8 │ Outer()\n"
        "    4 │     Try()\n"
        "    3 │       c: d6 [3] + A 2 = 5 vs 4 → success\n"
        "    3 │         d6 [3] = 3 (forced)\n"
    )
    assert err == "too low\n    (at t.rules, line 6, column 3)\n"


def test_dice_typed_from_a_pipe_end_their_question_line(capsys, tmp_path, monkeypatch):
    rules, sheet = tmp_path / "t.rules", tmp_path / "s.yaml"
    rules.write_text(NESTED, encoding="utf-8")
    sheet.write_text("A: 2\n", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO("3\n"))  # not a terminal: no echo
    code, out, err = run_cli(capsys, "run", str(rules), "b", "--char", str(sheet), "--ask")
    assert code == 4 and out.startswith("T · b\n    8 │ Outer()\n")
    assert err == "die 1 (d6, 1..6)? 3\ntoo low\n    (at t.rules, line 6, column 3)\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # the input ends before the die
    code, _, err = run_cli(capsys, "run", str(rules), "b", "--char", str(sheet), "--ask")
    assert code == 4
    assert err == (
        "die 1 (d6, 1..6)? \nno face typed for die 1 (d6)\n    (at t.rules, line 3, column 18)\n"
    )


def test_run_without_an_action_lists_the_actions_in_the_rulebooks_language(capsys):
    code, out, err = command(capsys, "run arcana_mundi")
    assert code != 0 and out == ""
    assert "¿qué acción de arcana_mundi? escribe `rulebook run arcana_mundi ACTION`" in err
    assert "acciones: acumular_tributo, " in err and "usar_numina" in err


def test_run_of_a_misspelled_action_says_so_before_asking_for_a_character(capsys):
    code, _, err = command(capsys, "run arcana_mundi usr_numina")  # (no --char)
    assert code != 0
    assert "no tiene la acción 'usr_numina'" in err and "usar_numina" in err
    assert "personaje" not in err
