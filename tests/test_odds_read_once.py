"""A check's pool of symbol dice read once, kept whole (interpreter.odds.roller.read_once):
the same odds as every roll, the switch on or off, and within a budget only it fits."""

from __future__ import annotations

import pytest
from oracle import assert_counted_as_run

import dsl
import interpreter.odds.roller as roller
from interpreter import Engine

HEADER = """
rulebook "Once" { }
sheet { attribute A in 0..3 default 1 }
symbols a, b
die P { blank, a, 2 a + b }
die Q { b, a + b, a }
formula twice(x: int) = x + x
"""


def act(check: str, result: str) -> str:
    return HEADER + check + f'\naction act() "Act" {{\n  let x = c()\n  result {{ {result} }}\n}}\n'


#: a pool read once (the roll's one sum; a `let`'s sum, the let read twice); read twice
#: (the roll's sum and a field's: not kept); read inside a call (a formula that reads
#: its argument twice: not kept); a pool's size read of the sheet
CHECKS = [
    ('check c() "C" {\n  let r = 2dP + 1dQ\n  roll r.a - r.b >= 1\n}', "s: x.success, m: x.margin"),
    (
        'check c() "C" {\n  let r = 2dP + 1dQ\n  let net = r.a - r.b\n'
        "  roll net >= 1\n  double = net * 2\n}",
        "s: x.success, d: x.double",
    ),
    (
        'check c() "C" {\n  let r = 1dP + 2dQ\n  roll r.a >= 2\n  spare = r.b + 1\n}',
        "s: x.success, p: x.spare",
    ),
    ('check c() "C" {\n  let r = 2dP + 1dQ\n  roll twice(r.a - r.b) >= 2\n}', "s: x.success"),
    ('check c() "C" {\n  let r = (A)dP + 1dQ\n  roll r.a + 2 * r.b >= A + 2\n}', "t: x.total"),
]


@pytest.mark.parametrize("check, result", CHECKS)
@pytest.mark.parametrize("switch", [True, False])
def test_a_checks_pool_read_once_agrees_with_every_roll(monkeypatch, check, result, switch):
    monkeypatch.setattr(roller, "READ_ONCE", switch)
    assert_counted_as_run(act(check, result), {"A": 2})


#: each run of the check counts some 900 steps (a sum of 300 ones), so that running it
#: again for each total of the pool (15 of them) shows in the work
ONES = ", ".join(["1"] * 300)
PADDED = f"""
symbols hit, miss
die Odd {{ blank, hit, 2 hit, miss }}
check pooled(n: int) "Pooled" {{
  let pad = sum([{ONES}])
  let r = (n)dOdd
  roll r.hit - r.miss + pad >= 300
}}
"""


def test_a_pool_read_once_is_not_branched_on_within_a_small_budget(monkeypatch):
    """Kept whole, the pool's totals are combined where the roll reads them: one run of
    the check (263 units, measured 2026-12-07); branched on, a run per total (546)."""
    answers = {}
    for switch in (True, False):
        monkeypatch.setattr(roller, "READ_ONCE", switch)
        engine = Engine(dsl.load_text(PADDED))
        sheet = engine.sheet({})
        odds = engine.odds("pooled", sheet, {"n": 6}, "success", budget=400, trials=20)
        assert odds.exact is switch
        answers[switch] = engine.odds("pooled", sheet, {"n": 6}, "success").probabilities
    assert answers[True] == answers[False]
