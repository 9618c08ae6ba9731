"""`rulebook replay --against OTHER`: what the recorded runs would have been under other rules."""

from __future__ import annotations

import json

from dsl.messages import tr
from interpreter.cli import history, options
from interpreter.cli.log import stored_name
from interpreter.cli.render import progress_bar
from interpreter.journal import replay
from interpreter.journal.replay import CHOICES, DICE, DIFFERENT, FAILED, SAME, summary


def add_parser(commands) -> None:
    p = commands.add_parser(
        "replay",
        help=tr("re-run the journaled runs against another rulebook or a house rule"),
        description=tr(
            "Re-run recorded runs with their recorded dice and choices "
            "against OTHER (an edited rulebook, a house rule) and report, "
            "run by run, what would have come out differently (for every "
            "character of the run) and where the recorded dice or choices "
            "do not fit the new rules."
        ),
    )
    p.add_argument("--against", metavar="OTHER", required=True, help=tr("a .rules file or name"))
    p.add_argument("character", metavar="CHARACTER", nargs="?", help=tr("only this sheet's runs"))
    p.add_argument("--from", dest="start", metavar="N|DATE", help=tr("the first run (or day)"))
    p.add_argument("--to", dest="end", metavar="N|DATE", help=tr("the last run (or day)"))
    p.add_argument(
        "--chain",
        action="store_true",
        help=tr(
            "carry each sheet from one replayed run to the next (a whole "
            "session under the new rules) instead of starting each run "
            "from its recorded sheet"
        ),
    )
    p.add_argument(
        "--all", action="store_true", help=tr("list the runs that came out the same too")
    )
    p.add_argument("--json", action="store_true", help=tr("print JSON"))
    options.journal_option(p, here=True)


def cmd_replay(args) -> int:
    language = options.language(args)
    other = options.load_rulebook(args.against)
    with options.open_journal(args) as journal:
        sheet = stored_name(journal, args.character) if args.character else None
        report = replay(
            journal,
            other,
            start=_bound(args.start),
            end=_bound(args.end),
            sheet=sheet,
            chain=args.chain,
            progress=_progress(),
        )
    if args.json:
        print(json.dumps([run.to_json() for run in report], ensure_ascii=False, indent=2))
        return 0
    print(tr("replay against {title}", title=other.title).render(language))
    for run in report:
        if run.status == SAME and not args.all:
            continue
        print(_line(run))
    counts = summary(report)
    print(
        tr(
            (
                "{len} runs: {value} the same, {value2} different, {value3} where "
                "the recorded dice do not fit, {value5} where the recorded choices "
                "do not fit, {value4} that fail"
            ),
            len=len(report),
            value=counts[SAME],
            value2=counts[DIFFERENT],
            value3=counts[DICE],
            value5=counts[CHOICES],
            value4=counts[FAILED],
        ).render(language)
    )
    return 0


def _bound(text):
    """A run number, or a date/time (ISO 8601) as the journal writes them."""
    if text is None:
        return None
    return int(text) if text.strip().isdigit() else text.strip()


def _progress():
    bar = progress_bar()
    if bar is None:
        return None
    import time

    started = time.monotonic()
    return lambda done, total: bar(done, total, time.monotonic() - started, "replaying")


def _line(run) -> str:
    head = f"{run.entry:>5}  {run.at[:16].replace('T', ' ')}  {run.sheet}  {run.action}"
    if run.status == FAILED:
        return f"{head}  fails: {run.error}"
    if run.status == DICE and run.result is None:
        return f"{head}  dice do not fit: {run.dice}"
    if run.status == CHOICES and run.result is None:
        return f"{head}  choices do not fit: {run.choices_note}"
    parts = []
    recorded = run.recorded_result if isinstance(run.recorded_result, dict) else {}
    new = run.result if isinstance(run.result, dict) else {}
    for name in run.differences:
        if name.startswith("result."):
            key = name[len("result.") :]
            parts.append(
                f"{key} {history.show_json(recorded.get(key))} → {history.show_json(new.get(key))}"
            )
    old_changes = history.changes_text(run.recorded_changes)
    new_changes = history.changes_text(run.changes)
    if old_changes != new_changes:
        parts.append(f"changes: {old_changes} ⇒ {new_changes}")
    if run.dice:
        parts.append(f"dice: {run.dice}")
    if run.choices_note:
        parts.append(f"choices: {run.choices_note}")
    return f"{head}  {run.status}: " + "; ".join(parts or ["the same"])
