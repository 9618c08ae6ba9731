"""A whole result's joint: when it is tried, with how much work, and when the fields answer."""

from __future__ import annotations

from fractions import Fraction

from oracle import action_outcomes, counted, marginal
from test_odds_actions import THREE_ROLLS
from test_odds_brute_force import HEADER, LIMITS

import dsl
from dsl.messages import translate
from interpreter import Engine
from interpreter.odds import marginals
from interpreter.odds.answer import Odds
from interpreter.odds.marginals import (
    JOINT_OUTCOMES,
    JOINT_SHARE,
    JOINT_WORLDS,
    SIDES_WORK,
    ByField,
    JointTooLarge,
    both_sides,
    whole_or_by_field,
)
from interpreter.odds.polynomials import TooComplex

#: an opposed check of two rolls of `d{faces}`, ties rerolled, and an action reading both
#: sides of it (`after` runs once the check is made)
SIDES = """
check c(m: int = 0) "C" {{
  roll d{faces} + A + m >= 5
}}

opposed duel(m: int = 0) "Duel" {{
  roll c(m)
  against c(B)
  compare total
  tie {tie}
}}

action act() {{
  let r = duel(0)
  {after}
  result {{ won: r.won, ours: r.ours.total, theirs: r.theirs.total{more} }}
}}
"""


def engine_for(faces: int, after: str = "", more: str = "", tie: str = "reroll") -> Engine:
    text = HEADER + SIDES.format(faces=faces, after=after, more=more, tie=tie)
    return Engine(dsl.load_text(text), LIMITS)


def test_a_result_reading_both_sides_of_an_opposed_check_is_seen():
    book = engine_for(6).rulebook
    assert both_sides(book, "act") and both_sides(book, "duel")  # the check's own record
    one_side = SIDES.format(faces=6, after="", more="", tie="ours").replace(
        ", theirs: r.theirs.total", ""
    )
    assert not both_sides(dsl.load_text(HEADER + one_side), "act")
    other_names = SIDES.format(faces=6, after="let s = duel(1)", more="", tie="ours")
    other_names = other_names.replace("theirs: r.theirs", "theirs: s.theirs")
    assert not both_sides(dsl.load_text(HEADER + other_names), "act")  # two checks' sides


def test_small_sides_are_a_joint_equal_to_brute_force():
    engine = engine_for(6)
    sheet = engine.sheet({"A": 1, "B": 2})
    whole = engine.odds("act", sheet)
    assert not isinstance(whole, ByField) and whole.exact
    assert counted(whole) == action_outcomes(engine, "act", sheet)


def test_large_sides_are_each_field_on_its_own():
    """50 totals against 50 (ties to ours): the joint pairs them, 2,500 outcomes, found
    within the joint's first try (said so: `proven`); each field alone, exact, is what
    brute force gives. Bounded by work, not time: the same form with any time limit."""
    engine = engine_for(50, tie="ours")
    sheet = engine.sheet({"A": 0, "B": 0})
    joint = action_outcomes(engine, "act", sheet)
    assert len(joint) > 2_000
    for seconds in (2.0, 60.0):
        whole = engine.odds("act", sheet, seconds=seconds)
        assert isinstance(whole, ByField) and whole.exact and whole.proven
        for name, answer in whole.fields.items():
            assert counted(answer) == marginal(joint, name), name


def test_large_sides_past_the_work_are_each_field_on_its_own_without_a_claim():
    """The same sides, and a loop after the check in each of its worlds: the joint's
    first try runs out of work before any outcome is known. Each field on its own, not
    said to be more than JOINT_OUTCOMES (nothing proved it), whatever the time limit.
    (`r.theirs.total` read before the loop too: not a rider, interpreter.odds.riders,
    so that each pair of totals is a world through the loop.)"""
    loop = "let s = r.theirs.total * 0\n  repeat 60 times { set s to s + 1 }"
    engine = engine_for(50, loop, ", s: s", tie="ours")
    sheet = engine.sheet({"A": 0, "B": 0})
    for seconds in (2.0, 60.0):
        whole = engine.odds("act", sheet, seconds=seconds)
        assert isinstance(whole, ByField) and whole.exact and not whole.proven
        assert "more than the budget can count" in str(whole.note)
        assert list(whole.fields) == ["won", "ours", "theirs", "s"]
        assert (
            len(whole.fields["ours"].probabilities) == 50 and whole.fields["s"].probability(60) == 1
        )
        ours = engine.odds("act", sheet, field="ours")
        assert whole.fields["ours"].probabilities == ours.probabilities


