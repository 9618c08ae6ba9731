"""A let's value read by the next statement alone, counted there once: against brute force.

`let force = d4 + d2` then `let c = against(force)`: the value is kept whole and the
next statement's outcomes are counted over it once for the other names it reads and
what it reads of the sheet, then weighted into every world (interpreter.odds.deferred).
For generated actions whose worlds differ before the pair (an earlier roll, a sheet
written), whose second statement reads other names, the sheet, or stops (an opposed
check tied past its limit), the odds must equal every sequence of dice run for real.
"""

from __future__ import annotations

from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run
from test_odds_check_fields import HEADER as FIELDS_HEADER

HEADER = (
    FIELDS_HEADER
    + """
check against(contra: int, x: int = 0) "Against" {
  roll d3 + A + x >= contra
  p = half(margin)
}

check force(x: int = 0) "Force" {
  roll d2 + x
}

opposed duel(k: int) "Duel" {
  roll d2 + k
  against d2 + B
  tie reroll
}
"""
)

#: what the value read next may be (the check's record read as `.total` where `t` is)
VALUES = ("d3", "d2 + d2", "d2 + r", "force(r)", "force(0)")
#: what reads it next (T: the value), and the fields of its record a result may read
READERS = (
    ("against(T)", ("success", "p")),
    ("against(T, r)", ("success", "p", "total")),
    ("against(T + r)", ("success", "margin")),
    ("duel(T)", ("won",)),
    ("against(T + B)", ("p",)),
)


@st.composite
def deferred_actions(draw):
    value = draw(st.sampled_from(VALUES))
    reader, fields = draw(st.sampled_from(READERS))
    t = "t.total" if value.startswith("force") else "t"
    body = ["let r = d2"]
    before = draw(st.sampled_from(["", "set A to d2", "set B to B + r", "set A to A + 1"]))
    if before:
        body.append(before)
    body.append(f"let t = {value}")
    body.append(f"let c = {reader.replace('T', t)}")
    shown = draw(st.lists(st.sampled_from(fields), min_size=1, max_size=2, unique=True))
    results = [f"c_{f}: c.{f}" for f in shown]
    # (an opposed check nothing reads is skipped, its stop at the tie limit with it: a
    # field of its own only, so that each field's count runs it)
    alone = reader.startswith("duel")
    if not alone and draw(st.booleans()):
        results.append("r: r")
    if not alone and draw(st.booleans()):
        results.append("t_later: " + t)  # read after too: not deferred
    body.append(f"result {{ {', '.join(results)} }}")
    text = HEADER + "action act() {\n  " + "\n  ".join(body) + "\n}\n"
    return text, {"A": draw(st.integers(0, 2)), "B": draw(st.integers(0, 2))}


@against_brute_force(deferred_actions(), 50)
def test_a_value_read_by_the_next_statement_alone_equals_brute_force(case):
    assert_counted_as_run(*case)


def test_the_statement_is_counted_again_for_each_sheet_it_reads():
    # Worlds that differ in A (written before): `against` reads A, so each gets its own
    # count of the deferred force; B, which it does not read, makes no difference.
    text = (
        HEADER
        + """
action act() {
  let r = d2
  set A to r
  set B to d2
  let t = d2 + d2
  let c = against(t)
  result { success: c.success, p: c.p }
}
"""
    )
    assert_counted_as_run(text, {"A": 0, "B": 0}, ("success", "p"))


def test_a_called_actions_steps_counted_for_what_each_call_reads():
    # The same statements explored twice, for calls that read different fields of the
    # result: each call's count keeps the fields it reads.
    text = (
        HEADER
        + """
action inner() {
  let r = d2
  let t = d2 + d2
  let c = against(t)
  result { s: c.success, p: c.p, r: r }
}
action act() {
  let a = inner()
  let b = inner()
  result { x: a.s, y: b.p, z: a.r + b.r }
}
"""
    )
    assert_counted_as_run(text, {"A": 1, "B": 0}, ("x", "y", "z"))
