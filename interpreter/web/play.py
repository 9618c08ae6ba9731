"""The jobs that play: a run (saved or not, its dice typed in or its choices asked) and odds.

Plain functions of a request's body, run in a worker process (interpreter.web.jobs):
the body's fields, rulebooks and sheets are checked first; `work.ready()` then says the
work proper starts (its time bound counts from there: `run_seconds`, `odds_seconds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import attrs

from dsl import nodes as n
from dsl.bounded import Bounded, text_size
from dsl.errors import RulebookError
from dsl.messages import language_for, tr
from interpreter.choosers import Chooser
from interpreter.dice import ForcedDice, SeededDice
from interpreter.engine import ENGINES_TEXT, Engine
from interpreter.errors import ParameterError
from interpreter.expression import compile_expression
from interpreter.json_data import Writer, comparison_data, odds_data, run_data, step_data
from interpreter.odds import BUDGET, TRIALS, expression_odds
from interpreter.sheets.character import Sheet
from interpreter.web import kept_answers, saving
from interpreter.web.body import faces, field, unknown_fields
from interpreter.web.errors import RequestError
from interpreter.web.jobs import (
    Work,
    book_of,
    language_of,
    sheet_of,
    sheet_warnings,
    targets_of,
)
from interpreter.web.saving import Subject
from interpreter.web.typed_answers import ChoiceNeeded, DieNeeded, TypedAnswers, TypedSoFar

#: the most exact work and trials a client may ask of one odds computation
MAX_BUDGET = 10 * BUDGET
MAX_TRIALS = 10 * TRIALS

RUN_FIELDS = {"rulebook", "text", "action", "character", "sheet", "params", "targets"}
RUN_FIELDS |= {"seed", "dice", "ask", "choices", "answers", "save", "expect", "lang"}
ODDS_FIELDS = {"expression", "rulebook", "text", "action", "character", "sheet", "params"}
ODDS_FIELDS |= {"field", "compare", "budget", "trials", "seed", "progress", "lang"}
ODDS_FIELDS |= {"targets", "choices", "best"}
EXPRESSION_FIELDS = {"expression", "budget", "trials", "seed", "progress", "lang"}


# ─── running ────────────────────────────────────────────────────────────────


def run(work: Work, args: dict) -> dict | kept_answers.Rendered:
    body = args["body"]
    action = field(body, "action", str, required=True)
    params = field(body, "params", dict, default={})
    save = field(body, "save", bool, default=False)
    character = field(body, "character", str)
    if save and character is None:
        raise RequestError(tr("saving needs a character: the sheet to write back"))
    if save:
        saving.refuse_unsaved(body)
    dice = _dice(body)
    engine = bounded_engine(Engine.of(book_of(work, body)), work.run_seconds)
    language = language_of(body, engine.rulebook)
    answered = _answered(body)
    chooser = Chooser(field(body, "choices", dict, default={}), answered)
    expect = field(body, "expect", dict)
    try:
        if save:
            subject = Subject(character, action, params, _target_names(body))
            read = [sheet_of(work, body, engine, action), *targets_of(work, body, engine).values()]
            work.ready()
            outcome, saved = saving.save(
                work.library, engine, subject, dice, chooser, expect, answered
            )
        else:
            sheet = sheet_of(work, body, engine, action)
            targets = targets_of(work, body, engine)
            read = [sheet, *targets.values()]
            work.ready()
            outcome = engine.run(
                action, sheet, params, dice, targets=targets, choices=chooser, trace=True
            )
            if answered is not None:
                answered.finish()
            saved = None
            key = kept_answers.key_of(body, engine, sheet, language, outcome)
            if key is not None:  # the same run answered before: its bytes again
                kept = kept_answers.found(key, engine, sheet)
                if kept is not None:
                    return kept
                work.remember = (key, engine, sheet)  # (kept once the worker renders it)
    except (DieNeeded, ChoiceNeeded) as need:
        return _needed(need, language, engine.rulebook)
    out = run_data(outcome, language, kept=True)  # (rendered, then let go: steps kept)
    out["warnings"] = [*sheet_warnings(read, language), *out["warnings"]]
    if saved is not None:
        out["saved"] = saved
    return out


def _answered(body: dict) -> TypedAnswers | None:
    """The answers given so far to the choices asked in the page (`answers`: a choice
    not answered yet stops the run and is asked for), or None (a choice of several
    options not answered in advance is an error, as with the Python API)."""
    answers = field(body, "answers", list)
    return TypedAnswers(answers) if answers is not None else None


def _target_names(body: dict) -> dict:
    """The other characters of a run by the parameter they are: role → character name."""
    targets = field(body, "targets", dict, default={})
    for role, name in targets.items():
        if not isinstance(name, str):
            raise RequestError(
                tr(
                    "targets: {role} is a character's name (GET /api/characters) when "
                    "the run is saved",
                    role=role,
                )
            )
    return targets


def _dice(body: dict):
    seed = field(body, "seed", int)
    typed = faces(body, "dice")
    ask = field(body, "ask", bool, default=False)
    if seed is not None and (typed is not None or ask):
        raise RequestError(tr("give a seed or dice, not both"))
    if ask:
        return TypedSoFar(typed or [])
    if typed is not None:
        return ForcedDice(typed)
    return SeededDice(seed)


def _needed(need: DieNeeded | ChoiceNeeded, language: str, book=None) -> dict:
    """A run stopped for a die or a choice: what it needs, and its trace so far (what was
    rolled before the choice), in the run's language."""
    writer = Writer(language)
    out = need.to_json(language) if isinstance(need, ChoiceNeeded) else need.to_json(language, book)
    out["language"] = language
    steps = need.trace or []
    out["trace"] = [step_data(s, writer, f"/trace/{i}") for i, s in enumerate(steps)]
    return writer.finish(out)


