"""Words a game master reads (issue 26): plurals of the rulebook's own words, lasting
effects in words, numbers as the language writes them (1,7 in Spanish), a failed verify
without Python's reprs, the odds' exactness in words, texts listed in the rulebook's
order, and files that are not characters left out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import command, run_cli
from web_client import page_client

from dsl.messages import Number, number_text, path_shown, percent_text, plural_of, show_value, tr
from interpreter.cli.render import one_in
from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
CHARACTERS = ROOT / "rulebooks" / "characters"


@pytest.mark.parametrize(
    ("word", "language", "plural"),
    [
        ("turno", "es", "turnos"),
        ("asalto", "es", "asaltos"),
        ("mes", "es", "meses"),
        ("día", "es", "días"),
        ("acción", "es", "acciones"),
        ("vez", "es", "veces"),
        ("lunes", "es", "lunes"),
        ("hora de juego", "es", "horas de juego"),
        ("round", "en", "rounds"),
        ("match", "en", "matches"),
        ("game day", "en", "game days"),
    ],
)
def test_a_rulebooks_word_in_the_plural(word, language, plural):
    assert plural_of(word, language) == plural


def test_a_lasting_effect_is_shown_in_words_never_its_keys():
    effect = {"name": "Temblores", "modifier": -2, "targets": ("acciones",), "left": 2}
    effect["unit"] = "turno"
    assert show_value(effect, "es") == "Temblores: -2 a acciones, tiempo restante: 2 turnos"
    assert show_value(effect, "en") == "Temblores: -2 on acciones, time left: 2 turnos"
    one = {"modifier": 3, "targets": [], "left": 1, "unit": "escena"}  # as a sheet holds it
    assert show_value(one, "es") == "+3, tiempo restante: 1 escena"
    assert path_shown("Efectos.Temblores.left", "es") == "Efectos.Temblores.tiempo restante"
    assert path_shown("Vida", "es") == "Vida" and path_shown("Armas.left", "es") == "Armas.left"


def test_a_chance_left_out_is_one_in_so_many():
    assert one_in(1.97e-15, "es") == "100.000.000.000.000"
    assert one_in(1.97e-15, "en") == "100,000,000,000,000"
    assert one_in(0.004) == "100"


def test_numbers_are_written_as_the_language_writes_them():
    assert (number_text(1.7, "es"), number_text(1.7, "en"), number_text(1.7)) == (
        "1,7",
        "1.7",
        "1.7",
    )
    assert number_text(1234.5, "es", ",.1f") == "1.234,5"  # (a point between thousands)
    assert number_text(1234.5, "en", ",.1f") == "1,234.5"
    assert (percent_text(1 / 12, "es"), percent_text(1 / 12, "en")) == ("8,3333 %", "8.3333%")
    assert number_text(1 / 12, "es_ES", ".2%") == "8,33 %" and show_value(2.5, "es") == "2,5"
    # in a message: a float its template formats, a float as it is, a Number
    formatted = tr("{mean:.4f} of {stdev:+.2f}", mean=3.5, stdev=1.25)  # (no translation)
    assert formatted.render("es") == "3,5000 of +1,25"
    assert str(formatted) == "3.5000 of +1.25"
    spread = tr("mean {mean}, standard deviation {stdev}", mean=Number(3.5, ".4f"), stdev=1.25)
    assert spread.render("es") == "media 3,5000, desviación típica 1,25"
    took = tr("the run took longer than {seconds} seconds (limit run_seconds)", seconds=1.7)
    assert took.render("es") == "la tirada duró más de 1,7 segundos (límite run_seconds)"
    took = took.fill(seconds=Number(0.5, "g"))
    assert "0,5 segundos" in took.render("es") and "0.5 seconds" in str(took)


def test_the_odds_and_an_encounter_write_spanish_numbers(capsys):
    line = "odds brujeria asustarse --char brujeria_investigadora --field Esencia"
    code, out, _ = command(capsys, line + " --compare brujeria_miedo_duro")
    assert code == 0 and "  19   50,0000 %  ≥  50,0000 %" in out and "media 16,7000," in out
    assert "  15      10,0000 %      10,0000 %    +0,0000 %" in out
    code, out, _ = command(capsys, line + " --lang en")
    assert code == 0 and "  19   50.0000%  ≥  50.0000%" in out and "mean 16.7000," in out
    fight = ROOT / "examples" / "encounters" / "brujeria_pelea.yaml"
    code, out, _ = run_cli(capsys, "encounter", fight, "--trials", "50")
    rounds = next(line for line in out.splitlines() if line.startswith("asaltos de media"))
    assert code == 0 and "," in rounds and "." not in rounds and " %" in out


def test_a_seeded_run_says_its_seed_and_the_odds_say_how_exact_in_words(capsys):
    code, out, _ = command(capsys, "run brujeria despertar --char brujeria_bruja --seed 7")
    assert code == 0 and "(semilla 7)" in out and "al azar" not in out
    code, out, _ = command(capsys, "odds brujeria asustarse --char brujeria_bruja --field superado")
    assert code == 0 and "masa omitida" not in out and "e-15" not in out
    assert "menos de 1 posibilidad entre 100.000.000.000.000)" in out  # (no parenthesis inside)
    assert out.count("(") == out.count(")") == 1


def test_texts_are_listed_in_the_order_the_rulebook_writes_them(capsys):
    blades = ROOT / "examples" / "blades.rules"
    code, out, _ = run_cli(capsys, "odds", blades, "act", "--set", "dots=2", "--field", "outcome")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines()[2:]]
    assert listed == ["critical", "success", "partial", "failure"]  # as written, not a-z


def test_a_failed_verify_says_what_differs_in_words(capsys, tmp_path):
    # (absolute paths, no chdir: the page's worker processes start from this folder)
    shutil.copy(CHARACTERS / "brujeria_bruja.yaml", tmp_path / "bruja.yaml")
    fear = ["--set", "fuente=Criatura horrible", "--seed", "1", "--save"]
    sheet = tmp_path / "bruja.yaml"
    assert run_cli(capsys, "run", "brujeria", "asustarse", "--char", sheet, *fear)[0] == 0
    journal = ["--journal", tmp_path / "journal.sqlite"]
    assert run_cli(capsys, "export", "1", "-o", tmp_path / "run1.json", *journal)[0] == 0
    record = json.loads((tmp_path / "run1.json").read_text(encoding="utf-8"))
    record["result"]["total"] += 1
    record["result"]["superado"] = True
    (tmp_path / "bad.json").write_text(json.dumps(record), encoding="utf-8")
    code, _, err = run_cli(capsys, "verify", tmp_path / "bad.json")
    assert code == 4
    assert "superado es no; el registro dice sí" in err and "total es 8; el registro dice 9" in err
    assert not any(python in err for python in ("{'", "True", "False", "None"))
    # the exported record is a run's, not a character: the page does not offer it
    with page_client(create_app(tmp_path)) as client:
        names = [c["name"] for c in client.get("/api/characters").json()["characters"]]
    assert "bruja" in names and "run1" not in names and "bad" not in names


def test_a_looked_up_row_says_yes_and_no_in_the_rulebooks_language(capsys):
    # (the counterspell is refused further on, for want of spheres: its lookup is shown)
    _, out, _ = command(capsys, "run mago contramagia --char mago_ada --seed 5")
    assert "esferas: sí, cardinal: 0, refleja: no" in out
    _, out, _ = command(capsys, "run mago contramagia --char mago_ada --seed 5 --lang en")
    assert "esferas: yes, cardinal: 0, refleja: no" in out
