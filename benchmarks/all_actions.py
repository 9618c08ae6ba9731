"""Exact odds of every action of the shipped rulebooks and example games, with each character.

    python benchmarks/all_actions.py                 # every case, one line each
    python benchmarks/all_actions.py --only brujeria --only pulso
    python benchmarks/all_actions.py --budget 20000 --slowest 10
    python benchmarks/all_actions.py --part examples --no-fields

The rulebooks (`rulebooks/*.rules`, house rules included) and the characters
(`rulebooks/characters/*`, each naming its game with `rulebook:`) are read from the tree
as they are when this runs: a house rule's game is the rulebook it extends. A required
parameter takes the value the every-action tests give it (the module-level tables
`CLI_*` of tests/test_rulebook_*.py, which the project keeps as the sensible parameters of
each action), else one derived from its declaration (a choice list's first value, a
table's first key, 1, no, an empty list).

Each case is timed twice over: `Engine.odds(action, sheet, params)`, the distribution of
the whole result record (every field at once: for an action reporting several
independent rolls, a joint of many outcomes), and the distribution of each result field
on its own (`Engine.odds(..., field)`, as `rulebook odds --field` gives it). Times are
CPU time (`time.process_time`, so that a busy machine taking the CPU
away does not count), the rulebook's parse, compile and the sheet's load not counted.
A parameter naming an entry of the character's catalog that this character lacks takes
the first entry the character has; without one, the case cannot be asked (`n/a`).
A line per case: the whole result's time, `exact` or `SAMPLED` (the exact computation
went over its budget and the engine sampled) or the error, and how many outcomes (or, for
a joint of more than interpreter.odds.marginals.JOINT_OUTCOMES, `N fields`: the whole
result answered field by field, each field's exact distribution on its own); then
the slowest field's time, and whether every field was exact. The summaries: how many
are exact, the median and the worst time, and how many took 1 s or more.
Targets (issue 12): all exact, each under 1 s, the median under 50 ms.

`--variants`: each shipped case again once per other value of each parameter that has a
list of values (a choice list, yes/no, a group, a table's keys, a ladder's steps, an
entry of the character's catalog; one parameter at a time, the others as above): the
whole result only, a line for each variant that is not exact or takes 100 ms or more,
and the summaries (`shipped variants`). Target (issue 24): every variant exact, the worst
under 0.3 s, each whole result with one exploration past the joint's try (the line's
`expl.`: the explorations the answer made).

After the shipped rulebooks, the example games (`--part` asks for one part only): the
five of `examples/games/*.rules` (their characters in `examples/games/characters/`, each
naming its game with `rulebook:`), then the seven of `examples/*.rules`, which have no
character (an empty sheet; `n/a` if the rulebook's sheet needs something given). Of
these, every action, check and opposed check is a case (the label names a check's or an
opposed check's kind), with the parameters of `EXAMPLE_PARAMETERS` (the values the tests
of those games and the README use), else derived as above; a parameter of kind
`character` takes another character of the game (the first other one; itself when the
game has one). An action's choices (`choose`) are answered as its tests answer them
(`EXAMPLE_CHOICES`), and each action with a choice is a case once more with its choices
played at their best for a goal (`EXAMPLE_GOALS`; the label says `best`, the line the
goal). A house rule among them (`extends`) takes its game's characters and the parameters
of its game's tests, as the shipped cases do. Then (`--part recipes`) the rulebook of each
section of docs/recipes.md, asked the same way (`RECIPE_*`: the page's own values; the
sheet its defaults, a `character` the same sheet). Each part has its own summaries.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import statistics
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the code measured: this tree's, or the other tree's when run_cost.py measures --against
# it (its rulebooks and characters are still this tree's: the same runs both ways)
sys.path.insert(0, os.environ.get("RUN_COST_ROOT") or str(ROOT))

import yaml  # noqa: E402

import dsl  # noqa: E402
from dsl import nodes as n  # noqa: E402
from dsl.errors import RulebookError  # noqa: E402
from interpreter import Engine, Sheet  # noqa: E402
from interpreter.errors import ParameterError  # noqa: E402
from interpreter.odds import BUDGET, TRIALS  # noqa: E402

CHARACTERS = ROOT / "rulebooks" / "characters"
TESTS = ROOT / "tests"
EXAMPLES = ROOT / "examples"

#: Sensible parameters of the example games, by rulebook and name: the values their tests
#: (tests/test_example_games.py, tests/test_examples.py) and the README ask for.
EXAMPLE_PARAMETERS = {
    "dnd5e": {
        "attack_roll": {"bonus": 6, "ac": 15},  # the fighter's +6 against the goblin's AC
        "saving_throw": {"ability": "Dexterity", "dc": 15},  # the fireball's save
    },
    "fate": {
        "overcome": {"skill": "Athletics"},
        "roll_skill": {"skill": "Athletics", "opposition": 2},  # against Fair
        "defend": {"skill": "Athletics"},
    },
    "blades_in_the_dark": {
        "act": {"action": "Skirmish"},
        "action_roll": {"dice": 2},  # the cutter's Skirmish
        "resistance_roll": {"dice": 3},  # the cutter's Prowess
    },
    "cthulhu": {name: {"skill": "Spot Hidden"} for name in ("skill_roll", "roll_with_luck", "push")}
    | {"opposed_roll": {"skill": "Fighting"}},
    "pbta": {"roll_plus": {"stat": "Cool"}},
    "blades": {"act": {"dots": 4}, "action_roll": {"dots": 4}}  # README
    | {"resist": {"rating": 3}, "resistance": {"rating": 3}},
    "cortex": {
        "act": {"attribute": 8, "skill": 6, "distinction": 10},
        "cortex": {"a": 8, "b": 6, "c": 10},
    },
    "one_roll": {"act": {"dice": 10}, "ore": {"dice": 10}},
    "savage_worlds": {name: {"die": 8} for name in ("act", "act_roll20", "trait", "trait_roll20")},
    "shadowrun": {name: {"pool": 12, "threshold": 4} for name in ("act", "test")},  # README
    "vampire": {name: {"pool": 5, "hunger": 2, "difficulty": 3} for name in ("act", "test")},
    "year_zero": {"roll_dice": {"base": 5, "skill": 3, "gear": 2, "push": True}},
    "ironsworn": {"face_danger": {"stat": "Iron"}},  # docs/recipes.md
    "seventh_sea": {name: {"trait": "Finesse", "skill": "Weaponry"} for name in ("act", "risk")},
}

#: The example games' choices (`choose`), answered in advance as their tests answer them.
EXAMPLE_CHOICES = {
    "blades_in_the_dark": {"act": {"extra": "push", "resist": "yes"}},
    "cthulhu": {"roll_with_luck": {"luck": "yes"}, "push": {"pushed": "yes"}},
    "fate": {"overcome": {"invoke": "no"}, "attack": {"invoke": "no"}},
    "pbta": {"act_under_fire": {"cost": "a hard bargain"}, "go_aggro": {"answer": "cave"}},
    "ironsworn": {"face_danger": {"burn": "no"}},
    "seventh_sea": {"act": {"reroll": "no"}},
}

#: And a case of each action with a choice played at its best for a goal (`best`): the
#: tests' goals (fate's attack and act_under_fire have none there: the obvious one), with
#: the choices the tests still answer.
EXAMPLE_GOALS = {
    "blades_in_the_dark": {"act": ("outcome=full success", {"resist": "no"})},
    "cthulhu": {"roll_with_luck": ("success", {}), "push": ("success", {})},
    "fate": {"overcome": ("outcome=succeed with style", {}), "attack": ("mean hit", {})},
    "pbta": {"act_under_fire": ("did_it", {}), "go_aggro": ("caved", {})},
    "ironsworn": {"face_danger": ("mean rank + left(Momentum)/3", {})},  # docs/recipes.md
    "seventh_sea": {"act": ("mean raises", {})},  # docs/recipes.md
}

#: docs/recipes.md: each recipe's rulebook (by its section's title) is a part of its own,
#: with the sheet, the parameters, the answers and the goals its commands and
#: tests/test_recipes.py use; another required parameter is derived as above, a sheet not
#: given is the recipe's defaults, and a `character` is the same sheet
RECIPES = ROOT / "docs" / "recipes.md"
SKILLED = {"skills": {"Spot Hidden": 45}}  # the investigator's
RECIPE_SHEETS = {
    "Degrees of success": SKILLED,
    "Spending a resource after the roll": SKILLED | {"Luck": 60},
}
RECIPE_PARAMETERS = {
    "Advantage and disadvantage": {"attack_roll": {"ac": 15, "how": "advantage"}},
    "Critical hits": {"attack_roll": {"ac": 15}},
    "Degrees of success": {"skill_roll": {"skill": "Spot Hidden"}}
    | {"overcome": {"skill": "Spot Hidden", "opposition": 2}, "roll_plus": {"stat": 1}},
    "Spending a resource after the roll": {
        name: {"skill": "Spot Hidden"} for name in ("skill_roll", "roll_with_luck")
    },
    "Exploding pools": {"hits": {"pool": 5}, "action_roll": {"dice": 2}},
    "Symbol dice": {"skill": {"green": 2, "yellow": 1, "purple": 2}},
    "Best play that weighs a cost": {"face_danger": {"stat": "Iron"}},
    "Choosing among the dice": {name: {"trait": "Finesse"} for name in ("act", "risk")},
}
RECIPE_CHOICES = {
    "Spending a resource after the roll": {"roll_with_luck": {"luck": "yes"}},
    "Best play that weighs a cost": {"face_danger": {"burn": "no"}},
    "Opposed checks between characters": {"challenge": {"answer": "strain on"}},
    "Choosing among the dice": {"act": {"reroll": "no"}},
}
RECIPE_GOALS = {
    "Spending a resource after the roll": {"roll_with_luck": ("success", {})},
    "Best play that weighs a cost": {"face_danger": ("mean rank + left(Momentum)/3", {})},
    "Opposed checks between characters": {"challenge": ("won", {})},
    "Choosing among the dice": {"act": ("mean raises", {})},
}


def game_of(book) -> str:
    """The shipped rulebook a (house) rulebook stands on, by its file's name."""
    while book.base is not None:
        book = book.base
    return Path(book.path).stem


