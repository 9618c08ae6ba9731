"""A record's field read once past the statements still to run, against brute force.

`let r = c(x)`, statements reading some of r's fields, a result reading another once:
the odds engine makes the worlds for the fields the statements read alone, that one
riding in each record as its distribution given the others (interpreter.odds.riders),
and a called action's result keeps it so when its caller reads it once more. For
generated actions (the rider read in the rest of its block or not, once or twice after
it, in a loop, in a `require`, beside other fields, through a call, with the sheet
written), each field alone and the whole result must equal every sequence of dice run
through the real engine.
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run
from test_odds_brute_force import HEADER

DEFINITIONS = """
formula twice(x: int) = x + x

check c(x: int = 0) "C" {
  roll d3 + A + x >= 3
  level = Level[total]
}
"""

#: statements after `let r = c(...)` (`R` is the record's name): what they read of it
TAILS = (
    "if R.success { set acc to acc + 1 }",
    "set acc to acc + R.margin",
    "if R.success { set B to B + 1 } else { set acc to acc + d2 }",
    "repeat 2 times { set acc to acc + R.total }",
    'require R.total != 2 else "two"',
    "set acc to acc + d2",
    "if acc > 0 { set B to B + 1 }",
    'note "seen {R.total}"',  # skipped by the explorer: no read of what it mentions
)
#: what a result may read of the record (`R`), some twice
READS = ("R.total", "R.level", "R.margin", "R.success", "R.total + 1", "acc")


def tail(draw, name: str) -> list:
    chosen = draw(st.lists(st.sampled_from(TAILS), max_size=3))
    return [line.replace("R", name) for line in chosen]


def reads(draw, name: str) -> list:
    chosen = draw(st.lists(st.sampled_from(READS), min_size=1, max_size=3, unique=True))
    return [read.replace("R", name) for read in chosen]


@st.composite
def actions(draw):
    """`act`, binding a check's record and reading its fields; or calling `inner`, which
    does, and reading some fields of what `inner` gives."""
    inner = ["let acc = 0", f"let r = c({draw(st.sampled_from(['0', '1', 'B']))})"]
    inner += tail(draw, "r")
    inner_reads = reads(draw, "r")
    fields = ", ".join(f"f{i}: {read}" for i, read in enumerate(inner_reads))
    inner.append(f"result {{ {fields} }}")
    if draw(st.booleans()):  # the record's fields read in the action itself
        text = "action act() {\n  " + "\n  ".join(inner) + "\n}\n"
        return HEADER + DEFINITIONS + text, data(draw)
    names = [f"v.f{i}" for i in range(len(inner_reads))]
    outer = ["let acc = 0", "let v = inner()"]
    for _ in range(draw(st.integers(0, 2))):
        field = draw(st.sampled_from(names))
        outer.append(
            draw(
                st.sampled_from(
                    [
                        f"if {field} = {field} {{ set acc to acc + d2 }}",
                        "if acc > 0 { set B to B + 1 }",
                        "set acc to acc + d2",
                    ]
                )
            )
        )
    twice = [f"{field} = {field}" for field in names]
    shown = draw(st.lists(st.sampled_from([*names, *twice, "acc"]), min_size=1, max_size=3))
    outer.append("result { " + ", ".join(f"g{i}: {x}" for i, x in enumerate(shown)) + " }")
    text = (
        "action inner() {\n  "
        + "\n  ".join(inner)
        + "\n}\naction act() {\n  "
        + "\n  ".join(outer)
        + "\n}\n"
    )
    return HEADER + DEFINITIONS + text, data(draw)


def data(draw) -> dict:
    return {"A": draw(st.integers(0, 2)), "B": draw(st.integers(0, 2))}


@against_brute_force(actions(), 60)
def test_a_field_riding_in_its_record_equals_brute_force(case):
    assert_counted_as_run(*case)


@pytest.mark.parametrize(
    "body",
    [
        # the rider alone read by the result; the rest reads the others
        "let r = c(B)\n  if r.success { set acc to r.margin }\n  result { t: r.total, a: acc }",
        # read in the rest of the block too: not a rider (one draw read twice)
        "let r = c(B)\n  set acc to r.total\n  result { t: r.total, a: acc }",
        # read twice after: one draw
        "let r = c(B)\n  if r.success { set acc to 1 }\n  result { t: r.total, u: r.total - 1 }",
        # read in a formula's argument, read as often as the formula reads it: one draw
        "let r = c(B)\n  if r.success { set acc to 1 }\n  result { t: twice(r.total), a: acc }",
        # kept in a list, in a text: where a value may be read many times, one draw
        "let r = c(B)\n  if r.success { set acc to 1 }\n  result { t: [r.total, 1], a: acc }",
        'let r = c(B)\n  if r.success { set acc to 1 }\n  result { t: "{r.total}", a: acc }',
        # two fields read once each after the block: one rides, the other is a world
        "let r = c(B)\n  set acc to r.margin\n  result { t: r.total, l: r.level, a: acc }",
        # inside an `if`: read once after the `if`'s block
        "if B > 0 {\n    let r = c(1)\n    set acc to r.total * 2\n  }\n  result { a: acc }",
        # the sheet written where the others decide
        "let r = c(0)\n  if r.margin > 0 { set B to B + 1 }\n  result { t: r.total, b: B }",
    ],
)
def test_a_rider_as_a_real_run_reads_it(body):
    text = HEADER + DEFINITIONS + "action act() {\n  let acc = 0\n  " + body + "\n}\n"
    assert_counted_as_run(text, {"A": 1, "B": 1})


#: usar_numina's `total` seen through combate_teurgico's `basica`: a called action whose
#: result's `total` rides, read by its callers
INNER = """
action inner(x: int = 0) {
  let r = c(x)
  let extra = 0
  if not r.success {
    let again = c(r.margin + 1)
    set extra to again.margin
  }
  result { total: r.total, success: r.success, extra: extra }
}
"""


@pytest.mark.parametrize(
    "body",
    [
        # the callee's result keeps the rider a distribution, the caller reads it once
        "let v = inner(B)\n  if v.success { set acc to acc + d2 }\n"
        "  result { basica: v.total, acc: acc, extra: v.extra }",
        # the same call twice: `total` rides in the first (read once), not in the second
        # (read twice): what one gives is not the other's
        "let v = inner(B)\n  let w = inner(B)\n"
        "  result { one: v.total, two: w.total + w.total, extra: v.extra * v.extra + w.extra }",
    ],
)
def test_a_called_actions_rider_read_by_its_caller(body):
    text = HEADER + DEFINITIONS + INNER + "action act() {\n  let acc = 0\n  " + body + "\n}\n"
    assert_counted_as_run(text, {"A": 0, "B": 1})


#: an opposed check (ties rerolled once at most: TIE_ONCE), and a check whose field is a
#: record (a table's row), each read once through its own field after the block
OPPOSED = """
table Grade by n {
  ..2:  "low"  { bonus: 0 }
  3..4: "mid"  { bonus: 1 }
  5..:  "high" { bonus: 2 }
}

