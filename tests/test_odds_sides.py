"""Opposed checks counted from their sides, records cut along chains of fields: brute force.

When what is read of an opposed check's record is its verdict and its sides (cut down to
what is read of them: `r.ours.grade.bonus`), the odds come from each side's outcomes
grouped by their keys (interpreter.odds.sides), and a record bound by a `let` is cut down
to the fields read of it at every depth (interpreter.odds.cuts, dsl.nodes.field_paths).
Each is checked here against every sequence of dice a real run can draw: generated
opposed checks (a side's modifier rolled before and passed in, ties rerolled up to the
limit, kept for ours or theirs), every result field alone and the whole result.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import agrees_with_brute_force

import dsl
from dsl import nodes as n
from interpreter import Engine, Limits
from interpreter.odds import contest as contest_module
from interpreter.odds.compute import EPSILON
from interpreter.odds.cuts import cut_record
from interpreter.values import Record

HEADER = """rulebook "Sides" {
  system "opposed checks against brute force"
  language "en"
}

sheet {
  attribute A, B in 0..3
}

table Grade by n {
  ..2: "low" { bonus: 0, step: 1 }
  3..4: "mid" { bonus: 1, step: 1 }
  5..: "high" { bonus: 2, step: 2 }
}
"""

#: what a result field or a later statement may read of the opposed check's record `r`
READS = (
    "r.won",
    "r.tie",
    "r.rerolls",
    "r.ours.total",
    "r.theirs.total",
    "r.ours.grade.bonus",
    "r.ours.grade.label",
    "r.theirs.success",
    "r.margin",
)


@st.composite
def duels(draw):
    """(rulebook text, sheet data, tie_rerolls): an opposed check of two checks (or a
    check against a die), its first side's modifier a die rolled before it and passed
    in, an action reading some of its record (some fields only in a later statement)."""
    die, rival_die = draw(st.sampled_from([2, 3])), draw(st.sampled_from([2, 3]))
    tie = draw(st.sampled_from(["reroll", "reroll", "ours", "theirs"]))
    rival_checks = draw(st.booleans())
    against = "c(B, 0)" if rival_checks else f"d{rival_die} + B"
    compare = draw(st.sampled_from(["success, total", "total"])) if rival_checks else "total"
    if not rival_checks:
        reads = [r for r in READS if r != "r.theirs.success"]
    else:
        reads = list(READS)
    penalty = draw(st.sampled_from(["d2", "d3 - 1", "0"]))
    shown = draw(st.lists(st.sampled_from(reads), min_size=1, max_size=4, unique=True))
    later = draw(st.sampled_from(["", "r.ours.grade.step", "r.theirs.total", "r.ours"]))
    fields = {f"f{i}": read for i, read in enumerate(shown)}
    body = [f"let p = {penalty}", "let r = o(p, A)", "let acc = 0"]
    if later == "r.ours":  # the side read whole, later
        body.append("let side = r.ours")
        fields["whole"] = "side.total"
    elif later:
        body.append(f"if r.won {{ set acc to acc + {later} }}")
        fields["acc"] = "acc"
    text = (
        HEADER
        + f"""
check c(x: int = 0, y: int = 0) "C" {{
  roll d{die} + x + y >= 3
  grade = Grade[total]
}}

opposed o(penalty: int, bonus: int) "O" {{
  roll c(A, bonus - penalty)
  against {against}
  compare {compare}
  tie {tie}
}}

action act() {{
  {chr(10).join("  " + line for line in body).strip()}
  result {{ {", ".join(f"{k}: {v}" for k, v in fields.items())} }}
}}
"""
    )
    sheet = {"A": draw(st.integers(0, 2)), "B": draw(st.integers(0, 2))}
    return text, sheet, draw(st.sampled_from([1, 2]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(duels())
def test_an_opposed_check_read_by_its_sides_equals_brute_force(case):
    text, data, rerolls = case
    engine = Engine(dsl.load_text(text), Limits(tie_rerolls=rerolls))
    agrees_with_brute_force(engine, engine.sheet(data), text)


@pytest.mark.parametrize("tie", ["reroll", "ours", "theirs"])
@pytest.mark.parametrize(
    "result",
    [
        "won: r.won, tie: r.tie",
        "theirs: r.theirs.total",
        "bonus: r.ours.grade.bonus, won: r.won",
        "ours: r.ours.total, theirs: r.theirs.total, rerolls: r.rerolls",
        "label: r.ours.grade.label, rerolls: r.rerolls, won: r.won",
    ],
)
def test_a_rolled_penalty_passed_to_an_opposed_check_equals_brute_force(tie, result):
    # Brujería's melee attack in the dark: `let p = d3` passed in, the first side's
    # check at `- p`; ties rerolled (at most twice), or kept for one side.
    text = (
        HEADER
        + f"""
