"""A run's answer asks no abstract class about a record or a number where its exact type
tells (the Mapping ABC's hook is slow, and a served run's trace asks it tens of times):
the same texts and data as when asked."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import pytest

from dsl import messages
from interpreter import shown, values
from interpreter.sheets import character
from interpreter.values import Record

ROW = Record({"label": "Huida", "esencia": 2, "turnos": 1, "inconsciente": False})


@pytest.fixture
def asked(monkeypatch) -> list:
    """The values the modules below ask `isinstance(value, Mapping)` of."""
    seen: list = []

    class Asking(type):
        def __instancecheck__(cls, value):
            seen.append(value)
            return isinstance(value, Mapping)

    class Counted(metaclass=Asking):
        pass

    for module in (messages, shown, values):
        monkeypatch.setattr(module, "Mapping", Counted)
    monkeypatch.setattr(messages, "_MAPPINGS", set())
    return seen


def test_a_record_is_plain_data_unasked(asked):
    out = values.plain({"r": ROW, "k": [ROW]}, {}, "")
    assert out == {"r": dict(ROW), "k": [dict(ROW)]} and asked == []


def test_a_record_is_glimpsed_unasked(asked):
    assert shown.glimpse(ROW, 300) is ROW
    assert shown.glimpse_data({"v": ROW}["v"], 300) is ROW
    assert shown.glimpse([7, ROW, 12], 300) == [7, ROW, 12] and asked == []
    cut = shown.glimpse_data(Record({"a": "x" * 50, "b": 1}), 20)
    assert cut["a"] != "x" * 50 and asked == []


def test_a_records_type_is_asked_once_when_shown(asked):
    first = messages.show_value(ROW, "es")
    assert messages.show_value(ROW, "es") == first
    assert first == "Huida {esencia: 2, turnos: 1, inconsciente: no}"
    assert asked == [ROW]  # (its type remembered as a Mapping's)
    assert messages.show_value([1, "a", None]) == "[1, a, none]"


def test_a_sheets_numbers_are_plain_unasked(monkeypatch):
    asked: list = []
    kind = character.Record

    class Asking(type):
        def __instancecheck__(cls, value):
            asked.append(value)
            return isinstance(value, kind)

    class Counted(metaclass=Asking):
        pass

    monkeypatch.setattr(character, "Record", Counted)
    data = {"a": 1, "b": "x", "c": (1, 2), "d": None, "e": Fraction(1, 2), "f": True}
    assert character._plain(data) == {**data, "c": [1, 2]} and asked == []
    assert character._plain({"r": ROW}) == {"r": {k: v for k, v in ROW.items()}}
    assert asked == [ROW]


def test_a_joined_message_takes_a_messages_english_as_it_is(monkeypatch):
    shown_values: list = []
    show = messages.show_value

    def counted(value, language=None):
        shown_values.append(value)
        return show(value, language)

    monkeypatch.setattr(messages, "show_value", counted)
    part = messages.tr("{n} more item", n=3)
    joined = messages.Message.joined(["[", part, 7, "]"])
    assert joined == "[3 more item7]" and shown_values == []
    assert not joined.everywhere
    assert messages.Message.joined(["a", messages.Message.joined(["b", 1])]).everywhere


def test_a_steps_json_reads_its_parts_at_once(monkeypatch):
    from interpreter.json_data import Writer, step_data
    from interpreter.trace import Step

    step = Step("roll", "tirada 7", 12, {"value": 7}, 1, "x.rules", "d10", True)
    expected = {
        "kind": "roll",
        "text": "tirada 7",
        "file": "x.rules",
        "line": 12,
        "depth": 1,
        "detail": "d10",
        "verbose": True,
        "data": {"value": 7},
    }
    for name in ("kind", "file", "line", "depth", "verbose"):  # (not asked of a Step)
        monkeypatch.setattr(Step, name, property(lambda self: 1 / 0))
    assert step_data(step, Writer("es"), "/trace/0") == expected
