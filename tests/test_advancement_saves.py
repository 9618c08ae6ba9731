"""Advancement that moves a resource's maximum saves: a resource the file left out (read
back full) is written out with the value the run kept, on the command line and in
`Sheet.file_text`, which the page's saves share."""

from __future__ import annotations

import pytest
import yaml
from cli_helpers import run_cli

import dsl
from interpreter import Engine, ForcedDice
from interpreter.sheets.character import Sheet, shipped_characters_folder
from interpreter.sheets.writer import rewrite

#: a house rule on Brujería: an attribute raised (Vida, Resistencia and Esencia's maxima
#: read Fuerza), a skill raised (no maximum reads Pelea)
HOUSE_RULE = """\
rulebook "Avance" extends brujeria {
  source "regla de la casa"
}

action subir_fuerza(a: int = 3) "Subir Fuerza" {
  set Fuerza to a
}

action subir_pelea() "Subir Pelea" {
  set Pelea to 2
}
"""

#: Vida's, Resistencia's and Esencia's maxima with Fuerza at 2 (the witch's) and 3
FULL_AT_2 = {"Vida": 30, "Resistencia": 35, "Esencia": 40}
FULL_AT_3 = {"Vida": 34, "Resistencia": 38, "Esencia": 41}


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "avance.rules").write_text(HOUSE_RULE, encoding="utf-8")
    witch = (shipped_characters_folder() / "brujeria_bruja.yaml").read_text(encoding="utf-8")
    (tmp_path / "bruja.yaml").write_text(witch.replace("rulebook: brujeria", "rulebook: avance"))
    return tmp_path


def _data(path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_raising_an_attribute_a_maximum_reads_saves_the_resources_it_left_out(capsys, table):
    before = (table / "bruja.yaml").read_text(encoding="utf-8")
    assert not set(FULL_AT_2) & set(_data(table / "bruja.yaml")), "left out: read back full"
    code, out, err = run_cli(
        capsys, "run", "avance.rules", "subir_fuerza", "--char", "bruja.yaml", "--save"
    )
    assert code == 0, err
    assert "guardado bruja.yaml" in out
    saved = (table / "bruja.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(saved)
    assert data["Fuerza"] == 3
    # each kept at the value it had (full at the old maximum), now below the new one
    assert {k: data[k] for k in FULL_AT_2} == FULL_AT_2
    # in the rulebook's order of fields, after the last field the file had before them
    lines = saved.splitlines()
    assert lines[lines.index("Esencia adicional: 20") + 1 :][:3] == [
        "Vida: 30",
        "Resistencia: 35",
        "Esencia: 40",
    ]
    # nothing else moved: every other line is the file's own
    assert [line for line in lines if line.split(":")[0] not in {"Fuerza", *FULL_AT_2}] == [
        line for line in before.splitlines() if not line.startswith("Fuerza:")
    ]
    code, out, err = run_cli(capsys, "undo")
    assert code == 0, err
    assert (table / "bruja.yaml").read_text(encoding="utf-8") == before


def test_lowering_it_brings_the_resources_down_to_the_new_maximum_and_saves_them(capsys, table):
    code, _, err = run_cli(
        capsys, "run", "avance.rules", "subir_fuerza", "--set", "a=1", "--char", "bruja.yaml",
        "--save",
    )  # fmt: skip
    assert code == 0, err
    data = _data(table / "bruja.yaml")
    lowered = {"Vida": 26, "Resistencia": 32, "Esencia": 39}
    assert data["Fuerza"] == 1 and {k: data[k] for k in FULL_AT_2} == lowered
    engine = Engine(dsl.load(str(table / "avance.rules")))
    sheet = engine.load_sheet(table / "bruja.yaml")
    assert {k: sheet[k] for k in FULL_AT_2} == lowered


def test_a_skill_no_maximum_reads_writes_only_itself(capsys, table):
    before = (table / "bruja.yaml").read_text(encoding="utf-8")
    code, _, err = run_cli(
        capsys, "run", "avance.rules", "subir_pelea", "--char", "bruja.yaml", "--save"
    )
    assert code == 0, err
    after = (table / "bruja.yaml").read_text(encoding="utf-8")
    assert after == before.replace("Pelea: 1\n", "Pelea: 2\n")


def test_file_text_writes_out_a_resource_the_file_gave_with_the_rest_left_out(table):
    engine = Engine(dsl.load(str(table / "avance.rules")))
    path = table / "bruja.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "Vida: 12\n", encoding="utf-8")
    sheet = engine.load_sheet(path)
    outcome = engine.run("subir_fuerza", sheet, {}, ForcedDice(()))
    text = outcome.sheet.file_text(sheet)
    data = yaml.safe_load(text)
    assert data["Vida"] == 12  # as the file had it: unchanged, written once
    assert text.count("Vida:") == 1
    assert {k: data[k] for k in ("Resistencia", "Esencia")} == {"Resistencia": 35, "Esencia": 40}
    again = Sheet.from_text(text, engine.rulebook, str(path))
    assert dict(again.values) == dict(outcome.sheet.values)


def test_several_new_keys_at_one_place_keep_the_order_they_are_given_in():
    text = "a: 1\nz: 9\n"
    out = rewrite(text, "yaml", {"a": 1, "z": 9}, {"a": 1, "b": 2, "c": 3, "z": 9}, ["a", "b", "c"])
    assert out == "a: 1\nb: 2\nc: 3\nz: 9\n"