check c(x: int = 0) "C" {{
  roll d4 + A - x >= 3
  grade = Grade[total]
}}
opposed o(penalty: int) "O" {{
  roll c(penalty)
  against c(B)
  compare success, total
  tie {tie}
}}
action act() {{
  let p = d3
  let r = o(p)
  result {{ {result} }}
}}
"""
    )
    engine = Engine(dsl.load_text(text), Limits(tie_rerolls=2))
    agrees_with_brute_force(engine, engine.sheet({"A": 2, "B": 1}))


def test_a_check_record_cut_along_a_chain_equals_brute_force():
    # A check's record (not an opposed one) read only as `c.grade.bonus`, and later as
    # `c.total` in one branch: the records cut at each depth, still exact.
    text = (
        HEADER
        + """
check c(x: int = 0) "C" {
  roll d4 + d2 + x >= 4
  grade = Grade[total]
}
action act() {
  let k = c(A)
  let acc = k.grade.bonus
  if k.success { set acc to acc + k.grade.step }
  result { acc: acc, bonus: k.grade.bonus }
}
"""
    )
    engine = Engine(dsl.load_text(text))
    agrees_with_brute_force(engine, engine.sheet({"A": 1, "B": 0}))


def test_field_paths_follow_chains_and_a_value_read_whole_stays_whole():
    book = dsl.load_text(
        HEADER
        + """
check c(x: int = 0) "C" {
  roll d4 + x >= 4
  grade = Grade[total]
}
action act() {
  let k = c(A)
  let j = c(B)
  let t = k.grade.bonus + k.total + j.grade.bonus
  let w = j.grade
  result { t: t, w: w.label }
}
"""
    )
    paths = n.field_paths(book.actions["act"].body)
    assert paths["k"] == {"grade": {"bonus": None}, "total": None}
    assert paths["j"] == {"grade": None}  # `j.grade` is read whole (bound to w)
    assert paths["w"] == {"label": None}
    assert n.path_cut(paths["k"]) == (("grade", (("bonus", None),)), ("total", None))
    assert n.merged_paths({"a": {"b": None}}, {"a": {"c": None}}) == {"a": {"b": None, "c": None}}
    assert n.merged_paths({"a": {"b": None}}, {"a": None}) == {"a": None}
    assert n.merged_paths({"a": None}, {"a": {"b": None}}) == {"a": None}
    record = Record({"grade": Record({"bonus": 1, "label": "mid"}), "total": 4, "x": 0})
    cut = cut_record(record, n.path_cut(paths["k"]))
    assert cut == Record({"grade": Record({"bonus": 1}), "total": 4})


OPEN_ENDED = (
    HEADER
    + """