def characters(folder: Path = CHARACTERS) -> dict[str, list[Path]]:
    """The characters of a folder by the game their sheet names."""
    out: dict[str, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".yaml", ".yml", ".json"):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out.setdefault(str(data.get("rulebook", "")), []).append(path)
    return out


def tested_parameters() -> dict[str, dict[str, list[str]]]:
    """`NAME=VALUE` settings per action from the every-action tests, by the game's name.

    Read as literals from the test modules (not imported): a table `CLI_...` maps an
    action to its settings, or to (character, settings)."""
    out: dict[str, dict[str, list[str]]] = {}
    for path in sorted(TESTS.glob("test_rulebook_*.py")):
        game = path.stem.removeprefix("test_rulebook_")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for statement in tree.body:
            if not (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and statement.targets[0].id.startswith("CLI_")
                and isinstance(statement.value, ast.Dict)
            ):
                continue
            for key, value in zip(statement.value.keys, statement.value.values):
                if not isinstance(key, ast.Constant):
                    continue
                if isinstance(value, ast.Tuple) and len(value.elts) == 2:
                    value = value.elts[1]
                try:
                    settings = ast.literal_eval(value)
                except ValueError:
                    continue
                if isinstance(settings, list):
                    out.setdefault(game, {})[key.value] = settings
    return out


