"""Encounters carry both sides' sheets from turn to turn (a resource spent, a mark left on
the rival), and roll initiative where the encounter says so: the exact chain checked
against a brute-force enumeration of every die of real runs, and samples within their
interval of it."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from dsl.errors import RulebookError
from interpreter.balance.encounters import chain as encounter_chain
from interpreter.balance.encounters.answering import encounter_odds
from interpreter.balance.encounters.description import encounter_from_data
from interpreter.balance.encounters.health_reads import may_write
from interpreter.balance.encounters.trials import play
from interpreter.dice import DiceSource
from interpreter.engine import Engine

# A caster with one point of Mana: while it lasts a zap does 1d4 and spends it, then 1d2-1.
# A brute marks its rival Dazed (rival's own blows do 1 less while dazed, once).
SPELLS = """\
rulebook "Spells" { language "en" }
sheet {
  counter Health in 0..10 default 3
  counter Mana in 0..3 default 1
  counter Dazed in 0..1 default 0
}
action zap(target: character) "Zap" {
  let strong = Mana > 0
  if strong { lose 1 from Mana }
  let weak = Dazed > 0
  if weak { set Dazed to 0 }
  let blow = if strong then d4 else d2 - 1
  result { damage: max(0, blow - (if weak then 1 else 0)) }
}
action bash(target: character) "Bash" {
  let blow = d3 - 1
  if blow = 2 { set target.Dazed to 1 }
  result { damage: blow }
}
"""


def spells(mana=1, caster=4, brute=4, rounds=3, initiative=(0, 0), engine=None) -> tuple:
    engine = engine or Engine(dsl.load_text(SPELLS, "spells.rules"))
    sheet = engine.sheet
    data = {
        "rounds": rounds,
        "health": "Health",
        "sides": {
            "caster": [
                {"name": "c", "sheet": sheet({"Health": caster, "Mana": mana}), "action": "zap",
                 "target": "target", "damage": "damage", "initiative": initiative[0]}
            ],
            "brute": [
                {"name": "b", "sheet": sheet({"Health": brute}), "action": "bash",
                 "target": "target", "damage": "damage", "initiative": initiative[1]}
            ],
        },
    }  # fmt: skip
    return engine, data


class Enumerated(DiceSource):
    """The dice of one path through every die's faces: `prefix` (face indexes) first, then
    each die's first face; `drawn` says what each die was (for the next path)."""

    def __init__(self, prefix: tuple):
        self.prefix, self.drawn = prefix, []

    def draw(self, die, position):
        k = len(self.drawn)
        index = self.prefix[k] if k < len(self.prefix) else 0
        self.drawn.append((index, die.size))
        return die.low + index if die.listed is None else die.listed[index]


def brute_force(engine, data) -> dict:
    """{(winner, rounds, state): probability}: every path of every die of real runs
    (`Engine.run`, one encounter played as a trial plays it), each weighed by its faces."""
    encounter = encounter_from_data(data, engine)
    out: dict = {}
    prefix: tuple = ()
    for _ in range(1_000_000):  # (bounded: the paths of these few dice are far fewer)
        dice = Enumerated(prefix)
        end = play(engine, encounter, dice)
        p = Fraction(1)
        for _, size in dice.drawn:
            p /= size
        out[end] = out.get(end, 0) + p
        last = max((j for j, (i, size) in enumerate(dice.drawn) if i < size - 1), default=None)
        if last is None:
            return out
        prefix = (*(i for i, _ in dice.drawn[:last]), dice.drawn[last][0] + 1)
    raise AssertionError("too many paths")


@pytest.mark.parametrize(("mana", "rounds"), [(1, 3), (2, 2), (0, 3)])
def test_the_chain_carries_the_sheets_as_an_enumeration_of_every_die_does(mana, rounds):
    engine, data = spells(mana=mana, rounds=rounds)
    answer = encounter_odds(engine, data, method="exact")
    assert answer.exact
    assert answer.tally == brute_force(engine, data)
    assert sum(answer.tally.values()) == 1