roll open = d10 then {
  on die = 10: add d6 - 1, again while die = 6
  on die = 1: subtract d6, again while die = 1
}
check c(x: int = 0) "C" {
  roll open + A + x >= 9
  grade = Grade[total]
}
opposed o(p: int) "O" {
  roll c(0 - p)
  against c(B)
  compare success, total
  tie reroll
}
action act() {
  let p = d4
  let r = o(p)
  let b = if r.won then d4 else 0
  result { theirs: r.theirs.total, won: r.won, bonus: r.ours.grade.bonus, b: b }
}
"""
)


@pytest.mark.parametrize("field", ["theirs", "won", "bonus", "b"])
def test_open_ended_sides_agree_with_every_record_within_what_is_left_out(field, monkeypatch):
    # Open-ended rolls (Brujería's): too many sequences of dice to run each, so the odds
    # from the sides (what is too unlikely to follow left out as the explorer would) are
    # compared with the odds from a record per pair; both exact, within their omitted mass.
    engine = Engine(dsl.load_text(OPEN_ENDED))
    sheet = engine.sheet({"A": 2, "B": 3})
    # Both exact on any machine: a time limit far past their work (a record per pair is
    # slow, and at the default limit a loaded machine sampled it, which proves nothing)
    sided = engine.odds("act", sheet, {}, field, seconds=300)
    monkeypatch.setattr(contest_module, "SIDED", frozenset())  # every record made
    fresh = Engine(dsl.load_text(OPEN_ENDED))
    paired = fresh.odds("act", fresh.sheet({"A": 2, "B": 3}), {}, field, seconds=300)
    assert sided.exact and paired.exact
    assert 0 < sided.omitted < EPSILON and 0 < paired.omitted < EPSILON
    slack = sided.omitted + paired.omitted
    for outcome in set(sided.probabilities) | set(paired.probabilities):
        assert abs(sided.probability(outcome) - paired.probability(outcome)) <= slack
    assert sum(sided.probabilities.values()) + sided.omitted == 1


def duel_text(against: str, tie: str, body: str) -> str:
    """A check against `against`, an opposed check of it (its penalty passed in), and
    an action of `body` and its result."""
    return (
        HEADER
        + f"""
check c(x: int = 0) "C" {{
  roll d3 + A + x >= 3
  grade = Grade[total]
}}
opposed o(penalty: int) "O" {{
  roll c(0 - penalty)
  against {against}
  compare total
  tie {tie}
}}
action act() {{
  {body}
}}
"""
    )


@pytest.mark.parametrize("rerolls", [1, 2])
@pytest.mark.parametrize("tie", ["reroll", "ours", "theirs"])
@pytest.mark.parametrize("against", ["c(B)", "d3 + B - 1"])
def test_an_opposed_check_nothing_reads_is_counted_for_where_it_stops_alone(
    against, tie, rerolls, monkeypatch
):
    # Brujería's chase: `let r = carrera(...)` read by no field asked for (the sheet's
    # speed is), yet a run stops when it is still tied at the limit. That stop (and the
    # mass of the decided runs) comes from the sides' masses, not a record per pair.
    text = duel_text(against, tie, "let p = d2\n  let r = o(p)\n  result { p: p, speed: A }")
    engine = Engine(dsl.load_text(text), Limits(tie_rerolls=rerolls))
    sheet = engine.sheet({"A": 1, "B": 1})
    agrees_with_brute_force(engine, sheet, text)
    stops = [o for o in engine.odds("act", sheet, {}).probabilities if not isinstance(o, Record)]
    assert len(stops) == (1 if tie == "reroll" else 0)

    def no_record(*args, **kwargs):
        raise AssertionError("a record made for a pair of sides nothing reads")

    fresh = Engine(dsl.load_text(text), Limits(tie_rerolls=rerolls))
    monkeypatch.setattr(type(fresh.compiler.opposed("o")), "record", no_record)
    odds = fresh.odds("act", fresh.sheet({"A": 1, "B": 1}), {}, "speed")
    assert odds.exact and odds.omitted == 0


@pytest.mark.parametrize(
    "line",
    [
        "if not o(p).won { set acc to acc + 1 }",
        "set acc to o(p).margin + 1",
        "if o(p).ours.total - p > 2 { set acc to d2 }",
    ],
)
def test_a_value_computed_from_an_opposed_check_keeps_its_stop_at_the_tie_limit(line):
    # `not r.won`, `r.margin + 1`: the check's record taken through an operator still
    # stops the run where the sides are tied at the limit (not mass left out).
    body = f"let p = d2\n  let acc = 0\n  {line}\n  result {{ acc: acc, p: p }}"
    text = duel_text("d3 + B - 1", "reroll", body)
    engine = Engine(dsl.load_text(text), Limits(tie_rerolls=1))
    agrees_with_brute_force(engine, engine.sheet({"A": 1, "B": 1}), text)
