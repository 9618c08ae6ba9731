"""What every odds question (and every run) of a fresh Engine used to make again: counted.

Engines of one rulebook of one class under equal limits share their runnables (an
action's compiled form and its parameters' Binder: interpreter.parameters.shared), so a
fresh `Engine(book)` prepares nothing that the last one prepared; under other limits, its
own. The memory is bounded: SHARED_RUNNABLES classes and limits per compiler.

An answer's shares of its epsilon (interpreter.odds.roller.shares_of) are found by the
epsilon's two whole numbers, not by its Fraction's hash (a modular inverse), and what an
exploration leaves out, when it is nothing, is one Fraction made once
(interpreter.odds.weights.at_most): an answer that needs no Fraction makes none.
An exploration with no cap on its outcomes does not look up the result's fields (read
only past a cap). A `repeat`'s message for its count (shown only in an error) is made
once, when compiled. A `bool` parameter given yes or no is taken as it is
(parameters.BOOL_AT_ONCE), as an `int` given a whole number is: no message made for it.
An action's result fields, and whether they read both sides of an opposed check, are
read from its definition once per rulebook (marginals.SHAPES), not at every answer.
"""

from __future__ import annotations

from fractions import Fraction

import attrs
import pytest

import dsl
from interpreter import Engine, parameters
from interpreter.limits import DEFAULT_LIMITS
from interpreter.values import Record

BOOK = """
rulebook "Fixed cost" {
  system "a pool and a trivial action"
  language "en"
}

action pool(n: int, push: bool = no) "Pool" {
  let b = (n)d6
  let again = (if push then count(b, 2..5) else 0)d6
  result { six: count(b, 6) + count(again, 6), ones: count(b, 1) }
}

action repeated(n: int) "Repeated" {
  let hits = 0
  repeat n times {
    if d6 >= 5 { set hits to hits + 1 }
  }
  result { hits: hits }
}

action nothing(x: int = 0) "Nothing" {
  result { v: x }
}
"""


@pytest.fixture
def binders(monkeypatch):
    """The Binders made (each an action's parameters prepared)."""
    made: list = []
    original = parameters.Binder.__init__

    def counted(self, engine, node):
        made.append(node.name)
        original(self, engine, node)

    monkeypatch.setattr(parameters.Binder, "__init__", counted)
    return made


def test_fresh_engines_of_a_rulebook_share_their_binders(binders) -> None:
    book = dsl.load_text(BOOK)
    answers = []
    for _ in range(3):
        engine = Engine(book)
        answers.append(engine.odds("pool", engine.sheet({}), {"n": 2, "push": True}))
        engine.run("nothing", engine.sheet({}), {"x": 1})
    assert binders == ["pool", "nothing"]  # (made once each: 6 with the sharing off)
    assert answers[0].probabilities == answers[2].probabilities
    other = attrs.evolve(DEFAULT_LIMITS, odds_seconds=DEFAULT_LIMITS.odds_seconds + 1)
    engine = Engine(book, other)  # other limits: its own
    engine.odds("pool", engine.sheet({}), {"n": 2})
    assert binders == ["pool", "nothing", "pool"]


def test_the_shared_runnables_are_bounded(binders, monkeypatch) -> None:
    book = dsl.load_text(BOOK)
    monkeypatch.setattr(parameters, "SHARED_RUNNABLES", 2)
    for seconds in range(1, 6):
        limits = attrs.evolve(DEFAULT_LIMITS, odds_seconds=seconds)
        for _ in range(2):
            engine = Engine(book, limits)
            engine.run("nothing", engine.sheet({}), {"x": 1})
    assert len(Engine(book).compiler.__dict__["_runnables_shared"]) <= 2
    assert len(binders) == 2 + 3 * 2  # past the bound, each engine its own


def test_an_answer_of_whole_numbers_makes_and_hashes_no_fraction(monkeypatch) -> None:
    book = dsl.load_text(BOOK)
    engine = Engine(book)
    engine.odds("nothing", engine.sheet({}), {"x": 1})  # (what is made once: made)
    counts = {"hash": 0, "made": 0}
    hash_, new = Fraction.__hash__, Fraction.__new__

    def hashed(self):
        counts["hash"] += 1
        return hash_(self)

    def made(cls, *args, **kwargs):
        counts["made"] += 1
        return new(cls, *args, **kwargs)

    monkeypatch.setattr(Fraction, "__hash__", hashed)
    monkeypatch.setattr(Fraction, "__new__", made)
    answer = engine.odds("nothing", engine.sheet({}), {"x": 1})
    assert counts == {"hash": 0, "made": 0}  # (a hash and a Fraction made: before)
    monkeypatch.undo()
    assert answer.omitted == 0
    assert dict(answer.probabilities) == {Record({"v": 1}, kind="result"): 1}


