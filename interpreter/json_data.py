"""Plain JSON data of what the interpreter answers: runs, rolls, odds, describe and errors.

Every document is a JSON object with a `kind` ("run", "roll", "odds", "odds_comparison",
"describe", "error"; the journal's "log", "journal_entry", "replay") and follows its JSON
Schema, shipped in `interpreter/schemas/` (`schema(kind)` gives it, ready for a
validator). The rules that hold everywhere:

- A number is a JSON number: a whole number exactly, any other as its nearest double.
  The exact value of every number that is not whole is also in the document's
  `fractions` object, under the number's JSON pointer: `{"/result/mitad": "7/2"}`. So a
  field never changes its JSON type from one run to the next.
- yes/no are JSON booleans, none is null, a list is an array, a record an object.
- Texts for people (`text`, `message`, `hint`) are in the document's `language`.

The command line's `--json`, the HTTP API and the journal all write these documents.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from fractions import Fraction
from importlib import resources
from typing import Any

from dsl.errors import RulebookError, RulebookInvalid, Span
from dsl.messages import translate
from interpreter.dice import KEPT
from interpreter.errors import SheetError
from interpreter.steps_json import step_text, steps_written
from interpreter.trace import Step
from interpreter.values import FractionText, plain
from interpreter.version import VERSION, VERSION_FIELD


class Switch:
    """Whether a trace's steps are written by `steps_data` (off: each by `step_data`, as
    a trace of any other steps); whether a sheet's data is kept by the sheet (`sheets`:
    off, written anew each time). Tests switch them off to compare."""

    direct = True
    sheets = True


SWITCH = Switch()

#: the kinds of document, each with its schema file `<kind>.schema.json`
KINDS = (
    "run",
    "roll",
    "odds",
    "odds_comparison",
    "describe",
    "error",
    "log",
    "journal_entry",
    "replay",
    "encounter",
    "sweep",
)
#: ends listed by what is left, for each side, in an encounter's document (the most likely)
LISTED_ENDS = 200


class Writer:
    """Turns values into JSON data for one document, noting each fraction's exact value."""

    def __init__(self, language: str | None):
        self.language = language
        self.fractions: dict[str, str] = {}

    def value(self, value, pointer: str):
        """A rulebook value as JSON data (`pointer`: where it goes in the document)."""
        return plain(value, self.fractions, pointer, self.text)

    def text(self, text) -> str | None:
        if type(text) is str:  # (the commonest: a rulebook's own words, as they are)
            return text
        return None if text is None else translate(text, self.language)

    def finish(self, document: dict) -> dict:
        document["fractions"] = dict(self.fractions)
        return document


def _head(kind: str, language: str | None) -> dict:
    return {"kind": kind, VERSION_FIELD: VERSION, "language": language or "en"}


# ─── runs ───────────────────────────────────────────────────────────────────


def run_data(outcome, language: str | None = None, trace: bool = True, kept=False) -> dict:
    """An Outcome (of an action, a check, an opposed check or a named roll); `kept`: its
    steps may be kept and given again to later documents (interpreter.steps_json)."""
    w = Writer(language)
    out = _head("run", language)
    out["run"] = outcome.kind
    out["name"] = outcome.action
    out["params"] = w.value(outcome.params, "/params")
    out["result"] = w.value(outcome.result, "/result")
    out["changes"] = [
        {
            "path": c.path,
            "before": w.value(c.before, f"/changes/{i}/before"),
            "after": w.value(c.after, f"/changes/{i}/after"),
        }
        for i, c in enumerate(outcome.changes)
    ]
    out["sheet"] = _sheet_data(outcome.sheet, w)
    out["characters"] = [
        {
            "role": c.role,
            "label": c.label,
            "changes": [
                {
                    "path": change.path,
                    "before": w.value(change.before, f"/characters/{i}/changes/{j}/before"),
                    "after": w.value(change.after, f"/characters/{i}/changes/{j}/after"),
                }
                for j, change in enumerate(c.changes)
            ],
            "sheet": w.value(c.after.to_data(), f"/characters/{i}/sheet"),
        }
        for i, c in enumerate(outcome.characters)
    ]
    out["warnings"] = [w.text(warning) for warning in outcome.warnings]
    out["choices"] = [
        {**c.to_json(), "value": w.value(c.value, f"/choices/{i}/value")}
        for i, c in enumerate(outcome.choices)
    ]
    out["dice"] = list(outcome.dice)
    out["origin"] = outcome.origin
    steps = outcome.trace if trace else []
    out["trace"] = steps_data(steps, w, kept)
    return w.finish(out)


