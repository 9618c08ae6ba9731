"""A served run's steps kept as JSON (steps_json's `kept`, SWITCH.kept): the same bytes as
written anew, for every shipped game's run, bounded or not, in every language."""

from __future__ import annotations

import json

import attrs
import pytest

import dsl
from interpreter import Engine, SeededDice, steps_json
from interpreter.cli.options import characters_folder
from interpreter.compile import step_texts, tables
from interpreter.json_data import run_data
from interpreter.values import Record

RUNS = [
    ("arcana_mundi", "usar_numina", "menecma", {"numina": "Grito Báquico"}),
    ("brujeria", "asustarse", "brujeria_investigadora", {"modificador": 3}),
    ("brujeria", "ataque_cuerpo_a_cuerpo", "brujeria_malherido", {}),
    ("pentagrama", "recibir_daño", "jorge", {"daño": 27, "zona": "Brazo derecho"}),
    ("mago", "efecto", "mago_ignacio", {"esfera_mayor": "Fuerzas", "vulgar": True}),
]


def _engine(rulebook: str, shown_length: int | None) -> Engine:
    engine = Engine.of(dsl.load(rulebook))
    if shown_length is not None:  # (a bounded trace: its texts and data cut)
        engine = Engine(engine.rulebook, attrs.evolve(engine.limits, shown_length=shown_length))
    return engine


def _documents(engine, action, character, params, kept: bool) -> list[str]:
    sheet = engine.load_sheet(str(characters_folder() / f"{character}.yaml"))
    out = []
    for seed in range(5):
        for language in (None, "es", "en"):
            outcome = engine.run(action, sheet, params, dice=SeededDice(seed), trace=True)
            out.append(json.dumps(run_data(outcome, language, kept=kept), ensure_ascii=False))
    return out


@pytest.mark.parametrize(("rulebook", "action", "character", "params"), RUNS)
@pytest.mark.parametrize("shown_length", [None, 12])
def test_kept_steps_are_the_bytes_written_anew(
    rulebook, action, character, params, shown_length, monkeypatch
):
    monkeypatch.setattr(steps_json, "_KEPT", {})
    engine = _engine(rulebook, shown_length)
    anew = _documents(engine, action, character, params, kept=False)
    assert steps_json._KEPT == {}  # (kept only when asked)
    first = _documents(engine, action, character, params, kept=True)
    assert steps_json._KEPT or not steps_json.SWITCH.kept
    again = _documents(engine, action, character, params, kept=True)  # (from what was kept)
    assert first == anew
    assert again == anew


def test_a_step_read_the_same_is_written_once(monkeypatch):
    """Fails with steps_json.SWITCH.kept off: each run's lookups and lets are then written
    again from their parts."""
    monkeypatch.setattr(steps_json, "_KEPT", {})
    made = []
    for function in (tables._lookup_text, step_texts.let_text):
        parts = steps_json.JOINED[function]
        counted = lambda *args, parts=parts: made.append(args) or parts(*args)  # noqa: E731
        monkeypatch.setitem(steps_json.JOINED, function, counted)
    engine = _engine("brujeria", None)
    sheet = engine.load_sheet(str(characters_folder() / "brujeria_investigadora.yaml"))

    def document():
        outcome = engine.run("asustarse", sheet, {}, dice=SeededDice(1), trace=True)
        return run_data(outcome, "es", kept=True)

    first = document()
    written = len(made)
    assert written >= 3
    second = document()
    assert len(made) == written  # (every lookup and let of the second run kept)
    assert second == first
    # each document's steps its own: the server names a step's file in its answer
    assert all(a is not b for a, b in zip(first["trace"], second["trace"], strict=True))


def test_what_a_step_is_kept_by_tells_its_arguments_apart():
    """Yes is not 1, no is not 0; a record is kept by its identity (two records that
    compare equal may read otherwise: `{a: yes}` and `{a: 1}`); a value of another type
    (a list, a fraction) is not kept at all."""
    key = steps_json._kept_key
    let = step_texts.named_step
    assert key((let, "x", True), "es") != key((let, "x", 1), "es")
    assert key((let, "x", False), "es") != key((let, "x", 0), "es")
    assert key((let, "x", 1), "es") != key((let, "x", 1), "en")
    a, b = Record({"a": True}), Record({"a": 1})
    assert a == b and key((let, a), None) != key((let, b), None)
    assert key((let, a), None) == key((let, a), None)
    assert key((let, ("a", 1)), None) == key((let, ("a", 1)), None)
    assert key((let, ("a", True)), None) is None
    assert key((let, [1, 2]), None) is None
    from fractions import Fraction

    assert key((let, Fraction(1, 2)), None) is None
