"""A sweep: the exact odds of one action over a grid of cases, run by `map_tasks`.

The grid is characters, parameters, sheet values and rulebooks; each case is a task,
kept in a cache by its hash.

The Engine is never imported here (it is above this package: `Engine.sweep` calls
`sweep`): the engine's class travels with each task, and a worker process builds its
engine from the rulebook's own texts (`interpreter.journal.bundle`)."""

from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Callable, Mapping
from fractions import Fraction

from dsl.errors import RulebookError
from dsl.messages import show_value, tr
from interpreter.balance import grid
from interpreter.balance.case_cache import SweepCache, package_version
from interpreter.balance.parallel import map_tasks, task_seed
from interpreter.describe import result_fields
from interpreter.errors import ParameterError
from interpreter.journal.bundle import bundle_of, rebuild
from interpreter.parameters import yes_no
from interpreter.sheets.character import parse_text
from interpreter.surface import option
from interpreter.values import Record

#: most cases one sweep may have
MAX_CASES = 1_000_000
#: the seed sampled cases start from (each case's own is split from it by its hash)
ROOT_SEED = 2027


def sweep(
    engines: list,
    action: str,
    characters: list,
    *,
    params: Mapping | None = None,
    vary: Mapping | None = None,
    field: str | None = None,
    outcomes: list | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    cache: SweepCache | None = None,
    on_progress: Callable | None = None,
    max_cases: int = MAX_CASES,
    **options,
) -> list[dict]:
    """One row per case (a dict: its inputs, then each outcome's probability as a
    Fraction and a float, the mean, whether exact): `engines` are (label, Engine) of each
    rulebook compared (the first the base), `characters` are (label, sheet data or Sheet),
    `params` and `vary` map a parameter or sheet field to one value or a list of values
    (a parameter also to `"all"`: its choices). `options` go to `Engine.odds`."""
    base = engines[0][1]
    if field is None and action in base.rulebook.actions:  # a result of one field: that one
        fields = result_fields(base.rulebook, action)
        field = fields[0] if len(fields) == 1 else None
    params = _param_axes(base, action, dict(params or {}))
    vary = {name: _listed(values) for name, values in (vary or {}).items()}
    datas = [(label, _data_of(character)) for label, character in characters]
    _check_vary(base, datas, vary)
    clash = set(params) & (set(vary) | {"rulebook", "character"})
    if clash:
        raise ParameterError(tr("{names}: both a parameter and an input", names=", ".join(clash)))
    count = len(engines) * len(datas) * _size(vary) * _size(params)
    if count > max_cases:
        raise ParameterError(
            tr("{count} cases: a sweep has at most {most}", count=count, most=max_cases)
        )
    cases, tasks = _cases(engines, datas, vary, params, action, field, options)
    keys = [key for key, _ in cases]
    answers = _computed(keys, tasks, workers, scheduler, cache, on_progress)
    return _rows(cases, answers, field, outcomes, base.rulebook.language)


def run_case(task: tuple) -> dict:
    """A worker's job: one case's odds as plain data (outcome, Fraction) pairs."""
    engine_class, limits, bundle, label, data, sheet_key, action, params, field, options = task
    engine = _engine(engine_class, limits, bundle)
    try:
        sheet = _sheet(engine, (engine_class, limits, bundle.hash, sheet_key), data, label)
        odds = engine.odds(action, sheet, params, field, **options)
        found = [(_plain(outcome), p) for outcome, p in odds.probabilities.items()]
        mean = odds.mean
    except NeedsField:
        raise
    except RulebookError as error:  # a case the rules refuse: its row says why
        said = str(error).splitlines()[0]  # the message's line (a table's cell), no caret
        return {"outcomes": [], "mean": None, "exact": True, "trials": None, "error": said}
    exact = bool(odds.exact)
    return {"outcomes": found, "mean": mean, "exact": exact, "trials": odds.trials, "error": None}


#: engines a worker process built, by rulebook hash and limits (a worker runs many
#: cases of few rulebooks); at most this many are kept
MAX_ENGINES = 16
_ENGINES: dict = {}


def _engine(engine_class, limits, bundle):
    key = (engine_class, limits, bundle.hash)
    engine = _ENGINES.get(key)
    if engine is None:
        if len(_ENGINES) >= MAX_ENGINES:
            _ENGINES.clear()
        engine = _ENGINES[key] = engine_class(rebuild(bundle), limits)
    return engine


def _known_engine(engine, bundle) -> None:
    """The engine swept, kept as the one its cases use in this process (and in worker
    processes forked from it): its compiled rules are warm, nothing is rebuilt."""
    key = (type(engine), engine.limits, bundle.hash)
    if key not in _ENGINES:
        if len(_ENGINES) >= MAX_ENGINES:
            _ENGINES.clear()
        _ENGINES[key] = engine


