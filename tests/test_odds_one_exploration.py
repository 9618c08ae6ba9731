"""A whole result whose joint is too large to show is answered field by field from one
exploration of the action (issue 24): its worlds are the joint's, each end's record read
field by field (interpreter.odds.marginals.PerField), not one exploration per field."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from fuzz_odds_cases import LIMITS, actions
from hypothesis import HealthCheck, given
from profiles import fewer

import dsl
from dsl.errors import RulebookError
from interpreter import Engine
from interpreter.odds import BUDGET, compute, forks, marginals
from interpreter.odds.marginals import JOINT_OUTCOMES, ByField
from interpreter.odds.polynomials import TooComplex

#: three independent rolls: 100 × 20 × 4 outcomes of the whole result (past
#: JOINT_OUTCOMES), in as many worlds (within the first try's JOINT_WORLDS)
TEXT = """
action act() {
  let a = d100
  let b = d20
  let c = d4
  require c > 1 else "no"
  result { a: a, b: b, c: c }
}
"""


def test_every_field_of_a_whole_result_from_one_exploration():
    engine = Engine(dsl.load_text(TEXT, "one.rules"))
    odds = engine.odds("act", engine.sheet({}), {})
    assert type(odds) is ByField and odds.proven and odds.limit == JOINT_OUTCOMES
    assert odds.explorations == 1  # the joint's try, read field by field
    failure = Fraction(1, 4)  # `require c > 1`: in every field's answer
    for name, faces in (("a", 100), ("b", 20), ("c", 4)):
        field = odds.fields[name]
        assert field.exact and field.omitted == 0
        values = {k: p for k, p in field.probabilities.items() if isinstance(k, int)}
        assert sum(values.values()) == 1 - failure
        if name == "c":  # 2, 3 or 4: each a face of the d4
            assert values == {v: Fraction(1, 4) for v in range(2, 5)}
        else:  # each face, in the runs that go on
            assert values == {v: (1 - failure) / faces for v in range(1, faces + 1)}
    # one field asked alone: its own exploration, the same answer
    alone = engine.odds("act", engine.sheet({}), {}, "a")
    assert alone.explorations == 1 and alone.probabilities == odds.fields["a"].probabilities


#: a few generated actions (each counted whole, then field by field alone)
SHARED = fewer(4, 15, HealthCheck.filter_too_much)


@SHARED
@given(actions())
def test_the_fields_explored_together_are_each_fields_own_odds(text):
    """Generated actions answered field by field from one exploration (the joint's try
    given one unit of work: past it at once; no joint shown) give each field the odds
    it has alone."""
    try:
        engine = Engine(dsl.load_text(text, "shared.rules"), LIMITS)
        sheet = engine.sheet({})
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(marginals, "JOINT_SHARE", BUDGET)  # the joint's try: one unit
            patch.setattr(marginals, "SIDES_WORK", 1)
            patch.setattr(marginals, "JOINT_OUTCOMES", 0)  # (not counted whole again)
            whole = engine.odds("act", sheet, {}, trials=50, seconds=2)
        alone = {
            name: engine.odds("act", sheet, {}, name, trials=50, seconds=2)
            for name in getattr(whole, "fields", {})
        }
    except RulebookError:
        return
    if type(whole) is not ByField:
        return  # (done within the one unit: the joint itself)
    for name, odds in alone.items():
        if odds.exact and whole.fields[name].exact:
            assert whole.fields[name].probabilities == odds.probabilities, (name, text)


#: `a` cheap; `b` read from the pairs of two d100 (10,000 worlds at the `if`)
CHEAP_AND_DEAR = """
action act() {
  let a = d6 + 0
  let x = d100 + 0
  let y = d100 + 0
  let b = 0
  if x > y {
    set b to x - y
  }
  result { a: a, b: b }
}
"""


def test_past_the_budget_the_fields_explored_before_stay_exact():
    """The fields explored together past the budget: a group of fields that got to the
    end before it keeps its exact answer; the others come from one sample."""
    engine = Engine(dsl.load_text(CHEAP_AND_DEAR, "dear.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, budget=400, trials=50)
    assert type(odds) is ByField and not odds.exact
    a, b = odds.fields["a"], odds.fields["b"]
    assert a.exact and a.probabilities == {face: Fraction(1, 6) for face in range(1, 7)}
    assert not b.exact and b.trials == 50 and "b could not be counted exactly" in b.note


#: four fields, read past rolls the others read too: the whole result's worlds at the
#: `if` (some 11 × 30 × 30 pairs) pass JOINT_WORLDS (lowered below); the fields part
#: at `let a` (b and c do not read it)
MANY_FIELDS = """
action act() {
  let p = d6 + d6
  let a = d20 + p
  let b = d20 + p
  let c = d20 + p
  let m = 0
  if a > b {
    set m to c
  }
  result { a: a, b: b, c: c, m: m }
}
"""


def many_fields_odds():
    engine = Engine(dsl.load_text(MANY_FIELDS, "many.rules"))
    return engine.odds("act", engine.sheet({}), {})


def test_a_whole_result_and_its_fields_from_one_exploration(monkeypatch):
    """The whole result is the first, widest group of the fields' exploration
    (interpreter.odds.forks.Whole): past its bounds (a let's worlds), the fields go on
    from where they part, in the same exploration; not a try of the joint, then the
    fields' exploration from the start."""
    monkeypatch.setattr(marginals, "JOINT_WORLDS", 100)
    odds = many_fields_odds()
    assert type(odds) is ByField and odds.exact and not odds.proven
    assert odds.explorations == 1
    for name in "abcm":
        alone = Engine(dsl.load_text(MANY_FIELDS, "many.rules"))
        field = alone.odds("act", alone.sheet({}), {}, name)
        assert odds.fields[name].probabilities == field.probabilities
    # switched off: the joint's try on its own, then the fields' exploration
    original = compute.whole_or_by_field

    def apart(*args):
        *rest, at_once = args
        count = args[2]

        def tried(names, work, joint):
            try:
                return {None: count(None, joint[0], joint[1], worlds=joint[2])}, None, None
            except TooComplex as short:
                return (*at_once(names, work, None)[:2], short)

        return original(*rest, tried)

    monkeypatch.setattr(compute, "whole_or_by_field", apart)
    assert many_fields_odds().explorations == 2


#: nine fields riding with the whole result to its end (its joint, 2,400 records, past
#: JOINT_OUTCOMES): the `if` on `k` leaves each world's steps uncertain (fewest ≠ most),
#: so each end is explored, a unit of work a world (as pentagrama's atacar)
RIDING = """
action act() {
  let k = d6 + 0
  if k > 3 {
    require k < 7 else "never"
  }
  let a = d20 + 0
  let b = d12 + 0
  let c = d10 + 0
  let d = 0
  if a > b and c > 100 {
    set d to c
  }
  result { a: a, b: b, c: c, d: d, hit: a > b, s: a + b, t: a + c, u: b + c, v: a + b + c }
}
"""


def test_the_fields_riding_with_the_whole_result_are_read_from_its_ends():
    """The fields that rode with the whole result to its end are read from its records
    (marginals.PerField), its ends run once (within its share of the work, a quarter of
    22,000: the body's 2,681 units and the ends' 2,400): not once more per field over
    all its worlds (26,282 units in all, past the budget). Against brute force over the
    2,400 rolls."""
    engine = Engine(dsl.load_text(RIDING, "riding.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, budget=22_000, trials=20)
    assert type(odds) is ByField and odds.proven and odds.exact and odds.explorations == 1
    brute: dict = {name: {} for name in odds.fields}
    for a, b, c in product(range(1, 21), range(1, 13), range(1, 11)):
        record = {"a": a, "b": b, "c": c, "d": 0, "hit": a > b}
        record |= {"s": a + b, "t": a + c, "u": b + c, "v": a + b + c}
        for name, value in record.items():
            brute[name][value] = brute[name].get(value, 0) + Fraction(1, 2400)
    for name, field in odds.fields.items():
        assert field.exact and field.omitted == 0
        assert dict(field.probabilities) == brute[name], name


def test_pentagrama_atacar_with_ur_exact_within_the_default_budget():
    """Issue 24: Ur's attack with the long bow (3d10 against DG 10, the location's two
    d10s, 2d6 + 2 of damage: 10,472 worlds at the end) was sampled past the default
    budget, its ends run once per field; every field exact, from one exploration, each
    the field's own odds."""
    root = Path(__file__).resolve().parent.parent / "rulebooks"
    engine = Engine(dsl.load(root / "pentagrama.rules"))
    sheet = engine.load_sheet(root / "characters" / "ur.yaml")
    params = {"habilidad": "Arco", "atributo": "Destreza", "arma": "Arco largo", "DG": 10}
    odds = engine.odds("atacar", sheet, params)
    assert type(odds) is ByField and odds.exact and odds.explorations == 1
    for name in ("zona", "daño"):
        alone = engine.odds("atacar", sheet, params, name)
        assert alone.exact and odds.fields[name].probabilities == alone.probabilities


#: the fields part at `let a` (b and c do not read it); the whole result's try, within a
#: quarter of the budget, stops at the `if`
PART_THEN_STOP = """
action act() {
  let x = d6 + 0
  let a = d20 + x
  let b = d20 + x
  let y = d10 + x
  let v = y + d4
  let w = v + d4
  if w > 5 {
    let t = d6 + w
    require t > 8 else "low"
  }
  result { a: a, b: b, c: x }
}
"""


def test_the_fields_go_on_from_where_the_whole_result_stopped():
    """The whole result's try stops past the point where the fields part: the fields go
    on from its worlds there (forks.RESUMED), each part's merged on what it reads, not
    from where they parted, each part exploring the statements between again. Within 530
    units (some 480 counted; from where they part, some 560) each field is exact, its
    odds its own alone."""
    engine = Engine(dsl.load_text(PART_THEN_STOP, "resumed.rules"))
    sheet = engine.sheet({})
    odds = engine.odds("act", sheet, {}, budget=530, trials=20)
    assert type(odds) is ByField and odds.explorations == 1
    for name in ("a", "b", "c"):
        field = odds.fields[name]
        assert field.exact, name
        assert field.probabilities == engine.odds("act", sheet, {}, name).probabilities


def test_the_fields_go_again_from_where_they_parted_when_they_read_less_of_a_record(
    monkeypatch,
):
    """Arcana Mundi's combate_teurgico: the fields part at `let su_maniobra` (most read
    only its `bono`), the whole result's try stops two statements later, its 445 worlds
    merged to 26 for most parts: explored from where they parted, 1 world (forks.narrower:
    they go on from there, some 14,600 units counted; resumed, some 19,000). Within
    16,500 units every field exact, as from where they parted; resumed, sampled."""
    root = Path(__file__).resolve().parent.parent / "rulebooks"
    engine = Engine(dsl.load(root / "arcana_mundi.rules"))
    sheet = engine.load_sheet(root / "characters" / "menecma.yaml")
    params = {"numina": "Grito Báquico", "maniobra_rival": 10, "dignitas_rival": 5}
    odds = engine.odds("combate_teurgico", sheet, params, budget=16_500, trials=20)
    assert type(odds) is ByField and odds.exact and odds.explorations == 1
    monkeypatch.setattr(forks, "RESUMED", False)
    parted = engine.odds("combate_teurgico", sheet, params, budget=16_500, trials=20)
    assert parted.exact
    assert {k: f.probabilities for k, f in odds.fields.items()} == {
        k: f.probabilities for k, f in parted.fields.items()
    }
    monkeypatch.setattr(forks, "RESUMED", True)
    monkeypatch.setattr(forks, "narrower", lambda *_: False)  # switched off: resumed
    assert not engine.odds("combate_teurgico", sheet, params, budget=16_500, trials=20).exact
