"""Issue 30, item 7: the smaller gaps met writing real games, each with its test."""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle import action_outcomes, counted, every_roll_cut, failed, marginal
from test_outcomes import CTHULHU

import dsl
import interpreter.odds.die_loops as die_loops
from dsl.errors import RulebookError
from interpreter import ChoiceNotOpen, Engine, ForcedDice, render_text
from interpreter.cli import main
from interpreter.dice import TypedDice
from interpreter.errors import EvaluationError, ParameterError

MOMENTUM = """
rulebook "Momentum" { }
sheet { resource Momentum max 10 }
check act() "Act" { roll d6 >= 4 }
action go() "Go" {
  let c = act()
  let x = c.total
  choose burn "Burn momentum ({x} rolled, {Momentum} left)?" {
    option yes if Momentum > x cost 4 from Momentum { note "burned" }
    option no
  }
  set x to x + 1
  result { t: x }
}
"""


def momentum(value: int):
    engine = Engine(dsl.load_text(MOMENTUM))
    return engine, engine.sheet({"Momentum": value})


def test_a_choose_question_shows_its_values():
    engine, sheet = momentum(5)
    asked = []
    engine.run("go", sheet, {}, dice=ForcedDice([2]), choices=lambda q: asked.append(q) or "no")
    assert [q.label for q in asked] == ["Burn momentum (2 rolled, 5 left)?"]
    # described as written: its values are known when it runs
    (go,) = [a for a in engine.describe()["actions"] if a["name"] == "go"]
    assert go["choices"][0]["label"] == "Burn momentum ({x} rolled, {Momentum} left)?"


@pytest.mark.parametrize(
    ("points", "die", "why"),
    [(5, 6, "its condition does not hold"), (3, 1, "its cost cannot be paid")],
)
def test_a_refused_answer_says_why_and_ends_the_trace_there(points, die, why):
    engine, sheet = momentum(points)
    with pytest.raises(ChoiceNotOpen) as refused:
        engine.run("go", sheet, {}, dice=ForcedDice([die]), choices={"burn": "yes"})
    assert why in str(refused.value.message)
    text = render_text(refused.value.trace)
    assert "burn:" not in text  # not "burn: no (the only option open)", as if chosen
    assert "act" in text.lower()  # what happened before it is there


def test_a_local_set_is_in_the_working_of_the_trace():
    engine, sheet = momentum(5)
    out = engine.run("go", sheet, {}, dice=ForcedDice([3]), choices={"burn": "no"})
    assert "x = x + 1 = 4" in render_text(out.trace, verbose=True)
    assert "x + 1" not in render_text(out.trace)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("check c() {\n  let x = 1\n  set x to 2\n  roll d6 >= x\n}", "a check takes only `let`"),
        ("check c() {\n  roll d6 >= 3\n  spend 1 from X\n}", "a check takes only `let`"),
        ('opposed o() {\n  roll d6\n  against d6\n  note "x"\n}', "an opposed check takes"),
    ],
)
def test_a_statement_in_a_check_says_what_a_check_takes(body, said):
    with pytest.raises(RulebookError) as error:
        dsl.load_text('rulebook "S" { }\n' + body)
    message = str(error.value)
    assert said in message and "is a keyword" not in message


def test_a_let_after_a_checks_roll_is_shown_the_field_it_can_be():
    """Warhammer's Success Levels read the roll: a result field, not a `let`."""
    body = "check t(v: int) {\n  roll d100 <= v\n  let sl = floor(v / 10) - floor(total / 10)\n}"
    with pytest.raises(RulebookError) as error:
        dsl.load_text('rulebook "S" { }\n' + body)
    assert "after the roll, a value is a result field: `sl = …`" in str(error.value)
    assert ":4:3:" in str(error.value)


