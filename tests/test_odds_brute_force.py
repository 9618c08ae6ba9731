"""Exact odds against brute force: every sequence of dice, run through the real roller.

For small generated rulebooks (checks, opposed checks and their ties, lets, ifs, tables,
repeats, for each, requires), the odds engine's distribution of an action's result must
equal, fraction for fraction, the one found by running the real engine once for every
sequence of faces the dice can show, each weighted by its probability. That is the
engine's promise ("a rule means the same whether it is rolled or counted"), checked
without sampling. Ties are rerolled at most once here (`tie_rerolls` 1), so that every
sequence is finite and the stop at the limit is an outcome of its own on both sides.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import action_outcomes, counted, marginal

import dsl
from interpreter import Engine, Limits

LIMITS = Limits(tie_rerolls=1)

HEADER = """rulebook "Generated" {
  system "odds against brute force"
  language "en"
}

sheet {
  attribute A, B in 0..3
}

table Level by n {
  ..2: "low"
  3..4: "mid"
  5..: "high"
}
"""


#: the statements an action is made of (an opposed check twice as often: its ties)
KINDS = (
    *("opposed", "opposed", "die", "check", "if", "repeat", "for", "table", "require", "set"),
    "pool",
)


@st.composite
def rulebooks(draw):
    """(rulebook text, sheet data): a check, an opposed check, an action using them."""
    die = draw(st.sampled_from([2, 3]))
    target = draw(st.integers(2, 5))
    rival_die = draw(st.sampled_from([2, 3]))
    tie = draw(st.sampled_from(["reroll", "ours", "theirs"]))
    rival_checks = draw(st.booleans())
    against = "c(B)" if rival_checks else f"d{rival_die} + B"
    compare = "compare success, total" if rival_checks else "compare total"
    definitions = f"""
check c(x: int = 0) "C" {{
  roll d{die} + A + x >= {target}
  level = Level[total]
}}

