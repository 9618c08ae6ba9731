"""Every command and the page's API, asked about Spanish rulebooks, answer in Spanish: no
English word of the catalogue and no key a program writes (`success`, `modifier`,
`yes`, `int`, ...) outside the rulebook's own words, and no decimal point in a number
(tests/spanish_scan.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import command
from spanish_scan import decimal_points, english_in, english_words, rulebook_words
from web_client import page_client

from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "rulebooks"
CHARACTERS = RULEBOOKS / "characters"


def allowed(*names: str) -> frozenset[str]:
    """The words of shipped rulebooks and characters: what they write is shown as written."""
    paths = [RULEBOOKS / f"{n}.rules" for n in names if (RULEBOOKS / f"{n}.rules").exists()]
    paths += [CHARACTERS / f"{n}.yaml" for n in names if (CHARACTERS / f"{n}.yaml").exists()]
    return rulebook_words(*paths)


def answers_in_spanish(said: dict, words: frozenset[str]) -> None:
    found = {
        what: sorted(set(english_in(text, words)) | set(decimal_points(text)))
        for what, text in said.items()
    }
    english = {what: words for what, words in found.items() if words}
    assert not english, json.dumps(english, ensure_ascii=False)


# ─── the scan itself ─────────────────────────────────────────────────────────


def test_the_scan_finds_english_keys_and_words_and_leaves_the_rulebooks_own():
    words = allowed("brujeria", "brujeria_bruja")
    assert english_in("resultado: superado yes, total 9 · no changes", words) == [
        "yes",
        "changes",
    ]
    effect = "Efectos.Temblores {name: Temblores, modifier: -2, targets: [acciones], left: 2}"
    assert english_in(effect, words) == ["name", "modifier", "targets", "left"]
    assert english_in("modificador: int = 0", words) == ["int"]
    assert english_in("si c.success → no", words) == []  # (the rulebook's code, as written)
    # the rulebook's own code and names, a command to type, a file: not words to translate
    assert english_in('estado(yes) + effects("acciones", Voluntad) >= 9', words) == []
    assert english_in("`rulebook undo 3` la recupera; guardado bruja.yaml", words) == []
    assert "changes" in english_words() and "cambios" not in english_words()


def test_the_scan_finds_a_decimal_point_in_a_spanish_number():
    said = "media 3.5000, sí 8.3333 % ± 0.125; 0.205 segundos; dejado fuera 2.0e-15"
    assert decimal_points(said) == ["3.5000", "8.3333", "0.125", "0.205", "2.0e-15"]
    # Spanish's own: a decimal comma, a point between thousands; a range, a file, a path
    spanish = "media 3,5000, sí 8,3333 %; 1 entre 100.000.000; 2..12; run1.json; v1.2/a.rules"
    assert decimal_points(spanish) == []


# ─── the command line ────────────────────────────────────────────────────────


@pytest.fixture
def table(tmp_path, monkeypatch):
    shutil.copy(CHARACTERS / "brujeria_bruja.yaml", tmp_path / "bruja.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_journal_command_after_a_spanish_run(capsys, table):
    said = {}

    def say(line: str, *extra, code: int | None = 0) -> str:
        try:
            exit_code, out, err = command(capsys, line, *extra)
        except SystemExit as exit_:  # --help, a usage error: argparse exits
            captured = capsys.readouterr()
            exit_code, out, err = exit_.code, captured.out, captured.err
        if code is not None:
            assert exit_code == code, (line, err)
        said[line] = out + err
        return out

    fear = 'run brujeria asustarse --char bruja.yaml --set "fuente=Criatura horrible"'
    say(fear + " --seed 1 --save")  # fails its check: an effect, 2 turns
    say("run brujeria fin_de_turno --char bruja.yaml --seed 1 --save")  # 1 turn left
    say("run brujeria recibir_daño --char bruja.yaml --seed 4 --save")
    say(fear + " --dice 1", code=4)  # too few dice
    say("log")
    say("show 1")
    say("show 2")
    say("show 99", code=2)
    say("undo")
    say("undo 1", code=4)  # a later run changed the sheet
    say("log")
    say("export 1 -o run1.json")
    say("verify run1.json")
    record = json.loads((table / "run1.json").read_text(encoding="utf-8"))
    record["result"]["total"] += 1
    (table / "bad.json").write_text(json.dumps(record), encoding="utf-8")
    say("verify bad.json", code=4)
    say("journal verify")
    say("replay --against brujeria_miedo_duro --all")
    say("run brujeria --help")  # the help of a command about a Spanish rulebook
    say("odds brujeria asustarse --sett x", code=2)
    fight = ROOT / "examples" / "encounters" / "brujeria_pelea.yaml"
    say(f"encounter {fight} --trials 100")
    say("new brujeria_bruja otra.yaml")
    say("new brujeria_bruja otra.yaml", code=2)  # the file exists
    broken = 'rulebook "Casa" extends brujeria {\n}\naction a() { lose 1 from Esencai }\n'
    (table / "casa.rules").write_text(broken, encoding="utf-8")
    say("check casa.rules", code=3)
    say("run casa.rules a --char bruja.yaml", code=3)
    answers_in_spanish(said, allowed("brujeria", "brujeria_bruja"))
    assert "turnos" in said["log"] and "tiempo restante: 1 turno" in said["show 2"]
    assert "(semilla 1)" in said[fear + " --seed 1 --save"]


@pytest.mark.parametrize(
    ("rulebook", "character", "action", "settings"),
    [
        ("brujeria", "brujeria_bruja", "asustarse", ["fuente=Criatura horrible"]),
        ("mago", "mago_ada", "efecto", ["esfera_mayor=Fuerzas", "nivel=2"]),
        ("arcana_mundi", "menecma", "usar_numina", ["numina=Grito Báquico"]),
        ("pentagrama", "pentagrama_maestra", None, []),
    ],
)
def test_run_odds_describe_and_check_of_each_spanish_rulebook(
    capsys, rulebook, character, action, settings
):
    said = {}
    for line in (f"describe {rulebook}", f"check rulebooks/{rulebook}.rules"):
        code, out, err = command(capsys, line.replace("rulebooks/", f"{RULEBOOKS}/"))
        assert code == 0, err
        said[line] = out + err
    if action is None:  # the first action the rulebook describes
        code, out, _ = command(capsys, f"describe {rulebook} --json")
        action = json.loads(out)["actions"][0]["name"]
    sets = [x for s in settings for x in ("--set", s)]
    for line in (
        f"run {rulebook} {action} --char {character} --seed 3",
        f"odds {rulebook} {action} --char {character} --trials 200 --timeout 5",
    ):
        code, out, err = command(capsys, line, *sets)
        said[line] = out + err
    answers_in_spanish(said, allowed(rulebook, character))


# ─── the page's API ──────────────────────────────────────────────────────────

#: what an answer of the API says to people (the rest is data: names, numbers, kinds)
FOR_PEOPLE = {"text", "message", "hint", "note", "why", "reason", "warnings", "label", "title"}


def texts_for_people(data, key: str | None = None):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from texts_for_people(v, k)
    elif isinstance(data, list):
        for v in data:
            yield from texts_for_people(v, key)
    elif isinstance(data, str) and key in FOR_PEOPLE:
        yield data


def test_the_pages_answers_about_a_spanish_rulebook(tmp_path):
    shutil.copy(CHARACTERS / "brujeria_bruja.yaml", tmp_path / "bruja.yaml")
    run = {
        "rulebook": "brujeria",
        "action": "asustarse",
        "character": "bruja",
        "params": {"fuente": "Criatura horrible"},
        "seed": 1,
    }
    said = {}
    with page_client(create_app(tmp_path)) as client:
        saved = client.post("/api/run", json={**run, "save": True})
        entry = saved.json()["saved"]["entry"]
        answers = {
            "run": saved,
            "odds": client.post("/api/odds", json={**run, "field": "superado"}),
            "history": client.get("/api/characters/bruja/history"),
            "undo": client.post("/api/undo", json={"entry": entry}),
            "undo again": client.post("/api/undo", json={"entry": entry}),
            # (the page asks a run in its language; an undo, without it)
            "run refused": client.post("/api/run", json={**run, "dice": [1], "lang": "es"}),
            "no such character": client.post(
                "/api/run", json={**run, "character": "nadie", "lang": "es"}
            ),
        }
    for what, answer in answers.items():
        data = answer.json()
        assert data.get("language", "es") == "es", what
        said[what] = "\n".join(texts_for_people(data))
    answers_in_spanish(said, allowed("brujeria", "brujeria_bruja"))