def test_a_let_never_read_is_warned_of_where_it_is_given():
    book = dsl.load_text(
        'rulebook "L" { }\nsheet { counter Luck in 0..9 default 3 }\n'
        "check c(n: int) {\n  let bonus = 2\n  let spare = 1\n  roll d20 + bonus >= n\n}\n"
        "action a(n: int) {\n  let r = (n)d6\n  let crit = count((n)d6, 6) >= 2\n"
        "  let _aside = d6\n  let total = 0\n  set total to total + 1\n"
        "  let written = 0\n  set written to 5\n"
        '  for each d in r.dice { note "{d}" }\n  result { total: total }\n}\n'
    )
    unread = [
        (w.span.line, str(w.message)) for w in book.warnings if "never read" in str(w.message)
    ]
    assert unread == [
        (5, "`spare` is given a value that is never read"),
        (10, "`crit` is given a value that is never read"),
        (14, "`written` is given a value that is never read"),  # (a `set` writes: no read)
    ]


def test_checks_and_opposed_checks_are_used_by_running_them():
    book = dsl.load_text(
        'rulebook "C" { }\ncheck under(v: int) { roll 3d6 <= v }\n'
        "opposed contest() { roll under(15)  against under(15) }\ntable T { 1: 2 }\n"
    )
    unused = [str(w.message) for w in book.warnings if "never used" in str(w.message)]
    assert unused == ["table `T` is never used"]


def test_degrees_are_listed_in_the_order_declared(tmp_path, capsys):
    path = tmp_path / "d.rules"
    path.write_text(CTHULHU, encoding="utf-8")  # critical, fumble, extreme, ... declared
    assert main(["odds", str(path), "skill", "--set", "value=50", "--field", "degree"]) == 0
    out = capsys.readouterr().out
    shown = [line.split()[0] for line in out.splitlines()[2:] if line.strip()]
    assert shown == ["critical", "fumble", "extreme", "hard", "regular", "failure"]


# Call of Cthulhu's Sanity loss "1/1d6": 1 on a success, 1d6 on a failure (issue 30)
LOSS = """
rulebook "Sanity" { }
sheet { counter San in 0..99 default 50 }
table Loss { '1/1d6': { pass: 1, fail: d6 } }
check sanity() "Sanity" { roll d10 <= San / 10 }
action act(loss: Loss = "1/1d6") "Scare" {
  let c = sanity()
  let passed = c.success
  let l = Loss[loss]
  let lost = if passed then l.pass else l.fail + l.fail - l.fail
  result { lost: lost }
}
"""


def test_a_table_cell_is_rolled_only_when_read():
    engine = Engine(dsl.load_text(LOSS))
    sheet = engine.sheet({"San": 50})
    passed = engine.run("act", sheet, {}, dice=ForcedDice([3]))  # no d6: never read
    assert passed.result["lost"] == 1
    assert "d6 [" not in render_text(passed.trace)
    failed = engine.run("act", sheet, {}, dice=ForcedDice([9, 4]))  # one d6, read twice
    assert failed.result["lost"] == 4
    asked = []

    def ask(die, index):
        asked.append(die)
        return 3

    engine.run("act", sheet, {}, dice=TypedDice(ask))
    assert len(asked) == 1  # the d10 alone: the d6 nobody needs is not asked for


def test_the_odds_of_a_cell_rolled_when_read_agree_with_every_run():
    engine = Engine(dsl.load_text(LOSS))
    sheet = engine.sheet({"San": 50})
    joint = action_outcomes(engine, "act", sheet)
    odds = engine.odds("act", sheet, {}, "lost")
    assert odds.exact and counted(odds) == marginal(joint, "lost")
    assert marginal(joint, "lost")[1] == Fraction(1, 2) + Fraction(1, 12)


# a pool chosen by a condition is a pool (exploding or not): its dice, its questions
POOLS = """
rulebook "Pools" { }
roll explode(n: int) = (n)d10x
action act(c: bool, d: bool) "Act" {
  let r = if c then 2d4x else if d then explode(1) else 2d4
  result { top: highest(r), tens: count(r, 4), sets: r.sets, total: r.total }
}
"""