#: id of a sheet → (the sheet, language, its data, its fractions): a sheet is immutable
#: (a run that changes it makes another), and a server's runs read the same one, kept
#: per file stamp (interpreter.web.library), again and again; at most KEPT_SHEETS
_SHEETS: dict[int, tuple] = {}
KEPT_SHEETS = 16


def _sheet_data(sheet, w: Writer):
    """A run's sheet as JSON data (`Writer.value` of its `to_data()` at `/sheet`), written
    once per sheet and language (`SWITCH.sheets`): the same object again, its fractions
    noted again. Not to be changed by whoever reads the document."""
    if not SWITCH.sheets:
        return w.value(sheet.to_data(), "/sheet")
    kept = _SHEETS.get(id(sheet))
    if kept is not None and kept[0] is sheet and kept[1] == w.language:
        w.fractions.update(kept[3])
        return kept[2]
    fractions: dict[str, str] = {}
    data = plain(sheet.to_data(), fractions, "/sheet", w.text)
    w.fractions.update(fractions)
    if len(_SHEETS) >= KEPT_SHEETS:
        _SHEETS.clear()
    _SHEETS[id(sheet)] = (sheet, w.language, data, fractions)
    return data


def steps_data(steps, w: Writer, kept: bool = False) -> list:
    """A trace's steps as JSON data, as `step_data` of each at `/trace/{i}` writes them:
    with `SWITCH.direct`, each step's parts read once from what it holds (`Step._r`; its
    text, detail and data through their properties only where they are made or cut), its
    pointer written only for data that has some, no call per step but its own."""
    if not SWITCH.direct:
        return [step_data(s, w, f"/trace/{i}") for i, s in enumerate(steps)]
    return steps_written(steps, w.language, w.fractions, w.text, _writes(w), kept)


def _writes(w: Writer):
    """`step_data` of a step at `/trace/{i}` (a step of a type other than `Step`)."""
    return lambda step, i: step_data(step, w, f"/trace/{i}")


def step_data(step, w: Writer, pointer: str) -> dict:
    """One step of a trace: its kind, its text, where in the rulebook, and its numbers."""
    language = w.language
    data = step.data
    if type(step) is Step:  # (its plain parts read as its properties read them, at once)
        r = step._r
        span = r[8]
        file = span.source.name if r[5] is None and span is not None else r[5]
        line = span.line if span is not None else r[2]
        kind, depth, verbose = r[0], r[4], r[7]
    else:
        file, line = step.file, step.line
        kind, depth, verbose = step.kind, step.depth, step.verbose
    return {
        "kind": kind,
        "text": step_text(step.text, language),
        "file": file,
        "line": line,
        "depth": depth,
        "detail": step_text(step.detail, language),
        "verbose": verbose,
        # (a step without numbers, as many are: no pointer made for none)
        "data": {} if type(data) is dict and not data else w.value(data, f"{pointer}/data"),
    }


def roll_data(result, language: str | None = None) -> dict:
    """A dice expression rolled on its own (`interpreter.roll`)."""
    w = Writer(language)
    out = _head("roll", language)
    out["expression"] = result.expression
    out["total"] = w.value(result.total, "/total")
    out["dice"] = list(result.dice)
    out["terms"] = [
        {
            "dice": pool.label,
            "start": start,
            "end": end,
            "faces": [face for face, _status, _exploded in pool.faces],
            "kept": [face for face, status, _exploded in pool.faces if status == KEPT],
            "total": w.value(pool.total, f"/terms/{i}/total"),
        }
        for i, (start, end, pool) in enumerate(sorted(result.terms, key=lambda t: t[0]))
    ]
    out["detail"] = result.detail
    out["origin"] = result.origin
    return w.finish(out)


# ─── odds ───────────────────────────────────────────────────────────────────


def odds_data(odds, language: str | None = None) -> dict:
    """An odds answer (`interpreter.odds.Odds`): each outcome with its probability."""
    w = Writer(language)
    out = _head("odds", language)
    _odds_body(odds, w, "", out)
    return w.finish(out)


