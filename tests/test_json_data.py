"""JSON for machines: every document the interpreter writes is valid against its shipped
schema, numbers keep one JSON type, yes/no are booleans, errors carry a stable code."""

from __future__ import annotations

import json
import shlex
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

import dsl
import interpreter
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, SeededDice
from interpreter.cli import main
from interpreter.json_data import (
    KINDS,
    Writer,
    comparison_data,
    describe_data,
    error_data,
    odds_data,
    roll_data,
    run_data,
    schema,
    schemas,
)
from interpreter.odds import expression_odds

DATA = Path(__file__).resolve().parent / "data"
REGISTRY = Registry().with_resources(
    (id_, Resource.from_contents(contents)) for id_, contents in schemas().items()
)


def valid(document: dict) -> dict:
    """The document, after checking it against the schema of its kind."""
    validator = jsonschema.Draft202012Validator(schema(document["kind"]), registry=REGISTRY)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    json.dumps(document)  # and plain JSON data
    return document


@pytest.mark.parametrize("name", [*sorted(KINDS), "common"])
def test_every_schema_is_a_valid_json_schema(name):
    found = {s["$id"]: s for s in schemas().values()}
    assert f"urn:rulebook:schema:{name}" in found
    jsonschema.Draft202012Validator.check_schema(found[f"urn:rulebook:schema:{name}"])


def test_a_schema_catches_a_wrong_document():
    # A test of the test: a run whose result has a fraction as text is refused.
    book = dsl.load("brujeria")
    engine = Engine.of(book)
    sheet = engine.load_sheet(_character("brujeria_investigadora"))
    document = run_data(engine.run("asustarse", sheet, dice=ForcedDice([4])))
    document["dice"] = ["4"]
    with pytest.raises(AssertionError):
        valid(document)


def _character(name: str) -> str:
    from interpreter.cli.options import characters_folder

    return str(characters_folder() / f"{name}.yaml")


RUNS = [
    ("arcana_mundi", "usar_numina", "menecma", {"numina": "Grito Báquico"}),
    ("brujeria", "asustarse", "brujeria_investigadora", {}),
    ("pentagrama", "recibir_daño", "jorge", {"daño": 27, "zona": "Brazo derecho"}),
    ("mago", "efecto", "mago_ignacio", {"esfera_mayor": "Fuerzas", "vulgar": True}),
]


@pytest.mark.parametrize(("rulebook", "action", "character", "params"), RUNS)
def test_runs_of_the_shipped_games_are_valid_runs(rulebook, action, character, params):
    engine = Engine.of(dsl.load(rulebook))
    sheet = engine.load_sheet(_character(character))
    for seed in range(5):
        outcome = engine.run(action, sheet, params, dice=SeededDice(seed))
        document = valid(outcome.to_json())
        assert document["language"] == "es" and document["run"] == "action"
        assert document["dice"] == list(outcome.dice)
        assert all(isinstance(step["text"], str) for step in document["trace"])


def test_a_check_and_a_named_roll_give_outcomes_too():
    book = dsl.load("brujeria")
    engine = Engine.of(book)
    sheet = engine.load_sheet(_character("brujeria_investigadora"))
    check = engine.run_check("sencillo", sheet, {"atributo": "Voluntad"}, dice=ForcedDice([4]))
    assert isinstance(check, interpreter.Outcome) and check.kind == "check"
    assert check.result["total"] == 4 + 2 * sheet["Voluntad"] and check.changes == ()
    assert check.sheet is sheet and check.dice == (4,)
    assert any(step.kind == "check" for step in check.trace)
    document = valid(check.to_json())
    assert document["run"] == "check" and document["result"]["success"] in (True, False)
    roll = engine.run_roll("abierta", sheet, dice=ForcedDice([10, 6, 3]))
    assert roll.kind == "roll" and roll.result == 10 + 5 + 2 and roll.dice == (10, 6, 3)
    assert valid(roll.to_json())["result"] == 17


def test_a_fraction_is_a_number_with_its_exact_value_by_pointer():
    w = Writer("es")
    data = w.value({"a": Fraction(7, 2), "b": [1, Fraction(1, 3)], "c/d": Fraction(4, 2)}, "/r")
    assert data == {"a": 3.5, "b": [1, 1 / 3], "c/d": 2}
    assert type(data["c/d"]) is int
    assert w.fractions == {"/r/a": "7/2", "/r/b/1": "1/3"}