@pytest.mark.parametrize(
    ("c", "d", "dice", "top"),
    [(True, False, [4, 2, 1], 4), (False, True, [10, 3], 10), (False, False, [3, 2], 3)],
)
def test_a_pool_valued_if_is_a_pool(c, d, dice, top):
    book = dsl.load_text(POOLS)
    assert book.warnings == ()
    engine = Engine(book)
    out = engine.run("act", engine.sheet({}), {"c": c, "d": d}, dice=ForcedDice(dice))
    assert out.result["top"] == top and out.result["total"] == sum(dice)


ITEMS = """
rulebook "Items" { }
sheet { list Gear }
action act(n: text = "12") "Act" {
  let s = 4d4.sorted
  let rest = without(s, s[1])
  result { low: s[1], high: s[-1], rest: sum(rest), gear: join(Gear, ", "), n: number(n) + 1 }
}
"""


def test_an_item_by_position_a_list_without_one_texts_joined_and_read():
    engine = Engine(dsl.load_text(ITEMS))
    sheet = engine.sheet({"Gear": ["rope", "lamp"]})
    out = engine.run("act", sheet, {"n": "-1.5"}, dice=ForcedDice([3, 1, 4, 1]))
    assert out.result == {
        "low": 1,
        "high": 4,
        "rest": 8,
        "gear": "rope, lamp",
        "n": Fraction(-1, 2),
    }
    # 4d4, the lowest dropped: exact, as every run
    joint = action_outcomes(engine, "act", sheet)
    odds = engine.odds("act", sheet, {}, "rest")
    assert odds.exact and counted(odds) == marginal(joint, "rest")


LET_ITEMS = """
rulebook "Let items" { }
action act() "Act" {
  let l = [4, 5, 6]
  let x = l[2]
  let r = 3d6
  let low = r.sorted[1]
  let last = r.dice[-1]
  result { x: x, low: low, last: last }
}
"""


def test_a_let_may_hold_an_item_of_a_list():
    # (a `let` of an item once failed to compile: a KeyError, not a rulebook's error)
    engine = Engine(dsl.load_text(LET_ITEMS))
    sheet = engine.sheet({})
    out = engine.run("act", sheet, {}, dice=ForcedDice([2, 5, 1]))
    assert out.result == {"x": 5, "low": 1, "last": 1}
    odds = engine.odds("act", sheet, {}, "last")
    assert odds.exact and odds.probabilities == {face: Fraction(1, 6) for face in range(1, 7)}


def test_an_item_added_to_a_list_of_dice_the_odds_kept_whole():
    # (`[d6]` not read before the `add`: the odds engine held it as the distribution of its
    # lists, which the add spread as a list: a TypeError, found by test_fuzz_runs)
    book = dsl.load_text(
        'rulebook "Add" { }\naction act() {\n  let l = [d6]\n  add 1 to l\n'
        "  set l to []\n  result { n: size(l) }\n}\n"
        "action grown() {\n  let l = [d6]\n  add 1 to l\n  result { n: sum(l) }\n}\n"
    )
    engine = Engine(book)
    sheet = engine.sheet({})
    assert engine.odds("act", sheet, {}, "n").probabilities == {0: 1}
    grown = engine.odds("grown", sheet, {}, "n")
    assert grown.exact and grown.probabilities == {n: Fraction(1, 6) for n in range(2, 8)}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("s[5]", "no item at 5"),
        ("s[size(s) - 4]", "no item at 0"),  # (a 0 written is refused when checked)
        ('number("abc")', "'abc' is not a number"),
    ],
)
def test_a_bad_item_or_number_is_an_error_at_its_place(text, said):
    book = dsl.load_text(ITEMS.replace("sum(rest)", text))
    engine = Engine(book)
    with pytest.raises(RulebookError) as error:
        engine.run("act", engine.sheet({}), {}, dice=ForcedDice([3, 1, 4, 1]))
    assert said in str(error.value.message) and error.value.span.line == 7


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('join(3, ", ")', "takes a list first"),
        ("number(3)", "reads a text as a number"),
        ('s["a"]', "a position in a list"),
        ("without(s)", "without takes 2 argument(s)"),
        ("s[0]", "a list has no item at 0"),
    ],
)
def test_lists_and_texts_are_typed_by_the_checker(text, said):
    with pytest.raises(RulebookError) as error:
        dsl.load_text(ITEMS.replace("sum(rest)", text))
    assert said in str(error.value)