def test_a_repeat_makes_no_message_when_it_runs(monkeypatch) -> None:
    from dsl import messages

    book = dsl.load_text(BOOK)
    engine = Engine(book)
    engine.run("repeated", engine.sheet({}), {"n": 1})  # (compiled: its message made)
    made: list = []
    new = messages.Message.__new__

    def counted(cls, template, *args, **kwargs):
        made.append(template)
        return new(cls, template, *args, **kwargs)

    monkeypatch.setattr(messages.Message, "__new__", counted)
    engine.run("repeated", engine.sheet({}), {"n": 2})
    answer = engine.odds("repeated", engine.sheet({}), {"n": 2}, "hits")
    assert "a repeat count" not in made  # (made on every run, in every world: before)
    monkeypatch.undo()
    assert dict(answer.probabilities) == {0: Fraction(4, 9), 1: Fraction(4, 9), 2: Fraction(1, 9)}


def test_an_answer_without_a_cap_does_not_look_up_the_result_fields(monkeypatch) -> None:
    from interpreter.odds import compute

    book = dsl.load_text(BOOK)
    engine = Engine(book)
    looked: list = []
    original = compute.result_fields

    def counted(book, action):
        looked.append(action)
        return original(book, action)

    monkeypatch.setattr(compute, "result_fields", counted)
    answer = engine.odds("nothing", engine.sheet({}), {"x": 2})  # one field: no cap
    assert looked == []  # (once per answer: before)
    assert answer.probability(Record({"v": 2}, kind="result")) == 1
    whole = engine.odds("pool", engine.sheet({}), {"n": 1})  # two: the joint's cap
    assert whole.probability(Record({"six": 1, "ones": 0}, kind="result")) == Fraction(1, 6)


@pytest.mark.parametrize("at_once", [True, False])
def test_a_bool_parameter_given_yes_or_no_is_taken_as_it_is(monkeypatch, at_once) -> None:
    # `push: yes` is bound without `convert` (which makes its message's opening, "parameter
    # push", before it looks at the value: a Message and its text, at every new binding);
    # switched off (parameters.BOOL_AT_ONCE), it is converted (this fails). A text that
    # spells one is still read as before.
    monkeypatch.setattr(parameters, "BOOL_AT_ONCE", at_once)
    converted: list = []
    original = parameters.convert

    def counted(name, type_node, value, *args, **kwargs):
        converted.append((name, value))
        return original(name, type_node, value, *args, **kwargs)

    monkeypatch.setattr(parameters, "convert", counted)
    engine = Engine(dsl.load_text(BOOK + f"\n# {at_once}\n"))  # (binders of its own)
    answer = engine.odds("pool", engine.sheet({}), {"n": 1, "push": True})
    given = [value for name, value in converted if name == "push" and value is True]
    assert given == ([] if at_once else [True])
    assert answer.probability(Record({"six": 1, "ones": 0}, kind="result")) == Fraction(5, 18)
    spelled = engine.odds("pool", engine.sheet({}), {"n": 1, "push": "yes"})
    assert spelled.probabilities == answer.probabilities
    assert ("push", "yes") in converted


@pytest.mark.parametrize("once", [True, False])
def test_an_actions_result_fields_are_read_once_per_rulebook(monkeypatch, once) -> None:
    # Whether the whole result reads both sides of an opposed check, and its fields, are
    # found from the action's definition once (marginals.result_shape): a second answer
    # of a fresh engine reads them again only with the switch off (marginals.SHAPES:
    # this fails).
    from interpreter.odds import marginals

    monkeypatch.setattr(marginals, "SHAPES", once)
    looked: list = []
    original = marginals.both_sides

    def counted(book, action):
        looked.append(action)
        return original(book, action)

    monkeypatch.setattr(marginals, "both_sides", counted)
    book = dsl.load_text(BOOK + f"\n# shapes {once}\n")
    answers = []
    for n in (1, 2):
        engine = Engine(book)
        answers.append(engine.odds("pool", engine.sheet({}), {"n": n}))
    assert looked == (["pool"] if once else ["pool", "pool"])
    assert answers[1].probability(Record({"six": 2, "ones": 0}, kind="result")) == Fraction(1, 36)
