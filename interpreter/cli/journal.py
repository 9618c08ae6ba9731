"""`rulebook journal verify`: check the journal against its sheets, and repair it."""

from __future__ import annotations

from dsl.messages import tr, translate
from interpreter.cli import options

#: how sure each finding is, at the head of its line
MARKS = {"ok": tr("ok"), "note": tr("note"), "repaired": tr("repaired"), "problem": tr("PROBLEM")}


def add_parser(commands) -> None:
    p = commands.add_parser(
        "journal",
        help=tr("look after the journal (verify and repair)"),
        description=tr("Commands on the journal itself."),
    )
    sub = p.add_subparsers(dest="journal_command", metavar="COMMAND", required=True)
    v = sub.add_parser(
        "verify",
        help=tr("check the journal and its sheets; complete interrupted saves"),
        description=tr(
            "Check the journal's database, its texts and every sheet it "
            "knows; complete saves a crash interrupted (the journal is "
            "the truth), remove temporary files a killed save left. Exit "
            "0 when consistent, 4 when a problem remains."
        ),
    )
    v.add_argument("--dry-run", action="store_true", help=tr("only report; change nothing"))
    v.add_argument(
        "--force", action="store_true", help=tr("write the journal's text over a conflicting file")
    )
    v.add_argument(
        "--rerun", action="store_true", help=tr("also run every run again from its record")
    )
    options.journal_option(v, here=True)


def cmd_journal(args) -> int:
    from interpreter.journal import verify_journal

    with options.open_journal(args) as journal:
        language = options.journal_language(args, journal)
        report = verify_journal(
            journal, repair=not args.dry_run, force=args.force, rerun=args.rerun
        )
        path = journal.where
    for finding in report.findings:
        mark = MARKS[finding.level].render(language)
        print(f"{mark:>8}  {translate(finding.text, language)}")
    if not report.consistent:
        print(tr("{path}: problems remain", path=path).render(language))
        return 4
    return 0