# Star Wars D6's Wild Die: a die that explodes, read in the order rolled
WILD = """
rulebook "Wild" { }
action act() "Act" {
  let wild = 2d4x
  result { first: wild.dice[1], last: wild.dice[-1], total: wild }
}
"""


def test_the_odds_of_an_exploding_dies_faces_follow_the_chain_to_epsilon():
    """`.dice` of an exploding pool is walked roll by roll: the chains are followed
    until less than epsilon is left out (the walk went to the limit and failed)."""
    engine = Engine(dsl.load_text(WILD))
    sheet = engine.sheet({})

    def run(dice):
        try:
            return engine.run("act", sheet, {}, dice=dice).result
        except EvaluationError as error:
            return failed(error)

    joint, cut = every_roll_cut(run, 12)
    odds = engine.odds("act", sheet, {})
    assert odds.exact and 0 < odds.omitted < Fraction(1, 10**12)
    found = counted(odds)
    for outcome, p in joint.items():  # each within what either side left out
        assert abs(found.get(outcome, 0) - p) <= cut + odds.omitted
    first = engine.odds("act", sheet, {}, "first")
    assert {k: round(v, 9) for k, v in counted(first).items()} == dict.fromkeys(range(1, 5), 0.25)


def test_a_pool_read_in_the_order_rolled_is_walked_once(monkeypatch):
    """Each world of `r.dice[1]` replays the `let`: the walk of every roll is made once
    (it was made again in each of 1,296 worlds: 20 s for 4d6)."""
    import interpreter.odds.questions as questions

    walks = []

    def counting(run, limits, **options):
        walks.append(1)
        return questions_walk(run, limits, **options)

    questions_walk = questions.enumerate_draws
    monkeypatch.setattr(questions, "enumerate_draws", counting)
    text = (
        'rulebook "W" { }\n'
        "action act() { let r = 3d6\n result { first: r.dice[1], top: highest(r) } }"
    )
    engine = Engine(dsl.load_text(text))
    sheet = engine.sheet({})
    odds = engine.odds("act", sheet, {})
    assert odds.exact and counted(odds) == action_outcomes(engine, "act", sheet)
    assert len(walks) == 1


def test_a_skill_of_the_open_list_read_by_its_name_says_how_it_is_read():
    text = (
        'rulebook "M" { }\nsheet {\n  counter Strength in 0..99\n  skills in 0..30\n}\n'
        'action lift() "Lift" { let v = Strength + Athletics\n result { v: v } }\n'
    )
    with pytest.raises(RulebookError) as error:
        dsl.load_text(text)
    said = str(error.value)
    assert "unknown name `Athletics`" in said and "a parameter of type skill" in said
    with pytest.raises(RulebookError) as error:  # no open list: no such hint
        dsl.load_text(text.replace("  skills in 0..30\n", ""))
    assert "parameter of type skill" not in str(error.value)


def test_a_skill_not_given_keeps_its_name_in_the_checks_working():
    """`if skill = none then 0 else skill * 2`: the term read `if none = none ...`."""
    text = (
        'rulebook "T" { language "en" }\nsheet { skills in 0..5 default 0 }\n'
        'check attack(skill: skill = none) "Roll" {\n'
        "  roll d20 + (if skill = none then 0 else skill * 2) >= 12\n}\n"
        "action act() { let r = attack()  result { hit: r.success } }\n"
        'action sneak() { let r = attack("Stealth")  result { hit: r.success } }\n'
    )
    engine = Engine(dsl.load_text(text))
    sheet = engine.sheet({"skills": {"Stealth": 2}})
    out = engine.run("act", sheet, {}, dice=ForcedDice([15]))
    verbose = render_text(out.trace, verbose=True)  # (the line itself: the value alone)
    assert "(if skill = none then 0 else skill * 2) 0 = 15 vs 12" in verbose
    given = engine.run("sneak", sheet, {}, dice=ForcedDice([15]))  # the skill it names
    verbose = render_text(given.trace, verbose=True)
    assert "(if Stealth = none then 0 else Stealth * 2) 4 = 19 vs 12" in verbose
    assert "d20 [15] + 4 = 19 vs 12" in render_text(given.trace)


