"""A record's kept texts (`_shown`, `_whole`) start as None: a new record shown in a trace
is not first looked for in its fields (`values.SET_KEPT`), nor mistaken for a field of
that name."""

from __future__ import annotations

import dsl
from dsl.messages import show_value
from interpreter import Engine, SeededDice, values
from interpreter.cli.options import characters_folder
from interpreter.json_data import run_data
from interpreter.shown import glimpse, glimpse_data
from interpreter.values import Record


def test_a_new_record_is_shown_without_looking_in_its_fields(monkeypatch):
    """Fails with values.SET_KEPT off: `_shown` and `_whole` are then unset slots, read
    through `Record.__getattr__` (two exceptions each) the first time."""
    asked = []
    original = Record.__getattr__
    counted = lambda record, name: asked.append(name) or original(record, name)  # noqa: E731
    monkeypatch.setattr(Record, "__getattr__", counted)
    record = Record({"label": "Bueno", "niveles": 2, "daño": 1})
    assert show_value(record, "es") == "Bueno {niveles: 2, daño: 1}"
    assert glimpse(record, 60) is record and glimpse_data(record, 60) is record
    # a check's record that generated code made (`codegen.returned.MADE_BARE`), shown
    engine = Engine.of(dsl.load("brujeria"))
    sheet = engine.load_sheet(str(characters_folder() / "brujeria_investigadora.yaml"))
    for seed in range(4):  # (past its first runs: its generated code)
        outcome = engine.run("asustarse", sheet, {"modificador": 50}, SeededDice(seed), trace=True)
        run_data(outcome, "es")
    assert asked == []


def test_a_field_named_as_a_kept_text_is_a_field(monkeypatch):
    for kept in (True, False):
        monkeypatch.setattr(values, "SET_KEPT", kept)
        record = Record({"label": "Raro", "_shown": 5, "_whole": "sí"})
        assert record["_shown"] == 5
        if kept:  # (unset, the field was taken for the record's kept texts)
            assert show_value(record, "es") == "Raro {_shown: 5, _whole: sí}"
            assert glimpse(record, 40) is record
