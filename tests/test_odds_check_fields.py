"""A check's own fields remembered by what they read, against brute force.

The odds engine computes the author's fields of a check's record (`p = f(margin)`) once
for the values of what they read (interpreter.odds.records): the built-in fields, the
check's parameters and lets, the depth of calls, and the sheet. For generated checks
whose fields read each of those, called with targets that are rolls, arguments that
change, and sheets written between the calls, the odds must equal, fraction for
fraction, every sequence of dice run through the real engine.
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

HEADER = """rulebook "Fields" {
  system "a check's own fields against brute force"
  language "en"
}

sheet {
  attribute A, B in 0..9
}

formula half(m: int) = ceil(abs(m) / 2)
formula plus_b(m: int) = m + B
"""

#: the author's fields a check may have: (name, expression, names of earlier fields it needs)
FIELDS = (
    ("p", "half(margin)", ()),
    ("q", "if success then p else -p", ("p",)),
    ("r", "plus_b(margin)", ()),
    ("s", "total - x", ()),
    ("u", "target + x", ()),
    ("w", "if success then min(p, B) else 0", ("p",)),
    ("k", "margin * bonus", ()),
)


#: a check against a target that may be rolled
AGAINST = (
    HEADER
    + """
check against(contra: int) "Against" {
  roll 2d3 + A >= contra
  p = half(margin)
}
"""
)


@st.composite
def checks_with_fields(draw):
    """A check whose fields read some of the margin, the success, the total, the target,
    a parameter, a `let` of the check, the sheet (directly or in a formula); an action
    calling it against rolled targets, with the sheet changed between the calls."""
    chosen = draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=4, unique=True))
    if any(needs for _, _, needs in chosen) and FIELDS[0] not in chosen:
        chosen.append(FIELDS[0])  # `p`, which `q` and `w` read
    chosen.sort(key=FIELDS.index)
    fields = "\n  ".join(f"{name} = {expression}" for name, expression, _ in chosen)
    die = draw(st.sampled_from([2, 3]))
    check = f"""
check c(x: int = 0, t: int = 2) "C" {{
  let bonus = x + 1
  roll d{die} + A + x >= t
  {fields}
}}
"""
    body = ["let t1 = d3"]
    body.append(f"let r1 = c({draw(st.sampled_from(['0', '1', 'B']))}, t1)")
    if draw(st.booleans()):
        body.append(f"set B to {draw(st.sampled_from(['B + 1', 'd2', '0']))}")
    argument, target = st.sampled_from(["0", "1", "B"]), st.sampled_from(["t1", "2", "d2"])
    body.append(f"let r2 = c({draw(argument)}, {draw(target)})")
    shown = [name for name, _, _ in chosen]
    return both_read(draw, body, check, shown, [*shown, "success"])


def both_read(draw, body: list, check: str, first: list, second: list) -> tuple:
    """(rulebook text, sheet data): `act` of `body`, its result reading some of the
    `first` fields of `r1` and of the `second` of `r2`."""
    first = draw(st.lists(st.sampled_from(first), min_size=1, max_size=2, unique=True))
    second = draw(st.lists(st.sampled_from(second), min_size=1, max_size=2, unique=True))
    results = [f"a{i}: r1.{f}" for i, f in enumerate(first)]
    results += [f"b{i}: r2.{f}" for i, f in enumerate(second)]
    body.append(f"result {{ {', '.join(results)} }}")
    action = "action act() {\n  " + "\n  ".join(body) + "\n}\n"
    return HEADER + check + action, {"A": draw(st.integers(0, 2)), "B": draw(st.integers(0, 2))}


@against_brute_force(checks_with_fields(), 40)
def test_a_checks_fields_remembered_by_what_they_read_equal_brute_force(case):
    assert_counted_as_run(*case)


def test_a_field_reading_the_sheet_the_roll_does_not_read():
    # The roll reads A alone; a field reads B (in a formula). The same call before and
    # after B changes: its records are those of the sheet as it is at each call.
    text = (
        HEADER
        + """
check c(x: int = 0) "C" {
  roll d3 + A + x >= 2
  r = plus_b(margin)
}
action act() {
  let r1 = c(0)
  set B to B + d2
  let r2 = c(0)
  result { a: r1.r, b: r2.r }
}
"""
    )
    assert_counted_as_run(text, {"A": 0, "B": 1}, ["b"])


def test_fields_of_a_margin_shared_by_targets_that_are_rolls():
    # A check against another roll's total (Arcana Mundi's tirada_consciencia): the
    # same margins come again for every target; each record still has its own total.
    text = (
        AGAINST
        + """
action act() {
  let force = d4 + d2
  let c = against(force)
  result { success: c.success, p: c.p, total: c.total }
}
"""
    )
    assert_counted_as_run(text, {"A": 1, "B": 0}, ("success", "p", "total"))


def test_fields_of_one_distribution_of_records_each_its_own():
    # Two fields of the same check's records (the same call: one distribution), each
    # taken as a distribution where it is read: remembered by the distribution and the
    # field, each is its own.
    text = (
        AGAINST
        + """
action act() {
  let force = d3
  let p = against(force).p
  let m = against(force).margin
  set B to B + 1
  let again = against(force).p + 0
  result { p: p, m: m, again: again }
}
"""
    )
    assert_counted_as_run(text, {"A": 1, "B": 0}, ("p", "m", "again"))


@pytest.mark.parametrize(
    "value",
    [
        "against(force)",  # the call is the value: its records cut down at once
        "against(force).p + 0",  # a field of the call: the records whole
        "against(against(force).total - 2)",  # the same check in its own argument
        "against(twice(force))",  # a formula in the argument
        "if force > 2 then against(force) else against(1)",  # not the value itself
        "best(force)",  # a formula calling the check, which reads more of it
    ],
)
def test_a_checks_records_cut_down_where_the_let_binds_them(value):
    # Of `let c = ...`, only `c.success` and `c.p` are read later (and of the value that
    # is not a record, the value): each reads what a real run would.
    text = (
        AGAINST
        + """
formula twice(x: int) = x + x
formula best(x: int) = if against(x).margin > 0 then against(x) else against(1)
action act() {
  let force = d3
  let c = VALUE
  result { a: READ, force: force }
}
""".replace("VALUE", value).replace("READ", "c" if value.endswith("+ 0") else "c.success")
    )
    assert_counted_as_run(text, {"A": 1, "B": 0})


def test_fields_read_alone_and_the_authors_own_success():
    # The action reads only `success` (the author's, which replaces the built-in one) in
    # one check, and only built-in fields in the other: the records cut to what is read
    # at once still give what a real run gives.
    text = (
        HEADER
        + """
check own(x: int = 0) "Own" {
  roll d6 + A + x >= 4
  success = total >= 6
  half_ = half(total)
}
check plain(x: int = 0) "Plain" {
  roll d4 + x >= 3
  grade = plus_b(total)
}
action act() {
  let a = own(1)
  let b = plain(B)
  result { own_success: a.success, plain_margin: b.margin }
}
"""
    )
    assert_counted_as_run(text, {"A": 1, "B": 1})
