"""A run's trace rendered as its JSON gives it, against the way it was rendered before
the rendering took its short cuts: a check's terms written both ways in one pass
(compile.check_terms.Shown), a joined message of the rulebook's words and whole numbers
given as it is in every language (dsl.messages.Message.everywhere): every shipped action,
in English and in Spanish. A value glimpsed (interpreter.shown), as a text or as data,
is written out only when it is cut."""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_codegen import shipped_cases  # (every shipped action, as run_cost lists them)

from dsl.errors import RulebookError
from dsl.messages import Message, show_value, tr
from interpreter import SeededDice
from interpreter.compile.check_terms import Shown, _spaced, written_label
from interpreter.json_data import run_data
from interpreter.roll_steps import faces_text
from interpreter.runtime import ChainRoll
from interpreter.shown import _data, _glimpse, glimpse, glimpse_data
from interpreter.state import place_text
from interpreter.trace import Later
from interpreter.values import show


def rendered_before(text, language: str | None):
    """A text in a language as Message.render gave it: every joined part rendered again."""
    if text is None:
        return None
    if isinstance(text, Message) and text.parts is not None:
        if language is None or language == "en":
            return str.__str__(text)
        return text.separator.join([_part_before(p, language) for p in text.parts])
    if isinstance(text, Message):
        return text.render(language)
    return show_value(text, language)


def _part_before(part, language: str):
    if isinstance(part, Message):
        return rendered_before(part, language)
    return show_value(part, language)


def terms_before(given: list, length: int, brief: bool) -> Message:
    """A check's terms one way, as compile.check_terms.terms_text wrote them."""
    parts: list = []
    for sign, kind, label, short, gave in given:
        if kind == "roll" and type(gave) is ChainRoll:  # (a `let` of a named roll)
            kind, label = "chain", label or gave.name
        if kind == "roll":
            shown = f"{label or gave.label} {faces_text(gave, length)}"
        elif kind == "chain":
            if brief and len(gave.parts) > 1:
                shown = Message.joined([label, " ", gave.total])
            else:
                shown = f"{label} {gave.faces_text(length)}"
        elif kind == "ref":
            shown = Message.joined([place_text(gave[0]), " ", gave[1]])
        else:
            label = written_label(label)  # (a `Later`, or as the generated code gave it)
            text = Message.joined([label, " ", gave]) if label != show(gave) else gave
            if brief and short == "":  # (an `if` expression: its value alone)
                shown = Message.joined([gave])
            else:
                shown = Message.joined([short, " ", gave]) if brief and short is not None else text
        if parts:
            parts.append("+ " if sign > 0 else "- ")
            parts.append(shown)
        else:
            parts.append(shown if sign > 0 else Message.joined(["-", shown]))
    return _spaced(parts)


def test_every_shipped_trace_renders_as_it_did():
    cases = shipped_cases()
    assert len(cases) > 500
    checks = everywhere = differing = 0
    for label, engine, name, sheet, params, choices in cases:
        try:
            outcome = engine.run(name, sheet, params, SeededDice(3), choices=choices, trace=True)
        except RulebookError:
            continue
        for step in outcome.trace:
            text = step._text
            # (a check's line: `check_terms.check_line(check, shown, record)`)
            shown = text.args[1] if type(text) is Later and len(text.args) > 1 else None
            if type(shown) is Shown:
                brief = terms_before(shown.given, shown.length, True)
                full = terms_before(shown.given, shown.length, False)
                assert shown.both() == (brief, None if full == brief else full), label
                checks += 1
                differing += shown.both()[1] is not None
        for language in ("en", "es"):
            document = run_data(outcome, language)
            for step, data in zip(outcome.trace, document["trace"], strict=True):
                assert data["text"] == rendered_before(step.text, language), label
                assert data["detail"] == rendered_before(step.detail, language), label
                everywhere += getattr(step.text, "everywhere", False)
    # the short cuts were taken, on many steps
    assert checks > 1000 and differing > 500 and everywhere > 10_000


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_joined_message_is_the_same_everywhere_only_of_words_and_whole_numbers(language):
    plain = Message.joined(["Fuerza", " ", 3])
    assert plain.everywhere and plain.render(language) == "Fuerza 3"
    nested = Message.joined([plain, " + ", Message.joined(["Voluntad ", 2])])
    assert nested.everywhere and nested.render(language) == "Fuerza 3 + Voluntad 2"
    said = Message.joined([plain, " → ", tr("success")])
    assert not said.everywhere
    assert said.render(language) == ("Fuerza 3 → éxito" if language == "es" else str(said))
    assert not Message.joined([True]).everywhere  # (yes/no: the language's words)
    assert not Message.joined([0.5]).everywhere  # (a decimal comma in Spanish)


GLIMPSED = [
    {"label": "Muy Bueno", "niveles": 4, "daño": 1, "descripción": "se supera"},
    {"label": "Bueno"},
    {"a": [1, 2, 3], "b": {"c": "x" * 30, "d": None}, "e": Fraction(7, 2)},
    [1, "dos", [3, 4], {"cinco": 5}],
    ["x" * 50, "y"],
    {"label": "L" * 80, "f": 1},
    {"k" * 70: 1},
    tr("success"),
    [True, False, None, 1.5],
]


@pytest.mark.parametrize("value", GLIMPSED)
@pytest.mark.parametrize("length", [0, 3, 10, 20, 40, 60, 200])
def test_a_glimpse_is_what_writing_it_whole_gave(value, length):
    shown, whole, _ = _glimpse(value, length)  # (written as it goes, as it was)
    assert glimpse(value, length) == (value if whole else shown)
    assert glimpse(value, length) is value or not whole
    data, _, whole = _data(value, length)  # (a step's data: the same, made as it goes)
    assert glimpse_data(value, length) == (value if whole else data)


def test_a_value_shown_whole_is_glimpsed_without_writing_its_text(monkeypatch):
    made: list = []
    joined = Message.joined.__func__

    def counted(cls, parts, separator=""):
        made.append(parts)
        return joined(cls, parts, separator)

    monkeypatch.setattr(Message, "joined", classmethod(counted))
    record = GLIMPSED[0]
    assert glimpse(record, 200) is record and made == []
    assert glimpse(record, 10) != record and made
