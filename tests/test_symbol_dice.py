"""Dice of symbol faces (Genesys, Star Wars FFG): declared, rolled, typed in by their
symbols, shown by them, and counted exactly (multisets) in the odds."""

from __future__ import annotations

import io
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, TypedDice, render_text
from interpreter.cli import main
from interpreter.errors import DiceError, LimitExceeded
from interpreter.symbols import SymbolDie, pool_counts
from interpreter.web.typed_answers import DieNeeded

ROOT = Path(__file__).resolve().parent.parent
GENESYS = ROOT / "examples" / "games" / "genesys.rules"
PILOT = ROOT / "examples" / "games" / "characters" / "pilot.yaml"

SMALL = """
symbols success, advantage, failure, threat
die Boost { blank, blank, success, success + advantage, 2 advantage, advantage }
die Setback { blank, blank, failure, failure, threat, threat }
check boosted(boost: int, setback: int) "Boosted" {
  let r = (boost)dBoost + (setback)dSetback
  roll r.success - r.failure >= 1
  advantage = r.advantage - r.threat
}
"""


def engine_of(text: str) -> Engine:
    return Engine(dsl.load_text(text, "dice.rules"))


def run(engine: Engine, name: str, params: dict, dice: list):
    return engine.run(name, engine.sheet({}), params, ForcedDice(dice))


def errors_of(text: str) -> list:
    with pytest.raises(RulebookError) as caught:
        dsl.load_text(text, "bad.rules")
    found = getattr(caught.value, "diagnostics", None) or [caught.value]
    return [
        (d.span.line, d.span.column, d.message)
        for d in found
        if getattr(d, "severity", "error") == "error"
    ]


# ─── a roll, and its trace ──────────────────────────────────────────────────


def test_a_pool_counts_each_symbol_and_the_trace_names_every_face():
    engine = engine_of(SMALL)
    out = run(engine, "boosted", {"boost": 2, "setback": 1}, ["success+advantage", 3, "threat"])
    assert (out.result["total"], out.result["advantage"]) == (2, 0)
    text = render_text(out.trace)
    assert "(boost)dBoost = 2dBoost [success+advantage, success] = success 2, advantage 1" in text
    assert "(setback)dSetback = 1dSetback [threat] = threat 1 (forced)" in text
    none = run(engine, "boosted", {"boost": 1, "setback": 0}, ["blank"])
    assert none.result["total"] == 0 and "[blank] = blank" in render_text(none.trace)


def test_a_face_is_typed_by_its_symbols_in_any_order_or_by_its_position():
    die = SymbolDie.of(dsl.load_text(SMALL, "d.rules").dice["Boost"], ("success", "advantage"))
    assert die.read("advantage + success") == die.read("success+advantage") == 4
    assert die.read("2 advantage") == die.read("advantage + advantage") == 5
    assert die.read("blank") == 1 and die.read(6) == 6
    for wrong in ("triumph", "3 advantage", "success-advantage", 0, 7, "", "x" * 500, True):
        assert die.read(wrong) is None, wrong
    with pytest.raises(DiceError, match=r"not a face of Boost \(blank, success, "):
        run(engine_of(SMALL), "boosted", {"boost": 1, "setback": 0}, ["3 advantage"])


def test_the_command_line_takes_faces_by_their_symbols(capsys, monkeypatch, tmp_path):
    path = tmp_path / "boost.rules"
    path.write_text(SMALL, encoding="utf-8")
    argv = ["run", str(path), "boosted", "--set", "boost=2", "--set", "setback=1"]
    assert main([*argv, "--dice", "2 advantage, blank, failure"]) == 0
    out = capsys.readouterr().out
    assert "2dBoost [advantage+advantage, blank] = advantage 2 (forced)" in out
    assert "1dSetback [failure] = failure 1 (forced)" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("success\nsucess\nadvantage\n5\n"))
    assert main([*argv, "--ask"]) == 0
    captured = capsys.readouterr()
    assert "die 1 (Boost: blank, success, success+advantage, advantage+advantage, advantage)?" in (
        captured.err
    )
    assert "'sucess' is not a face of Boost" in captured.err
    assert "2dBoost [success, advantage] = success 1, advantage 1 (typed in)" in captured.out
    assert "1dSetback [threat] = threat 1 (typed in)" in captured.out


