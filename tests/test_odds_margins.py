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

from fractions import Fraction

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run
from test_odds_check_fields import HEADER, both_read

#: the author's fields a check may have: (name, expression)
FIELDS = (
    ("p", "half(margin)"),
    ("q", "if success then margin else 0 - margin"),
    ("w", "if success then min(margin, B) else 0"),  # reads the sheet when it succeeds
    ("k", "margin * bonus + x"),  # a `let` and a parameter of the check
    ("s", "total - 2"),  # the total: not by margin
)


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
    return both_read(draw, body, check, readable, readable)


@against_brute_force(checks_against_rolls(), 40)
def test_records_by_margin_equal_brute_force(case):
    assert_counted_as_run(*case)


#: (check and action, sheet): each a way a record kept by margin could go wrong
CASES = {
    # `w` reads B where the check succeeds: the same margins against the second target
    # come after B changed, and give that sheet's values (never the first sheet's)
    "a field reading the sheet is that sheet's alone": (
        """
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
""",
        {"A": 0, "B": 0},
    ),
    # lower is better (`<=`): the margin is the target less the total
    "the margins of a descending check": (
        """
check c(t: int, x: int = 0) "C" {
  roll d4 + A <= t
  p = half(margin) + x
}
action act() {
  let force = d4 + d2
  let r = c(force, 1)
  result { p: r.p, success: r.success }
}
""",
        {"A": 1, "B": 0},
    ),
    # `k` reads a parameter and a `let` of the check: another argument, other records
    "the records of each argument their own": (
        """
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
""",
        {"A": 1, "B": 0},
    ),
}
#: what is read holds the total (or the target): records differing there with the same
#: margin are not one record
for read in ("total", "target"):
    CASES[f"the {read} read"] = (
        """
check c(t: int) "C" {
  roll d4 + A >= t
  p = half(margin)
}
action act() {
  let force = d3 + 1
  let r = c(force)
  result { p: r.p, read: r.READ }
}
""".replace("READ", read),
        {"A": 1, "B": 0},
    )


@pytest.mark.parametrize("name", list(CASES))
def test_records_by_margin_as_a_real_run_gives_them(name):
    text, sheet = CASES[name]
    assert_counted_as_run(HEADER + text, sheet)


def test_records_of_the_built_in_fields_alone_watch_no_sheet(monkeypatch):
    # (the fast path of FieldMemory.shifted: a record cut to `success` or `margin` computes
    # none of the author's fields, so reads no sheet: kept by margin without watching)
    import interpreter.odds.records as records

    def watched(_values):
        raise AssertionError("a record of the built-in fields alone watched the sheet")

    monkeypatch.setattr(records, "WatchedValues", watched)
    text = """
check c(t: int) "C" {
  roll d4 + A >= t
  w = min(margin, B)
}
action act() {
  let force = d3 + 1
  let r = c(force)
  let q = c(force + 1)
  result { s: r.success, m: q.margin }
}
"""
    assert_counted_as_run(HEADER + text, {"A": 1, "B": 0})


def test_records_of_the_built_in_fields_alone_are_kept_with_the_check(monkeypatch):
    # (FieldMemory.margins: a record cut to `success` is the same in every computation,
    # made once for the check; a second computation, on a new engine, makes none)
    import dsl
    from interpreter import Engine
    from interpreter.compile.checks import CompiledCheck

    text = """
check c(t: int) "C" {
  roll d4 + A >= t
  w = min(margin, B)
}
action act(m: int = 0) {
  let r = c(3 + m)
  result { s: r.success }
}
"""
    book = dsl.load_text(HEADER + text, "kept.rules")

    def odds():
        engine = Engine(book)
        return engine.odds("act", engine.sheet({"A": 1, "B": 0}), {"m": 1}, "s").probabilities

    first = odds()
    made = []
    record = CompiledCheck.record
    monkeypatch.setattr(CompiledCheck, "record", lambda *a, **k: made.append(1) or record(*a, **k))
    assert odds() == first == {True: Fraction(1, 2), False: Fraction(1, 2)}
    assert not made
