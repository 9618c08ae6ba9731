"""A run's trace as JSON: `json_data.steps_data` (SWITCH.direct) writes the same steps as
`step_data` of each, byte for byte, for every shipped game's run, with long values cut."""

from __future__ import annotations

import json

import attrs
import pytest

import dsl
from interpreter import Engine, SeededDice, json_data
from interpreter.cli.options import characters_folder
from interpreter.json_data import SWITCH, run_data

RUNS = [
    ("arcana_mundi", "usar_numina", "menecma", {"numina": "Grito Báquico"}),
    ("brujeria", "asustarse", "brujeria_investigadora", {"modificador": 3}),
    ("pentagrama", "recibir_daño", "jorge", {"daño": 27, "zona": "Brazo derecho"}),
    ("mago", "efecto", "mago_ignacio", {"esfera_mayor": "Fuerzas", "vulgar": True}),
]


def _written(outcome, language: str | None, direct: bool) -> str:
    before, SWITCH.direct = SWITCH.direct, direct
    try:
        return json.dumps(run_data(outcome, language), ensure_ascii=False)
    finally:
        SWITCH.direct = before


@pytest.mark.parametrize(("rulebook", "action", "character", "params"), RUNS)
@pytest.mark.parametrize("shown_length", [None, 12])
def test_the_steps_written_directly_are_the_steps_written_one_by_one(
    rulebook, action, character, params, shown_length
):
    engine = Engine.of(dsl.load(rulebook))
    if shown_length is not None:  # (a bounded trace's cut texts and data)
        engine = Engine(engine.rulebook, attrs.evolve(engine.limits, shown_length=shown_length))
    sheet = engine.load_sheet(str(characters_folder() / f"{character}.yaml"))
    for seed in range(6):
        for language in (None, "es", "en"):
            # each side its own run (its texts made by the side that reads them)
            one = engine.run(action, sheet, params, dice=SeededDice(seed), trace=True)
            other = engine.run(action, sheet, params, dice=SeededDice(seed), trace=True)
            direct = _written(one, language, True)
            assert direct == _written(other, language, False)
            assert direct == _written(one, language, False)  # (and read again)


def test_the_steps_are_not_written_one_by_one(monkeypatch):
    """Fails with SWITCH.direct off: each step then goes through `step_data`."""
    engine = Engine.of(dsl.load("brujeria"))
    sheet = engine.load_sheet(str(characters_folder() / "brujeria_investigadora.yaml"))
    outcome = engine.run("asustarse", sheet, {}, dice=SeededDice(1), trace=True)
    calls = []
    original = json_data.step_data
    monkeypatch.setattr(json_data, "step_data", lambda *a: calls.append(a) or original(*a))
    document = run_data(outcome, "es")
    assert len(document["trace"]) > 5
    assert calls == []


def test_a_record_glimpsed_again_is_not_gone_through_again(monkeypatch):
    """Fails with shown.SWITCH.kept off: the record's fields are then gone through again
    each time it is glimpsed (its lookup's step, then the check that read it)."""
    from interpreter import shown
    from interpreter.values import Record

    record = Record({"label": "Excelente", "niveles": 5, "descripción": "se supera " * 3})
    calls = []
    original_record, original_data = shown._record, shown._data
    monkeypatch.setattr(shown, "_record", lambda *a: calls.append(a) or original_record(*a))
    monkeypatch.setattr(shown, "_data", lambda *a: calls.append(a) or original_data(*a))
    for _ in range(3):
        assert shown.glimpse(record, 300) is record
        assert shown.glimpse_data(record, 300) is record
    assert len(calls) <= 2 * (1 + len(record))  # (once as a text, once as data)
    cut = shown.glimpse(record, 12)
    assert cut is not record and cut == shown.glimpse(Record(dict(record)), 12)