opposed o(y: int = 0) "O" {{
  roll c(y)
  against {against}
  {compare}
  tie {tie}
}}
"""
    numbers = ["A", "B", "1", "acc"]
    conditions = ["acc >= 2", "A > B"]
    results = {"acc": "acc"}
    body = ["let acc = 0"]
    dice = 0  # how many dice the action may draw at most: kept small, for brute force
    summed = False  # whether `up` and `down` are counted (read as `up - down`)
    for index in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(KINDS))
        number = draw(st.sampled_from(numbers))
        name = f"v{index}"
        cost = {"die": 1, "check": 1, "opposed": 4, "repeat": 2, "for": 2, "pool": 2}.get(kind, 0)
        if dice + cost > 6:
            kind, cost = "set", 0
        dice += cost
        if kind == "die":
            body.append(f"let {name} = d{draw(st.sampled_from([2, 3]))} + {number}")
            numbers.append(name)
        elif kind == "check":
            body.append(f"let {name} = c({number})")
            numbers.append(f"{name}.total")
            conditions.append(f"{name}.success")
            results[name] = f"{name}.level"
        elif kind == "opposed":
            body.append(f"let {name} = o({number})")
            numbers.append(f"{name}.margin")
            conditions.append(f"{name}.won")
            results[name] = f"{name}.won"
            if draw(st.booleans()):
                results[f"{name}_rerolls"] = f"{name}.rerolls"
                results[f"{name}_theirs"] = f"{name}.theirs.total"
        elif kind == "if":
            condition = draw(st.sampled_from(conditions))
            body.append(
                f"if {condition} {{ set acc to acc + {number} }} else {{ set acc to acc - 1 }}"
            )
        elif kind == "repeat":
            until = draw(st.sampled_from(["", " until acc >= 3"]))
            body.append(f"repeat 2 times{until} {{ set acc to acc + d2 }}")
        elif kind == "for":
            items = draw(st.sampled_from(["[1, 2]", "1..2"]))  # a list, or a range
            body.append(f"for each k in {items} {{ set acc to acc + d2 * k }}")
        elif kind == "pool":  # a pool bound by `let`, and a value read of its dice
            body.append(f"let {name}p = {draw(st.sampled_from(['2d3', '3d2kh2']))}")
            read = draw(
                st.sampled_from(
                    [
                        f"{name}p.sorted[1]",
                        f"{name}p.dice[-1]",
                        f"highest({name}p)",
                        f"sum(highest({name}p, 2))",
                        f"sum(lowest({name}p, 1))",
                        f"count({name}p, 2..3)",
                        f"count({name}p, A..)",  # a range's end read from a name
                        f"count({name}p, ..acc)",
                        f"count({name}p, 1..B)",
                        f"size({name}p.sorted)",
                        f"[{number}, {name}p][2]",
                        # a list function of its dice, one question (compile.pools: LISTED)
                        f"sum({name}p.sorted)",
                        f"max({name}p.dice)",
                        f"min({name}p.kept)",
                        f"count({name}p.dice, 2)",
                        f"size({name}p.dice)",
                        # its dice in a loop, die by die (interpreter.odds.die_loops)
                        "loop",
                        # counted into one of two names read only as one sum (`up -
                        # down`): the other carried too (passes.SUMMED_WITH)
                        "symbols",
                    ]
                )
            )
            if read == "symbols":
                side = draw(st.sampled_from(["up", "down"]))
                face, amount = draw(st.sampled_from([1, 2, 3])), draw(st.sampled_from(["1", "k"]))
                body.append(
                    f"for each k in {name}p.dice {{ if k = {face} {{ set {side} to {side} + "
                    f"{amount} }} }}"
                )
                summed = True
            elif read == "loop":
                step = draw(st.sampled_from(["acc + 1", f"acc - {number}", "k"]))
                body.append(
                    f"for each k in {name}p.{draw(st.sampled_from(['dice', 'kept']))} "
                    f"{{ if k >= 2 {{ set acc to {step} }} }}"
                )
            else:
                body.append(f"let {name} = {read}")
                numbers.append(name)
                results[name] = name
        elif kind == "table":
            body.append(f"let {name} = Level[{number} + acc]")
            results[name] = name
        elif kind == "require":
            body.append(f'require {draw(st.sampled_from(conditions))} else "refused"')
        else:
            body.append(f"set acc to acc + {number}")
    if summed:
        body[1:1] = ["let up = 0", "let down = 0"]
        results["net"] = "up - down"
    fields = ", ".join(f"{k}: {v}" for k, v in results.items())
    action = "action act() {\n  " + "\n  ".join(body) + f"\n  result {{ {fields} }}\n}}\n"
    sheet = {"A": draw(st.integers(0, 3)), "B": draw(st.integers(0, 3))}
    return HEADER + definitions + action, sheet


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rulebooks())
def test_exact_odds_equal_brute_force_over_every_dice_sequence(case):
    text, data = case
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet(data)
    odds = engine.odds("act", sheet, {})
    assert odds.exact and odds.omitted == 0, text
    assert counted(odds) == action_outcomes(engine, "act", sheet), text


def tied_dice(sides: int) -> str:
    """A rulebook whose action reads an opposed check of two d`sides`, ties rerolled."""
    return HEADER + (
        f"opposed flip() {{\n  roll d{sides}\n  against d{sides}\n  tie reroll\n}}\n"
        "action act() {\n  let r = flip()\n  result { won: r.won, rerolls: r.rerolls }\n}\n"
    )


def test_a_tie_at_the_limit_is_an_outcome_of_its_own():
    # Two d2 that tie half the time: after one reroll (the limit here) a run stops.
    engine = Engine(dsl.load_text(tied_dice(2)), LIMITS)
    sheet = engine.sheet({"A": 0, "B": 0})
    odds = counted(engine.odds("act", sheet, {}))
    assert odds == action_outcomes(engine, "act", sheet)
    stops = [p for o, p in odds.items() if isinstance(o, tuple)]
    assert stops == [Fraction(1, 4)]  # tied twice: 1/2 * 1/2
    assert sum(odds.values()) == 1


def test_ties_are_the_sum_of_the_geometric_series_with_the_default_limit():
    # Two d6: a tie 1/6 of the time. Won and lost are equally likely, and k rerolls
    # happen with probability t^k (1 - t); what is left out (the terms too small to
    # follow, the stop at the 100th reroll) is the omitted mass, below 1e-12.
    engine = Engine(dsl.load_text(tied_dice(6)))
    sheet = engine.sheet({"A": 0, "B": 0})
    won = engine.odds("act", sheet, {}, field="won")
    assert won.exact and won.probability(True) == won.probability(False)
    assert 0 < won.omitted < Fraction(1, 10**12)
    assert won.probability(True) + won.probability(False) + won.omitted == 1
    rerolls = engine.odds("act", sheet, {}, field="rerolls")
    t = Fraction(1, 6)
    for k, p in rerolls.probabilities.items():
        assert p == t**k * (1 - t)
    assert len(rerolls.probabilities) > 15  # followed while t^k is above 1e-18
    assert rerolls.omitted == won.omitted


def test_a_draw_made_again_until_it_fits_is_counted_once_per_pass():
    # A location rolled again while it falls where it must not (Pentagrama's «acertar en
    # otro lado»): a pass's worlds differ only in the value the pass draws anew.
    def engine_for(times: int) -> Engine:
        return Engine(
            dsl.load_text(
                HEADER
                + f"""