def derived_value(book, param: n.Param):
    """A value for a required parameter, from its declared type."""
    kind = param.type
    if isinstance(kind, n.EnumType):
        return kind.choices[0]
    if isinstance(kind, n.ListType):
        return []
    name = getattr(kind, "name", "")
    if name == "bool":
        return False
    if name in ("int", "number"):
        return 1
    choices = book.choices_of(name)
    if choices:
        return choices[0]
    return ""


def parameters(book, action: str, tested: dict) -> dict:
    params = dict(s.partition("=")[::2] for s in tested.get(action, []))
    return derived(book, action, params)


def derived(book, name: str, params: dict) -> dict:
    """The parameters, with a derived value for each required one not given."""
    params = dict(params)
    for param in book.definition(name).params:
        if param.default is None and param.name not in params:
            params[param.name] = derived_value(book, param)
    return params


def fitted(engine, action: str, sheet, params: dict) -> dict:
    """The parameters, with a catalog entry the character lacks replaced by one it has."""
    book = engine.rulebook
    for param in book.definition(action).params:
        name = getattr(param.type, "name", None)
        entries = sheet.get(name) if name in book.fields else None
        if isinstance(entries, dict) and params.get(param.name) not in entries and entries:
            params = {**params, param.name: next(iter(entries))}
    return params


