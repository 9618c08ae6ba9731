"""The journal keeps every value as it was: a fraction and a text that reads like one apart."""

from __future__ import annotations

import json
import sqlite3
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

import dsl
from interpreter import Engine, ForcedDice
from interpreter.journal import Journal, save_run, schema
from interpreter.journal.store import ESCAPE, read_back, stored
from interpreter.json_data import journal_entry_data, log_data, stored_value
from interpreter.values import FractionText, to_json

RULES = """
rulebook "Fractions" {
  system "test"
  language "en"
}
sheet {
  attribute Str in 1..10
  text Note
}
action halve(x: int = 7, words: text = "1/2") "Halve" {
  set Note to words
  result { half: x / 2, words: words, roll: d6, both: [x / 2, words] }
}
"""


def saved_run(tmp_path, words: str) -> Journal:
    (tmp_path / "t.rules").write_text(RULES, encoding="utf-8")
    sheet_path = tmp_path / "c.yaml"
    sheet_path.write_text('rulebook: t.rules\nStr: 3\nNote: ""\n', encoding="utf-8")
    engine = Engine.of(dsl.load(tmp_path / "t.rules"))
    journal = Journal.beside(sheet_path)
    sheet = engine.load_sheet(sheet_path)
    dice = ForcedDice([4])
    outcome = engine.run("halve", sheet, {"words": words}, dice)
    save_run(journal, outcome, sheet, engine.rulebook, dice)
    return journal


def test_a_text_that_reads_like_a_fraction_stays_a_text(tmp_path):
    with saved_run(tmp_path, "1/2") as journal:
        entry = journal.entry(1)
        data = log_data([entry], {})
        logged = data["entries"][0]
        assert logged["result"] == {"half": 3.5, "words": "1/2", "roll": 4, "both": [3.5, "1/2"]}
        assert logged["params"]["words"] == "1/2"
        assert logged["changes"][0]["after"] == "1/2"
        assert data["fractions"] == {
            "/entries/0/result/half": "7/2",
            "/entries/0/result/both/0": "7/2",
        }
        shown = journal_entry_data(entry, None, None)
        assert shown["entry"]["result"]["words"] == "1/2"
        assert shown["fractions"] == {
            "/entry/result/half": "7/2",
            "/entry/result/both/0": "7/2",
        }


def test_a_text_beginning_with_the_escape_comes_back_whole(tmp_path):
    with saved_run(tmp_path, ESCAPE + "3/4") as journal:
        entry = journal.entry(1)
        assert entry.result["words"] == ESCAPE + "3/4"
        assert type(entry.result["words"]) is str
        assert stored_value(entry.result)["half"] == Fraction(7, 2)


def test_a_journal_of_version_2_is_brought_up_and_read_as_before(tmp_path):
    """A run written before version 3 wrote a fraction and a text "7/2" alike: it reads
    as the fraction (all that can be said of it); runs written since keep them apart."""
    path = tmp_path / "journal.sqlite"
    connection = sqlite3.connect(path)
    for version in (0, 1):
        connection.executescript(schema.MIGRATIONS[version])
    connection.execute("PRAGMA user_version = 2")
    connection.execute(
        "INSERT INTO runs (at, kind, state, action, params, result) VALUES "
        "('2026-01-01T00:00:00.000+00:00', 'run', 'applied', 'halve', '{}', ?)",
        (json.dumps({"half": "7/2", "words": "plain"}),),
    )
    connection.commit()
    connection.close()
    with Journal(path) as journal:
        assert journal.connection.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
        result = journal.entry(1).result
        assert stored_value(result) == {"half": Fraction(7, 2), "words": "plain"}


def values():
    like_fractions = st.from_regex(r"\x00?-?[0-9]{1,3}/[0-9]{1,3}", fullmatch=True)
    texts = like_fractions | st.text(alphabet=st.sampled_from("0123456789/-\x00a"), max_size=6)
    numbers = st.integers(-(10**6), 10**6) | st.fractions(max_denominator=10**6)
    leaves = texts | numbers | st.booleans() | st.none()
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
        max_leaves=8,
    )


@given(values())
def test_every_value_reads_back_as_it_was_written(value):
    kept = read_back(json.loads(json.dumps(stored(to_json(value)))), escaped=True)
    assert kept == to_json(value)
    assert stored_value(kept) == value
    assert _kinds(stored_value(kept)) == _kinds(value)


def _kinds(value):
    """The value with each leaf's kind beside it (== alone takes 1 == Fraction(1))."""
    if isinstance(value, list):
        return [_kinds(v) for v in value]
    if isinstance(value, dict):
        return {k: _kinds(v) for k, v in value.items()}
    if isinstance(value, Fraction):
        return ("fraction", value) if value.denominator != 1 else ("int", value)
    return (type(value).__name__, value)


def test_a_fraction_is_tagged_and_its_text_is_not():
    assert type(to_json(Fraction(7, 2))) is FractionText
    assert type(to_json("7/2")) is str
    assert stored(to_json([Fraction(7, 2), "7/2"])) == ["7/2", ESCAPE + "7/2"]
