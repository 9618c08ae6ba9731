"""`rulebook replay --against OTHER`: what the recorded runs would have been under other rules."""

from __future__ import annotations

import functools

from dsl.messages import tr, translate
from interpreter.cli import history, options
from interpreter.json_data import dumps, replay_data


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
    from interpreter.cli.log import stored_name
    from interpreter.journal import replay
    from interpreter.journal.replay import CHOICES, DICE, DIFFERENT, FAILED, SAME, summary

    other = options.load_rulebook(args.against)
    language = options.language(args, other)
    with options.open_journal(args) as journal:
        sheet = stored_name(journal, args.character) if args.character else None
        report = replay(
            journal,
            other,
            start=_bound(args.start),
            end=_bound(args.end),
            sheet=sheet,
            chain=args.chain,
            progress=_progress(language),
        )
    if args.json:
        against = {"title": other.title, "path": other.path}
        print(dumps(replay_data(report, against, language)))
        return 0
    print(tr("replay against {title}", title=other.title).render(language))
    for run in report:
        if run.status == SAME and not args.all:
            continue
        print(_line(run, language))
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


def _progress(language: str | None):
    from interpreter.cli.render import progress_bar

    bar = progress_bar(language=language)
    if bar is None:
        return None
    import time

    started = time.monotonic()
    return lambda done, total: bar(done, total, time.monotonic() - started, tr("replaying"))


def statuses() -> dict:
    """Each way a replayed run came out, as the report says it."""
    from interpreter.journal.replay import CHOICES, DICE, DIFFERENT, FAILED, SAME

    return {
        SAME: tr("the same"),
        DIFFERENT: tr("different"),
        DICE: tr("dice do not fit"),
        CHOICES: tr("choices do not fit"),
        FAILED: tr("fails"),
    }


def _line(run, language: str | None) -> str:
    from interpreter.journal.replay import CHOICES, DICE, FAILED, SAME

    head = f"{run.entry:>5}  {run.at[:16].replace('T', ' ')}  {run.sheet}  {run.action}"
    status = statuses()[run.status].render(language)
    if run.status == FAILED:
        return f"{head}  {status}: {translate(run.error, language)}"
    if run.status == DICE and run.result is None:
        return f"{head}  {status}: {translate(run.dice, language)}"
    if run.status == CHOICES and run.result is None:
        return f"{head}  {status}: {translate(run.choices_note, language)}"
    parts = []
    recorded = run.recorded_result if isinstance(run.recorded_result, dict) else {}
    new = run.result if isinstance(run.result, dict) else {}
    shown = functools.partial(history.show_json, language=language)
    for name in run.differences:
        if name.startswith("result."):
            key = name[len("result.") :]
            parts.append(f"{key} {shown(recorded.get(key))} → {shown(new.get(key))}")
    old_changes = history.changes_text(run.recorded_changes, language=language)
    new_changes = history.changes_text(run.changes, language=language)
    if old_changes != new_changes:
        parts.append(
            tr("changes: {before} ⇒ {after}", before=old_changes, after=new_changes).render(
                language
            )
        )
    if run.dice:
        parts.append(tr("dice: {dice}", dice=translate(run.dice, language)).render(language))
    if run.choices_note:
        note = translate(run.choices_note, language)
        parts.append(tr("choices: {choices}", choices=note).render(language))
    return f"{head}  {status}: " + "; ".join(parts or [statuses()[SAME].render(language)])