@pytest.mark.parametrize("length", [1, 5, 12, 20, 40, 300])
def test_a_record_kept_whole_or_cut_is_as_found_anew(length):
    """A record's remembered answer (shown.SWITCH.kept) is what going through it gives."""
    from interpreter import shown
    from interpreter.values import Record

    rows = [
        {"label": "Bueno"},
        {"label": "Muy Bueno", "niveles": 4, "daño": 1, "descripción": "se supera"},
        {"a": [1, 2, 3], "b": {"c": "x" * 30, "d": None}, "e": True},
        {"k" * 30: 1, "l": "y" * 8},
    ]
    for row in rows:
        record = Record(dict(row))
        for _ in range(2):
            kept = (shown.glimpse(record, length), shown.glimpse_data(record, length))
            before, shown.SWITCH.kept = shown.SWITCH.kept, False
            try:
                fresh = Record(dict(row))
                anew = (shown.glimpse(fresh, length), shown.glimpse_data(fresh, length))
            finally:
                shown.SWITCH.kept = before
            assert (kept[0] is record) == (anew[0] is fresh)
            assert (kept[1] is record) == (anew[1] is fresh)
            assert str(kept[0]) == str(anew[0]) and kept[1] == anew[1]


def _asustarse(seed: int):
    engine = Engine.of(dsl.load("brujeria"))
    sheet = engine.load_sheet(str(characters_folder() / "brujeria_investigadora.yaml"))
    return engine.run("asustarse", sheet, {"modificador": seed}, dice=SeededDice(seed), trace=True)


@pytest.mark.parametrize("switch", ["flat", "joined", "data_once"])
def test_each_way_of_writing_steps_writes_the_same_bytes(monkeypatch, switch):
    """interpreter.steps_json's ways, each off in turn: the same document, every language."""
    from interpreter import steps_json

    for seed in range(4):
        for language in (None, "es", "en"):
            fast = _written(_asustarse(seed), language, True)
            monkeypatch.setattr(steps_json.SWITCH, switch, False)
            assert _written(_asustarse(seed), language, True) == fast
            monkeypatch.setattr(steps_json.SWITCH, switch, True)


def test_a_flat_trace_is_written_without_making_its_steps():
    """Fails with steps_json.SWITCH.flat off: its entries are then made `Step`s first."""
    outcome = _asustarse(1)
    trace = outcome.trace
    flat = [type(entry) for entry in list.__iter__(trace)].count(tuple)
    assert flat > 5
    run_data(outcome, "es")
    assert [type(entry) for entry in list.__iter__(trace)].count(tuple) == flat


def test_texts_of_parts_are_written_without_making_their_messages(monkeypatch):
    """Fails with steps_json.SWITCH.joined off: a let's, a lookup's and the heading's texts
    are then made as Messages in English, then rendered."""
    from dsl.messages import Message
    from interpreter import steps_json

    made = []
    joined = Message.joined.__func__

    def counted(cls, parts, separator=""):
        made.append(parts)
        return joined(cls, parts, separator)

    monkeypatch.setattr(Message, "joined", classmethod(counted))
    run_data(_asustarse(2), "es")
    fast = len(made)
    made.clear()
    monkeypatch.setattr(steps_json.SWITCH, "joined", False)
    run_data(_asustarse(2), "es")
    assert fast + 5 <= len(made)


def test_a_steps_data_is_cut_and_written_in_one_pass(monkeypatch):
    """Fails with steps_json.SWITCH.data_once off: each step's data is then asked whether
    it fits its room (`trace._fits`), cut, and made plain, one pass after the other."""
    from interpreter import steps_json, trace

    asked = []
    fits = trace._fits
    counted = lambda data, length: asked.append(data) or fits(data, length)  # noqa: E731
    monkeypatch.setattr(trace, "_fits", counted)
    outcome = _asustarse(2)
    document = run_data(outcome, "es")
    assert asked == []
    assert sum(1 for step in document["trace"] if step["data"]) > 5
    monkeypatch.setattr(steps_json.SWITCH, "data_once", False)
    assert run_data(_asustarse(2), "es") == document
    assert len(asked) > 5