#: sheets a worker made, by (engine, the sheet's data hash): the cases of one sheet (a
#: character at one set of varied values) share it; at most this many are kept
MAX_SHEETS = 256
_SHEETS: dict = {}


def _sheet(engine, key: tuple, data: dict, label: str):
    """The case's sheet, checked once for all the cases that share it."""
    sheet = _SHEETS.get(key)
    if sheet is None:
        sheet = engine.sheet(data, label)  # (a sheet refused is refused again each case)
        if len(_SHEETS) >= MAX_SHEETS:
            _SHEETS.clear()
        _SHEETS[key] = sheet
    return sheet


class NeedsField(ParameterError):
    """An action whose result is a record, swept without a field (`names`: its fields,
    for a caller that says where the field goes in its own words)."""

    code = "invalid_parameter"  # (a parameter of the sweep: its field)

    def __init__(self, names: str):
        super().__init__(
            tr(
                "name the result field to sweep ({field}): {names}",
                field=option("field"),
                names=names,
            )
        )
        self.names = names


def _plain(outcome):
    """An outcome as the table keeps it: yes/no, a whole number or a text."""
    if isinstance(outcome, Record):
        names = ", ".join(k for k in outcome if k != "name")
        raise NeedsField(names)
    if isinstance(outcome, bool | int | str):
        return outcome
    if hasattr(outcome, "message"):  # a failure: the reason the action stops
        return f"fails: {outcome.message}"
    return show_value(outcome)


def _listed(values) -> list:
    return list(values) if isinstance(values, list | tuple | range) else [values]


def _size(axes: dict) -> int:
    size = 1
    for values in axes.values():
        size *= len(values)
    return size


def _param_axes(engine, action: str, params: dict) -> dict:
    """Each parameter's values; `all` made its choices; names and choices checked."""
    described = _described(engine, action)
    out = {}
    for name, values in params.items():
        param = described.get(name)
        if param is None:
            raise grid.unknown(name, option("param"), described, tr("a parameter of {a}", a=action))
        choices = param.get("choices")
        if param["type"].get("name") == "bool":
            choices = [False, True]
        if choices == [False, True] and values != grid.ALL:  # `true,false`, `sí,no`, `1,0`
            where = f"{option('param')} {name}"
            values = [yes_no(where, str(value)) for value in _listed(values)]
        if values == grid.ALL:
            if not choices:
                raise ParameterError(
                    tr(
                        "{param} {name}=all: {name} has no list of choices; give a range or a list",
                        param=option("param"),
                        name=name,
                    )
                )
            values = list(choices)
        values = _listed(values)
        if param.get("choices"):
            for value in values:
                if value not in param["choices"]:
                    raise grid.unknown(
                        str(value), f"{option('param')} {name}:", param["choices"], tr("a choice")
                    )
        out[name] = values
    return out


#: each engine's description (its actions' parameters), made once per engine
_DESCRIBED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _described(engine, action: str) -> dict:
    described = _DESCRIBED.get(engine)
    if described is None:
        described = _DESCRIBED[engine] = engine.describe()
    for kind in ("actions", "checks", "opposed", "rolls"):
        for entry in described.get(kind) or []:
            if entry.get("name") == action:
                return {p["name"]: p for p in entry.get("params") or []}
    names = [e.get("name") for kind in ("actions", "checks") for e in described.get(kind) or []]
    raise grid.unknown(action, option("action"), names, tr("an action"))


def _data_of(character) -> dict:
    """A character as plain sheet data, as its file says it (resources left out still
    start full, so a varied attribute moves the maxima it decides)."""
    if isinstance(character, Mapping):
        return dict(character)
    if character.text is not None:
        return dict(parse_text(character.text, character.text_format, character.path))
    return character.to_data()


def _check_vary(engine, datas: list, vary: dict) -> None:
    """Every varied field is a field of the sheet, or a skill a character has."""
    fields = list(engine.rulebook.fields)
    skills = {name for _, data in datas for name in (data.get("skills") or {})}
    for name, values in vary.items():
        if name not in fields and name not in skills:
            raise grid.unknown(name, option("vary"), fields + sorted(skills), tr("a sheet field"))
        if grid.ALL in values:
            raise ParameterError(
                tr("{vary} {name}: give a range or a list", vary=option("vary"), name=name)
            )


def _varied(data: dict, values: dict) -> dict:
    out = dict(data)
    for name, value in values.items():
        if name not in out and name in (out.get("skills") or {}):
            out["skills"] = {**out["skills"], name: value}
        else:
            out[name] = value
    return out