def test_a_number_field_keeps_its_json_type_from_run_to_run(capsys):
    for text in ("7/2", "6/2", "3d6 / 2"):
        assert main(["roll", text, "--seed", "3", "--json"]) == 0
        document = valid(json.loads(capsys.readouterr().out))
        assert isinstance(document["total"], int | float)
        if document["fractions"]:
            assert Fraction(document["fractions"]["/total"]) == Fraction(document["total"])


def test_roll_data_is_valid():
    result = interpreter.roll("4d6kh3 + 2", ForcedDice([6, 5, 3, 1]))
    document = valid(roll_data(result))
    assert document["total"] == 16 and document["terms"][0]["kept"] == [6, 5, 3]


def test_odds_are_valid_with_yes_no_as_booleans():
    document = valid(odds_data(expression_odds("3d6")))
    assert [o["outcome"] for o in document["outcomes"]] == list(range(3, 19))
    assert document["outcomes"][0]["at_least"] == 1
    assert Fraction(document["fractions"]["/mean"]) == Fraction(21, 2)
    book = dsl.load("brujeria")
    engine = Engine.of(book)
    sheet = engine.load_sheet(_character("brujeria_investigadora"))
    odds = engine.odds("asustarse", sheet, field="superado")
    document = valid(odds_data(odds, "es"))
    assert {o["outcome"] for o in document["outcomes"]} <= {True, False}
    assert odds.probability("yes") == odds.probability(True) == odds.probability("sí") > 0
    assert odds.probability("no") == odds.probability(False) > 0
    both = valid(comparison_data(odds, odds, ("A", "B"), "es"))
    assert both["a"] == both["b"]


@pytest.mark.parametrize("name", sorted(dsl.shipped_rulebooks()))
def test_describe_of_every_shipped_rulebook_is_valid(name):
    document = valid(describe_data(dsl.load(name)))
    for action in document["actions"]:
        jsonschema.Draft202012Validator.check_schema(action["parameters"])
        for param in action["params"]:
            assert param["type"]["kind"] in ("named", "enum", "list")
    jsonschema.Draft202012Validator.check_schema(document["sheet"]["schema"])


def test_describe_gives_parameters_as_json_schema():
    document = describe_data(dsl.load("arcana_mundi"))
    action = next(a for a in document["actions"] if a["name"] == "usar_numina")
    properties = action["parameters"]["properties"]
    assert properties["preces"] == {"title": "preces", "type": "boolean", "default": False}
    assert properties["tiempo"]["enum"] == ["normal", "mitad", "doble"]
    assert properties["tiempo"]["default"] == "normal"
    assert properties["oficiantes"] == {"title": "oficiantes", "type": "integer", "default": 0}
    assert properties["numina"]["x-sheet-catalog"] == "Núminas"
    assert "numina" in action["parameters"]["required"]
    fields = {f["name"]: f for f in document["sheet"]["fields"]}
    assert fields["Fuerza"]["schema"]["minimum"] == 1 and fields["Fuerza"]["range"]["max"] == 10
    # a sheet file of the game fits the sheet's schema
    engine = Engine.of(dsl.load("arcana_mundi"))
    data = engine.load_sheet(_character("menecma")).to_data()
    validator = jsonschema.Draft202012Validator(document["sheet"]["schema"])
    assert not list(validator.iter_errors(json.loads(json.dumps(data))))
    assert list(validator.iter_errors({**data, "Fuerza": 11}))


def _error_of(call) -> RulebookError:
    try:
        call()
    except RulebookError as error:
        return error
    raise AssertionError("no error")