def test_sides_whose_fields_show_a_small_joint_are_a_joint_again():
    """The joint takes more than SIDES_WORK (a loop after the check, in each of its
    worlds), but its fields' sizes multiplied are small: the joint, counted again."""
    engine = engine_for(6, "let s = 0\n  repeat 60 times { set s to s + r.ours.total }", ", s: s")
    sheet = engine.sheet({"A": 1, "B": 2})
    whole = engine.odds("act", sheet)
    assert not isinstance(whole, ByField) and whole.exact
    assert counted(whole) == action_outcomes(engine, "act", sheet)


class Script:
    """A `count` for whole_or_by_field that answers as told and notes what it was asked:
    the joint raises `joint` (or gives 10 outcomes); field `name` has sizes[name]; each
    count spends `cost` units of work (`spent`)."""

    def __init__(self, joint=None, sizes=None, cost=0):
        self.joint, self.sizes, self.calls, self.cost = joint, sizes or {}, [], cost
        self.worlds = []
        self.used = 0

    def spent(self) -> int:
        return self.used

    def __call__(self, field, work=None, cap=None, worlds=None, exact_only=False):
        self.calls.append((field, work, cap))
        self.worlds.append(worlds)
        self.used += self.cost
        if field is None:
            if self.joint is not None and len(self.calls) == 1:
                raise self.joint
            return Odds({}, None, {i: Fraction(1, 10) for i in range(10)}, True)
        size = self.sizes[field]
        return Odds({}, field, {i: Fraction(1, size) for i in range(size)}, True)


def asked(book, action, script, budget=100_000):
    return whole_or_by_field(book, action, script, {}, (), budget, script.spent)


def test_the_first_try_at_a_joint_of_both_sides_has_little_work():
    """Both sides: SIDES_WORK first, then each field, and no second try when their sizes
    multiplied could make a joint past JOINT_OUTCOMES (nothing proves it: not `proven`);
    a second try with the whole budget when they cannot."""
    book = engine_for(6).rulebook
    large = Script(TooComplex("work"), {"won": 2, "ours": 50, "theirs": 50})
    answer = asked(book, "act", large)
    assert isinstance(answer, ByField) and not answer.proven
    assert large.calls == [  # bounded by work alone (no time: the same on any machine)
        (None, SIDES_WORK, JOINT_OUTCOMES),
        ("won", 100_000, None),
        ("ours", 100_000, None),
        ("theirs", 100_000, None),
    ]
    small = Script(TooComplex("work"), {"won": 2, "ours": 6, "theirs": 6})
    answer = asked(book, "act", small)
    assert not isinstance(answer, ByField) and len(answer.probabilities) == 10
    assert small.calls[-1] == (None, 100_000, JOINT_OUTCOMES)  # raises rather than samples
    # only the first try is bounded by the worlds one `let` makes; the second is not
    assert small.worlds == [JOINT_WORLDS, None, None, None, None]
    found = Script(JointTooLarge("outcomes"), {"won": 2, "ours": 2, "theirs": 2})
    answer = asked(book, "act", found)
    assert isinstance(answer, ByField) and answer.proven and len(found.calls) == 4