def test_a_resource_spent_in_round_one_changes_round_two():
    # one point of Mana: the caster's second zap is weaker than with two
    engine, one = spells(mana=1, rounds=2)
    _, two = spells(mana=2, rounds=2, engine=engine)
    once, twice = encounter_odds(engine, one), encounter_odds(engine, two)
    assert once.exact and twice.exact
    assert once.winners()["caster"] < twice.winners()["caster"]
    # after round one the Mana is spent in every state the chain carries on with
    spent = {s[0][1] for (w, r, s) in once.tally if r == 2}
    assert spent and all(("Mana", 0) in changed for changed in spent)
    # a mark left on the rival is carried too: some ends have the caster dazed
    assert any(("Dazed", 1) in s[0][1] for (_, _, s) in once.tally)


def test_a_sample_of_the_sheets_holds_the_exact_answer_within_its_interval():
    engine, data = spells(mana=1, rounds=3)
    exact = encounter_odds(engine, data, method="exact")
    sampled = encounter_odds(engine, data, method="sampled", trials=3000, seed=11)
    assert not sampled.exact
    for side in ("caster", "brute", None):
        low, high = sampled.interval(side)
        assert low <= exact.winners()[side] <= high, side
    low, high = sampled.rounds_interval()
    assert low <= exact.mean_rounds() <= high


def test_past_the_counted_states_it_samples_and_says_so(monkeypatch):
    # 7 x 7 healths are within 50, but with the Mana and the marks more states are met
    engine, data = spells(mana=2, rounds=4, caster=6, brute=6)
    assert encounter_odds(engine, data).exact
    monkeypatch.setattr(encounter_chain, "MAX_STATES", 50)
    answer = encounter_odds(engine, data, trials=300)
    assert not answer.exact and "more than 50 states" in str(answer.reason)


@pytest.mark.parametrize("initiative", [("1d4", "1d4"), ("1d6", 3), (0, "1d2")])
def test_a_rolled_initiative_is_exact_in_the_chain(initiative):
    engine, data = spells(mana=1, rounds=2, initiative=initiative)
    answer = encounter_odds(engine, data, method="exact")
    assert answer.exact
    assert answer.tally == brute_force(engine, data)


def test_who_acts_first_is_rolled_and_moves_the_odds():
    engine, fixed = spells(rounds=2, initiative=(0, 1))  # the brute always first
    _, rolled = spells(rounds=2, initiative=("1d20", "1d20"), engine=engine)
    first = encounter_odds(engine, fixed).winners()["caster"]
    either = encounter_odds(engine, rolled).winners()["caster"]
    assert first < either
    sampled = encounter_odds(engine, rolled, method="sampled", trials=2000, seed=3)
    low, high = sampled.interval("caster")
    assert low <= either <= high


def test_counting_once_per_pair_where_no_rule_reads_a_health_changes_nothing(monkeypatch):
    engine, data = spells(mana=2, rounds=4, caster=5, brute=5)
    once = encounter_odds(engine, data, method="exact")
    reads = encounter_chain.health_reads(engine.rulebook, encounter_from_data(data, engine))
    assert reads == ((False, False), (False, False))
    monkeypatch.setattr(encounter_chain, "health_reads", lambda book, e: ((True, True),) * 2)
    every = encounter_odds(engine, data, method="exact")
    assert every.tally == once.tally


def test_a_health_a_rule_writes_is_counted_with_it():
    dnd = dsl.load("examples/games/dnd5e.rules")  # attack: lose ... from target.'Hit Points'
    assert may_write(dnd, "Hit Points") and not may_write(dnd, "Armor Class")
    assert not may_write(dsl.load_text(SPELLS, "spells.rules"), "Health")


@pytest.mark.parametrize("method", ["exact", "sampled"])
def test_an_initiative_that_gives_no_number_is_the_projects_error(method):
    engine, data = spells(rounds=2, initiative=("2d4 - 1", 0))
    assert encounter_odds(engine, data, method=method, trials=20).exact == (method == "exact")
    for text in ('"first"', "1d6 > 3"):
        _, data = spells(rounds=2, initiative=(text, 0), engine=engine)
        with pytest.raises(RulebookError, match=r"initiative|not a number"):
            encounter_odds(engine, data, method=method, trials=20)


