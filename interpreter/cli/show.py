"""`rulebook show N`: one journaled run in full, its trace rebuilt from the record."""

from __future__ import annotations

from dsl.errors import RulebookError
from dsl.messages import tr, translate
from interpreter.cli import history, options
from interpreter.json_data import dumps, journal_entry_data


def add_parser(commands) -> None:
    p = commands.add_parser(
        "show",
        help=tr("one saved run in full, with its trace"),
        description=tr(
            "One journaled run: its rulebook, parameters, dice, the trace "
            "(run again from the record with the recorded dice), result, "
            "changes and sheets."
        ),
    )
    p.add_argument(
        "number", type=int, metavar="N", help=tr("the run's number (see `rulebook log`)")
    )
    p.add_argument("--json", action="store_true", help=tr("print JSON"))
    options.journal_option(p, here=True)


def cmd_show(args) -> int:
    from interpreter.engine import Engine
    from interpreter.journal.rerun import inputs_of, mismatches, rulebook_of, run_again
    from interpreter.trace import render_text

    with options.open_journal(args) as journal:
        language = options.journal_language(args, journal)
        entry = journal.entry(args.number)
        language = options.journal_language(args, journal, [entry])
        trace, problem, differs = None, None, []
        if entry.kind == "run":
            try:
                inputs = inputs_of(journal, entry)
                engine = Engine.of(rulebook_of(inputs))
                again = run_again(engine, inputs)
                trace = again.outcome.trace
                record = {"result": entry.result, "changes": entry.changes}
                differs = mismatches({**record, "choices": entry.choices}, again, engine)
            except RulebookError as error:
                problem = error.message
        row = journal.rulebook_row(entry.rulebook) if entry.rulebook else None
    if trace is not None:  # the rulebook's own language, as `run` speaks
        language = options.language(args, inputs.rulebook)
    if args.json:
        book = row and {"name": row["name"], "title": row["title"], "hash": row["hash"]}
        print(dumps(journal_entry_data(entry, book, trace, language)))
        return 0
    print(
        tr(
            "run {id} · {when} UTC · {join}",
            id=entry.id,
            when=history.when(entry),
            join=", ".join(s.path for s in entry.sheets),
        ).render(language)
    )
    if row is not None:
        print(
            tr(
                "rulebook: {title} ({name}, {value})",
                title=row["title"],
                name=row["name"],
                value=row["hash"][:12],
            ).render(language)
        )
    if entry.kind == "undo":
        print(
            tr("undo of run {undoes} ({action})", undoes=entry.undoes, action=entry.action).render(
                language
            )
        )
        print(
            tr(
                "changes: {changes}", changes=history.changes_text(entry.changes, "; ", language)
            ).render(language)
        )
        return 0
    if entry.kind == "sheet":  # a character made or edited by hand in the page
        made = entry.action == "create"
        print((tr("character made") if made else tr("sheet edited")).render(language))
        print(
            tr(
                "changes: {changes}", changes=history.changes_text(entry.changes, "; ", language)
            ).render(language)
        )
        return 0
    if entry.kind == "rulebook":
        print(
            tr(
                "rulebook {name} saved: its text before is kept in the journal "
                "(`rulebook undo {number}` puts it back)",
                name=entry.action,
                number=entry.id,
            ).render(language)
        )
        return 0
    print(
        tr(
            "action: {action}({params_text})",
            action=entry.action,
            params_text=history.params_text(entry.params, language),
        ).render(language)
    )
    print(tr("dice: {dice_text}", dice_text=history.dice_text(entry, language)).render(language))
    if entry.choices:
        print(
            tr(
                "choices: {choices}", choices=history.choices_text(entry.choices, language=language)
            ).render(language)
        )
    if entry.state == "pending":
        print(
            tr(
                "state: interrupted before its sheet was written (run `rulebook journal verify`)"
            ).render(language)
        )
    if trace is not None:
        print(render_text(trace, language))
        if differs:
            print(
                tr(
                    "note: run again, the record does not give what was recorded ({problems})",
                    problems="; ".join(translate(d, language) for d in differs),
                ).render(language)
            )
    else:
        print(tr("trace: not available ({problem})", problem=problem).render(language))
    print(
        tr("result: {result}", result=history.result_text(entry.result, None, language)).render(
            language
        )
    )
    print(
        tr(
            "changes: {changes}", changes=history.changes_text(entry.changes, "; ", language)
        ).render(language)
    )
    return 0