def values_of(engine, sheet, param: n.Param) -> list | None:
    """The values a parameter may take, when it has a list of them (None otherwise)."""
    book = engine.rulebook
    kind = param.type
    if isinstance(kind, n.EnumType):
        return list(kind.choices)
    name = getattr(kind, "name", None)
    if name == "bool":
        return [False, True]
    entries = sheet.get(name) if name in book.fields else None
    if isinstance(entries, dict):  # a catalog: the entries this character has
        return list(entries)
    return book.choices_of(name) if name is not None else None


def variants(engine, action: str, sheet, params: dict):
    """The parameters with one changed to each other value it may take, one at a time."""
    for param in engine.rulebook.definition(action).params:
        for value in values_of(engine, sheet, param) or ():
            if params.get(param.name) != value and str(params.get(param.name)) != str(value):
                yield {**params, param.name: value}


def chosen(label: str, only: list[str]) -> bool:
    return all(word in label.split() for word in only)


def cases(only: list[str]):
    """(rulebook name, book, engine, action, character path, params) for every case."""
    people = characters()
    tested = tested_parameters()
    for name, path in sorted(dsl.shipped_rulebooks().items()):
        book = dsl.load(path)
        engine = Engine(book)
        game = game_of(book)
        for action in book.actions:
            for character in people.get(game, []):
                label = f"{name} {action} {character.stem}"
                if only and not chosen(label, only):
                    continue
                yield (
                    name,
                    engine,
                    action,
                    character,
                    parameters(book, action, tested.get(game, {})),
                )


def example_cases(only: list[str]):
    """(label, engine, name, character path or None, params, the other characters, what
    else Engine.odds is asked: choices, best) for every action, check and opposed check of
    the example games, and each action with a choice again played at its best."""
    people = characters(EXAMPLES / "games" / "characters")
    shipped, tested = characters(), tested_parameters()
    for path in [*sorted(EXAMPLES.glob("games/*.rules")), *sorted(EXAMPLES.glob("*.rules"))]:
        book = dsl.load(path)
        engine = Engine(book)
        game = path.stem
        cast = people.get(game, [])
        given = EXAMPLE_PARAMETERS.get(game, {})
        if book.base is not None:  # a house rule: its game's characters and parameters
            cast = shipped.get(game_of(book), [])
            given = {k: dict(s.partition("=")[::2] for s in v)
                     for k, v in tested.get(game_of(book), {}).items()}  # fmt: skip
        asked = []
        for kind, names in (("", book.actions), ("check ", book.checks)):
            asked += [(kind, name, {"choices": choices_of(game, name)}) for name in names]
        asked += [("opposed ", name, {}) for name in book.opposed]
        for name, (goal, answers) in EXAMPLE_GOALS.get(game, {}).items():
            asked.append(("best ", name, {"best": goal, "choices": answers}))
        for kind, name, ask in asked:
            for character in cast or [None]:
                who = character.stem if character is not None else "empty sheet"
                label = f"{game} {kind}{name} ({who})"
                if only and not chosen(label.replace("(", "").replace(")", ""), only):
                    continue
                params = derived(book, name, given.get(name, {}))
                others = [c for c in cast if c != character] or cast
                yield label, engine, name, character, params, others, ask


def recipes() -> dict[str, str]:
    """{section's title: its rulebook} of docs/recipes.md (its one block not a command)."""
    out = {}
    for part in RECIPES.read_text(encoding="utf-8").split("\n## ")[1:]:
        title, _, body = part.partition("\n")
        for block in re.findall(r"^```(?:rulebook)?\n(.*?)^```$", body, flags=re.S | re.M):
            if not block.startswith("$ "):
                out[title.strip()] = block
    return out


