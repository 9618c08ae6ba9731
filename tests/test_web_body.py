"""Request bodies at their extremes: numbers of thousands of digits, NaN and Infinity,
floats too large, nesting 100,000 deep, lone surrogates, keys given twice. Each is a 4xx
with the project's message, never a 500; and a fuzz of such bodies against every route
that takes one answers only 2xx, or 4xx with the project's error document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from web_client import page_client

from interpreter.web import create_app
from interpreter.web.body import MAX_DIGITS

ROOT = Path(__file__).resolve().parent.parent
BASE = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}
RUN = '{"rulebook": "brujeria", "action": "asustarse", "character": "ana", %s}'
ROUTES = [
    ("POST", "/api/run"),
    ("POST", "/api/odds"),
    ("POST", "/api/check"),
    ("POST", "/api/sheet"),
    ("POST", "/api/undo"),
    ("PUT", "/api/rulebooks/mine"),
]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("campaign")
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    app = create_app(folder)
    with page_client(app, base_url=BASE, raise_server_exceptions=False) as client:
        yield client


def refused(client, raw: str, route=("POST", "/api/run")) -> dict:
    answer = client.request(route[0], route[1], content=raw.encode("utf-8"), headers=JSON)
    assert answer.status_code == 400, answer.text
    return answer.json()["error"]


@pytest.mark.parametrize("digits", [MAX_DIGITS + 1, 5_000, 100_000])
def test_a_number_of_too_many_digits_is_refused_saying_how_many(client, digits):
    for number in ("9" * digits, "-" + "9" * digits, "1." + "5" * digits, "1" * digits + "e2"):
        error = refused(client, RUN % f'"seed": {number}')
        assert f"more than {MAX_DIGITS}" in error["message"] and error["code"] == "usage_error"
    error = refused(client, RUN % f'"seed": {"9" * digits}')
    assert f"a number of {digits} digits" in error["message"]


def test_numbers_json_does_not_have_or_a_float_cannot_hold_are_refused(client):
    for constant in ("NaN", "Infinity", "-Infinity"):
        assert "not a number in JSON" in refused(client, RUN % f'"seed": {constant}')["message"]
    for large in ("1e999", "-1e400", "1" * 400 + ".0"):
        assert (
            "too large to be read"
            in refused(client, RUN % f'"params": {{"x": {large}}}')["message"]
        )


def test_a_byte_order_mark_is_refused_as_json_loads_refuses_it(client):
    # (the body's decoder is made once, not by json.loads: its check of the mark kept)
    error = refused(client, "\ufeff" + RUN % '"seed": 1')
    assert "Unexpected UTF-8 BOM" in error["message"] and "line 1, column 1" in error["message"]


def test_nesting_a_hundred_thousand_deep_is_refused(client):
    for raw in ("[" * 100_000, '{"params": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001):
        assert "nested" in refused(client, raw)["message"]


def test_a_lone_surrogate_is_refused_saying_where(client):
    error = refused(client, RUN % '"params": {"fuente": "ab\\ud800"}')
    assert '"params.fuente"' in error["message"] and "\\ud800" in error["message"]
    error = refused(client, RUN % '"params": {"\\udfff": 1}')
    assert "surrogate" in error["message"]
    pair = '"params": {"fuente": "\\ud83d\\ude00"}'  # a whole pair is a character
    answer = client.post("/api/run", content=(RUN % pair).encode(), headers=JSON)
    assert answer.status_code != 500 and "surrogate" not in answer.text


def test_a_key_given_twice_is_refused_naming_it_and_both_places(client):
    raw = RUN % '"seed": 1, "seed": 2'
    first, second = raw.index('"seed"') + 1, raw.rindex('"seed"') + 1
    error = refused(client, raw)
    assert error["message"] == (
        f'the body gives the key "seed" twice: at line 1, column {first} and at line 1, '
        f"column {second}"
    )
    # On other lines, spelled with an escape, past braces and keys inside texts and in
    # other objects (the same key in two objects is no repeat).
    raw = (
        '{\n "params": {"a": "{\\"fuente\\": }", "b": {"fuente": 1},\n  "fuente": 2,\n'
        ' "fu\\u0065nte": 3}}'
    )
    assert json.loads(raw.replace('"fu\\u0065nte": 3', '"x": 3'))  # valid JSON but for that
    error = refused(client, raw)
    assert '"fuente" twice: at line 3, column 3 and at line 4, column 2' in error["message"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "\\u0061", "{", "}"]), min_size=2, max_size=12))
def test_the_places_named_are_the_keys_given_twice(parts):
    from interpreter.web.body import _places_of_twice

    # An object of keys (a brace opens one inside, and closes it), every value 0.
    text, depth = "{", 1
    for part in parts:
        if part == "{":
            text, depth = text + f'"o{len(text)}": {{', depth + 1
        elif part == "}" and depth > 1:
            text, depth = text + '"z": 0}, ', depth - 1
        elif part != "}":
            text += f'"{part}": 0, '
    text += '"end": 0' + "}" * depth
    found = _places_of_twice(text)
    try:
        json.loads(text, object_pairs_hook=_no_twice)
        assert found is None
    except KeyError:  # (the first repeat in the text, not necessarily the decoder's)
        key, first, second = found
        assert first < second
        for line, column in (first, second):
            at = text.splitlines()[line - 1][column - 1 :]
            assert json.JSONDecoder().raw_decode(at)[0] == key


def _no_twice(pairs):
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise KeyError(key)
    return dict(pairs)


def test_every_route_refuses_them_the_same(client):
    for route in ROUTES:
        assert "twice" in refused(client, '{"a": 1, "a": 1}', route)["message"]
        assert "digits" in refused(client, '{"a": %s}' % ("1" * 5000), route)["message"]


# ─── fuzz ──────────────────────────────────────────────────────────────────

_NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from([1, 10, 300, MAX_DIGITS, MAX_DIGITS + 1, 5000]).map(lambda n: "9" * n),
    st.sampled_from(["1e999", "-1e400", "1e-400", "0.5", "-0", "1E2", "2.5e-3", "NaN"]),
    st.sampled_from(["Infinity", "-Infinity", "123456789012345678901234567890.5"]),
)
_STRINGS = st.one_of(
    st.text(max_size=12).map(json.dumps),
    st.sampled_from(
        ["\\ud800", "\\udfff", "a\\udc00b", "\\ud83d\\ude00", "\\u0000", "\\u202e"]
    ).map(lambda s: f'"{s}"'),
    st.integers(1, 20_000).map(lambda n: json.dumps("x" * n)),
    st.sampled_from(["brujeria", "asustarse", "ana", "3d6", "d6x", "../x", "Fuerza"]).map(
        json.dumps
    ),
)
_KEYS = st.one_of(
    st.sampled_from(["rulebook", "action", "character", "params", "seed", "dice", "text"]),
    st.sampled_from(["expression", "budget", "trials", "sheet", "entry", "field", "fuente"]),
    st.sampled_from(["lang", "targets", "choices", "answers", "save", "progress", "compare"]),
    st.text(max_size=6),
).map(json.dumps)


def _object(values):
    pairs = st.lists(st.tuples(_KEYS, values), max_size=6)  # a key may come twice
    return pairs.map(lambda ps: "{" + ", ".join(f"{k}: {v}" for k, v in ps) + "}")


_VALUES = st.recursive(
    st.sampled_from(["true", "false", "null"]) | _NUMBERS | _STRINGS,
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]") | _object(inner)
    ),
    max_leaves=10,
)
_DEEP = st.integers(30, 40).map(lambda n: '{"params": ' + "[" * n + "1" + "]" * n + "}")


@settings(max_examples=150)
@given(body=_object(_VALUES) | _DEEP, route=st.sampled_from(ROUTES))
def test_extreme_bodies_on_every_route_are_answered_never_a_500(client, body, route):
    method, path = route
    answer = client.request(method, path, content=body.encode("utf-8"), headers=JSON)
    assert answer.status_code < 500, answer.text
    if answer.status_code >= 400:
        error = answer.json()["error"]
        assert error["message"] and error["code"] and "Traceback" not in answer.text