action act() {{
  let face = 0 + d4
  repeat {times} times until face != 1 {{
    set face to d4
  }}
  result {{ face: face }}
}}
"""
            )
        )

    short = engine_for(3)
    sheet = short.sheet({"A": 0, "B": 0})
    odds = short.odds("act", sheet, {})
    assert odds.exact and odds.omitted == 0
    assert counted(odds) == action_outcomes(short, "act", sheet)
    # 40 passes: what is still 1 after 41 draws stays 1; the tail too small to follow is
    # the omitted mass
    long = engine_for(40)
    odds = long.odds("act", long.sheet({"A": 0, "B": 0}), {}, field="face")
    assert odds.exact and 0 < odds.omitted < Fraction(1, 10**12)
    stuck = Fraction(1, 4) ** 41
    for face in (2, 3, 4):
        assert odds.probability(face) == odds.probability(2)
        assert abs(odds.probability(face) - (1 - stuck) / 3) <= odds.omitted
    assert sum(odds.probabilities.values()) + odds.omitted == 1


def test_a_resource_settled_against_the_maximum_each_run_wrote():
    # Each end of the run is settled on the sheet it wrote (its resources kept within the
    # new maximum): runs that wrote the same sheet share one settling, the others not.
    text = """rulebook "Settled" {
  system "odds of a sheet field after the run"
  language "en"
}
sheet {
  attribute A in 0..6
  resource R max A
}
action act() {
  set A to d3
  gain 5 to R
  result { a: A }
}
"""
    engine = Engine(dsl.load_text(text))
    sheet = engine.sheet({"A": 1, "R": 0})
    odds = engine.odds("act", sheet, {}, field="R")
    assert odds.exact
    assert odds.probabilities == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}


@pytest.mark.parametrize("tie", ["reroll", "ours", "theirs"])
def test_the_verdict_alone_equals_brute_force(tie):
    # Only `won` is read: the odds come from the sides' keys, without a record per pair
    # of values; the same as running every sequence of dice (a tie rolled again once).
    text = (
        HEADER
        + f"""
opposed duel() {{
  roll d6 + A
  against d8
  tie {tie}
}}
action verdict() {{
  let r = duel()
  result {{ won: r.won }}
}}
"""
    )
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": 1, "B": 0})
    odds = engine.odds("verdict", sheet, {})
    assert odds.exact and odds.omitted == 0
    assert counted(odds) == action_outcomes(engine, "verdict", sheet)


ONCE_DEFINITIONS = """
formula twice(x: int) = x + x

