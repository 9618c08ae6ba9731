"""Whole encounters (interpreter.balance): the exact chain against an independent count,
samples within their interval of it, the same numbers on 1 worker or 2, bad input refused
with the project's errors."""

from __future__ import annotations

import json
import re
import shlex
from fractions import Fraction
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

import dsl
from dsl.errors import RulebookError
from interpreter.balance.encounters import chain as encounter_chain
from interpreter.balance.encounters.answering import encounter_odds, wilson
from interpreter.balance.encounters.health_reads import may_read
from interpreter.cli import main
from interpreter.engine import Engine
from interpreter.errors import ParameterError
from interpreter.json_data import schema, schemas

# A tiny game: a blow of 1d3-1 damage (0, 1 or 2), or 1d2 with a heavy weapon when the
# striker is wounded (health 1): the odds of a turn depend on the state.
TINY = """\
rulebook "Tiny" { language "en" }
sheet {
  counter Health in 0..10 default 3
  counter Heavy in 0..1 default 0
}
action strike() "Strike" {
  let blow = if Heavy = 1 and Health = 1 then d2 else d3 - 1
  result { damage: blow }
}
"""


def healths_of(tally: dict) -> dict:
    """A tally's states as healths alone, where nothing else on the sheets changed."""
    out: dict = {}
    for (winner, rounds, state), p in tally.items():
        assert all(changed == () for _, changed in state)
        key = (winner, rounds, tuple(health for health, _ in state))
        out[key] = out.get(key, 0) + p
    return out


def tiny_engine():
    return Engine(dsl.load_text(TINY, "tiny.rules"))


def tiny(engine, a=2, b=3, heavy=1, rounds=4) -> dict:
    sheet = engine.sheet
    side = {"action": "strike", "damage": "damage"}
    return {
        "rounds": rounds,
        "health": "Health",
        "sides": {
            "left": [{**side, "name": "a", "sheet": sheet({"Health": a, "Heavy": heavy})}],
            "right": [{**side, "name": "b", "sheet": sheet({"Health": b})}],
        },
    }


def blows(health: int, heavy: int) -> dict:
    """The tiny game's damage distribution, written out by hand from its rules."""
    if heavy and health == 1:
        return {1: Fraction(1, 2), 2: Fraction(1, 2)}
    return {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)}


def brute(a: int, b: int, heavy: int, rounds: int) -> dict:
    """{(winner, round, (a, b)): probability}, by recursion over every turn's blows."""

    @cache
    def walk(a, b, round_number, turn):
        if round_number > rounds:
            return {(None, rounds, (a, b)): Fraction(1)}
        out: dict = {}
        striker_health, striker_heavy = (a, heavy) if turn == 0 else (b, 0)
        for damage, p in blows(striker_health, striker_heavy).items():
            na, nb = (a, max(0, b - damage)) if turn == 0 else (max(0, a - damage), b)
            if nb == 0 or na == 0:
                ends = {("left" if nb == 0 else "right", round_number, (na, nb)): Fraction(1)}
            else:
                ends = walk(na, nb, round_number + (turn == 1), 1 - turn)
            for key, q in ends.items():
                out[key] = out.get(key, 0) + p * q
        return out

    return walk(a, b, 1, 0)


@pytest.mark.parametrize(("a", "b", "heavy", "rounds"), [(2, 3, 1, 4), (1, 1, 1, 1), (3, 2, 0, 6)])
def test_the_chain_equals_an_independent_count(a, b, heavy, rounds):
    engine = tiny_engine()
    answer = encounter_odds(engine, tiny(engine, a, b, heavy, rounds), method="exact")
    assert answer.exact and answer.reason is None
    assert healths_of(answer.tally) == brute(a, b, heavy, rounds)
    assert sum(answer.winners().values()) == 1
    assert sum(answer.rounds().values()) == 1


def test_the_state_changes_the_odds():
    # with the heavy weapon when wounded, "a" never misses at health 1: the answer moves
    engine = tiny_engine()
    light = encounter_odds(engine, tiny(engine, heavy=0), method="exact").winners()
    heavy = encounter_odds(engine, tiny(engine, heavy=1), method="exact").winners()
    assert heavy["left"] > light["left"]


def test_a_sample_holds_the_exact_answer_within_its_interval():
    engine = tiny_engine()
    exact = encounter_odds(engine, tiny(engine), method="exact")
    sampled = encounter_odds(engine, tiny(engine), method="sampled", trials=3000, seed=5)
    assert not sampled.exact and sampled.trials == 3000
    for side in ("left", "right", None):
        low, high = sampled.interval(side)
        assert low <= exact.winners()[side] <= high, side
    low, high = sampled.rounds_interval()
    assert low <= exact.mean_rounds() <= high


def test_wilson_interval_of_a_known_case():
    # 0 successes in 100: the interval still has room above 0 (not the Wald's [0, 0])
    low, high = wilson(Fraction(0), 100)
    assert low < 1e-12 and 0.03 < high < 0.04