def recipe_cases(only: list[str]):
    """(label, engine, name, sheet, params, what else Engine.odds is asked) for every
    action, check and opposed check of every recipe, and each action with a choice at its
    best."""
    for title, text in recipes().items():
        engine = Engine(dsl.load_text(text, "recipe.rules"))
        sheet = engine.sheet(RECIPE_SHEETS.get(title, {}))
        book = engine.rulebook
        asked = []
        for kind, names in (("", book.actions), ("check ", book.checks)):
            answers = RECIPE_CHOICES.get(title, {})
            asked += [(kind, name, {"choices": answers.get(name)}) for name in names]
        asked += [("opposed ", name, {}) for name in book.opposed]
        for name, (goal, answers) in RECIPE_GOALS.get(title, {}).items():
            asked.append(("best ", name, {"best": goal, "choices": answers}))
        for kind, name, ask in asked:
            label = f"recipe {kind}{name} ({title})"
            if only and not chosen(label.replace("(", "").replace(")", ""), only):
                continue
            params = derived(book, name, RECIPE_PARAMETERS.get(title, {}).get(name, {}))
            yield label, engine, name, sheet, params, ask


def choices_of(game: str, name: str) -> dict | None:
    return EXAMPLE_CHOICES.get(game, {}).get(name)


def with_characters(engine, name: str, params: dict, others: list, sheet_of) -> dict:
    """A required parameter of kind `character`: another character of the game's sheet."""
    for param in engine.rulebook.definition(name).params:
        kind = getattr(param.type, "name", None)
        if kind == "character" and param.default is None and others:
            params = {**params, param.name: sheet_of(others[0])}
    return params


def timed(engine, action, sheet, params, field, args, ask=None) -> tuple:
    """(CPU seconds, status, outcomes) of one odds computation; `ask`: the choices
    answered, the goal of the best play."""
    started = time.process_time()
    outcomes = 0
    try:
        odds = engine.odds(
            action, sheet, params, field, budget=args.budget, trials=args.trials, **(ask or {})
        )
        status = "exact" if odds.exact else "SAMPLED"
        fields = getattr(odds, "fields", None)  # a joint too large: each field on its own
        outcomes = len(odds.probabilities) if fields is None else f"{len(fields)} fields"
        explorations = getattr(odds, "explorations", 0)
        if fields is not None:
            outcomes += f" {explorations} expl."
    except ParameterError as error:
        status = f"n/a: {error.message}"
    except RulebookError as error:
        status = f"error: {error.message}"
    return time.process_time() - started, status, outcomes


def result_fields(engine, action: str) -> list[str]:
    """The fields of an action's result, or of a check's or an opposed check's record."""
    book = engine.rulebook
    if action in book.checks:
        check = book.checks[action]
        built = ["total"] + (["target", "success", "margin"] if check.target is not None else [])
        return built + [name for name, _ in check.fields if name not in built]
    if action in book.opposed:
        built = ["won", "tie", "margin", "rerolls"]
        return built + [name for name, _ in book.opposed[action].fields if name not in built]
    body = book.actions[action].body
    return [name for name, _ in body[-1].fields] if body and isinstance(body[-1], n.Result) else []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="a word every case shown has")
    parser.add_argument("--budget", type=int, default=BUDGET, help="the exact computation's budget")
    parser.add_argument("--trials", type=int, default=TRIALS, help="trials when sampled")
    parser.add_argument("--slowest", type=int, default=5, help="list the N slowest at the end")
    parser.add_argument("--no-fields", action="store_true", help="the whole result only")
    parser.add_argument(
        "--variants", action="store_true", help="each parameter over its values too (shipped)"
    )
    parser.add_argument(
        "--part",
        choices=("shipped", "examples", "recipes"),
        help="only the shipped rulebooks, the example games or docs/recipes.md (default: all)",
    )
    args = parser.parse_args(argv)
    parts = {name: ([], []) for name in ("shipped", "examples", "recipes", "shipped variants")}
    print(f"{'whole result':>34}   {'each field':>22}")
    if args.part in (None, "shipped"):
        sheets: dict = {}
        for name, engine, action, character, params in cases(args.only):
            key = (name, character)
            if key not in sheets:
                sheets[key] = engine.load_sheet(character)
            sheet = sheets[key]
            params = fitted(engine, action, sheet, params)
            label = f"{name} {action} ({character.stem})"
            measure(engine, action, sheet, params, label, args, *parts["shipped"], None)
            if args.variants:
                rows = parts["shipped variants"][0]
                for changed in variants(engine, action, sheet, params):
                    shown = ", ".join(f"{k}={v}" for k, v in changed.items() if params.get(k) != v)
                    elapsed, status, outcomes = timed(engine, action, sheet, changed, None, args)
                    rows.append((elapsed, status, f"{label} [{shown}]"))
                    if (status != "exact" and not status.startswith("n/a")) or elapsed >= 0.1:
                        print(f"{elapsed * 1000:9.1f} ms {status:8} {outcomes!s:>9} out.  "
                              f"{label} [{shown}]")  # fmt: skip
    if args.part in (None, "examples"):
        loaded: dict = {}

        def sheet_of(engine, path):
            if (id(engine), path) not in loaded:
                loaded[id(engine), path] = engine.load_sheet(path)
            return loaded[id(engine), path]

        for label, engine, name, character, params, others, ask in example_cases(args.only):
            sheet = sheet_of(engine, character) if character is not None else empty(engine, name)
            if sheet is None:
                parts["examples"][0].append((0.0, "n/a: the sheet needs a character", label))
                print(f"{'':12} n/a: the sheet needs a character  {label}")
                continue
            params = with_characters(engine, name, params, others, partial(sheet_of, engine))
            params = fitted(engine, name, sheet, params)
            measure(engine, name, sheet, params, label, args, *parts["examples"], ask)
    if args.part in (None, "recipes"):
        for label, engine, name, sheet, params, ask in recipe_cases(args.only):
            params = with_characters(engine, name, params, [sheet], lambda sheet: sheet)
            measure(engine, name, sheet, params, label, args, *parts["recipes"], ask)
    if not any(wholes for wholes, _ in parts.values()):
        print("no case matches")
        return 1
    print()
    for part, (wholes, fields) in parts.items():
        if wholes:
            summary(f"{part}: whole result (Engine.odds with no field)", wholes, args.slowest)
        if fields:
            summary(f"{part}: each result field on its own (--field)", fields, args.slowest)
    return 0