def _cases(engines, datas, vary, params, action, field, options) -> tuple[list, list]:
    """The cases in order (their inputs) and their tasks, each sheet checked here."""
    cases, tasks = [], []
    version = package_version()
    for book_label, engine in engines:
        bundle = bundle_of(engine.rulebook)
        _known_engine(engine, bundle)
        for char_label, data in datas:
            for sheet_values in grid.product(vary):
                changed = _varied(data, sheet_values)
                engine.sheet(changed, char_label)  # a value out of its range: said here
                sheet_key = _key(char_label, changed)
                for param_values in grid.product(params):
                    key = _key(bundle.hash, changed, action, param_values, field, options, version)
                    case_options = dict(options)
                    case_options.setdefault("seed", task_seed(ROOT_SEED, key))
                    inputs = {"rulebook": book_label, "character": char_label}
                    cases.append((key, {**inputs, **sheet_values, **param_values}))
                    task = (type(engine), engine.limits, bundle, char_label, changed, sheet_key)
                    tasks.append((*task, action, param_values, field, case_options))
    return cases, tasks


def _key(*parts) -> str:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _computed(keys, tasks, workers, scheduler, cache, on_progress) -> list:
    """Every case's answer: from the cache, else computed (and kept as it comes, so an
    interrupted sweep resumes from the cases done)."""
    found = [cache.get(key) if cache is not None else None for key in keys]
    missing = [i for i, answer in enumerate(found) if answer is None]
    done = len(tasks) - len(missing)
    report = on_progress or (lambda done, total: None)
    report(done, len(tasks))

    def progress(finished, _total):
        report(done + finished, len(tasks))

    computed = map_tasks(
        run_case,
        [tasks[i] for i in missing],
        workers=workers,
        scheduler=scheduler,
        on_progress=progress,
        on_answer=(lambda i, answer: cache.put(keys[missing[i]], answer)) if cache else None,
    )
    for i, answer in zip(missing, computed):
        found[i] = answer
    if cache is not None and missing:
        cache.prune()
    return found


def _rows(cases: list, answers: list, field, asked: list | None, language=None) -> list[dict]:
    """The table: a row per case, a pair of columns per outcome (all seen, in order),
    named in the rulebook's `language` (`P(éxito=sí)`)."""
    seen: dict = {}
    for answer in answers:
        for outcome, _ in answer["outcomes"]:
            seen.setdefault(outcome, None)
    outcomes = _asked(list(seen), asked)
    rows = []
    for (_key, inputs), answer in zip(cases, answers):
        probabilities = dict(answer["outcomes"])
        row = dict(inputs)
        for outcome in outcomes:
            p = probabilities.get(outcome, Fraction(0)) if answer["error"] is None else None
            name = column_of(field, outcome, language)
            row[name] = p
            row[f"{name} float"] = None if p is None else float(p)
        mean = answer["mean"]
        row["mean"] = mean
        row["mean float"] = _float(mean)
        row["exact"] = answer["exact"] if answer["error"] is None else None
        row["trials"] = answer["trials"]
        row["error"] = answer["error"]
        rows.append(row)
    return rows


def _asked(outcomes: list, asked: list | None) -> list:
    """The outcomes shown: every one seen (yes before no, numbers in order), or those asked."""
    ordered = sorted(outcomes, key=_order)
    if not asked:
        return ordered
    by_text = {show_value(o): o for o in ordered} | {str(o): o for o in ordered}
    chosen = []
    for text in asked:
        outcome = by_text.get(text, by_text.get(_yes_no(text)))
        if outcome is None:
            raise grid.unknown(
                text, option("outcome"), [show_value(o) for o in ordered], tr("an outcome")
            )
        chosen.append(outcome)
    return chosen


def _yes_no(text: str) -> str:
    return {"sí": "yes", "si": "yes", "true": "yes", "false": "no"}.get(text.lower(), text)


def _order(outcome):
    if isinstance(outcome, bool):
        return (0, -int(outcome), "")
    if isinstance(outcome, int):
        return (1, outcome, "")
    return (2, 0, str(outcome))


def column_of(field, outcome, language: str | None = None) -> str:
    """The column of an outcome's probability: `P(field=value)`, or `P(value)`, the value
    as the rulebook's language says it (`P(éxito=sí)`)."""
    shown = show_value(outcome, language)
    return f"P({field}={shown})" if field else f"P({shown})"


def engines_of(engine, compare) -> list:
    """(title, engine) of the rulebook swept and of each compared (same class and limits)."""
    others = [(book.title, type(engine)(book, engine.limits)) for book in compare]
    return [(engine.rulebook.title, engine), *others]


def labelled(characters) -> list:
    """(label, character) pairs: a sheet named by its file's name, else by its place."""
    if not isinstance(characters, list | tuple):
        characters = [characters]
    out = []
    for number, character in enumerate(characters, 1):
        if isinstance(character, tuple):
            out.append(character)
            continue
        path = getattr(character, "path", None)
        label = path.replace("\\", "/").rpartition("/")[2].rpartition(".")[0] if path else ""
        out.append((label or f"sheet {number}", character))
    return out


def _float(mean) -> float | None:
    """The mean as a float, or None past a float's range (a mean of a thousand digits:
    the exact column holds it; no float column holds an infinity it does not mean)."""
    try:
        return None if mean is None else float(mean)
    except OverflowError:
        return None
