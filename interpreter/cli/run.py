"""`rulebook run RULEBOOK ACTION`: run an action against a character, show the trace."""

from __future__ import annotations

import sys
from pathlib import Path

from dsl.errors import RulebookError
from dsl.messages import Message, path_shown, show_value, tr, translate
from interpreter.cli import arguments, options
from interpreter.cli.choosing import choose_option, chooser_of
from interpreter.errors import EvaluationError, ParameterError
from interpreter.json_data import dumps, run_data
from interpreter.safe_files import Inside


def add_parser(commands) -> None:
    p = commands.add_parser(
        "run",
        help=tr("run an action (or a check, or a named roll) against a character"),
        description=tr(
            "Run an action of a rulebook against a character; or one of "
            "its checks, or one of its named rolls."
        ),
    )
    p.add_argument("rulebook", metavar="RULEBOOK", help=tr("a .rules file or a shipped rulebook"))
    p.add_argument(
        "action", metavar="ACTION", nargs="?", help=tr("an action, a check or a named roll")
    )
    arguments.run_options(p)
    choose_option(p)
    arguments.dice_options(p, ask=True)
    arguments.output_options(p)
    p.add_argument(
        "--verbose",
        action="store_true",
        help=tr(
            "the whole trace (every lookup and value), and where in the "
            "rulebook a refusal comes from"
        ),
    )
    p.add_argument(
        "--save",
        action="store_true",
        help=tr("write the changed values back into --char and journal the run"),
    )
    p.add_argument(
        "--save-as",
        metavar="FILE",
        help=tr(
            "write the changed sheet to a new FILE (a copy of a shipped character) and journal it"
        ),
    )
    options.journal_option(p)


def cmd_run(args) -> int:
    from interpreter.engine import Engine
    from interpreter.trace import render_text

    book = options.load_rulebook(args.rulebook)
    language = options.language(args, book)
    if args.action is None:  # what it could run, said rather than argparse's usage
        raise ParameterError(
            tr(
                "which action of {target}? write `rulebook run {target2} ACTION`",
                target=args.rulebook,
                target2=args.rulebook,
            ),
            None,
            tr("actions: {names}", names=", ".join(book.actions)),
        ).speak(language)
    engine = Engine.of(book)
    try:  # a name it has not: said before a character is asked for
        engine.runnable(args.action)
    except ParameterError as error:
        raise error.speak(language) from None
    saving = args.save or args.save_as is not None
    try:
        if saving:
            outcome, saved = _run_and_save(args, book, engine, language)
        else:
            sheet = options.sheet_for(args, book, engine, args.action)
            targets = options.targets_of(args, book, engine, args.action)
            params = options.params_of(args.set)
            dice = options.dice_source(args, language, symbols=bool(book.dice), book=book)
            choices = chooser_of(args, language)
            outcome = engine.run(
                args.action, sheet, params, dice, targets=targets, choices=choices, trace=True
            )
            options.faces_left_over(dice, language)
            saved = None
    except EvaluationError as error:
        if error.trace is not None and not args.json:  # what happened, up to the failure
            print(f"{book.title} · {args.action}")
            print(render_text(error.trace, language))
        raise error.speak(language) from None
    except RulebookError as error:
        raise error.speak(language) from None
    for warning in outcome.warnings:
        print(translate(tr("warning: {warning}", warning=warning), language), file=sys.stderr)
    if args.json:
        data = run_data(outcome, language)
        if saved is not None:
            data["saved"] = saved
        print(dumps(data))
        return 0
    print(f"{book.title} · {args.action}")
    print(render_text(outcome.trace, language, args.verbose))
    print(outcome_text(outcome, language, getattr(args, "seed", None)))
    if saved is not None:
        done = tr(
            "saved {path} (journal {journal}, run {entry})",
            path=", ".join([saved["path"], *saved.get("others", {}).values()]),
            journal=saved["journal"],
            entry=saved["entry"],
        )
        print(done.render(language))
    return 0