def _odds_body(odds, w: Writer, base: str, out: dict) -> dict:
    out["subject"] = w.value(odds.subject, f"{base}/subject")
    out["field"] = odds.field
    out["exact"] = odds.exact
    numeric = odds.numeric()
    out["numeric"] = numeric
    # at most LISTED_OUTCOMES outcomes (interpreter.odds.listing), their exact fractions
    # while they stay within FRACTION_CHARS; what is left out is counted
    listed = odds.listing()
    table = listed.table
    total, mass = table.total, table.mass
    exact = odds.fractions()
    beyond = 1 - odds.omitted - Fraction(mass, total) if total else Fraction(0)

    def probability(weight: int, pointer: str, extra=Fraction(0)):
        value = exact.of(weight) if exact is not None else None
        if value is None:
            return weight / total + float(extra)
        return w.value(value + extra if extra else value, pointer)

    outcomes = []
    for i, (outcome, p, before) in enumerate(listed.rows):
        at = f"{base}/outcomes/{i}"
        item = {
            "outcome": _outcome(outcome, w, f"{at}/outcome"),
            "probability": probability(p, f"{at}/probability"),
            "at_least": probability(mass - before, f"{at}/at_least", beyond) if numeric else None,
            "stderr": odds.stderr(outcome),
        }
        outcomes.append(item)
    out["outcomes"] = outcomes
    out["outcome_count"] = len(table)
    out["left_out"] = None
    if listed.left_out:
        out["left_out"] = {
            where: {"outcomes": count, "probability": weight / total}
            for where, (count, weight) in (("before", listed.below), ("after", listed.above))
        }
    out["range"] = None
    if numeric:
        low, high = table.outcomes[0], table.outcomes[-1]
        out["range"] = {
            "min": w.value(low, f"{base}/range/min"),
            "max": w.value(high, f"{base}/range/max"),
        }
    mean = odds.mean if numeric else None
    out["mean"] = out["stdev"] = None
    if mean is not None:  # the mean's exact fraction where the answer's are written
        shown = mean if exact is not None and exact.left > 0 else _number(mean)
        out["mean"] = w.value(shown, f"{base}/mean")
        out["stdev"] = _number(odds.variance, root=True)
    out["omitted_mass"] = w.value(Fraction(odds.omitted), f"{base}/omitted_mass")
    out["trials"] = odds.trials
    out["note"] = w.text(odds.note)  # why it was sampled (a limit), and if it stopped short
    fields = getattr(odds, "fields", None)
    if fields is not None:  # the whole result field by field (interpreter.odds.marginals)
        out["joint_outcomes_above"] = odds.limit if odds.proven else None
        out["fields"] = [
            _odds_body(f, w, f"{base}/fields/{i}", {}) for i, f in enumerate(fields.values())
        ]
    if odds.goal is not None:  # the odds under the best play for a goal
        goal = odds.goal
        value = w.value(goal.value, f"{base}/goal/value")
        out["goal"] = {
            "field": goal.field,
            "value": value,
            "mean": goal.mean,
            "expression": goal.expression,
            "worth": w.value(odds.goal_worth, f"{base}/goal/worth"),
        }
        out["decisions"] = [
            {
                "choice": choice,
                "option": w.value(option, f"{base}/decisions/{i}/option"),
                "probability": w.value(p, f"{base}/decisions/{i}/probability"),
            }
            for i, ((choice, option), p) in enumerate(odds.decisions.items())
        ]
    return out


def _number(value: Fraction, root: bool = False) -> float | int:
    """`value` (or its square root) as a float, or past a float's range as the nearest
    whole number (JSON has no infinity; outcomes may have a thousand digits)."""
    try:
        return math.sqrt(value) if root else float(value)
    except OverflowError:
        return math.isqrt(round(value)) if root else round(value)


def _outcome(outcome, w: Writer, pointer: str):
    message = getattr(outcome, "message", None)
    if message is not None and not isinstance(outcome, Mapping):  # the action stopped
        return {"failure": w.text(message)}
    return w.value(outcome, pointer)


def comparison_data(a, b, names: tuple, language: str | None = None) -> dict:
    """Two odds answers side by side (`rulebook odds ... --compare`)."""
    w = Writer(language)
    out = _head("odds_comparison", language)
    out["names"] = [w.text(name) for name in names]
    out["a"] = _odds_body(a, w, "/a", {})
    out["b"] = _odds_body(b, w, "/b", {})
    return w.finish(out)


# ─── what a rulebook offers ─────────────────────────────────────────────────