IN_ORDER = """rulebook "In order" { }
sheet { counter Skill in 1..6 default 4 }
action act() "Act" {
  let r = 7d6
  let hits = 0
  for each d in r.DICE { if d <= Skill { set hits to hits + 1 } }
  result { hits: hits }
}
"""


@pytest.mark.parametrize("read", ["dice", "sorted", "dice walked"])
def test_a_pool_read_in_order_past_the_bound_says_what_is_counted_otherwise(monkeypatch, read):
    # 7d6 in the order rolled is more ways than the walk takes: walked (die by die off,
    # interpreter.odds.die_loops), sampled, saying that .sorted is counted whatever the
    # order (and it is: exact, the binomial); die by die, exact too
    if read == "dice walked":
        monkeypatch.setattr(die_loops, "DIE_BY_DIE", False)
    engine = Engine(dsl.load_text(IN_ORDER.replace("DICE", read.split()[0])))
    odds = engine.odds("act", engine.sheet({}), field="hits", trials=100, seed=1)
    if read == "dice walked":
        assert not odds.exact and ".sorted" in odds.note and "order rolled" in odds.note
    else:
        assert odds.exact
        assert odds.probabilities[7] == Fraction(2, 3) ** 7


@pytest.mark.parametrize(
    ("expression", "message", "hint"),
    [
        ("len([1, 2])", "unknown function `len`", "here, write size(list)"),
        ("str(3)", "unknown function `str`", 'here, write "{x}"'),
        ("sorted([3, 1])", "unknown function `sorted`", "lowest(list, size(list))"),
        ("[1, 2].length", "has no fields", "here, write size([1, 2])"),
    ],
)
def test_another_languages_function_says_ours(expression, message, hint):
    text = f'rulebook "F" {{ }}\naction a() {{\n  result {{ x: {expression} }}\n}}\n'
    with pytest.raises(RulebookError) as error:
        dsl.load_text(text)
    assert message in str(error.value) and hint in str(error.value)


def test_a_text_in_single_quotes_says_texts_take_double_quotes():
    text = "rulebook \"Q\" { }\naction a() {\n  result { x: 'hello' }\n}\n"
    with pytest.raises(RulebookError) as error:
        dsl.load_text(text)
    assert "unknown name `hello`" in str(error.value)
    assert 'a text is written in double quotes: "hello"' in str(error.value)


def test_a_result_inside_a_branch_says_how_to_give_one_result():
    text = (
        'rulebook "r" {\n  language "en"\n}\n'
        'action a() "a" {\n  if d6 > 3 {\n    result { hit: yes }\n  }\n  result { hit: no }\n}\n'
    )
    with pytest.raises(RulebookError) as caught:
        dsl.load_text(text)
    (error,) = caught.value.diagnostics
    assert "last statement" in str(error.message) and error.span.line == 6
    assert "let the branches `set` what differs" in str(error.hint)


def test_a_wrong_tie_rule_lists_each_allowed_word_once():
    text = (
        'rulebook "r" {\n  language "en"\n}\n'
        'check c() "c" { roll d6 }\n'
        'opposed o() "o" {\n  roll c()\n  against c()\n  tie against\n}\n'
    )
    with pytest.raises(RulebookError) as caught:
        dsl.load_text(text)
    hint = str(caught.value.hint)
    assert hint == "expected none, reroll, ours or theirs"


OPEN_SKILLS = """rulebook "r" {\n  language "en"\n}
sheet {\n  skills in 0..99 default 0\n}
check skill_roll(skill: skill) "Skill roll" {\n  roll d100 <= skill\n}
"""


