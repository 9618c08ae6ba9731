"""A `for each` whose passes change nothing a field reads is skipped for that field, and
only then: each field and the whole result against every dice sequence a run can draw."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st
from oracle import against_brute_force, agrees_with_brute_force, assert_counted_as_run
from test_odds_brute_force import LIMITS

import dsl
from interpreter import Engine

HEADER = """rulebook "Loops" {
  system "idle loops against brute force"
  language "en"
}

sheet {
  attribute A in 0..3
}
"""

#: what a pass may hold besides its roll: lines that change nothing, or that stop the run
PASS_LINES = {
    "sum": "    set acc to acc + r",
    "count": "    if r > {cut} {{\n      set hits to hits + 1\n    }}",
    "note": '    note "pass {{k}}: {{r}}"',
    "let": "    let spare = r * 2",
    "require": '    require r + A < {limit} else "too high"',
}


@st.composite
def loops(draw):
    """An action with a roll before a `for each` and a result reading some of it."""
    lines = draw(st.lists(st.sampled_from(sorted(PASS_LINES)), min_size=1, max_size=4, unique=True))
    sides = draw(st.integers(2, 3))
    body = "\n".join(
        PASS_LINES[line].format(cut=draw(st.integers(1, 3)), limit=draw(st.integers(3, 6)))
        for line in lines
    )
    items = draw(st.sampled_from(["[1, 2]", "[0]", "[]", "[2, 0, 1]"]))
    fields = draw(
        st.lists(st.sampled_from(["first", "acc", "hits", "size"]), min_size=1, unique=True)
    )
    shown = {"first": "first", "acc": "acc", "hits": "hits", "size": "size(ks)"}
    result = ", ".join(f"{name}: {shown[name]}" for name in fields)
    text = f"""{HEADER}
action act() {{
  let first = d3
  let acc = 0
  let hits = 0
  let ks = {items}
  for each k in ks {{
    let r = d{sides} + k
{body}
  }}
  result {{ {result} }}
}}
"""
    return text, {"A": draw(st.integers(0, 3))}


@against_brute_force(loops(), 80)
def test_a_loop_whose_passes_no_field_reads_is_skipped_only_then(case):
    assert_counted_as_run(*case)


def test_a_loop_that_may_stop_the_run_is_counted_for_a_field_it_does_not_feed():
    text = f"""{HEADER}
action act() {{
  let first = d3
  let acc = 0
  for each k in [1, 2] {{
    let r = d3 + k
    set acc to acc + r
    require r < 4 else "too high"
  }}
  result {{ first: first, acc: acc }}
}}
"""
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": 0})
    agrees_with_brute_force(engine, sheet, text)
    first = engine.odds("act", sheet, {}, "first")
    stopped = sum(p for o, p in first.probabilities.items() if not isinstance(o, int))
    assert stopped == 1 - Fraction(2, 3) * Fraction(1, 3)  # d3 + 1 < 4, then d3 + 2 < 4


def test_a_field_the_loop_does_not_feed_costs_nothing_of_the_loop():
    passes = ", ".join(str(k) for k in range(1, 21))
    text = f"""{HEADER}
action act() {{
  let first = d3
  let acc = 0
  for each k in [{passes}] {{
    let r = d6 + k
    set acc to acc + r
  }}
  result {{ first: first, acc: acc }}
}}
"""
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": 0})
    # twenty passes over a growing sum: far past this budget, unless the loop is skipped
    first = engine.odds("act", sheet, {}, "first", budget=60)
    assert first.exact and first.probabilities == {v: Fraction(1, 3) for v in (1, 2, 3)}
    assert not engine.odds("act", sheet, {}, "acc", budget=60, trials=200).exact