def describe_data(book, language: str | None = None) -> dict:
    """A rulebook's actions, checks, rolls, tables and sheet (`interpreter.describe`)."""
    w = Writer(language)
    out = _head("describe", language or book.language)
    from interpreter.describe import describe  # (a rolled expression's JSON needs none)

    out.update(w.value(describe(book), ""))
    return w.finish(out)


# ─── errors ─────────────────────────────────────────────────────────────────


def error_data(error: RulebookError, language: str | None = None) -> dict:
    """An error as data: its stable `code`, the exit code, the message, where."""
    language = language or error.language
    w = Writer(language)
    out = _head("error", language)
    out["error"] = _error(error, w)
    return w.finish(out)


def usage_error_data(message: str, language: str | None = None) -> dict:
    """A command line that could not be read (exit code 2)."""
    out = _head("error", language)
    out["error"] = {
        "code": "usage_error",
        "exit_code": 2,
        "message": translate(message, language),
        "hint": None,
        "location": None,
    }
    out["fractions"] = {}
    return out


def _error(error: RulebookError, w: Writer, inner: bool = False) -> dict:
    out = {
        "code": error.code,
        "exit_code": error.exit_code,
        "message": w.text(error.message),
        "hint": w.text(error.hint),
        "location": location_data(error.span) or _sheet_location(error),
    }
    if (field := getattr(error, "field", None)) is not None:
        out["field"] = field
    if (path := getattr(error, "path", None)) is not None:
        out["file"] = path
    if isinstance(error, RulebookInvalid):
        out["diagnostics"] = [{"severity": d.severity, **_error(d, w)} for d in error.diagnostics]
    elif not inner and (every := getattr(error, "every_value", None)):
        # a new sheet's every value wrong (this one first), each with its field
        out["diagnostics"] = [{"severity": "error", **_error(d, w, True)} for d in every]
    return out


def _sheet_location(error: RulebookError) -> dict | None:
    """Where in a sheet file its error is, when the reading placed it (same shape)."""
    if not isinstance(error, SheetError) or error.line is None or error.column is None:
        return None
    return {
        "file": error.path or "<sheet>",
        "line": error.line,
        "column": error.column,
        "end_line": error.line,
        "end_column": error.column + error.width,
        "source_line": error.line_text,
    }


def location_data(span: Span | None) -> dict | None:
    """Where in a rulebook (or expression): file, line and column of both ends, the line."""
    if span is None:
        return None
    line, column = span.source.line_col(span.start)
    end_line, end_column = span.source.line_col(span.end)
    return {
        "file": span.source.name,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "source_line": span.source.line_text(line),
    }


# ─── the journal's commands ─────────────────────────────────────────────────


def stored_value(value):
    """A value as the journal keeps it (interpreter.values.to_json), back as a rulebook
    value: a fraction's text (FractionText) is the fraction, any other text a text."""
    if type(value) is FractionText:
        return value.fraction()
    if isinstance(value, list):
        return [stored_value(v) for v in value]
    if isinstance(value, dict):
        return {k: stored_value(v) for k, v in value.items()}
    return value


def entry_data(entry, w: Writer, pointer: str, undone_by: int | None = None) -> dict:
    """One journal entry (a saved run, or an undo) as `log` and `show` give it: the
    entry's own `to_json`, its stored values read back as numbers (choices: in `show`)."""
    data = entry.to_json(undone_by)
    del data["choices"]
    for key in ("params", "result", "changes"):
        data[key] = w.value(stored_value(data[key]), f"{pointer}/{key}")
    return data


def log_data(entries, undone_by: Mapping, language: str | None = None) -> dict:
    """`rulebook log --json`: the journal's entries, newest first."""
    w = Writer(language)
    out = _head("log", language)
    out["entries"] = [
        entry_data(e, w, f"/entries/{i}", undone_by.get(e.id)) for i, e in enumerate(entries)
    ]
    return w.finish(out)


def journal_entry_data(entry, rulebook, trace, language: str | None = None) -> dict:
    """`rulebook show N --json`: one entry in full, with its trace run again (or null)."""
    w = Writer(language)
    out = _head("journal_entry", language)
    out["entry"] = entry_data(entry, w, "/entry")
    out["entry"].update(
        rulebook=rulebook,
        dice=list(entry.dice),
        origin=entry.origin,
        seed=entry.seed,
        choices=w.value(stored_value(list(entry.choices)), "/entry/choices"),
    )
    out["trace"] = (
        None if trace is None else [step_data(s, w, f"/trace/{i}") for i, s in enumerate(trace)]
    )
    return w.finish(out)