def empty(engine, name: str):
    """An empty sheet, if the rulebook's sheet needs nothing given or `name` reads none."""
    try:
        return engine.sheet({})
    except RulebookError:
        return engine.empty_sheet(name)


def measure(engine, action, sheet, params, label, args, wholes: list, fields: list, ask):
    """Time one case, whole and field by field; print its line; add it to the rows."""
    elapsed, status, outcomes = timed(engine, action, sheet, params, None, args, ask)
    wholes.append((elapsed, status, label))
    line = f"{elapsed * 1000:9.1f} ms {status:8} {outcomes!s:>9} out."
    if not args.no_fields and not status.startswith(("n/a", "error")):
        names = result_fields(engine, action)
        each = [timed(engine, action, sheet, params, f, args, ask) for f in names]
        if each:
            worst = max(t for t, _, _ in each)
            all_exact = all(s == "exact" for _, s, _ in each)
            fields.extend((t, s, f"{label} · {f}") for (t, s, _), f in zip(each, names))
            line += f"   {worst * 1000:9.1f} ms {'exact' if all_exact else 'SAMPLED':8}"
    given = {**params, **((ask or {}).get("choices") or {})}
    shown = ", ".join(f"{k}={shown_value(v)}" for k, v in given.items())
    if ask and ask.get("best"):
        shown += f"{'; ' if shown else ''}best {ask['best']}"
    print(f"{line}  {label}" + (f"  [{shown}]" if shown else ""), flush=True)


def shown_value(value) -> str:
    """A parameter as the line shows it: a character by its file's name."""
    path = getattr(value, "path", None)
    return Path(path).stem if isinstance(value, Sheet) and path else str(value)


def summary(what: str, rows: list, slowest: int) -> None:
    asked = [r for r in rows if not r[1].startswith("n/a")]
    times = [r[0] for r in asked]
    exact = sum(1 for r in asked if r[1] == "exact")
    slow = sum(1 for t in times if t >= 1)
    print(
        f"{what}: {len(rows)} cases, {len(asked)} that can be asked: {exact} exact, "
        f"{len(asked) - exact} not; median {statistics.median(times) * 1000:.1f} ms, "
        f"worst {max(times) * 1000:.1f} ms, {slow} at 1 s or more"
    )
    for elapsed, status, label in sorted(asked, reverse=True)[:slowest]:
        print(f"  {elapsed * 1000:9.1f} ms  {status:8}  {label}")
    print()


if __name__ == "__main__":
    sys.exit(main())