check g(x: int = 0) "G" {
  roll d3 + A + x >= 3
  grade = Grade[total]
}

opposed o(y: int = 0) "O" {
  roll g(y)
  against d3 + B
  compare total
  tie reroll
}
"""


@pytest.mark.parametrize(
    "body",
    [
        # a side of an opposed check, read once through its own field: it rides
        "let r = o(B)\n  if r.won { set acc to acc + d2 }\n  result { t: r.theirs.total, a: acc }",
        # our side too, beside the verdict read by the rest; the rerolls read
        "let r = o(0)\n  if r.won { set acc to r.rerolls }\n  result { t: r.ours.total, a: acc }",
        # a side read twice (its total and its level): one draw, not a rider
        "let r = o(B)\n  if r.won { set acc to 1 }\n"
        "  result { t: r.ours.total, l: r.ours.grade, a: acc }",
        # the side read once, the verdict read by the result too
        "let r = o(1)\n  if r.won { set acc to d2 }\n"
        "  result { w: r.won, t: r.theirs.total, a: acc }",
        # a check's field that is a record, read once through its own field
        "let r = g(B)\n  if r.success { set acc to acc + d2 }\n"
        "  result { b: r.grade.bonus, a: acc }",
        # ... and that field read through two of its own fields: read twice, one draw
        "let r = g(B)\n  if r.success { set acc to 1 }\n"
        "  result { b: r.grade.bonus, l: r.grade.label, a: acc }",
        # inside an `if`: read once after its block
        "if B > 0 {\n    let r = o(1)\n    set acc to r.theirs.total * 2\n  }\n  result { a: acc }",
    ],
)
def test_a_field_read_through_its_own_fields_rides_as_a_real_run_reads_it(body):
    text = HEADER + DEFINITIONS + OPPOSED + "action act() {\n  let acc = 0\n  " + body + "\n}\n"
    assert_counted_as_run(text, {"A": 1, "B": 1})
