"""What an answer works out about the rules alone is worked out once, not in every answer.

What each result field reads after the body, with the sheet's ends (odds.compute), what
a group of fields reads (odds.forks), where the fields part at a statement and the names
a statement binds depend on the rules only: a second answer of the same action finds
them remembered (issue 24: a small action's answer was mostly this work). The answers
stay those of a first computation.
"""

from __future__ import annotations

from pathlib import Path

import dsl
import dsl.nodes as nodes
import interpreter.odds.forks as forks
from interpreter import Engine
from interpreter.odds.sheet_live import SheetReads
from interpreter.odds.worlds import Live

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "year_zero.rules"
PARAMS = {"base": 2, "skill": 1, "gear": 1, "push": True}


def answer(book):
    engine = Engine(book)
    return engine.odds("roll_dice", engine.sheet({}), PARAMS)


def test_a_second_answer_works_out_nothing_about_the_rules_again(monkeypatch):
    book = dsl.load(EXAMPLE)
    calls: dict = {}

    def counted(owner, name):
        original = getattr(owner, name)

        def count(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, count)

    for owner, name in (
        (SheetReads, "fields_of"),
        (Live, "either"),
        (Live, "union"),
        (nodes, "names_given"),
        (forks, "restricted"),
        (forks, "decisions"),
    ):
        counted(owner, name)
    first = answer(book)
    assert calls.get("fields_of") and calls.get("names_given") and calls.get("restricted")
    calls.clear()
    second = answer(book)
    assert calls == {}
    assert second.exact and second.probabilities == first.probabilities