def test_the_page_offers_a_symbol_die_by_its_faces():
    die = SymbolDie.of(dsl.load_text(SMALL, "d.rules").dice["Setback"], ("failure", "threat"))
    need = DieNeeded(die, 3).to_json()["need"]
    assert need["faces"] == ["blank", "blank", "failure", "failure", "threat", "threat"]
    assert (need["low"], need["high"], need["die"]) == (1, 6, "Setback")


def test_typed_dice_take_symbols_through_the_api():
    faces = iter(["2 advantage", "failure"])
    engine = engine_of(SMALL)
    out = engine.run(
        "boosted",
        engine.sheet({}),
        {"boost": 1, "setback": 1},
        TypedDice(lambda die, position: next(faces)),
    )
    assert (out.result["total"], out.result["advantage"]) == (-1, 2)


# ─── the checker ────────────────────────────────────────────────────────────


def test_bad_declarations_are_errors_where_they_are_written():
    found = errors_of("symbols success, advantage\ndie D { blank, sucess + advantage }\n")
    assert found == [(2, 16, "`sucess` is not a declared symbol")]
    assert errors_of("die D { blank, success }\n") == [
        (1, 5, "a die of symbols needs the symbols declared first")
    ]
    found = errors_of("symbols a, b, a\ndie D { a }\n")
    assert found == [(1, 15, "the symbol `a` is declared twice")]
    found = errors_of("symbols a\ndie D { a, a - a }\n")
    assert found == [(2, 14, "a face's symbols are joined with +, not -")]
    found = errors_of("symbols a\ndie D { 10 a }\n")
    assert found == [(2, 9, "a face shows each symbol 1 to 9 times")]
    many = ", ".join(["a"] * 101)
    found = errors_of(f"symbols a\ndie D {{ {many} }}\ncheck c() {{ roll (1dD).a }}\n")
    assert found == [(2, 5, "a die of symbols has at most 100 faces, not 101")]


def test_pools_and_their_fields_are_typed():
    head = "symbols success, failure\ndie D { blank, success, failure }\n"
    found = errors_of(head + "check c() { let r = 2dE\n roll r.success }\n")
    assert found == [(3, 21, "there is no die named `E`")]
    found = errors_of(head + "check c() { let r = 2dD + 1dE\n roll r.success }\n")
    assert found == [(3, 27, "there is no die named `E`")]  # (the sum: not said as well)
    found = errors_of(head + "check c() { let r = 2dD\n roll r.sucess }\n")
    assert found == [(4, 7, "r has no field `sucess`")]
    found = errors_of(head + "check c() { roll 2dD + 1 }\n")
    assert [m for _, _, m in found] == ["`+` works on numbers, but 2dD is symbol dice"]
    found = errors_of(head + 'check c() { let r = ("x")dD\n roll r.success }\n')
    assert [m for _, _, m in found] == ['the number of dice should be number, not the text "x"']
    book = dsl.load_text(head + "check c() { let r = 2dD + 1dD\n roll r.success - r.failure }\n")
    assert [w.message for w in book.warnings if "never used" not in w.message] == []
    assert book.checks["c"].lets[0].expr.left.die == "D"


def test_fudge_dice_stay_fudge_dice_and_a_die_may_start_with_f():
    book = dsl.load_text(
        "symbols fate\ndie Fate { blank, fate }\ncheck c() { roll (2dFate).fate + 4dF + 4dFkh2 }\n",
        "f.rules",
    )
    engine = Engine(book)
    out = engine.run(
        "c", engine.sheet({}), {}, ForcedDice(["fate", "blank", 1, 1, 1, 1, 0, 0, 1, 1])
    )
    assert out.result["total"] == 1 + 4 + 2


def test_a_pool_of_too_many_dice_is_refused_at_its_limit():
    engine = engine_of(SMALL)
    with pytest.raises(LimitExceeded):
        run(engine, "boosted", {"boost": 10**6, "setback": 0}, [])


# ─── the odds: exact, over multisets ────────────────────────────────────────


def brute_force(dice: list, function) -> dict:
    """The exact distribution of function(symbol counts), over every ordered roll."""
    counts: Counter = Counter()
    total = 0
    for roll in itertools.product(*dice):
        sums = tuple(map(sum, zip(*roll, strict=True))) if roll else None
        counts[function(sums)] += 1
        total += 1
    return {k: Fraction(v, total) for k, v in counts.items()}