# ─── odds ───────────────────────────────────────────────────────────────────


def odds(work: Work, args: dict) -> dict:
    """The odds a request asks for; its fields, rulebooks and sheets are checked before
    the work starts (and before a stream's status line goes out)."""
    body = args["body"]
    options = {
        "budget": _bounded(body, "budget", BUDGET, MAX_BUDGET),
        "trials": _bounded(body, "trials", TRIALS, MAX_TRIALS),
        "seed": field(body, "seed", int, default=0),
    }
    expression = field(body, "expression", str)
    if expression is not None:
        extra = set(body) & (ODDS_FIELDS - EXPRESSION_FIELDS)
        if extra:
            raise RequestError(
                tr("an expression's odds take no {fields}", fields=", ".join(sorted(extra))),
                tr("for an action's odds, leave out expression"),
            )
        if len(expression) > 1000:
            raise RequestError(tr("the expression is longer than {most} characters", most=1000))
        language = language_for(field(body, "lang", str))
        work.stream = field(body, "progress", bool, default=False)
        try:  # parsed and checked within the bound of checking inputs, not of the work
            compile_expression(expression)
        except (RulebookError, RecursionError):
            work.ready()  # said as the work's answer, as it always was
            raise
        work.ready()
        odds = expression_odds(expression, progress=work.progress, **options)
        return odds_data(odds, language)
    action = field(body, "action", str, required=True)
    params = field(body, "params", dict, default={})
    target = field(body, "field", str)
    compare = field(body, "compare", dict)
    book = book_of(work, body)
    engine = Engine.of(book)
    sheet = sheet_of(work, body, engine, action)
    params = {**params, **targets_of(work, body, engine)}  # the other characters' sheets
    if action in book.actions:
        engine.prepare(action, sheet, params)  # an unknown parameter: a 400 now
    else:
        engine.runnable(action)  # not a check, opposed check nor roll either: a 400 now
    # The action's choices: answered in advance, the others the best for a goal.
    options["choices"] = field(body, "choices", dict)
    best = field(body, "best", str)
    if best is None and action in book.actions:
        best = default_goal(engine, action, sheet, params, options["choices"])
    if best is not None:
        options["best"] = best
    other = None
    if compare is not None:
        unknown_fields(compare, {"rulebook", "text", "params"})
        other, names = _other(work, compare, book, engine, sheet, params)
    language = language_of(body, book)
    _streamed(work, body)
    warned = sheet_warnings(
        [sheet, *(v for v in params.values() if isinstance(v, Sheet))], language
    )
    shown = {"warnings": warned} if warned else {}  # (as `odds --json` when there are none)
    a = engine.odds(action, sheet, params, target, progress=work.progress, **options)
    if other is None:
        return {**odds_data(a, language), **shown}
    b = other[0].odds(action, other[1], other[2], target, progress=work.progress, **options)
    return {**comparison_data(a, b, names, language), **shown}


