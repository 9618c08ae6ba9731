"""Each remaining fast path of the odds engine has a case only it answers exactly within
a small budget, so that switching it off fails here (issue 24). The switch is the
fast path's entry point, replaced by what the general mechanism does without it."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

import dsl
import interpreter.odds.best_play as best_play
import interpreter.odds.compound as compound
import interpreter.odds.compute as compute
import interpreter.odds.deferred as deferred
import interpreter.odds.explore as explore
import interpreter.odds.forks as forks
import interpreter.odds.passes as passes
import interpreter.odds.plain as plain
import interpreter.odds.riders as riders
import interpreter.odds.spread as spread
from interpreter import Engine
from interpreter.errors import EvaluationError
from interpreter.odds import expression_odds
from interpreter.odds.decide import Nested
from interpreter.odds.marginals import ByField

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

#: `m.total` (two d100) only compared with `s` (three d20): kept whole for the one
#: statement reading it (deferred) and branched on the intervals of it the comparisons
#: tell apart (narrowing), not on its 200 values in each of s's 58 worlds
NARROWED = """
check tirada(x: int = 0) "T" {
  roll d100 + d100 + x
}
action act() {
  let s = d20 + d20 + d20 + 0
  let m = tirada(0)
  let primero = if m.total > s then "a" else if m.total < s then "b" else "c"
  result { primero: primero }
}
"""
#: work units: twice what the narrowed value needs (about 1,600; some 12,800 without)
NARROWED_WORK = 3_200


def narrowed_odds():
    engine = Engine(dsl.load_text(NARROWED, "narrowed.rules"))
    return engine.odds("act", engine.sheet({}), {}, "primero", budget=NARROWED_WORK, trials=50)


@pytest.mark.parametrize("switch", ["narrowing", "deferral"])
def test_a_value_only_compared_answers_within_a_small_budget(monkeypatch, switch):
    odds = narrowed_odds()
    assert odds.exact and set(odds.probabilities) == {"a", "b", "c"}
    # m.total > s: each of s's values against the two d100's (1 … 200) counted by hand
    s_ways: dict = {}
    for i in range(1, 21):
        for j in range(1, 21):
            for k in range(1, 21):
                s_ways[i + j + k] = s_ways.get(i + j + k, 0) + 1
    m_above = {v: sum(min(t - 1, 201 - t) for t in range(v + 1, 201)) for v in s_ways}
    above = sum(w * m_above[v] for v, w in s_ways.items())
    assert odds.probabilities["a"] == Fraction(above, 20**3 * 100**2)
    if switch == "narrowing":  # every value of m.total branched on
        monkeypatch.setattr(deferred.Narrowing, "of", lambda *_args: None)
    else:  # (narrowing's ground) m made a world per value by its `let`
        monkeypatch.setattr(explore, "deferrable", lambda *_args: False)
    assert not narrowed_odds().exact


#: `r.total` (two d100: 199 values) read once, by the result; `r.success` by every pass
#: of the loop, and the note's mention of r.total (a note the explorer skips) reads
#: nothing: riding, the loop runs in the worlds of r.success alone (two), not of each total
RIDER = """
check c() "C" {
  roll d100 + d100 >= 101
}
action act() {
  let r = c()
  note "{r.total}"
  let k = 0
  repeat 10 times {
    if r.success or d6 > 3 { set k to k + 1 }
  }
  result { t: r.total, k: k }
}
"""
#: work units: about twice what riding needs (some 600; some 40,000 without)
RIDER_WORK = 1_500


def rider_odds():
    engine = Engine(dsl.load_text(RIDER, "rider.rules"))
    return engine.odds("act", engine.sheet({}), {}, "t", budget=RIDER_WORK, trials=50)


@pytest.mark.parametrize("switch", ["riders", "skipped statements"])
def test_a_field_read_once_rides_within_a_small_budget(monkeypatch, switch):
    odds = rider_odds()
    ways = {t: min(t - 1, 201 - t) for t in range(2, 201)}  # two d100 summed
    assert odds.exact and odds.probabilities == {t: Fraction(w, 100**2) for t, w in ways.items()}
    if switch == "riders":  # every total a world of its own through the loop
        monkeypatch.setattr(passes, "rider_of", lambda *_args, **_named: None)
    else:  # the note's mention read as a read: r.total kept in every world
        found = riders.rider_of
        monkeypatch.setattr(
            passes, "rider_of", lambda s, i, live, read, _idle: found(s, i, live, read)
        )
    assert not rider_odds().exact


#: an opposed check's side (`r.theirs.total`, three d20) read once, by the result: riding
#: in its record (a field read through its own fields, of an opposed check's record), the
#: loop runs in the worlds of r.won alone (two), not of each total (some 60)
SIDE_RIDER = """
check c() "C" {
  roll d20 + d20 + d20 >= 31
}
opposed duelo() "D" {
  roll c()
  against c()
  compare total
  tie ours
}
action act() {
  let r = duelo()
  let k = 0
  repeat 10 times {
    if r.won or d6 > 3 { set k to k + 1 }
  }
  result { t: r.theirs.total, k: k }
}
"""
#: work units: about twice what riding needs (some 210 for `t`, 450 for the whole
#: result's joint; some 840 and 1,300 without)
SIDE_RIDER_WORK = {"t": 430, None: 800}


def side_rider_odds(field):
    engine = Engine(dsl.load_text(SIDE_RIDER, "side_rider.rules"))
    budget = SIDE_RIDER_WORK[field]
    return engine.odds("act", engine.sheet({}), {}, field, budget=budget, trials=50)


@pytest.mark.parametrize("switch", ["paths", "contests"])
@pytest.mark.parametrize("field", ["t", None])
def test_an_opposed_checks_side_read_once_rides_within_a_small_budget(monkeypatch, switch, field):
    odds = side_rider_odds(field)
    assert odds.exact and not isinstance(odds, ByField)
    ways: dict = {}  # three d20 summed
    for i in range(1, 21):
        for j in range(1, 21):
            for k in range(1, 21):
                ways[i + j + k] = ways.get(i + j + k, 0) + 1
    if field == "t":
        assert odds.probabilities == {t: Fraction(w, 20**3) for t, w in ways.items()}
    monkeypatch.setattr(riders.SWITCH, switch, False)  # every total a world of its own
    off = side_rider_odds(field)
    assert not off.exact or isinstance(off, ByField)


def test_a_side_rides_from_the_sides_at_once(monkeypatch):
    """The side riding is made from the opposed check's sides (interpreter.odds.sides:
    a record per class of the other side), not from a record per pair then made one
    (riders.ridden): the same records with the same weights either way."""
    made = []
    found = riders.ridden
    monkeypatch.setattr(riders, "ridden", lambda *args: made.append(1) or found(*args))
    on = side_rider_odds("t")
    assert on.exact and not made
    monkeypatch.setattr(riders.SWITCH, "sides", False)
    off = side_rider_odds("t")
    assert made and off.probabilities == on.probabilities


#: a field still a distribution at the end (`r.total`, riding): the whole result's records
#: made at once from its values (interpreter.odds.spread), not a run of the result per
#: value in each world (some 320 units of work; some 740 without)
SPREAD = RIDER.replace("repeat 10 times", "repeat 5 times")
SPREAD_WORK = 440


def spread_odds():
    engine = Engine(dsl.load_text(SPREAD, "spread.rules"))
    return engine.odds("act", engine.sheet({}), {}, budget=SPREAD_WORK, trials=50)


def test_a_result_field_still_a_distribution_is_spread_within_a_small_budget(monkeypatch):
    odds = spread_odds()  # the joint: 199 totals, each with its k (0 to 5)
    assert odds.exact and not isinstance(odds, ByField) and len(odds.probabilities) > 600
    monkeypatch.setattr(spread.SWITCH, "spread", False)  # a run per value of r.total
    assert isinstance(spread_odds(), ByField)


#: a choice after five dice summed one at a time: over merged worlds it is decided once per
#: sum (26), run by run once per sequence of the dice (7,776)
DECIDING = """
action act() {
  let s = d6 + 0
  set s to s + d6
  set s to s + d6
  set s to s + d6
  set s to s + d6
  choose keep "Keep?" {
    option yes
    option no { set s to s + d6 }
  }
  result { ok: s >= 18 }
}
"""
#: work units: about twice what the search over worlds needs (some 600; past 40,000 by runs)
DECIDING_WORK = 1_200


def deciding_odds():
    engine = Engine(dsl.load_text(DECIDING, "deciding.rules"))
    return engine.odds("act", engine.sheet({}), {}, "ok", budget=DECIDING_WORK, best="ok")


def test_the_best_play_over_merged_worlds_answers_within_a_small_budget(monkeypatch):
    odds = deciding_odds()
    sums = {0: 1}  # five d6, summed: ways of each total
    for _ in range(5):
        sums = _add(sums)
    # keep at 18 or more; else one d6 more, which makes 18 or more with (s + 6 - 17) faces
    ok = sum(w * (6 if s >= 18 else max(0, s - 11)) for s, w in sums.items())
    assert odds.exact and odds.probabilities[True] == Fraction(ok, 6**6)
    # switched off: the search run by run (interpreter.odds.best_play.Search)
    monkeypatch.setattr(best_play, "WorldSearch", _nested)
    with pytest.raises(EvaluationError, match="budget"):
        deciding_odds()


def _add(sums: dict) -> dict:
    out: dict = {}
    for total, ways in sums.items():
        for face in range(1, 7):
            out[total + face] = out.get(total + face, 0) + ways
    return out


def _nested(*_args):
    raise Nested()


#: six result fields (a joint of 6**6 outcomes) after thirty passes every field needs
#: (each run may stop there): the fields share those passes in one exploration; one
#: exploration per field runs them six times
SHARED = """
action act() {
  repeat 30 times {
    require d6 > 1 or d6 > 1 else "out"
  }
  result { a: d6, b: d6 + 1, c: d6 + 2, d: d6 + 3, e: d6 + 4, f: d6 + 5 }
}
"""
#: work units: about twice what the fields need together (some 300; 1,000 or more apart)
SHARED_WORK = 600


def shared_odds():
    engine = Engine(dsl.load_text(SHARED, "shared.rules"))
    return engine.odds("act", engine.sheet({}), {}, budget=SHARED_WORK, trials=50)


def test_the_fields_of_a_whole_result_share_one_exploration_within_a_small_budget(monkeypatch):
    odds = shared_odds()
    assert type(odds) is ByField and odds.exact
    going = Fraction(35, 36) ** 30  # no pass stops the run
    for offset, name in enumerate("abcdef"):
        values = {v: p for v, p in odds.fields[name].probabilities.items() if isinstance(v, int)}
        assert values == {face + offset: going / 6 for face in range(1, 7)}
    # switched off: each field its own worlds from the start (an exploration each)
    monkeypatch.setattr(
        forks, "partition", lambda _e, _b, _i, group, *_: [(f,) for f in group.fields]
    )
    assert not shared_odds().exact


def test_a_count_of_successes_is_a_binomial_within_a_small_budget():
    # 64d10cs>7: counted as the binomial it is (plain.BINOMIAL), with no work; the pool's
    # convolutions do not fit in a budget of 1 (sampled)
    odds = expression_odds("64d10cs>7", budget=1, trials=50)
    assert odds.exact
    assert odds.probabilities[10] == Fraction(comb(64, 10) * 3**10 * 7**54, 10**64)


COUNTS = ["6d10cs>7", "4dFcs=1", "3d6cs<=0", "5d4cs>=1", "(2+1)d(3*2)cs=6", "8d10cs>=8df<=1"]


@pytest.mark.parametrize(
    "text", [*COUNTS, "4dFcs=1df=-1", "5d6cs>=3df<=4", "16d10cs>=6df=1", "17d10cs>=6df=1"]
)
def test_the_binomial_is_the_pools_count(text, monkeypatch):
    found = expression_odds(text)
    monkeypatch.setattr(plain, "BINOMIAL", False)
    assert found.exact and found.probabilities == expression_odds(text).probabilities


def test_a_lone_die_is_answered_before_any_deadline_or_term_counting(monkeypatch):
    # `d6`, `1d20`, `d%` (plain.LONE_DIE): their faces, with no deadline set up and none
    # of the plain term's counting run (a fresh process's first call pays for each line)
    def refused(*_args, **_kwargs):
        raise AssertionError("the lone die went the plain term's way")

    monkeypatch.setattr(plain, "term_distribution", refused)
    monkeypatch.setattr(compute.Deadline, "answering", refused)
    for text, sides in (("d6", 6), ("1d20", 20), ("d%", 100)):
        odds = expression_odds(text)
        assert odds.exact and odds.probabilities == {
            f: Fraction(1, sides) for f in range(1, sides + 1)
        }
    monkeypatch.setattr(plain, "LONE_DIE", False)
    with pytest.raises(AssertionError):
        expression_odds("d6")


def test_a_pool_of_one_die_rolled_again_is_that_die_not_added_up(monkeypatch):
    # Year Zero's push of one base die (compound.ONE_DIE): the compound die as it is,
    # never given to multiset.added to be added to nothing
    def refused(*_args, **_kwargs):
        raise AssertionError("one die added up")

    monkeypatch.setattr(compound, "added", refused)
    engine = Engine(dsl.load(EXAMPLES / "year_zero.rules"))
    for field in ("successes", "attribute_damage"):
        odds = engine.odds("roll_dice", engine.sheet({}), {"base": 1, "push": True}, field)
        assert odds.exact and odds.probabilities == {0: Fraction(26, 36), 1: Fraction(10, 36)}
    monkeypatch.setattr(compound, "ONE_DIE", False)
    with pytest.raises(AssertionError):
        engine.odds("roll_dice", engine.sheet({}), {"base": 1, "push": True}, "successes")


def _year_zero_odds(base: int, field: str | None = None):
    engine = Engine(dsl.load(EXAMPLES / "year_zero.rules"))  # (compiled afresh)
    return engine.odds("roll_dice", engine.sheet({}), {"base": base, "push": True}, field)


def test_a_few_dice_rolled_again_are_added_die_by_die(monkeypatch):
    # compound.FEW_DICE: 2 to 4 pushed base dice, each compound die convolved with the
    # last, never given to multiset.added; switched off, added is called (and agrees)
    def refused(*_args, **_kwargs):
        raise AssertionError("a few dice added up by multiset.added")

    found = {}
    with monkeypatch.context() as patched:
        patched.setattr(compound, "added", refused)
        for base in (2, 3, 4):
            found[base] = _year_zero_odds(base)
            assert found[base].exact
    monkeypatch.setattr(compound, "FEW_DICE", 0)
    for base in (2, 3, 4):
        assert _year_zero_odds(base).probabilities == found[base].probabilities
    monkeypatch.setattr(compound, "added", refused)
    with pytest.raises(AssertionError):
        _year_zero_odds(2)


def test_questions_written_with_constants_are_asked_as_made_when_compiled(monkeypatch):
    # compile.pools.CONSTANT_QUESTIONS: `count(b, 6)`, `count(b, 2..5)` made once when
    # compiled, every pool `let` of Year Zero asking its tuple of them made once (never
    # PoolValues.asked, which runs each question's closure); switched off, asked is called
    import interpreter.compile.pools as pools

    def refused(*_args, **_kwargs):
        raise AssertionError("the questions asked anew")

    odds = _year_zero_odds(3)  # (compiled before asked is refused: the same answer)
    monkeypatch.setattr(pools.PoolValues, "asked", refused)
    again = _year_zero_odds(3)
    assert again.exact and again.probabilities == odds.probabilities
    monkeypatch.setattr(pools, "CONSTANT_QUESTIONS", False)
    with pytest.raises(AssertionError):
        _year_zero_odds(3)
    monkeypatch.undo()
    monkeypatch.setattr(pools, "CONSTANT_QUESTIONS", False)
    for base in (1, 2, 5):  # (the questions asked anew: the same answers)
        slow = _year_zero_odds(base)
        monkeypatch.setattr(pools, "CONSTANT_QUESTIONS", True)
        assert _year_zero_odds(base).probabilities == slow.probabilities
        monkeypatch.setattr(pools, "CONSTANT_QUESTIONS", False)


def test_constant_questions_are_one_object_per_value_and_its_type():
    # (compile.pools.interned: `count(b, 1)` and `count(b, yes)` stay two questions)
    import interpreter.compile.pools as pools
    from interpreter.pool import Count
    from interpreter.values import Range

    assert pools.interned(Count, 1) is pools.interned(Count, 1)
    assert pools.interned(Count, Range(2, 5)) is pools.interned(Count, Range(2, 5))
    assert pools.interned(Count, 1) is not pools.interned(Count, True)
    assert type(pools.interned(Count, True).test.parts[0]) is bool