def test_other_joints_are_tried_with_a_share_of_the_budget():
    book = dsl.load_text(THREE_ROLLS, "t.rules")
    assert not both_sides(book, "three")
    script = Script()
    assert not isinstance(asked(book, "three", script, budget=80_000), ByField)
    assert script.calls == [(None, 80_000 // JOINT_SHARE, JOINT_OUTCOMES)]
    wide = Script(TooComplex("work"), {"a": 96, "b": 100, "c": 2_001})
    answer = asked(book, "three", wide)
    assert isinstance(answer, ByField) and answer.proven  # a field past the bound


def test_the_fields_share_the_budget_left():
    """Each field is counted within what the joint's try and the fields before it left
    of the one budget (counted work, never time); the joint counted again, if at all,
    in what is left after them."""
    book = dsl.load_text(THREE_ROLLS, "t.rules")
    script = Script(TooComplex("work"), {"a": 2, "b": 3, "c": 4}, cost=10_000)
    answer = asked(book, "three", script, budget=80_000)
    assert not isinstance(answer, ByField)  # 24 outcomes at most: the joint again
    assert script.calls == [
        (None, 20_000, JOINT_OUTCOMES),
        ("a", 70_000, None),
        ("b", 60_000, None),
        ("c", 50_000, None),
        (None, 40_000, JOINT_OUTCOMES),
    ]
    spent = Script(TooComplex("work"), {"a": 2, "b": 3, "c": 4}, cost=20_000)
    answer = asked(book, "three", spent, budget=80_000)
    assert isinstance(answer, ByField)  # no budget left for the joint: the fields stand
    assert [work for _, work, _ in spent.calls] == [20_000, 60_000, 40_000, 20_000]


#: two rolls paired by one `let` (150 x 150 worlds: past JOINT_WORLDS), read by the result
PAIRED = (
    HEADER
    + """
action act() {
  let a = d150
  let b = d150
  result { FIELDS }
}
"""
)


def test_a_let_making_more_worlds_than_a_joint_could_show_stops_its_first_try(monkeypatch):
    """The first try stops at JOINT_WORLDS worlds, before the pairs are made (not by its
    work: given all it wants, it would have counted the pairs to the end): each field on
    its own, exact; nothing proved the joint's size."""
    monkeypatch.setattr(marginals, "JOINT_SHARE", 1)
    engine = Engine(dsl.load_text(PAIRED.replace("FIELDS", "a: a, b: b")), LIMITS)
    sheet = engine.sheet({"A": 0, "B": 0})
    assert JOINT_WORLDS < 150 * 150
    whole = engine.odds("act", sheet, seconds=60)
    assert isinstance(whole, ByField) and whole.exact and not whole.proven
    uniform = {face: Fraction(1, 150) for face in range(1, 151)}
    assert whole.fields["a"].probabilities == whole.fields["b"].probabilities == uniform


def test_fields_of_paired_rolls_that_show_a_small_joint_are_a_joint_again():
    """The same pairs read only through two comparisons: the first try stops at the
    worlds, the fields show four outcomes at most, and the joint is counted again,
    unbounded by the worlds: equal to counting the 22,500 pairs."""
    engine = Engine(dsl.load_text(PAIRED.replace("FIELDS", "higher: a > b, same: a = b")), LIMITS)
    whole = engine.odds("act", engine.sheet({"A": 0, "B": 0}))
    assert not isinstance(whole, ByField) and whole.exact
    pairs: dict = {}
    for a in range(1, 151):
        for b in range(1, 151):
            key = (a > b, a == b)
            pairs[key] = pairs.get(key, 0) + Fraction(1, 150 * 150)
    assert {(r["higher"], r["same"]): p for r, p in whole.probabilities.items()} == pairs


def test_once_a_field_is_past_counting_it_and_the_others_come_from_one_sample():
    """The first field past counting: it and the fields still to come are not each
    sampled (the first would take the time left, leaving the others not one trial), but
    answered from one sample of whole results in the time left, saying which field and
    why."""
    book = dsl.load_text(THREE_ROLLS, "t.rules")
    script = Script(TooComplex("work"), {"a": 2, "b": 3, "c": 4})
    asked_for = []

    def count(field, work=None, cap=None, worlds=None, exact_only=False):
        if field == "b":  # the second field: past counting
            script.calls.append((field, work, cap))
            assert exact_only  # it raises, rather than samples on its own
            raise TooComplex("more than 9 units of work")
        return script(field, work, cap, worlds)

    def sample(names, reason):
        asked_for.append((tuple(names), str(reason.args[0])))
        return {name: Odds({}, name, {0: Fraction(1)}, False, trials=10) for name in names}

    answer = whole_or_by_field(book, "three", count, {}, (), 100_000, script.spent, sample)
    assert isinstance(answer, ByField) and not answer.exact
    assert [call[0] for call in script.calls] == [None, "a", "b"]  # c never counted
    assert asked_for == [(("b", "c"), "b could not be counted exactly: more than 9 units of work")]
    assert answer.fields["a"].exact and not answer.fields["b"].exact


def test_fields_sampled_from_one_sample_agree_with_the_whole_results_sampled():
    engine = Engine(dsl.load_text(THREE_ROLLS, "t.rules"))
    sheet = engine.sheet({"A": 3})
    whole = engine.odds("three", sheet, budget=3, trials=400)
    assert isinstance(whole, ByField) and not whole.exact
    b, c = whole.fields["b"], whole.fields["c"]
    assert b.trials == c.trials == 400 and "could not be counted exactly" in b.note
    # the reason within the note is said in the rulebook's language too (it was English)
    said = translate(b.note, "es")
    assert "no pudo contarse exactamente: " in said and "units" not in said, said
    # the same trials: the refusal (a <= 5) as often in both, and each field's own counts
    refused = [o for o in b.probabilities if not isinstance(o, int)]
    assert refused and all(b.probabilities[o] == c.probabilities[o] for o in refused)
    assert sum(b.probabilities.values()) == sum(c.probabilities.values()) == 1