check c(x: int = 0) "C" {
  roll d3 + A + x >= 4
}
"""


@st.composite
def read_once(draw):
    """An action of independent draws, each read once later or more often: compared,
    subtracted, summed in an `if`'s branches, passed to a formula, read in a loop, a
    list, a text, a `require`, kept in a `set`; the result reads some of them."""
    values = ["A"]  # what a statement may read
    body, dice = ["let acc = 0"], 0
    for index in range(draw(st.integers(2, 6))):
        name = f"v{index}"
        p, q = draw(st.sampled_from(values)), draw(st.sampled_from(values))
        kind = draw(
            st.sampled_from(
                ["die", "die", "check", "compare", "minus", "if", "formula", "loop", "list",
                 "text", "require", "set", "twice"]
            )
        )  # fmt: skip
        if kind in ("die", "check") and dice >= 4:
            kind = "minus"
        if kind == "die":
            dice += 1
            body.append(f"let {name} = d{draw(st.sampled_from([2, 3]))} + {p}")
        elif kind == "check":
            dice += 1
            body.append(f"let {name}r = c({p})")
            body.append(f"let {name} = {name}r.total")
        elif kind == "compare":
            body.append(f"let {name} = if {p} > {q} then 1 else 0")
        elif kind == "minus":
            body.append(f"let {name} = {p} - {q}")
        elif kind == "if":
            body.append(f"if {p} >= 3 {{ set acc to acc + {q} }} else {{ set acc to {q} - 1 }}")
            name = "acc"
        elif kind == "formula":
            body.append(f"let {name} = twice({p})")
        elif kind == "loop":
            body.append(f"repeat 2 times {{ set acc to acc + {p} }}")
            name = "acc"
        elif kind == "list":
            body.append(f"let {name} = max([{p}, {q}]) + min([{p}, 1])")
        elif kind == "text":
            body.append(f'require {q} > 2 else "{{{p}}}"')
            name = q
        elif kind == "require":
            body.append(f'require {p} != 2 else "two"')
            name = p
        elif kind == "set":
            body.append(f"set acc to {p} + {q}")
            name = "acc"
        else:
            body.append(f"let {name} = {p} + {p}")
        if name not in values:
            values.append(name)
    shown = draw(st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True))
    fields = ", ".join(f"f{i}: {v}" for i, v in enumerate(shown))
    action = "action act() {\n  " + "\n  ".join(body) + f"\n  result {{ {fields} }}\n}}\n"
    return HEADER + ONCE_DEFINITIONS + action, {"A": draw(st.integers(0, 2)), "B": 0}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(read_once())
def test_a_value_read_once_is_combined_where_it_is_read(case):
    """A draw read once later stays a distribution until that read (as a dice term
    written there would): each field alone and the whole result, against brute force."""
    text, data = case
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet(data)
    joint = action_outcomes(engine, "act", sheet)
    whole = engine.odds("act", sheet, {})
    assert whole.exact and counted(whole) == joint, text
    for field in engine.rulebook.actions["act"].body[-1].fields:
        odds = engine.odds("act", sheet, {}, field[0])
        assert odds.exact and counted(odds) == marginal(joint, field[0]), (text, field[0])


def test_two_draws_compared_are_counted_by_their_sums():
    """`a > b`, `a >= b`, `a < b`, `a <= b` of two independent rolls read once: the
    distributions combined by running sums, equal to every pair of faces."""
    for op in (">", ">=", "<", "<="):
        text = HEADER + (
            "action duel() {\n  let a = 2d6 + A\n  let b = d10\n"
            f"  let won = a {op} b\n  result {{ won: won, a: 1 }}\n}}\n"
        )
        engine = Engine(dsl.load_text(text), LIMITS)
        sheet = engine.sheet({"A": 1, "B": 0})
        joint = action_outcomes(engine, "duel", sheet)
        odds = engine.odds("duel", sheet, {}, "won")
        assert odds.exact and counted(odds) == marginal(joint, "won"), op


@pytest.mark.parametrize(
    "body",
    [
        "let p = d3 + B\n  repeat 2 times { set acc to acc + p }\n  result { f: acc }",
        "let p = d3 + B\n  for each k in [1, 2] { set acc to acc + p * k }\n  result { f: acc }",
        "let p = d3 + B\n  for each k in 1..2 { set acc to acc + p * k }\n  result { f: acc }",
        "let p = d3 + B\n  let v = twice(p)\n  result { f: v }",
        'let p = d3 + B\n  require B > 0 else "{p}"\n  result { f: 1 }',
        "let p = d3 + B\n  let v = max([p, 2]) + min([p, 3])\n  result { f: v }",
        "let p = d3 + B\n  let v = p - p\n  result { f: v }",
        "let p = d3 + B\n  if p > 1 { set acc to p } else { set acc to 0 }\n  result { f: acc }",
        "let p = d3 + B\n  let q = d3 + B\n  set acc to p\n  set acc to acc - q\n  result { f: acc }",  # noqa: E501
    ],
)
def test_a_value_read_more_than_once_is_one_value(body):
    """A draw read twice (in a loop's passes, in a formula that reads its argument
    twice, a list, a text, an `if` and its branch) is one value each time: against
    brute force, field by field."""
    text = HEADER + ONCE_DEFINITIONS + "action act() {\n  let acc = 0\n  " + body + "\n}\n"
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": 0, "B": 0})
    joint = action_outcomes(engine, "act", sheet)
    odds = engine.odds("act", sheet, {}, "f")
    assert odds.exact and counted(odds) == marginal(joint, "f"), text