faces = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=faces, second=faces, n1=st.integers(0, 3), n2=st.integers(0, 2), whole=st.booleans())
def test_exact_odds_equal_brute_force_enumeration(first, second, n1, n2, whole):
    def die(name, faces_):
        written = [
            " + ".join(f"{c} {s}" for c, s in zip(f, "ab", strict=True) if c) or "blank"
            for f in faces_
        ]
        return f"die {name} {{ {', '.join(written)} }}\n"

    # `whole`: the pool is also read whole (no sums to count): counted symbol by symbol
    extra = "  let s = r\n" if whole else ""
    text = (
        "symbols a, b\n"
        + die("P", first)
        + die("Q", second)
        + f"check c() {{\n  let r = {n1}dP + {n2}dQ\n{extra}"
        + "  roll 2 * r.a - r.b + 1\n  both = r.a * r.b\n}\n"
    )
    engine = engine_of(text)
    oracle_dice = [first] * n1 + [second] * n2

    def zero(sums):
        return sums if sums is not None else (0, 0)

    for field, function in (
        ("total", lambda s: 2 * zero(s)[0] - zero(s)[1] + 1),
        ("both", lambda s: zero(s)[0] * zero(s)[1]),
    ):
        odds = engine.odds("c", engine.sheet({}), {}, field)
        assert odds.exact and odds.probabilities == brute_force(oracle_dice, function), field


def test_the_multiset_count_equals_the_product_of_the_dice():
    faces_ = ((0, 1), (1, 0), (1, 0), (2, 1))
    for count in range(5):
        counted = pool_counts(faces_, count)
        rolled = Counter(
            tuple(map(sum, zip(*roll, strict=True))) if roll else (0, 0)
            for roll in itertools.product(faces_, repeat=count)
        )
        assert counted == dict(rolled)


# Genesys Core Rulebook, "The Dice": s success, a advantage, t triumph, f failure, h threat,
# d despair
GENESYS_DICE = {
    "Boost": ["", "", "s", "sa", "aa", "a"],
    "Setback": ["", "", "f", "f", "h", "h"],
    "Ability": ["", "s", "s", "ss", "a", "a", "sa", "aa"],
    "Difficulty": ["", "f", "ff", "h", "h", "h", "hh", "fh"],
    "Proficiency": ["", "s", "s", "ss", "ss", "a", "sa", "sa", "sa", "aa", "aa", "t"],
    "Challenge": ["", "f", "f", "ff", "ff", "h", "h", "fh", "fh", "hh", "hh", "d"],
}


def oracle(pool: dict) -> dict:
    """(net successes, net advantages) of a Genesys pool, by convolution, die by die."""
    dist = Counter({(0, 0): 1})
    total = 1
    for name, count in pool.items():
        for _ in range(count):
            after: Counter = Counter()
            for (net, adv), ways in dist.items():
                for face in GENESYS_DICE[name]:
                    step = face.count("s") + face.count("t") - face.count("f") - face.count("d")
                    after[(net + step, adv + face.count("a") - face.count("h"))] += ways
            dist = after
            total *= len(GENESYS_DICE[name])
    return {k: Fraction(v, total) for k, v in dist.items()}