def outcome_text(outcome, language: str, seed: int | None = None) -> str:
    """The result, the changes and the dice of a run, after its trace."""
    lines = []
    if outcome.result is not None:
        if hasattr(outcome.result, "items"):
            shown = Message.joined(
                (tr("{name} {value}", name=k, value=v) for k, v in outcome.result.items()), ", "
            )
        else:
            shown = outcome.result
        lines.append(tr("result: {result}", result=shown).render(language))
    if outcome.characters:  # one list per character: the acting one, then the others
        lines.extend(_changes(_label(outcome.sheet), outcome.changes, language))
        for other in outcome.characters:
            who = tr("{label} ({role})", label=other.label, role=other.role)
            lines.extend(_changes(who, other.changes, language))
    elif outcome.changes:
        lines.append(tr("changes:").render(language))
        lines.extend(_change_lines(outcome.changes, language))
    else:
        lines.append(tr("changes: none").render(language))
    dice = ", ".join(map(str, outcome.dice)) or translate(tr("none"), language)
    lines.append(
        tr("dice: {dice}", dice=dice).render(language)
        + options.origin_note(outcome.origin, language, seed)
    )
    return "\n".join(lines)


def _changes(who, changes, language) -> list:
    """`changes of orc (objetivo):` and a line per change (or `changes of ...: none`)."""
    if not changes:
        return [tr("changes of {who}: none", who=who).render(language)]
    head = tr("changes of {who}:", who=who).render(language)
    return [head, *_change_lines(changes, language)]


def _change_lines(changes, language) -> list:
    out = []
    for change in changes:
        before, after = show_value(change.before, language), show_value(change.after, language)
        out.append(f"  {path_shown(change.path, language)}: {before} → {after}")
    return out


def _label(sheet) -> str:
    return Path(sheet.path).stem if sheet.path else "self"


def _run_and_save(args, book, engine, language):
    """Read, run and save as one step: the sheet file and its journal entry together."""
    from interpreter.journal import JOURNAL_NAME, run_and_save
    from interpreter.journal.store import place_below
    from interpreter.sheets.character import refuse_shipped

    if args.char is None:
        raise ParameterError(tr("--save needs --char: the sheet to write back"))
    if args.save and args.save_as is not None:
        raise ParameterError(tr("--save and --save-as: choose one"))
    source = options.resolve_character(args.char, book)
    target = Path(args.save_as) if args.save_as is not None else source
    refuse_shipped(target)  # before any die is rolled
    Inside.beside(target).refuse_link()  # a save never writes through a link
    if args.save_as is not None and target.exists():
        raise ParameterError(
            tr("--save-as {path}: the file exists", path=str(target)),
            None,
            tr(
                "save into it with --char {path} --save, or name a new file",
                path=str(target),
            ),
        )
    journal_path = Path(args.journal) if args.journal else target.resolve().parent / JOURNAL_NAME
    dice = options.dice_source(args, language, symbols=bool(book.dice), book=book)
    params = options.params_of(args.set)
    others = options.target_files(args, book, args.action)
    for path in others.values():
        refuse_shipped(path)
    files = [target, *others.values()]
    if len({p.resolve() for p in files}) != len(files):  # two roles, one file: which wins?
        raise ParameterError(tr("--save: two characters of the run are the same file"))
    for path in files:  # each a file the journal may name, before the journal is made
        place_below(journal_path.parent, path)

    def load(role, path):
        sheet = engine.load_sheet(path)
        return sheet if role == "self" else options.shown(sheet, args, book)

    def run(sheet, targets):
        choices = chooser_of(args, language)
        outcome = engine.run(
            args.action, sheet, params, dice, targets=targets, choices=choices, trace=True
        )
        options.faces_left_over(dice, language)
        return outcome

    # Dice typed in at the table take a person's time: the folder is not held while
    # they are asked for (a save in between makes this one refuse, exit 4).
    return run_and_save(
        journal_path,
        {"self": source, **others},
        {"self": target, **others},
        run,
        book,
        dice,
        load=load,
        hold=not (args.ask or _asks()),
    )


def _asks() -> bool:
    """Whether the run may ask a person at the table (a choice not answered with
    --choose): which choices an action makes is known only as it runs."""
    return sys.stdin.isatty()
