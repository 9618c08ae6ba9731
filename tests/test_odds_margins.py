"""A check's records by margin, shared by every target, against brute force.

A check against a target that is itself rolled (Arcana Mundi's `tirada_consciencia`
against the force of a revelation) is asked for its records once for each target. When
what is read of the records (a let binding the call, cut to the fields read later) reads
neither the total nor the target, each record depends on the margin alone and on what
stays the same from total to total (the check's parameters and lets the author's fields
read, the depth of calls, the sheet): the odds engine keeps the records by margin
(interpreter.odds.records.FieldMemory.margins), unless making one read the sheet. For
generated checks with every comparison, fields reading the margin, the success, the
total, a parameter, a `let` and the sheet, called against rolled targets with the sheet
changed between the calls, the odds must equal every sequence of dice run through the
real engine.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_odds_brute_force import LIMITS, agrees_with_brute_force

import dsl
from interpreter import Engine

HEADER = """rulebook "Margins" {
  system "a check's records by margin against brute force"
  language "en"
}

sheet {
  attribute A, B in 0..9
}

formula half(m: int) = ceil(abs(m) / 2)
"""

#: the author's fields a check may have: (name, expression)
FIELDS = (
    ("p", "half(margin)"),
    ("q", "if success then margin else 0 - margin"),
    ("w", "if success then min(margin, B) else 0"),  # reads the sheet when it succeeds
    ("k", "margin * bonus + x"),  # a `let` and a parameter of the check
    ("s", "total - 2"),  # the total: not by margin
)


def engine_of(text: str) -> Engine:
    return Engine(dsl.load_text(text), LIMITS)


@st.composite
def checks_against_rolls(draw):
    """A check (any comparison) with some of FIELDS, called twice against rolled targets
    (the second perhaps with another argument, after the sheet changed); the result reads
    some of the author's fields and the built-in success or margin of each call."""
    comparison = draw(st.sampled_from([">=", ">", "<=", "<"]))
    chosen = draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3, unique=True))
    chosen.sort(key=FIELDS.index)
    fields = "\n  ".join(f"{name} = {expression}" for name, expression in chosen)
    check = f"""
check c(t: int, x: int = 0) "C" {{
  let bonus = x + 1
  roll d{draw(st.sampled_from([3, 4]))} + A {comparison} t
  {fields}
}}
"""
    readable = [name for name, _ in chosen] + ["success", "margin", "total"]
    body = [f"let t1 = d{draw(st.sampled_from([2, 3]))} + B"]
    body.append(f"let r1 = c(t1, {draw(st.sampled_from(['0', '1']))})")
    if draw(st.booleans()):
        body.append(f"set B to {draw(st.sampled_from(['B + 1', '0', 'd2']))}")
    body.append(f"let t2 = d{draw(st.sampled_from([2, 3]))}")
    body.append(f"let r2 = c(t2 + 1, {draw(st.sampled_from(['0', '1', 'B']))})")
    first = draw(st.lists(st.sampled_from(readable), min_size=1, max_size=2, unique=True))
    second = draw(st.lists(st.sampled_from(readable), min_size=1, max_size=2, unique=True))
    results = [f"a{i}: r1.{f}" for i, f in enumerate(first)]
    results += [f"b{i}: r2.{f}" for i, f in enumerate(second)]
    body.append(f"result {{ {', '.join(results)} }}")
    action = "action act() {\n  " + "\n  ".join(body) + "\n}\n"
    return HEADER + check + action, {"A": draw(st.integers(0, 2)), "B": draw(st.integers(0, 2))}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(checks_against_rolls())
def test_records_by_margin_equal_brute_force(case):
    text, data = case
    engine = engine_of(text)
    agrees_with_brute_force(engine, engine.sheet(data), text)


def test_a_field_reading_the_sheet_is_that_sheets_alone():
    # `w` reads B where the check succeeds: the same margins against the second target
    # come after B changed, and give that sheet's values (never the first sheet's).
    text = (
        HEADER
        + """
check c(t: int) "C" {
  roll d4 + A <= t
  w = if success then min(margin, B) else 0
}
action act() {
  let t1 = d3 + 1
  let r1 = c(t1)
  set B to B + 2
  let t2 = d3 + 1
  let r2 = c(t2)
  result { a: r1.w, b: r2.w }
}
"""
    )
    engine = engine_of(text)
    agrees_with_brute_force(engine, engine.sheet({"A": 0, "B": 0}), text)


def test_each_target_shares_the_margins_of_a_descending_check():
    # Lower is better (`<=`): the margin is the target less the total; the records of
    # every target are the same margins again, each as a real run gives it.
    text = (
        HEADER
        + """
check c(t: int, x: int = 0) "C" {
  roll d4 + A <= t
  p = half(margin) + x
}
action act() {
  let force = d4 + d2
  let r = c(force, 1)
  result { p: r.p, success: r.success }
}
"""
    )
    engine = engine_of(text)
    agrees_with_brute_force(engine, engine.sheet({"A": 1, "B": 0}), text)


def test_the_records_of_each_argument_their_own():
    # `k` reads a parameter and a `let` of the check: the same margins with another
    # argument are other records.
    text = (
        HEADER
        + """
check c(t: int, x: int = 0) "C" {
  let bonus = x + 1
  roll d4 + A >= t
  k = margin * bonus + x
}
action act() {
  let t1 = d3
  let r1 = c(t1, 0)
  let t2 = d3
  let r2 = c(t2, 2)
  result { a: r1.k, b: r2.k }
}
"""
    )
    engine = engine_of(text)
    agrees_with_brute_force(engine, engine.sheet({"A": 1, "B": 0}), text)


def test_the_total_and_the_target_read_are_each_records_own():
    # What is read holds the total (or the target): records differing there with the
    # same margin are not one record.
    for read in ("total", "target"):
        text = (
            HEADER
            + """
check c(t: int) "C" {
  roll d4 + A >= t
  p = half(margin)
}
action act() {
  let force = d3 + 1
  let r = c(force)
  result { p: r.p, read: r.READ }
}
""".replace("READ", read)
        )
        engine = engine_of(text)
        agrees_with_brute_force(engine, engine.sheet({"A": 1, "B": 0}), text)
