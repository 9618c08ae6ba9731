"""The `rulebook` command line: output, exit codes, saving, typed-in dice."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

import dsl
from interpreter.cli import main

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
RULES = str(DATA / "showcase.rules")


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ─── roll (the foundation issue's acceptance) ───────────────────────────────


def test_roll_keep_highest_json(capsys):
    code, out, _ = run_cli(capsys, "roll", "4d6kh3", "--dice", "6,5,3,1", "--json")
    data = json.loads(out)
    assert code == 0 and data["total"] == 14 and data["dice"] == [6, 5, 3, 1]
    assert data["expression"] == "4d6kh3" and data["detail"] == "4d6kh3 [6, 5, 3, ~~1~~] = 14"


def test_roll_successes_and_explosions(capsys):
    _, out, _ = run_cli(
        capsys, "roll", "10d10cs>=6df=1", "--dice", "6,7,1,1,2,3,10,9,5,1", "--json"
    )
    assert json.loads(out)["total"] == 1
    _, out, _ = run_cli(capsys, "roll", "3d6x", "--dice", "6,2,3,4", "--json")
    assert json.loads(out)["total"] == 15


def test_roll_fraction_is_a_number_in_json_with_its_exact_value_beside(capsys):
    _, out, _ = run_cli(capsys, "roll", "7/2", "--json")
    data = json.loads(out)
    assert data["total"] == 3.5 and data["fractions"] == {"/total": "7/2"}
    _, out, _ = run_cli(capsys, "roll", "6/2", "--json")
    data = json.loads(out)
    assert data["total"] == 3 and type(data["total"]) is int and data["fractions"] == {}


def test_roll_text_marks_forced_dice(capsys):
    code, out, _ = run_cli(capsys, "roll", "2d6", "--dice", "3,4")
    assert code == 0 and out.strip() == "2d6 [3, 4] = 7  (forced dice)"
    _, out, _ = run_cli(capsys, "roll", "2d6", "--seed", "1")
    assert "forced" not in out


def test_roll_syntax_error_exits_3_with_position_and_caret(capsys):
    code, _, err = run_cli(capsys, "roll", "2d6+")
    assert code == 3
    assert "1:5" in err and "    2d6+\n        ^" in err


def test_roll_face_that_cannot_be_exits_4(capsys):
    code, _, err = run_cli(capsys, "roll", "d6", "--dice", "7")
    assert code == 4 and "7, which is not a face of d6" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as error:
        main(["roll"])
    assert error.value.code == 2
    with pytest.raises(SystemExit) as error:
        main(["roll", "d6", "--seed", "1", "--dice", "1"])
    assert error.value.code == 2
    code, _, err = run_cli(capsys, "roll", "d6", "--dice", "a")
    assert code == 2 and "not a whole number" in err


# ─── run ────────────────────────────────────────────────────────────────────


@pytest.fixture
def sheet_copy(tmp_path):
    path = tmp_path / "showcase.yaml"
    shutil.copy(DATA / "showcase.yaml", path)
    return path


def test_run_prints_the_trace_result_changes_and_dice(capsys, sheet_copy):
    code, out, _ = run_cli(
        capsys,
        "run",
        RULES,
        "cast_spell",
        "--char",
        str(sheet_copy),
        "--set",
        "spell=Fireball",
        "--dice",
        "3,4",
    )
    assert code == 0
    assert "Casting: doubles [3, 4] + Wits 4 + Stealth 2 = 13 vs 10 (>) → success" in out
    assert "result: success yes, points 1, cost 2" in out
    assert "dinamis.Fides: 10 → 8" in out
    assert "dice: 3, 4  (forced dice)" in out


def test_run_json_has_every_part(capsys, sheet_copy):
    code, out, _ = run_cli(
        capsys,
        "run",
        RULES,
        "cast_spell",
        "--char",
        str(sheet_copy),
        "--set",
        "spell=Fireball",
        "--dice",
        "3,4",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    assert set(data) >= {"name", "params", "result", "changes", "sheet", "trace", "dice"}
    assert data["kind"] == "run" and data["run"] == "action" and data["name"] == "cast_spell"
    assert data["params"]["spell"] == "Fireball"
    assert data["changes"] == [{"path": "dinamis.Fides", "before": 10, "after": 8}]
    assert data["sheet"]["dinamis"]["Fides"] == 8
    assert data["dice"] == [3, 4]
    assert any(step["kind"] == "check" for step in data["trace"])


def test_a_failed_roll_still_exits_0(capsys, sheet_copy):
    code, out, _ = run_cli(
        capsys,
        "run",
        RULES,
        "cast_spell",
        "--char",
        str(sheet_copy),
        "--set",
        "spell=Fireball",
        "--dice",
        "1,2",
    )
    assert code == 0 and "result: success no" in out


def test_spending_more_than_the_sheet_holds_exits_4_and_saves_nothing(capsys, sheet_copy):
    before = sheet_copy.read_bytes()
    code, _, err = run_cli(
        capsys,
        "run",
        RULES,
        "cast_spell",
        "--char",
        str(sheet_copy),
        "--set",
        "spell=Drown",
        "--dice",
        "",
        "--save",
    )
    assert code == 4
    assert "You cannot spend 12 dinamis[Virtus]: you have 5" in err
    assert sheet_copy.read_bytes() == before


def test_save_writes_the_new_sheet_in_its_format(capsys, sheet_copy):
    code, out, _ = run_cli(
        capsys,
        "run",
        RULES,
        "cast_spell",
        "--char",
        str(sheet_copy),
        "--set",
        "spell=Fireball",
        "--dice",
        "3,4",
        "--save",
    )
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
    monkeypatch.setattr("sys.stdin", io.StringIO("x\n11\n1\n3\n"))
    code, typed, err = run_cli(
        capsys, "run", RULES, "scare", "--char", str(sheet_copy), "--ask", "--json"
    )
    assert code == 0
    assert "die 1 (d10, 1..10)?" in err and "'x' is not a number" in err
    assert "11 is not a face of d10" in err
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


def test_parameters_and_actions_that_do_not_exist_exit_2(capsys, sheet_copy):
    code, _, err = run_cli(capsys, "run", RULES, "cats_spell", "--char", str(sheet_copy))
    assert code == 2 and "did you mean cast_spell?" in err
    code, _, err = run_cli(
        capsys, "run", RULES, "heal", "--char", str(sheet_copy), "--set", "amount"
    )
    assert code == 2 and "write NAME=VALUE" in err
    code, _, err = run_cli(capsys, "run", RULES, "heal", "--char", "nobody")
    assert code == 2 and "no file or shipped character" in err


def test_a_missing_character_names_its_option_and_lists_only_its_games(capsys):
    argv = ["run", "brujeria", "intentar", "--lang", "en"]
    code, _, err = run_cli(
        capsys, *argv, "--char", "brujeria_investigadora", "--target", "x=nobody"
    )
    assert code == 2 and "--target x: no file or shipped character named 'nobody'" in err
    listed = err.split("shipped characters: ")[1].split()
    assert {"brujeria_bruja,", "brujeria_investigadora,"} <= set(listed)
    assert not any(name.startswith(("menecma", "jorge")) for name in listed)
    code, _, err = run_cli(capsys, *argv)  # no --char for a game whose sheet needs one
    assert code == 2 and "brujeria_investigadora" in err and "menecma" not in err


def test_a_bad_sheet_exits_3_naming_the_field(capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("Strength: 3\nWits: 4\nFides: 13\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "run", RULES, "heal", "--char", str(path), "--set", "amount=1")
    assert code == 3 and "Fides: 13 is above its maximum 12" in err


# ─── check and describe ─────────────────────────────────────────────────────


def test_check_a_misspelled_name_exits_3_with_a_caret_and_a_suggestion(capsys, monkeypatch):
    monkeypatch.chdir(GOLDEN / "check")
    code, _, err = run_cli(capsys, "check", "misspelled_name.rules")
    assert code == 3
    assert "misspelled_name.rules:7:20: error: unknown name `Voluntd`" in err
    assert "      let c = sencillo(Voluntd)\n                       ^^^^^^^" in err
    assert "did you mean Voluntad?" in err


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


def test_describe_lists_actions_and_house_rule_changes(capsys):
    code, out, _ = run_cli(capsys, "describe", RULES)
    assert code == 0
    assert "cast_spell  (Cast)" in out and "time: normal | half | double" in out
    code, out, _ = run_cli(capsys, "describe", "brujeria_miedo_duro", "--json")
    data = json.loads(out)
    assert data["extends"] == "Brujería"
    assert {"change": "replaced", "kind": "table", "name": "Miedo"} in data["changes"]


def test_a_house_rule_changes_only_what_it_says():
    base = dsl.load(GOLDEN / "check" / "bases" / "base.rules")
    house = dsl.load(GOLDEN / "check" / "house_ok.rules")
    assert house.base is not None and house.base.title == "Base"
    assert house.changes == (("replaced", "table", "Nivel"), ("added", "action", "nueva"))
    assert house.tables["Nivel"] is not base.tables["Nivel"]
    assert house.actions["asustarse"] == base.actions["asustarse"]
    assert house.header["language"] == "es" and house.header["source"] == "tests"


# ─── run: checks and named rolls too; a failure shows what happened ────────


def test_run_runs_a_check_on_its_own(capsys):
    code, out, _ = run_cli(
        capsys, "run", RULES, "simple", "--char", str(DATA / "showcase.yaml"),
        "--set", "attr=Strength", "--dice", "6", "--json",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["run"] == "check"
    assert data["result"]["total"] == 6 + 2 * 3 and data["changes"] == []
    assert data["trace"][1]["kind"] == "check"


def test_run_runs_a_named_roll(capsys):
    code, out, _ = run_cli(
        capsys, "run", RULES, "doubles", "--char", str(DATA / "showcase.yaml"),
        "--dice", "3,3,1,2",
    )  # fmt: skip
    assert code == 0
    assert "doubles: [3, 3] + [1, 2] = 9" in out and "result: 9" in out


def test_run_of_an_unknown_name_lists_actions_checks_and_rolls(capsys):
    code, _, err = run_cli(capsys, "run", RULES, "simpel", "--char", str(DATA / "showcase.yaml"))
    assert code == 2 and "no action 'simpel' (nor a check, opposed check or roll" in err
    assert "simple" in err


def test_a_failed_run_shows_the_trace_up_to_the_failure(capsys):
    code, out, err = run_cli(
        capsys, "run", RULES, "cast_spell", "--char", str(DATA / "showcase.yaml"),
        "--set", "spell=Drown",
    )  # fmt: skip
    assert code == 4
    assert "cost = 12" in out and "normal time" in out
    assert "cannot spend 12 dinamis[Virtus]: you have 5" in err and "result:" not in out


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


def test_a_refused_action_prints_the_trace_then_the_refusal_on_its_own_lines(capsys):
    book = dsl.load("arcana_mundi")
    lines = Path(book.path).read_text(encoding="utf-8").splitlines()
    action = 1 + next(i for i, t in enumerate(lines) if t.startswith("action acumular_tributo("))
    require = 1 + next(i for i, t in enumerate(lines) if "require puntos >= 0" in t)
    column = 1 + lines[require - 1].index("require")
    code, out, err = run_cli(
        capsys, "run", "arcana_mundi", "acumular_tributo", "--char", "menecma", "--set", "puntos=-1"
    )
    assert code == 4
    assert out == (
        "Arcana Mundi · acumular_tributo\n"
        f"{action:>5} │ Acumular Tributo(puntos=-1, sombra_en=Impietas, de_dominatus=no)\n"
    )
    assert err == (
        "los puntos de Tributo a acumular no pueden ser negativos\n"
        f"    (en arcana_mundi.rules, línea {require}, columna {column})\n"
    )


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