def tiny_files(folder) -> dict:
    """The tiny game's rulebook and two sheets as files, and an encounter's data of them."""
    (folder / "tiny.rules").write_text(TINY, encoding="utf-8")
    (folder / "a.yaml").write_text("rulebook: tiny\nHealth: 3\nHeavy: 1\n", encoding="utf-8")
    (folder / "b.yaml").write_text("rulebook: tiny\nHealth: 4\n", encoding="utf-8")
    side = {"action": "strike", "damage": "damage"}
    return {
        "rulebook": "tiny.rules",
        "health": "Health",
        "sides": {"L": [{**side, "sheet": "a.yaml"}], "R": [{**side, "sheet": "b.yaml"}]},
    }


def test_one_worker_or_two_give_the_same_numbers(tmp_path):
    data = tiny_files(tmp_path)
    engine = Engine(dsl.load(tmp_path / "tiny.rules"))
    asked = {"folder": tmp_path, "method": "sampled", "trials": 1200}
    one = encounter_odds(engine, data, seed=3, workers=1, **asked)
    seen = []
    two = encounter_odds(
        engine, data, seed=3, workers=2, progress=lambda *p: seen.append(p), **asked
    )
    assert one.tally == two.tally
    assert seen[-1] == (3, 3)  # three tasks of TASK_TRIALS
    other = encounter_odds(engine, data, seed=4, workers=1, **asked)
    assert other.tally != one.tally  # the seed is used


def test_a_dask_cluster_gives_the_same_numbers(tmp_path):
    distributed = pytest.importorskip("distributed")
    data = tiny_files(tmp_path)
    engine = Engine(dsl.load(tmp_path / "tiny.rules"))
    asked = {"folder": tmp_path, "method": "sampled", "trials": 1200, "seed": 9}
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        on_cluster = encounter_odds(engine, data, scheduler=cluster.scheduler_address, **asked)
    assert on_cluster.tally == encounter_odds(engine, data, workers=1, **asked).tally


def test_past_a_limit_it_samples_and_says_why(monkeypatch):
    engine = tiny_engine()
    monkeypatch.setattr(encounter_chain, "MAX_TURN_ODDS", 2)
    answer = encounter_odds(engine, tiny(engine), trials=200)
    assert not answer.exact and "turns to count" in str(answer.reason)
    with pytest.raises(ParameterError, match="cannot be counted exactly"):
        encounter_odds(engine, tiny(engine), method="exact")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("sides"), "exactly two sides"),
        (lambda d: d["sides"].update(third=d["sides"]["left"]), "exactly two sides"),
        (lambda d: d.update(rounds=10**6), "rounds"),
        (lambda d: d.update(rounds="many"), "rounds"),
        (lambda d: d.update(speed=3), "unknown key"),
        (lambda d: d["sides"]["left"][0].update(action="fly"), "not an action"),
        (lambda d: d["sides"]["left"][0].update(params={"x": [1]}), "plain values"),
        (lambda d: d["sides"]["left"][0].update(damage=3), "damage"),
        (lambda d: d["sides"]["left"][0].update(initiative=[1]), "initiative"),
        (lambda d: d["sides"]["left"][0].update(sheet="/nowhere.yaml"), "no file"),
        (lambda d: d["sides"].update(left=[]), "a list of combatants"),
        (lambda d: d["sides"]["right"][0].update(name="a"), "two combatants"),
        (lambda d: d.update(health="Heavy", falls_at=5), "Heavy"),
    ],
)
def test_bad_descriptions_are_the_projects_errors(change, message):
    engine = tiny_engine()
    data = tiny(engine)
    change(data)
    with pytest.raises(ParameterError, match=message):
        encounter_odds(engine, data, method="exact")


def test_a_damage_that_is_not_a_number_is_refused():
    engine = tiny_engine()
    data = tiny(engine)
    data["sides"]["left"][0]["damage"] = "nothing"
    with pytest.raises(RulebookError, match="nothing"):
        encounter_odds(engine, data, trials=10)


def valid(document: dict) -> dict:
    """The document, checked against its shipped JSON Schema."""
    registry = Registry().with_resources(
        (id_, Resource.from_contents(contents)) for id_, contents in schemas().items()
    )
    validator = jsonschema.Draft202012Validator(schema(document["kind"]), registry=registry)
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(document)]
    assert not errors, errors[:5]
    return document


def test_the_command_line_speaks_json_and_errors(tmp_path, capsys):
    assert main(["encounter", "examples/games/encounters/duel.yaml", "--json"]) == 0
    data = valid(json.loads(capsys.readouterr().out))
    assert data["method"] == "exact" and data["reason"] is None and data["trials"] is None
    exact = [Fraction(data["fractions"][f"/winners/{i}/probability"]) for i in range(3)]
    assert sum(exact) == 1
    assert [w["side"] for w in data["winners"]] == ["hero", "goblin", None]
    args = ["encounter", "examples/games/encounters/duel.yaml", "--json", "--sampled"]
    assert main([*args, "--trials", "300", "--seed", "2"]) == 0
    data = valid(json.loads(capsys.readouterr().out))
    assert data["method"] == "sampled" and data["trials"] == 300 and data["fractions"] == {}
    low, high = data["winners"][0]["interval"]
    assert low <= data["winners"][0]["probability"] <= high
    bad = tmp_path / "bad.yaml"
    bad.write_text("rulebook: brujeria\nsides: {}\n", encoding="utf-8")
    assert main(["encounter", str(bad), "--json"]) == 2
    assert valid(json.loads(capsys.readouterr().out))["error"]["code"] == "invalid_parameter"
    assert main(["encounter", str(tmp_path / "none.yaml")]) == 3
    assert "cannot be read" in capsys.readouterr().err


