"""A worker's answers written by orjson (interpreter.web.worker.compact, `FAST_JSON`) are
what the standard encoder writes: the same bytes for every document of texts, whole
numbers, yes/no and nulls; the same JSON where numbers are not whole; and what orjson
refuses (a whole number past 64 bits, a key that is not a text, a lone surrogate, a value
of another kind) written, or refused, by the standard encoder as before."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpreter.web import worker

pytestmark = pytest.mark.skipif(worker.FAST_JSON is None, reason="orjson is not installed")

texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | texts
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)


def standard(document) -> bytes:
    """The answer as the standard encoder alone writes it (FAST_JSON switched off)."""
    return worker._COMPACT(document).encode("utf-8")


@given(documents)
def test_texts_and_whole_numbers_are_the_same_bytes(document):
    assert worker.compact(document) == standard(document)


@given(st.recursive(scalars | st.floats(allow_nan=False, allow_infinity=False), st.lists))
def test_numbers_not_whole_are_the_same_json(document):
    assert json.loads(worker.compact(document)) == json.loads(standard(document))


@pytest.mark.parametrize(
    "document",
    [
        {"total": 2**64},  # past 64 bits
        {"total": -(2**63) - 1},
        {1: "a key that is a number"},
        {"text": "\ud800"},  # a lone surrogate: not UTF-8
        {"value": Fraction(1, 2)},  # a kind neither writes
    ],
)
def test_what_orjson_refuses_goes_to_the_standard_encoder(document):
    try:
        expected = standard(document)
    except (TypeError, ValueError) as error:
        with pytest.raises(type(error)):
            worker.compact(document)
    else:
        assert worker.compact(document) == expected


def test_orjson_writes_the_answers(monkeypatch):
    """The switch: with orjson the standard encoder is not called for a run's answer."""
    called = []

    def counted(document):
        called.append(document)
        return json.dumps(document)

    monkeypatch.setattr(worker, "_COMPACT", counted)
    worker.compact({"trace": [{"text": "Chequeo → éxito", "line": 3}]})
    assert called == []
    monkeypatch.setattr(worker, "FAST_JSON", None)
    worker.compact({"trace": []})
    assert called == [{"trace": []}]


def test_a_nan_is_written_null():
    """The one difference in kind: the standard encoder refuses a NaN (none is made: the
    engine's numbers are exact, a float only a Fraction's value); orjson writes null."""
    with pytest.raises(ValueError):
        standard({"nan": math.nan})
    assert worker.compact({"nan": math.nan, "inf": -math.inf}) == b'{"nan":null,"inf":null}'