def default_goal(engine, action: str, sheet, params: dict, answers) -> str | None:
    """The goal of the best play when the request gives none and the action makes choices
    (`choose`): its result's first yes/no field (`success`, PbtA's `did_it`: the chance it
    is yes), else its first number (Fate's `shifts`: its mean); None when it makes no
    choice or its result has neither (the odds then ask for a goal, as without it).
    The fields are read off one run, seeded, each choice its first option."""
    node = engine.rulebook.actions[action]
    if not any(isinstance(item, n.Choose) for item in n.walk(node.body)):
        return None
    chooser = Chooser(answers or {}, lambda question: question.options[0])
    try:
        outcome = engine.run(action, sheet, params, SeededDice(0), choices=chooser)
    except (RulebookError, RecursionError):
        return None  # the odds say what is wrong, as they would have
    result = outcome.result
    if not isinstance(result, Mapping):
        return None
    for name, value in result.items():
        if isinstance(value, bool) and name.isidentifier():
            return name
    for name, value in result.items():
        if isinstance(value, int | Fraction) and not isinstance(value, bool):
            return f"mean {name}" if name.isidentifier() else None
    return None


def _streamed(work: Work, body: dict) -> None:
    """Whether the answer streams its progress (`progress`); the inputs are checked."""
    work.stream = field(body, "progress", bool, default=False)
    work.ready()


def _other(work: Work, compare: dict, book, engine, sheet, params):
    """What to compare with: another rulebook (a house rule, the editor's text) for the
    same sheet, or other parameters; ((engine, sheet, params), (name A, name B))."""
    changed = field(compare, "params", dict)
    if changed is not None and len(compare) == 1:
        names = (tr("the parameters as given"), tr("the changed parameters"))
        return (engine, sheet, {**params, **changed}), names
    other = book_of(work, compare)
    other_engine = Engine.of(other)
    try:
        other_sheet = other_engine.sheet(sheet.to_data(), sheet.path)
        # the other characters' sheets, read by the other rulebook too
        params = {
            k: other_engine.sheet(v.to_data(), v.path) if isinstance(v, Sheet) else v
            for k, v in params.items()
        }
    except RulebookError as error:
        raise ParameterError(
            tr(
                "the sheet does not fit {title} ({problem})",
                title=other.title,
                problem=error.message,
            )
        ) from None
    return (other_engine, other_sheet, {**params, **(changed or {})}), (
        book.title,
        tr("{title} (edited)", title=other.title) if field(compare, "text", str) else other.title,
    )


def _bounded(body: dict, name: str, default: int, most: int) -> int:
    value = field(body, name, int, default=default)
    if not 1 <= value <= most:
        raise RequestError(tr("{field} is between 1 and {most}", field=name, most=most))
    return value


_BOUNDED = Bounded(ENGINES_TEXT, count=64)


def bounded_engine(engine: Engine, seconds: float) -> Engine:
    """The rulebook's engine with the server's time bound on each run (`run_seconds`,
    read between statements: a run stops with LimitExceeded, nothing changed); the
    compiled code is shared with `engine`."""
    key = (id(engine.rulebook), seconds)
    found = _BOUNDED.get(key)
    if found is None or found.rulebook is not engine.rulebook:
        limits = attrs.evolve(engine.limits, run_seconds=seconds)
        found = _BOUNDED.put(key, Engine(engine.rulebook, limits), text_size(engine.rulebook))
    return found
