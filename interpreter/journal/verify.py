"""`rulebook journal verify`: check a journal against its sheet files, and repair it.

Checked: SQLite's integrity and references; that every stored text still matches its
hash; that each sheet's entries follow one another (a run starts from the text the last
one wrote, or the file was edited by hand in between: noted, never an error); that each
sheet file is what the journal last wrote (if not, it was edited since: noted). Repaired:
saves a crash interrupted (`pending` entries are completed from the journal, which is
the truth), and temporary files a killed save left behind. With `rerun`, every run is
also run again from its record (its dice and choices) and must give the recorded result,
changes, choices and every character's sheet after it.
"""

from __future__ import annotations

from contextlib import ExitStack

import attrs

from dsl.errors import RulebookError
from dsl.messages import Message, tr, tr_n
from interpreter import safe_files
from interpreter.engine import Engine
from interpreter.journal.recovery import complete_pending
from interpreter.journal.rerun import inputs_of, mismatches, rulebook_of, run_again
from interpreter.journal.store import JOURNAL_NAME, MAX_FILE_BYTES, Journal
from interpreter.sheets.character import text_digest

OK, NOTE, REPAIRED, PROBLEM = "ok", "note", "repaired", "problem"


@attrs.frozen
class Finding:
    level: str  # OK | NOTE | REPAIRED | PROBLEM
    text: str


@attrs.frozen
class Report:
    findings: tuple

    @property
    def consistent(self) -> bool:
        return not any(f.level == PROBLEM for f in self.findings)


def verify_journal(
    journal: Journal,
    repair: bool = True,
    force: bool = False,
    rerun: bool = False,
    progress=None,
) -> Report:
    findings: list[Finding] = []
    problems = journal.integrity()
    findings += [Finding(PROBLEM, tr("database: {problem}", problem=p)) for p in problems]
    stored = journal.sheet_paths()
    places, refused = _places(journal, stored)
    findings += refused
    with _locks(journal, places.values()):
        for repair_done in complete_pending(journal, None, force=force, dry_run=not repair):
            level = (
                PROBLEM if repair_done.what in ("conflict", "refused") or not repair else REPAIRED
            )
            if repair_done.what == "already written" and repair:
                level = REPAIRED
            findings.append(Finding(level, repair_done.describe()))
        folders = {place.folder: place for place in places.values()}
        folders.setdefault(journal.folder, safe_files.Inside(journal.folder, (JOURNAL_NAME,)))
        for folder in sorted(folders):
            findings += _strays(folders[folder], repair)
        findings += _texts(journal)
        entries = journal.entries()
        for path, place in places.items():
            findings += _chain([e for e in entries if e.sheet_of(path)], path, place)
        if rerun:
            findings += _reruns(journal, entries, progress)
    if not any(f.level in (PROBLEM, REPAIRED) for f in findings):
        count = len(journal.entries())
        findings.append(
            Finding(
                OK,
                tr(
                    "{entries}, {sheets}: consistent",
                    entries=tr_n("{n} entry", "{n} entries", count),
                    sheets=tr_n("{n} sheet", "{n} sheets", len(stored)),
                ),
            )
        )
    return Report(tuple(findings))


def _strays(place: safe_files.Inside, repair: bool) -> list[Finding]:
    """The temporaries killed saves left in a sheet's folder (removed, with `repair`)."""
    try:
        strays = place.remove_strays(any_target=True) if repair else place.strays(True)
    except RulebookError as error:  # a folder on the way that is a link: left alone
        return [Finding(PROBLEM, tr("{name}: {message}", name=place.name, message=error.message))]
    return [
        Finding(
            REPAIRED if repair else PROBLEM,
            (
                tr("{name}: a temporary file a killed save left behind (removed)", name=stray.name)
                if repair
                else tr("{name}: a temporary file a killed save left behind", name=stray.name)
            ),
        )
        for stray in strays
    ]


def _places(journal: Journal, stored: list[str]) -> tuple[dict, list[Finding]]:
    """The file of each sheet name the journal gives, and a problem for each name that
    is not a file below its folder, or lies behind a folder that is a link (never
    locked, read or written)."""
    places, refused = {}, []
    for name in stored:
        try:
            place = journal.place_of(name)
            place.refuse_link(leaf=False)  # (its folder is locked: never one out of reach)
        except RulebookError as error:
            refused.append(
                Finding(PROBLEM, tr("{name}: {message}", name=name, message=error.message))
            )
            continue
        places[name] = place
    return places, refused


def _locks(journal: Journal, places) -> ExitStack:
    """Every folder's lock (completing pending entries is this command's own work)."""
    stack = ExitStack()
    folders = [journal.folder] + [place.folder for place in places]
    for lock in safe_files.lock_folders(folders):
        stack.enter_context(lock)
    return stack


def _texts(journal: Journal) -> list[Finding]:
    out = []
    for digest, body in journal.stored_texts():
        if digest is None or body is None or text_digest(body) != digest:
            shown = (digest or "?")[:12]
            out.append(
                Finding(PROBLEM, tr("stored text {digest} does not match its hash", digest=shown))
            )
    return out


def _chain(entries, path: str, place: safe_files.Inside) -> list[Finding]:
    out = []
    previous = None
    for entry in entries:
        if entry.state != "applied":
            continue
        state = entry.sheet_of(path)
        if previous is not None and state.before != previous[1]:
            out.append(
                Finding(
                    NOTE,
                    tr(
                        "{path}: edited by hand between entry {number} and {later}",
                        path=path,
                        number=previous[0],
                        later=entry.id,
                    ),
                )
            )
        previous = (entry.id, state.after)
    if previous is None:
        return out
    try:
        current = place.read(MAX_FILE_BYTES)
    except RulebookError as error:  # a link, not a regular file, too large, not UTF-8
        return [*out, Finding(PROBLEM, tr("{name}: {message}", name=path, message=error.message))]
    if current is None:
        if previous[1] is not None:  # (None: the entry took the file away, an undo)
            out.append(
                Finding(
                    NOTE,
                    tr(
                        "{path}: the file is gone (entry {number} wrote it last)",
                        path=path,
                        number=previous[0],
                    ),
                )
            )
    elif previous[1] is None or text_digest(current) != previous[1]:
        out.append(
            Finding(
                NOTE,
                tr("{path}: edited since entry {number} wrote it", path=path, number=previous[0]),
            )
        )
    return out


def _reruns(journal: Journal, entries, progress) -> list[Finding]:
    out = []
    runs = [e for e in entries if e.kind == "run" and e.state == "applied"]
    for done, entry in enumerate(runs):
        try:
            inputs = inputs_of(journal, entry)
            engine = Engine.of(rulebook_of(inputs))
            again = run_again(engine, inputs)
            record = {"result": entry.result, "changes": entry.changes, "choices": entry.choices}
            afters = {s.role: (s.path, s.text_format, journal.text(s.after)) for s in entry.sheets}
            problems = mismatches(record, again, engine, afters)
            if problems:
                out.append(
                    Finding(
                        PROBLEM,
                        tr(
                            "run {number}: does not reproduce its record ({problems})",
                            number=entry.id,
                            problems=Message.joined(problems, "; "),
                        ),
                    )
                )
        except RulebookError as error:
            out.append(
                Finding(
                    PROBLEM,
                    tr(
                        "run {number}: cannot run again ({message})",
                        number=entry.id,
                        message=error.message,
                    ),
                )
            )
        if progress is not None:
            progress(done + 1, len(runs))
    return out