def replay_data(report, against: dict, language: str | None = None) -> dict:
    """`rulebook replay --json`: each recorded run against the other rules (`against`:
    their title and path)."""
    w = Writer(language)
    out = _head("replay", language)
    out["against"] = against
    out["runs"] = [
        w.value(stored_value(run.to_json()), f"/runs/{i}") for i, run in enumerate(report)
    ]
    return w.finish(out)


# ─── encounters ─────────────────────────────────────────────────────────────


def encounter_data(answer, language: str | None = None) -> dict:
    """A whole encounter's answer (an EncounterOdds of interpreter.balance.encounters):
    who wins, in how many rounds, with what left; exact fractions in `fractions`, or a
    sample's estimates with their 95% intervals."""
    w = Writer(language)
    out = _head("encounter", language)
    exact = answer.exact

    def number(p, pointer: str):
        return w.value(p, pointer) if exact else float(p)

    out["method"] = "exact" if exact else "sampled"
    out["reason"] = w.text(answer.reason)
    out["trials"] = answer.trials
    out["sides"] = list(answer.sides)
    out["combatants"] = list(answer.names)
    out["max_rounds"] = answer.max_rounds
    winners = []
    for i, (side, p) in enumerate(answer.winners().items()):
        low, high = answer.interval(side)
        interval = None if exact else [float(low), float(high)]
        item = {"side": side, "probability": number(p, f"/winners/{i}/probability")}
        winners.append({**item, "interval": interval})
    out["winners"] = winners
    out["mean_rounds"] = number(answer.mean_rounds(), "/mean_rounds")
    low, high = answer.rounds_interval()
    out["mean_rounds_interval"] = None if exact else [float(low), float(high)]
    out["rounds"] = [
        {"rounds": n, "probability": number(p, f"/rounds/{i}/probability")}
        for i, (n, p) in enumerate(answer.rounds().items())
    ]
    left: list[Any] = []
    for side in answer.sides:
        ends = list(answer.left(side).items())
        for healths, p in ends[:LISTED_ENDS]:
            pointer = f"/left/{len(left)}/probability"
            health = dict(zip(answer.names, healths))
            left.append({"side": side, "health": health, "probability": number(p, pointer)})
    out["left"] = left
    sheets: list[dict] = []
    for side in answer.sides:
        for healths, changed, p in answer.sheets_left(side)[:LISTED_ENDS]:
            at = f"/sheets_left/{len(sheets)}"
            health = dict(zip(answer.names, healths))
            item = {"side": side, "health": health, "changed": w.value(changed, f"{at}/changed")}
            sheets.append({**item, "probability": number(p, f"{at}/probability")})
    out["sheets_left"] = sheets
    return w.finish(out)


def sweep_data(rows: list, action: str, language: str | None = None) -> dict:
    """A sweep's table (interpreter.balance.sweep): its columns in order, and a row per
    case, each probability a number with its exact fraction in `fractions`."""
    w = Writer(language)
    out = _head("sweep", language)
    out["action"] = action
    seen: dict = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    out["columns"] = list(seen)
    out["rows"] = [w.value(dict(row), f"/rows/{i}") for i, row in enumerate(rows)]
    return w.finish(out)


# ─── the schemas ────────────────────────────────────────────────────────────


def schema_text(name: str) -> str:
    """The text of a shipped schema file: a kind of document, or "common"."""
    return (resources.files("interpreter") / "schemas" / f"{name}.schema.json").read_text(
        encoding="utf-8"
    )


def schemas() -> dict[str, dict]:
    """Every shipped schema by its `$id` (the documents' and the common definitions)."""
    loaded = [json.loads(schema_text(name)) for name in (*KINDS, "common")]
    return {s["$id"]: s for s in loaded}


def schema(kind: str) -> dict:
    """The JSON Schema of one kind of document."""
    if kind not in KINDS:
        raise ValueError(f"no schema for {kind!r}; kinds: {', '.join(KINDS)}")
    return json.loads(schema_text(kind))


def dumps(document: dict) -> str:
    """A document as the command line prints it."""
    return json.dumps(document, ensure_ascii=False, indent=2)
