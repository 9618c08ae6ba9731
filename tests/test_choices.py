"""Choices after the roll (`choose`), tests/data/choices.rules: answered in advance, asked,
replayed; and the odds under a fixed answer and under the best play, against oracles that
try every option with real runs."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

import dsl
from interpreter import (
    Engine,
    EvaluationError,
    ForcedDice,
    ParameterError,
    RequirementFailed,
    render_text,
)
from interpreter.choosers import Choice, Question
from interpreter.cli import main
from interpreter.describe import describe

DATA = Path(__file__).resolve().parent / "data"
RULES = DATA / "choices.rules"

# 4dF: the ways each sum falls, over 81
FUDGE4 = {-4: 1, -3: 4, -2: 10, -1: 16, 0: 19, 1: 16, 2: 10, 3: 4, 4: 1}


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load(RULES))


@pytest.fixture(scope="module")
def sheet(engine):
    return engine.sheet({"Habilidad": 2})


def test_an_answer_given_in_advance(engine, sheet):
    out = engine.run("superar", sheet, {}, ForcedDice([-1, 0, 0, 0]), choices={"invocar": "sí"})
    assert dict(out.result) == {"resultado": "éxito", "éxito": True}
    assert [(c.path, c.before, c.after) for c in out.changes] == [("Destino", 3, 2)]
    assert out.choices == (Choice("invocar", "sí", None, "given"),)
    text = render_text(out.trace)
    assert "invocar: sí (answered in advance)" in text and "spend 1 Destino: 3 → 2" in text


def test_an_answer_asked_when_the_choice_comes(engine, sheet):
    asked = []

    def ask(question: Question):
        asked.append(question)
        return "no"

    out = engine.run("superar", sheet, {}, ForcedDice([-1, 0, 0, 0]), choices=ask)
    (question,) = asked
    assert (question.name, question.label, question.options) == (
        "invocar",
        "¿Invocar un aspecto (+2)?",
        ("no", "sí"),
    )
    assert out.result["resultado"] == "fallo" and out.changes == ()
    assert "invocar: no (chosen at the table)" in render_text(out.trace)


def test_a_choice_with_one_option_open_needs_no_answer(engine, sheet):
    out = engine.run("superar", sheet, {}, ForcedDice([1, 1, 1, 0]))  # margin 3: no invoke
    assert out.choices == (Choice("invocar", "no", None, "only"),)


def test_a_choice_with_several_options_and_no_answer_is_refused(engine, sheet):
    with pytest.raises(ParameterError, match="invocar is a choice to make"):
        engine.run("superar", sheet, {}, ForcedDice([-1, 0, 0, 0]))


def test_an_answer_the_options_close_fails_the_run_and_changes_nothing(engine, sheet):
    broke = engine.sheet({"Habilidad": 2, "Destino": 0})  # the cost cannot be paid
    with pytest.raises(RequirementFailed, match="sí cannot be chosen now"):
        engine.run("superar", broke, {}, ForcedDice([-1, 0, 0, 0]), choices={"invocar": "sí"})


def test_an_answer_that_is_no_option_says_which_are(engine, sheet):
    with pytest.raises(ParameterError) as caught:
        engine.run("superar", sheet, {}, ForcedDice([-1, 0, 0, 0]), choices={"invocar": "si"})
    assert "is not one of its options (no, sí)" in str(caught.value)
    assert "did you mean sí" in caught.value.hint


def test_numeric_options_and_answers_written_as_text(engine, sheet):
    out = engine.run("suerte", sheet, {"valor": 40}, ForcedDice([44]), choices={"puntos": "5"})
    assert out.result["éxito"] is True and out.choices[0].value == 5
    assert [(c.path, c.after) for c in out.changes] == [("Suerte", 5)]


def test_the_trace_of_a_failed_run_keeps_the_choices_made(engine, sheet):
    # pushing, then a fumble with no Luck left: `lose` stops at 0, so the run goes on;
    # a failed run replays its choices as they were made
    out = engine.run("forzar", sheet, {}, ForcedDice([90, 97]), choices={"empujar": "sí"})
    assert out.result["éxito"] is False
    assert "empujar: sí (answered in advance)" in render_text(out.trace)


def test_the_target_decides_and_the_trace_says_who(engine, sheet):
    orc = engine.sheet({"Habilidad": 1})
    out = engine.run(
        "atacar", sheet, {"objetivo": orc}, ForcedDice([4]), choices={"defensa": "parar"}
    )
    assert out.result["impacto"] is True
    assert out.choices == (Choice("defensa", "parar", "objetivo", "given"),)
    assert "defensa: parar (objetivo, answered in advance)" in render_text(out.trace)


def test_describe_lists_the_choices_of_each_action(engine):
    actions = {a["name"]: a for a in describe(engine.rulebook)["actions"]}
    assert actions["superar"]["choices"] == [
        {
            "name": "invocar",
            "label": "¿Invocar un aspecto (+2)?",
            "options": ["no", "sí"],
            "by": None,
            "line": 24,
        }
    ]
    assert actions["suerte"]["choices"][0]["options"] == [0, 5, 10]
    assert actions["atacar"]["choices"][0]["by"] == "objetivo"


# ─── odds ───────────────────────────────────────────────────────────────────


def test_odds_under_a_fixed_answer_are_every_way_the_dice_fall(engine, sheet, exhaustive):
    for answer in ("no", "sí"):
        choices = {"invocar": answer}
        odds = engine.odds("superar", sheet, {}, field="resultado", choices=choices)

        def run(dice, choices=choices):
            try:
                return engine.run("superar", sheet, {}, dice, choices=choices).result["resultado"]
            except RequirementFailed as error:
                return f"fails: {error.message}"

        brute = exhaustive(run)
        assert {
            str(k) if not isinstance(k, str) else k: v for k, v in odds.probabilities.items()
        } == brute


def test_the_best_play_in_fate_invokes_exactly_when_it_turns_the_result(engine, sheet):
    odds = engine.odds("superar", sheet, {}, field="resultado", best="éxito")
    # without invoking: 4dF >= 1 succeeds; invoking turns -1 and 0 into successes
    assert odds.probabilities == {
        "fallo": Fraction(15, 81),
        "éxito": Fraction(16 + 10 + 16 + 19, 81),
        "éxito con estilo": Fraction(5, 81),
    }
    assert odds.decisions == {
        ("invocar", "no"): Fraction(81 - 35, 81),
        ("invocar", "sí"): Fraction(35, 81),
    }


def oracle_best_push(engine, sheet, valor: int) -> Fraction:
    """The best push, by hand: after each first roll, push if that succeeds more often."""
    best = Fraction(0)
    for first in range(1, 101):
        keep = engine.run(
            "forzar", sheet, {"valor": valor}, ForcedDice([first]), choices={"empujar": "no"}
        )
        p_keep = Fraction(int(keep.result["éxito"]))
        if first <= valor:  # a success is never pushed (the option is closed)
            best += p_keep / 100
            continue
        wins = 0
        for second in range(1, 101):
            out = engine.run(
                "forzar", sheet, {"valor": valor}, ForcedDice([first, second]),
                choices={"empujar": "sí"},
            )  # fmt: skip
            wins += out.result["éxito"]
        best += max(p_keep, Fraction(wins, 100)) / 100
    return best


def test_the_best_push_against_an_oracle_that_tries_both(engine, sheet):
    odds = engine.odds("forzar", sheet, {"valor": 40}, field="éxito", best="éxito")
    assert odds.probabilities[True] == oracle_best_push(engine, sheet, 40)
    assert odds.probabilities[True] == Fraction(40, 100) + Fraction(60, 100) * Fraction(40, 100)


def test_the_best_luck_spends_only_what_turns_a_failure(engine, sheet):
    odds = engine.odds("suerte", sheet, {"valor": 40}, field="éxito", best="éxito")
    assert odds.probabilities == {False: Fraction(50, 100), True: Fraction(50, 100)}
    assert odds.decisions[("puntos", 5)] == Fraction(5, 100)
    assert odds.decisions[("puntos", 10)] == Fraction(5, 100)  # 46..50: 10 is the first
    keep = engine.odds("suerte", sheet, {"valor": 40}, field="Suerte", best="mean Suerte")
    assert keep.probabilities == {10: Fraction(1)}  # keeping Luck: never spend it


def test_a_choice_by_the_other_side_plays_against_the_goal(engine, sheet):
    orc = engine.sheet({"Habilidad": 1})
    odds = engine.odds("atacar", sheet, {"objetivo": orc}, field="impacto", best="impacto")
    assert odds.probabilities == {False: Fraction(4, 6), True: Fraction(2, 6)}  # it dodges
    assert odds.decisions == {("defensa", "esquivar"): Fraction(1)}


def test_the_best_play_on_the_command_line(capsys):
    code = main(["odds", str(RULES), "superar", "--field", "resultado", "--best", "éxito",
                 "--json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["goal"] == {
        "field": "éxito",
        "value": True,
        "mean": False,
        "expression": None,  # a plain goal
        "worth": pytest.approx(22 / 27),  # the chance of éxito under the best play
    }
    assert {d["option"]: d["probability"] for d in data["decisions"]} == {
        "no": pytest.approx(46 / 81),
        "sí": pytest.approx(35 / 81),
    }
    code = main(["odds", str(RULES), "superar", "--field", "resultado", "--best", "éxito"])
    out = capsys.readouterr().out
    assert "choosing the best for éxito:" in out and "invocar = sí" in out


def test_odds_of_an_action_with_a_choice_and_no_policy_say_how_to_answer(capsys):
    assert main(["odds", str(RULES), "superar", "--field", "resultado"]) == 2
    assert "--best GOAL" in capsys.readouterr().err


# ─── the command line ───────────────────────────────────────────────────────


def test_run_answers_in_advance_with_choose(capsys):
    code = main(["run", str(RULES), "superar", "--dice=-1,0,0,0", "--choose", "invocar=sí"])
    out = capsys.readouterr().out
    assert code == 0 and "invocar: sí (answered in advance)" in out and "Destino: 3 → 2" in out


def test_a_choice_given_as_a_parameter_says_how_to_answer_it(engine, sheet, capsys):
    with pytest.raises(ParameterError) as caught:
        engine.run("superar", sheet, {"invocar": "sí"}, ForcedDice([-1, 0, 0, 0]))
    assert "invocar is a choice superar makes as it runs" in str(caught.value.hint)
    with pytest.raises(ParameterError) as caught:  # not a choice: the parameters, as before
        engine.run("superar", sheet, {"invocr": "sí"}, ForcedDice([-1, 0, 0, 0]))
    assert "choice" not in str(caught.value.hint)
    code = main(["run", str(RULES), "superar", "--dice=-1,0,0,0", "--set", "invocar=sí"])
    assert code != 0 and "--choose invocar=VALUE" in capsys.readouterr().err


def test_odds_of_a_field_the_action_does_not_give_are_refused_at_once(engine, sheet, capsys):
    # neither a result field nor the sheet's: refused before any counting, the nearest named
    with pytest.raises(ParameterError, match="superar gives no field 'resultdo'") as caught:
        engine.odds("superar", sheet, {}, field="resultdo", choices={"invocar": "no"})
    assert "resultado" in str(caught.value.hint)
    odds = engine.odds("superar", sheet, {}, field="Destino", choices={"invocar": "no"})
    assert odds.exact and dict(odds.probabilities) == {3: 1}  # a sheet field: still asked
    with pytest.raises(ParameterError, match="superar gives no field 'exito'"):  # a goal's
        engine.odds("superar", sheet, {}, field="resultado", best="mean exito")
    argv = ["odds", str(RULES), "superar", "--choose", "invocar=no", "--field", "resultdo"]
    assert main(argv) == 2
    assert "did you mean resultado?" in capsys.readouterr().err


def test_run_asks_at_the_table(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("tal vez\nsí\n"))
    code = main(["run", str(RULES), "superar", "--dice=-1,0,0,0"])
    captured = capsys.readouterr()
    assert code == 0 and "invocar: sí (chosen at the table)" in captured.out
    assert "invocar: ¿Invocar un aspecto (+2)? [no, sí]? " in captured.err
    assert "'tal vez' is not one of the options" in captured.err


def test_run_with_nobody_to_answer_says_how(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["run", str(RULES), "superar", "--dice=-1,0,0,0"]) == 2
    assert "--choose invocar=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("action a() { choose x { option a\n option a } }", "the option a is listed twice"),
        ('action a() { choose x { option "a{1}" } }', "an option is a word, a text or a number"),
    ],
)
def test_how_choices_are_written(text, message):
    with pytest.raises(dsl.RulebookSyntaxError, match=message):
        dsl.load_text(text, "c.rules")


def test_only_a_character_decides_by(engine):
    with pytest.raises(dsl.RulebookInvalid, match="decides only if it is a character"):
        dsl.load_text("action a(n: int) { choose x by n { option a } }", "c.rules")
    with pytest.raises(dsl.RulebookInvalid, match='"sii" is not one of the choices'):
        dsl.load_text(
            'action a() { choose x { option sí\n option no }\n require x = "sii" else "x" }', "c"
        )


def test_a_choice_nobody_can_take_is_an_error(engine, sheet):
    book = dsl.load_text("action a() { choose x { option a if no } }", "c.rules")
    with pytest.raises(EvaluationError, match="x: no option is open"):
        Engine(book).run("a", Engine(book).sheet({}), {}, ForcedDice([]))


def test_a_saved_run_with_a_target_and_a_choice_replays_from_its_record(tmp_path, capsys):
    rules = tmp_path / "duel.rules"
    rules.write_text(
        (DATA / "duel.rules").read_text(encoding="utf-8")
        + '\naction golpear(objetivo: character) "Golpear" {\n'
        "  let g = golpe(Fuerza, objetivo.Defensa)\n"
        '  choose fuerza "¿Con toda la fuerza?" {\n'
        "    option no\n"
        "    option sí if g.success { lose 2 from Vida }\n"
        "  }\n"
        '  if g.success { lose (if fuerza = "sí" then 4 else 2) from objetivo.Vida }\n'
        "  result { golpe: g.success }\n"
        "}\n",
        encoding="utf-8",
    )
    for name in ("hero", "orc"):
        (tmp_path / f"{name}.yaml").write_text(
            (DATA / "characters" / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8"
        )
    journal = str(tmp_path / "j.sqlite")
    argv = ["run", str(rules), "golpear", "--char", str(tmp_path / "hero.yaml")]
    argv += ["--target", str(tmp_path / "orc.yaml"), "--choose", "fuerza=sí", "--dice", "15"]
    assert main([*argv, "--save", "--journal", journal]) == 0
    assert "Vida: 1" in (tmp_path / "orc.yaml").read_text(encoding="utf-8")
    record = tmp_path / "run.json"
    assert main(["export", "1", "--journal", journal, "-o", str(record)]) == 0
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["choices"] == [{"name": "fuerza", "value": "sí", "chooser": "self", "how": "given"}]
    assert {s["role"] for s in data["sheets"]} == {"self", "objetivo"}
    capsys.readouterr()
    assert main(["verify", str(record)]) == 0  # the run again: its target, its choice
    assert "verified: golpear gives the recorded result" in capsys.readouterr().out