@pytest.mark.parametrize("given", [50, "50", "-3"])
def test_an_open_skill_given_as_a_number_is_refused_not_read_as_a_name(given):
    engine = Engine(dsl.load_text(OPEN_SKILLS))
    sheet = engine.sheet({})
    with pytest.raises(ParameterError) as caught:
        engine.run("skill_roll", sheet, {"skill": given}, dice=ForcedDice([1]))
    assert "a skill's name" in str(caught.value.hint)
    named = engine.run("skill_roll", sheet, {"skill": "Spot Hidden"}, dice=ForcedDice([1]))
    assert named.result.target == 0  # (any name: the open list's default)


def _warmed() -> tuple:
    """An engine whose action has run (its own fast entry made), and a sheet of it."""
    engine = Engine(dsl.load_text(OPEN_SKILLS))
    sheet = engine.sheet({})
    for _ in range(3):
        engine.run("skill_roll", sheet, {"skill": "Spot"})
    return engine, sheet


def _asked_every_way(engine, sheet, **given) -> list:
    """A run fast, traced and on a new engine, given `sheet` and `given` (its dice)."""
    params = {"skill": "Spot"}
    return [
        lambda: engine.run("skill_roll", sheet, params, **given),
        lambda: engine.run("skill_roll", sheet, params, trace=True, **given),
        lambda: Engine(engine.rulebook).run("skill_roll", sheet, params, **given),
    ]


@pytest.mark.parametrize("given", [{}, None, "hero.yaml"])
def test_a_run_or_odds_against_something_not_a_sheet_says_how_to_make_one(given):
    engine, _ = _warmed()
    asks = _asked_every_way(engine, given)
    asks.append(lambda: engine.odds("skill_roll", given, {"skill": "Spot"}))
    for ask in asks:
        with pytest.raises(TypeError, match=r"a run needs a Sheet, not \w+: make one with"):
            ask()


@pytest.mark.parametrize("given", [[1], (1, 2), 42, "1,2"])
def test_a_run_given_dice_that_cannot_draw_says_what_dice_are(given):
    """`dice=[5]` from an app: it said `'list' object has no attribute 'draw'`."""
    engine, sheet = _warmed()
    for ask in _asked_every_way(engine, sheet, dice=given):
        with pytest.raises(TypeError, match=r"dice must be a dice source, not \w+: ForcedDice"):
            ask()


def test_a_float_parameter_says_how_to_give_its_number_exactly():
    """`{"skill": 41.5}` from an app: a float is not exact (0.1 is not 1/10); the hint says
    what to give instead, and the text it suggests is read exactly."""
    from fractions import Fraction

    from interpreter.errors import ParameterError

    engine = Engine(dsl.load_text("action a(x: number) { result { x: x } }\n", "f.rules"))
    sheet = engine.sheet({})
    with pytest.raises(ParameterError) as caught:
        engine.run("a", sheet, {"x": 41.5})
    assert caught.value.hint == 'give an int, a Fraction or a text, as in "41.5"'
    assert engine.run("a", sheet, {"x": "41.5"}).result["x"] == Fraction(83, 2)


def test_a_missing_parameter_lists_what_it_takes():
    """`rulebook run mothership.rules check` without `--set stat=...`: the hint said
    `--set stat=VALUE` and nothing of what VALUE may be."""
    engine = Engine(
        dsl.load_text(
            'rulebook "M" { language "en" }\n'
            "sheet { attribute Strength, Speed, Intellect in 0..99 default 30 }\n"
            'check c(stat: attribute, edge: normal | plus | minus, dc: int) "C" {\n'
            "  roll d100 < stat + dc\n}\n",
            "m.rules",
        )
    )
    sheet = engine.sheet({})
    hints = {}
    for given in ({}, {"stat": "Speed"}, {"stat": "Speed", "edge": "plus"}):
        with pytest.raises(ParameterError) as caught:
            engine.run("c", sheet, given)
        hints[len(given)] = str(caught.value.hint)
    assert hints[0].endswith("--set stat=VALUE, one of Strength, Speed, Intellect")
    assert hints[1].endswith("--set edge=VALUE, one of normal, plus, minus")
    assert hints[2].endswith("--set dc=VALUE")  # (a number: any)