# A reckless blow costs its striker 1 Health: a side may fall by its own hand, both at once.
RECKLESS = """\
rulebook "Reckless" { language "en" }
sheet {
  counter Health in 0..10 default 3
}
action reckless(target: character) "Reckless blow" {
  lose 1 from Health
  let blow = d2
  result { damage: blow }
}
"""


def reckless(engine, a=3, b=2, rounds=3) -> dict:
    side = {"action": "reckless", "target": "target", "damage": "damage"}
    return {
        "rounds": rounds,
        "health": "Health",
        "sides": {
            "left": [{**side, "name": "a", "sheet": engine.sheet({"Health": a})}],
            "right": [{**side, "name": "b", "sheet": engine.sheet({"Health": b})}],
        },
    }


@pytest.mark.parametrize(("a", "b"), [(3, 2), (1, 1), (4, 3)])
def test_an_action_that_writes_its_own_health_is_counted_with_it(a, b):
    engine = Engine(dsl.load_text(RECKLESS, "reckless.rules"))
    assert may_write(engine.rulebook, "Health")
    data = reckless(engine, a, b)
    answer = encounter_odds(engine, data, method="exact")
    assert answer.tally == brute_force(engine, data)
    if (a, b) == (1, 1):  # a strikes, falls by its own hand and fells b: nobody wins
        assert answer.winners()[None] == 1 and set(answer.rounds()) == {1}


def test_a_health_written_where_no_rule_was_seen_to_is_counted_again(monkeypatch):
    # told that no rule writes Health, the chain finds out from a turn's outcome and
    # counts that actor's turns again with its health: the same answer
    from interpreter.balance.encounters import chain

    engine = Engine(dsl.load_text(RECKLESS, "reckless.rules"))
    data = reckless(engine, 4, 3)
    monkeypatch.setattr(chain, "may_write", lambda book, field: False)
    monkeypatch.setattr(chain, "may_read", lambda *a: False)
    assert chain.health_reads(engine.rulebook, encounter_from_data(data, engine)) == (
        (False, False),
        (False, False),
    )
    assert encounter_odds(engine, data, method="exact").tally == brute_force(engine, data)


def test_what_is_left_lists_the_whole_sheets_each_side_won_with():
    engine, data = spells(mana=1, rounds=3)
    answer = encounter_odds(engine, data, method="exact")
    for side in ("caster", "brute"):
        ends = answer.sheets_left(side)
        assert sum(p for _, _, p in ends) == answer.winners()[side]
        by_health: dict = {}
        for healths, _, p in ends:
            by_health[healths] = by_health.get(healths, 0) + p
        assert by_health == answer.left(side)
    # the caster's one point of Mana is spent by her first zap: gone in every end she won
    assert all(changed["c"]["Mana"] == 0 for _, changed, _ in answer.sheets_left("caster"))
    document = answer.to_json()
    first = document["sheets_left"][0]
    assert first["changed"]["c"]["Mana"] == 0
    assert (
        Fraction(document["fractions"]["/sheets_left/0/probability"])
        == (answer.sheets_left(first["side"])[0][2])
    )


def test_a_turn_with_no_rival_standing_ends_the_encounter(monkeypatch):
    # A sampled trial given a state whose other side stands no one (a start a description
    # refuses, so made here by hand) ends decided at that turn: the turn is not played
    # against a rival that is not there (the target was None, then read as an index).
    from interpreter.balance.encounters import turns
    from interpreter.dice import SeededDice

    engine, data = spells()
    encounter = encounter_from_data(data, engine)
    start = turns.start_state(encounter)
    fallen = (start[0], (0, start[1][1]))  # the brute at 0 health
    monkeypatch.setattr(turns, "start_state", lambda _encounter: fallen)
    assert play(engine, encounter, SeededDice(1)) == ("caster", 1, fallen)