def test_a_genesys_pool_of_sixteen_dice_is_exact():
    # 5 Agility and 3 Piloting: 3 Proficiency and 2 Ability, 3 Boost; Formidable (5)
    # upgraded three times: 3 Challenge and 2 Difficulty, 3 Setback. 16 dice, 6 symbols.
    engine = Engine(dsl.load(GENESYS))
    sheet = engine.sheet({"Agility": 5, "skills": {"Piloting": 3}})
    params = {"characteristic": "Agility", "skill": "Piloting", "difficulty": "Formidable"}
    params |= {"upgrades": 3, "boost": 3, "setback": 3}
    pool = {"Proficiency": 3, "Ability": 2, "Boost": 3, "Challenge": 3, "Difficulty": 2}
    expected = oracle({**pool, "Setback": 3})
    success = engine.odds("skill_check", sheet, params, "success")
    assert success.exact
    assert success.probabilities[True] == sum(p for (net, _), p in expected.items() if net >= 1)
    advantage = engine.odds("skill_check", sheet, params, "advantage")
    by_advantage: Counter = Counter()
    for (_, adv), p in expected.items():
        by_advantage[adv] += p
    assert advantage.exact and advantage.probabilities == dict(by_advantage)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=faces,
    second=faces,
    n1=st.integers(0, 3),
    n2=st.integers(0, 2),
    target=st.integers(-2, 4),
    safe=st.booleans(),
)
def test_a_built_in_field_alone_equals_brute_force(first, second, n1, n2, target, safe):
    # Asked `success`, `margin` or `total` alone, the check counts its pool by the sums its
    # roll and target read (the author's fields' own sums cut: compile.symbol_forms); a
    # field that does more than read a sum whole (`both`) keeps every sum counted.
    def die(name, faces_):
        written = [
            " + ".join(f"{c} {s}" for c, s in zip(f, "ab", strict=True) if c) or "blank"
            for f in faces_
        ]
        return f"die {name} {{ {', '.join(written)} }}\n"

    field = "  spare = r.b - r.a + 3\n" if safe else "  both = r.a * r.b\n"
    text = (
        "symbols a, b\n"
        + die("P", first)
        + die("Q", second)
        + f"check c() {{\n  let r = {n1}dP + {n2}dQ\n"
        + f"  roll 2 * r.a + 1 >= {target}\n{field}}}\n"
    )
    engine = engine_of(text)
    oracle_dice = [first] * n1 + [second] * n2

    def total(sums):
        return 2 * (sums[0] if sums is not None else 0) + 1

    for name, function in (
        ("total", total),
        ("success", lambda s: total(s) >= target),
        ("margin", lambda s: total(s) - target),
    ):
        odds = engine.odds("c", engine.sheet({}), {}, name)
        assert odds.exact and odds.probabilities == brute_force(oracle_dice, function), name
    whole = engine.odds("c", engine.sheet({}), {}, "spare" if safe else "both")
    other = (lambda s: s[1] - s[0] + 3) if safe else (lambda s: s[0] * s[1])
    expected = brute_force(oracle_dice, lambda s: other(s if s is not None else (0, 0)))
    assert whole.exact and whole.probabilities == expected


def test_a_genesys_success_alone_is_counted_by_the_net_successes_alone():
    # The 16 dice's 6,385 joint sums (net successes, net advantages, triumphs, despairs)
    # are past a budget of 1,000; the net successes alone (what `success` reads) are not.
    engine = Engine(dsl.load(GENESYS))
    sheet = engine.sheet({"Agility": 5, "skills": {"Piloting": 3}})
    params = {"characteristic": "Agility", "skill": "Piloting", "difficulty": "Formidable"}
    params |= {"upgrades": 3, "boost": 3, "setback": 3}
    expected = oracle(
        {"Proficiency": 3, "Ability": 2, "Boost": 3, "Challenge": 3}
        | {"Difficulty": 2, "Setback": 3}
    )
    success = engine.odds("skill_check", sheet, params, "success", budget=1000)
    assert success.exact
    assert success.probabilities[True] == sum(p for (net, _), p in expected.items() if net >= 1)
    advantage = engine.odds("skill_check", sheet, params, "advantage", budget=1000, seconds=0.1)
    assert not advantage.exact


MEMORY = """
rulebook "Memory" {
  system "a symbol pool counted once"
  language "en"
}
symbols hit, miss, edge
die Odd { blank, hit, hit + edge, miss, 2 hit, miss + edge, edge }
check pooled(n: int) "Pooled" {
  let r = (n)dOdd
  roll r.hit - r.miss + r.edge >= 3
}
"""


def test_a_symbol_pool_counted_before_costs_its_work_again():
    # A pool's distribution is remembered from one computation to the next (as a dice
    # term's is); its work is charged to each, so the same question gets the same form
    # of answer whatever was asked before: 12 dice need between 800 and 1,600 units.
    book = dsl.load_text(MEMORY, "memory.rules")

    def odds(budget: int):
        engine = Engine(book)
        return engine.odds("pooled", engine.sheet({}), {"n": 12}, "success", budget=budget)

    whole = odds(1600)
    assert whole.exact
    again = odds(1600)
    assert again.exact and again.probabilities == whole.probabilities
    assert not odds(800).exact