def test_errors_are_valid_with_stable_codes(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text('rulebook "Bad" {\n  language "es"\n}\naction a() {\n  let x = y\n}\n')
    engine = Engine.of(dsl.load("brujeria"))
    sheet = engine.load_sheet(_character("brujeria_investigadora"))
    cases = {
        "invalid_rulebook": lambda: dsl.load(bad),
        "syntax_error": lambda: dsl.load_text("rulebook {"),
        "invalid_parameter": lambda: engine.run("asustarse", sheet, {"nada": 1}),
        "invalid_sheet": lambda: engine.sheet({"Fuerza": "x"}),
        "dice_error": lambda: engine.run("asustarse", sheet, dice=ForcedDice([])),
        "limit_exceeded": lambda: interpreter.roll("1000000000d6"),
        "invalid_input": lambda: dsl.load("no_such_rulebook"),
    }
    for code, call in cases.items():
        error = _error_of(call)
        document = valid(error_data(error))
        assert document["error"]["code"] == code
        assert document["error"]["exit_code"] == error.exit_code
    invalid = valid(error_data(_error_of(cases["invalid_rulebook"])))
    assert invalid["language"] == "es"  # the rulebook's own, from its header
    diagnostic = invalid["error"]["diagnostics"][0]
    assert diagnostic["location"]["line"] == 5 and diagnostic["severity"] == "error"


def test_every_error_class_names_its_own_code_from_the_schema():
    codes = set(schema("error")["$defs"]["code"]["enum"])
    import interpreter.journal  # noqa: F401  (its error classes too)

    seen = {}
    stack = [RulebookError]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("tests"):
            continue
        assert "code" in vars(cls), f"{cls.__name__} names no code of its own"
        assert cls.code in codes, f"{cls.__name__}.code {cls.code!r} is not in the schema"
        seen.setdefault(cls.code, cls)
    assert len(seen) >= 12


def test_cli_json_errors_are_on_stdout_with_the_exit_code(capsys):
    assert main(["run", "brujeria", "nada", "--json"]) == 2
    captured = capsys.readouterr()
    document = valid(json.loads(captured.out))
    assert document["error"]["code"] == "invalid_parameter" and captured.err == ""
    assert main(["roll", "1000000000d6", "--json"]) == 4
    document = valid(json.loads(capsys.readouterr().out))
    assert document["error"]["location"]["source_line"] == "1000000000d6"
    assert main(["run", "brujeria", "--json"]) == 2  # no action: which it has, said
    document = valid(json.loads(capsys.readouterr().out))
    assert document["error"]["code"] == "invalid_parameter"
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--json"])
    assert stopped.value.code == 2
    document = valid(json.loads(capsys.readouterr().out))
    assert document["error"]["code"] == "usage_error"


def test_yes_no_in_either_spelling_in_sheet_data_and_parameters():
    showcase = Engine.of(dsl.load(DATA / "showcase.rules"))
    data = showcase.load_sheet(DATA / "showcase.yaml").to_data()
    for word, value in (("sí", True), ("yes", True), ("true", True), ("no", False)):
        assert showcase.sheet({**data, "Mundane": word})["Mundane"] is value
    engine = Engine.of(dsl.load("arcana_mundi"))
    sheet = engine.load_sheet(_character("menecma"))
    params = {"numina": "Grito Báquico", "preces": "sí"}
    shown = engine.run("usar_numina", sheet, params, dice=ForcedDice([3, 4])).params
    assert shown["preces"] is True
    same = engine.run("usar_numina", sheet, {**params, "preces": True}, dice=ForcedDice([3, 4]))
    assert same.params == shown


# ─── every --json of the command line ───────────────────────────────────────

CHOICES, DUEL = str(DATA / "choices.rules"), str(DATA / "duel.rules")
FIGHT = str(DATA.parent.parent / "examples" / "games" / "encounters" / "duel.yaml")
#: a command line of every command that takes --json, in every shape its answer takes
#: (with the journal's commands run after the saved runs above them)
COMMAND_LINES = [
    (kind, shlex.split(line.format(choices=CHOICES, duel=DUEL, fight=FIGHT)))
    for kind, line in [
        ("roll", "roll 4d6kh3 --seed 1"),
        ("roll", "roll 7/2"),
        ("roll", "roll '{{1d20+5, 1d20+3}}kh1' --seed 2"),
        ("roll", "roll 10d10cs>=6df=1 --seed 1"),
        ("roll", "roll -2d4 --dice 1,3"),
        ("run", "run arcana_mundi usar_numina --char menecma --set 'numina=Grito Báquico'"
                " --seed 1"),
        ("run", "run brujeria sencillo --char brujeria_investigadora --set atributo=Voluntad"
                " --seed 1"),
        ("run", "run brujeria abierta --char brujeria_investigadora --dice 10,6,3"),
        ("run", "run {choices} superar --dice=-1,0,0,0 --choose invocar=sí"),
        ("error", "run {choices} superar --dice=-1,0,0,0"),  # a choice nobody answers
        ("run", "run {duel} atacar --char hero.yaml --target objetivo=orc.yaml --dice 15,3"
                " --save --journal j.sqlite"),
        ("run", "run {duel} echar_un_pulso --char hero.yaml --target rival=orc.yaml --dice 10,10"
                " --save --journal j.sqlite"),
        ("error", "run arcana_mundi usar_numina --char menecma --set 'numina=Grito Báquico'"
                  " --set oficiantes=-1"),
        ("odds", "odds 3d6"),
        ("odds", "odds brujeria asustarse --char brujeria_investigadora --field superado"),
        ("odds", "odds {choices} superar --field resultado --best éxito"),
        ("odds", "odds brujeria asustarse --char brujeria_investigadora --field superado"
                 " --budget 1 --trials 200"),
        ("odds", "odds brujeria asustarse --char brujeria_investigadora --field superado"
                 " --budget 1 --trials 100000000 --timeout 0.5"),
        ("odds_comparison", "odds brujeria asustarse --char brujeria_investigadora"
                            " --field superado --compare brujeria_miedo_duro"),
        ("describe", "describe brujeria"),
        ("error", "run brujeria nada"),
        ("error", "roll 1000000000d6"),
        ("error", "roll 2d6 --seed x"),
        ("log", "log --journal j.sqlite"),
        ("journal_entry", "show 1 --journal j.sqlite"),
        ("journal_entry", "show 2 --journal j.sqlite --lang en"),
        ("replay", "replay --against {duel} --journal j.sqlite"),
        ("error", "show 9 --journal j.sqlite"),
        ("encounter", "encounter {fight}"),
        ("sweep", "sweep brujeria chequeo_sencillo --char brujeria_bruja --field éxito"
                  " --param dificultad=Normal,Heroico --vary Voluntad=1..2 --no-cache"
                  " --workers 1"),
        ("encounter", "encounter {fight} --sampled --trials 50 --lang es"),
        ("error", "encounter {fight} --sampled --workers 100"),
    ]
]  # fmt: skip


def test_every_json_the_command_line_prints_is_valid(tmp_path, monkeypatch, capsys):
    for name in ("hero", "orc"):
        (tmp_path / f"{name}.yaml").write_text(
            (DATA / "characters" / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8"
        )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(""))
    sampled = set()
    for kind, argv in COMMAND_LINES:
        try:
            code = main([*argv, "--json"])
        except SystemExit as stopped:
            code = stopped.code
        captured = capsys.readouterr()
        document = valid(json.loads(captured.out))
        assert document["kind"] == kind, (argv, captured.out[:300])
        assert (code == 0) == (kind != "error"), argv
        if kind == "error":
            assert document["error"]["exit_code"] == code and "error" not in captured.err
        if kind == "odds" and not document["exact"]:
            stopped = "límite de tiempo" in document["note"]
            sampled.add("timeout" if stopped else "budget")
    assert sampled == {"budget", "timeout"}  # both ways a sampled answer is reached


def test_every_command_with_json_is_among_the_command_lines():
    from interpreter.cli.main import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    with_json = {n for n, p in commands.items() if any("--json" in a.option_strings
                                                      for a in p._actions)}  # fmt: skip
    assert with_json == {argv[0] for _, argv in COMMAND_LINES}
    assert {kind for kind, _ in COMMAND_LINES} == set(KINDS)


def test_a_steps_texts_speak_the_language_and_no_numbers_make_no_pointer(monkeypatch):
    from dsl.messages import tr
    from interpreter.json_data import Writer, step_data
    from interpreter.trace import Step

    valued: list = []
    value = Writer.value
    monkeypatch.setattr(Writer, "value", lambda w, v, at: valued.append(at) or value(w, v, at))
    w = Writer("es")
    plain = step_data(Step("note", tr("yes"), 3, detail="x"), w, "/trace/0")
    assert (plain["text"], plain["detail"], plain["data"], valued) == ("sí", "x", {}, [])
    numbers = step_data(Step("note", "a", 3, {"half": Fraction(1, 2)}), w, "/trace/1")
    assert (numbers["text"], numbers["detail"], numbers["data"]) == ("a", None, {"half": 0.5})
    assert valued == ["/trace/1/data"] and w.fractions == {"/trace/1/data/half": "1/2"}