def _without_check_parts(monkeypatch) -> None:
    """A check's line and detail then read as `Step.text` and `Step.detail` read them
    (its Message made, then rendered), not written from their parts."""
    from interpreter.compile.check_terms import check_detail, check_line
    from interpreter.trace import JOINED

    monkeypatch.delitem(JOINED, check_line)
    monkeypatch.delitem(JOINED, check_detail)


@pytest.mark.parametrize(("rulebook", "action", "character", "params"), RUNS)
@pytest.mark.parametrize("shown_length", [None, 12, 60])
def test_a_checks_line_written_from_its_parts_is_the_line_read(
    rulebook, action, character, params, shown_length, monkeypatch
):
    engine = Engine.of(dsl.load(rulebook))
    if shown_length is not None:  # (a bounded trace: a line past its room is cut as read)
        engine = Engine(engine.rulebook, attrs.evolve(engine.limits, shown_length=shown_length))
    sheet = engine.load_sheet(str(characters_folder() / f"{character}.yaml"))
    runs = [
        [engine.run(action, sheet, params, dice=SeededDice(seed), trace=True) for _ in "ab"]
        for seed in range(6)
    ]
    written = [
        [_written(one, language, True) for language in (None, "es", "en")] for one, _ in runs
    ]
    _without_check_parts(monkeypatch)
    for (_, other), texts in zip(runs, written, strict=True):
        assert texts == [_written(other, language, True) for language in (None, "es", "en")]


def test_a_checks_line_is_written_from_its_parts(monkeypatch):
    """Fails with the check's parts not in trace.JOINED: its line is then made a Message
    (`CompiledCheck.describe`), then rendered in the answer's language."""
    from interpreter.compile.checks import CompiledCheck

    engine = Engine.of(dsl.load("brujeria"))
    sheet = engine.load_sheet(str(characters_folder() / "brujeria_investigadora.yaml"))
    outcome = engine.run("asustarse", sheet, {}, dice=SeededDice(1), trace=True)
    calls = []
    original = CompiledCheck.describe
    monkeypatch.setattr(CompiledCheck, "describe", lambda *a: calls.append(a) or original(*a))
    document = run_data(outcome, "es")
    assert any(step["kind"] == "check" for step in document["trace"])
    assert calls == []


def test_a_checks_line_whose_head_a_catalogue_translates_is_written_whole(monkeypatch):
    """A catalogue writing the head (`{label}: {terms} = {total}`) otherwise: the line is
    then one part, the check's own Message, rendered in the language as read."""
    from interpreter.compile import check_terms

    engine = Engine.of(dsl.load("brujeria"))
    sheet = engine.load_sheet(str(characters_folder() / "brujeria_investigadora.yaml"))
    runs = [engine.run("asustarse", sheet, {}, dice=SeededDice(s), trace=True) for s in (1, 1)]
    flat = _written(runs[0], "es", True)
    monkeypatch.setattr(check_terms, "_as_is_everywhere", lambda template: False)
    assert _written(runs[1], "es", True) == flat


@pytest.mark.parametrize("language", [None, "es"])
def test_a_checks_verdict_and_fields_are_written_as_parts(language, monkeypatch):
    """Fails with check_terms.FLAT_TAIL off: ` → {verdict}` and each `{name} {value}` are
    then Messages, made in English, then rendered in the answer's language."""
    from interpreter.compile import check_terms

    made = []
    original = check_terms.tr
    monkeypatch.setattr(check_terms, "tr", lambda t, **p: made.append(t) or original(t, **p))
    for seed in range(3):
        document = run_data(_asustarse(seed), language)
        assert any(step["kind"] == "check" for step in document["trace"])
    assert " → {verdict}" not in made and "{name} {value}" not in made
    monkeypatch.setattr(check_terms, "FLAT_TAIL", False)
    flat = json.dumps(document, ensure_ascii=False)
    assert json.dumps(run_data(_asustarse(2), language), ensure_ascii=False) == flat
    assert " → {verdict}" in made and "{name} {value}" in made