PAGE = Path(__file__).resolve().parent.parent / "docs" / "encounters.md"


def page_commands() -> list:
    """(argv, the lines shown under it) of every `$ rulebook` command on docs/encounters.md."""
    blocks = re.findall(r"^```console\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.S | re.M)
    out = []
    for block in blocks:
        command, *lines = block.splitlines()
        argv = shlex.split(command.removeprefix("$ "))
        assert argv[0] == "rulebook"
        out.append((argv[1:], lines))
    return out


def test_the_page_shows_its_commands():
    assert len(page_commands()) == 5


@pytest.mark.parametrize(("argv", "shown"), page_commands())
def test_every_command_on_the_page_prints_what_it_shows(argv, shown, capsys):
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[: len(shown)] == shown


def test_which_rules_read_a_health():
    dnd = dsl.load("examples/games/dnd5e.rules")
    assert not may_read(dnd, "Hit Points", "damage")  # written by `lose`, shown in a result
    assert may_read(dnd, "Hit Points", "hit_points")  # the result field taken reads it
    assert may_read(dnd, "Hit Points", "damage", (("how", "Hit Points"),))  # given as a value
    assert may_read(dsl.load("brujeria"), "Vida", "daño")  # the wound penalty: Vida < 6
    assert may_read(tiny_engine().rulebook, "Health", "damage")  # Heavy = 1 and Health = 1
    by_parameter = TINY.replace("action strike()", "action strike(r: counter = none)")
    assert may_read(dsl.load_text(by_parameter.replace("Health = 1", "Heavy = 1")), "Health", "x")
    only_lost = TINY.replace("and Health = 1", "").replace(
        "  result", "  lose 1 from Health\n  result"
    )
    assert not may_read(dsl.load_text(only_lost), "Health", "damage")


def brute_many(people: list, rounds: int) -> dict:
    """Any number of combatants (name, side, health, heavy, initiative), written out from
    the rules of a turn on their own: the order by initiative then the file's, the rival
    struck the first standing in the file's order; {(winner, round, healths in the
    file's order): probability}."""
    order = sorted(range(len(people)), key=lambda i: (-people[i][4], i))

    @cache
    def walk(healths, round_number, turn):
        if round_number > rounds:
            return {(None, rounds, healths): Fraction(1)}
        actor = order[turn]
        after_turn = (round_number + (turn == len(order) - 1), (turn + 1) % len(order))
        if healths[actor] <= 0:
            return walk(healths, *after_turn)
        side = people[actor][1]
        target = next(i for i, p in enumerate(people) if p[1] != side and healths[i] > 0)
        out: dict = {}
        for damage, p in blows(healths[actor], people[actor][3]).items():
            hit = list(healths)
            hit[target] = max(0, hit[target] - damage)
            up = {people[i][1] for i in range(len(people)) if hit[i] > 0}
            if len(up) == 1:
                ends = {(up.pop(), round_number, tuple(hit)): Fraction(1)}
            else:
                ends = walk(tuple(hit), *after_turn)
            for key, q in ends.items():
                out[key] = out.get(key, 0) + p * q
        return out

    return walk(tuple(p[2] for p in people), 1, 0)


def test_two_against_one_in_initiative_order_equals_an_independent_count():
    engine = tiny_engine()
    people = [("x", "L", 2, 1, 0), ("y", "L", 1, 0, 5), ("z", "R", 4, 1, 2)]
    sides: dict = {"L": [], "R": []}
    for name, side, health, heavy, initiative in people:
        sheet = engine.sheet({"Health": health, "Heavy": heavy})
        sides[side].append(
            {"name": name, "sheet": sheet, "action": "strike", "damage": "damage",
             "initiative": initiative}
        )  # fmt: skip
    data = {"rounds": 5, "health": "Health", "sides": sides}
    answer = encounter_odds(engine, data, method="exact")
    assert healths_of(answer.tally) == brute_many(people, 5)
    assert answer.names == ("x", "y", "z")  # listed in the file's order


def test_undecided_rounds_agree_in_number_in_both_languages():
    from interpreter.cli.encounter import undecided

    assert undecided(1).render("es") == "sin decidir tras 1 asalto"
    assert undecided(3).render("es") == "sin decidir tras 3 asaltos"
    assert undecided(1).render(None) == "undecided after 1 round"
    assert undecided(3).render(None) == "undecided after 3 rounds"
