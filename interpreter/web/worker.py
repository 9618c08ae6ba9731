"""A worker process of the server: jobs read from its socket, run, their answers sent back.

Everything a request asks of the engine runs here, never in the server's own process:
parsing and checking a text, describing, running, odds, reading sheets. The server can
stop a worker at any moment (a job past its time bound, a client gone): it kills the
process, which no regular expression, big multiplication or answer being built can
delay. A worker renders its answer itself (the bytes the client gets), so that the time
it takes counts in its job's bound; it keeps its own caches (bounded, dsl.bounded) and
stops after a job that left it holding more than `settings["rss"]` bytes.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import resource
import signal
import socket
import time
from collections.abc import Callable
from typing import Any

from dsl.errors import TOO_DEEP, RulebookError
from dsl.messages import tr
from interpreter import surface
from interpreter.errors import LimitExceeded
from interpreter.journal.postgres import DATABASE_ENV
from interpreter.version import versioned
from interpreter.web import (
    by_hand,
    editing,
    encountering,
    frames,
    jobs,
    kept_answers,
    play,
    sweeping,
)
from interpreter.web.errors import ServerFailed, error_json, status_of
from interpreter.web.library import Library
from interpreter.web.paths import Names
from interpreter.web.tabletop import told

log = logging.getLogger("rulebook.web")

#: seconds a job's work runs before the server is told it started (frames.READY); a job
#: answered sooner sends the notice with its answer (one write, one wake-up of the server)
READY_AFTER = 0.05

#: the jobs a worker runs, by name
JOBS = {
    "rulebooks": jobs.rulebooks,
    "rulebook": jobs.rulebook,
    "rulebook_source": jobs.rulebook_source,
    "save_rulebook": jobs.save_rulebook,
    "characters": jobs.characters,
    "character": jobs.character,
    "sheet": jobs.sheet,
    "history": jobs.history,
    "undo": jobs.undo,
    "create_character": by_hand.create,
    "edit_character": by_hand.edit,
    "check": jobs.check,
    "words": jobs.words,
    "run": play.run,
    "odds": play.odds,
    "sweep": sweeping.sweep,
    "encounter": encountering.encounter,
    "editor": editing.editor,
}


def main(sock: socket.socket, folder: str, settings: dict) -> None:
    """A worker's life: one job after another until the server closes its socket."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C stops the server, which stops us
    signal.signal(signal.SIGPROF, signal.SIG_DFL)  # the backstop below ends the process
    _bound_memory(settings.get("memory"))
    surface.use(surface.REQUEST)  # its messages name a request's keys, not --options
    if settings.get("database"):  # the server's journal database (interpreter.journal.postgres)
        os.environ[DATABASE_ENV] = settings["database"]
    else:
        os.environ.pop(DATABASE_ENV, None)
    module, _, name = settings.get("jobs", "interpreter.web.worker:JOBS").partition(":")
    table = getattr(importlib.import_module(module), name)
    library = Library(folder)
    notice = Notice(sock)
    while True:
        received = frames.receive(sock)
        if received is None:
            return  # the server is gone
        kind, status, payload = received
        if kind != frames.JOB:
            continue
        before: list[bytes] = []  # frames of the answer, sent with it: one write, one read
        job = frames.job_of(payload, status)
        status, body = one(sock, table, library, settings, job, before, notice)
        retiring = _holds_more_than(settings.get("rss", 1 << 62))
        if retiring:  # said first: the server gives this process no other job
            before.append(frames.frame(frames.RETIRING))
        sock.sendall(b"".join([*before, frames.frame(frames.DONE, body, status)]))
        if retiring:
            return


def one(
    sock: socket.socket,
    table: dict,
    library: Library,
    settings: dict,
    job: dict,
    before: list[bytes] | None = None,
    notice: Notice | None = None,
):
    """Run one job: its answer's status and body. What the server hears of it after
    the work (its answer's headers, the table's event) goes in `before`, to be sent with
    the answer, else at once; so does the notice that its work started (`notice`: held
    back, sent meanwhile only if the work runs past READY_AFTER)."""

    def tell(kind: bytes, payload: bytes = b"") -> None:
        if notice is not None:
            notice.flush()  # (a notice held back goes first)
        frames.send(sock, kind, payload)

    def with_answer(kind: bytes, payload: bytes) -> None:
        if before is None:
            tell(kind, payload)
        else:
            before.append(frames.frame(kind, payload))

    work = jobs.Work(library, settings, tell, notice.hold if notice is not None else None)
    # A backstop for a server that died without stopping us: our own CPU time, past
    # twice every bound the server gives the job.
    signal.setitimer(signal.ITIMER_PROF, 2 * job.get("seconds", 600) + 5)
    try:
        answer = table[job["job"]](work, job["args"])
        if type(answer) is kept_answers.Rendered:  # (made before, within the same bound)
            body = _within(answer.body, job)
            answer = answer.document
        elif isinstance(answer, jobs.Answer):
            body = render(answer.document, work, job)
            with_answer(frames.HEADERS, compact(answer.headers))
            answer = answer.document
        else:
            body = render(answer, work, job)
            if work.remember is not None:
                key, engine, sheet = work.remember
                kept_answers.keep(key, kept_answers.Rendered(answer, body, engine, sheet))
        status = 200
        if job.get("tell") and not work.stream:
            _tell_table(with_answer, job, answer, len(body))
    except RulebookError as error:
        status, body = failed(error, work, job)
    except RecursionError:
        status, body = failed(LimitExceeded(TOO_DEEP), work, job)
    except MemoryError:
        status, body = failed(_too_much_memory(settings), work, job)
    except Exception as error:  # a bug: logged in full here, a plain message out
        log.exception("unexpected error in job %s", job.get("job"))
        status, body = 500, compact(error_json(unexpected(error)))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        held = notice.take() if notice is not None else None
        if held is not None:  # before the answer's other frames, as if sent at once
            if before is None:
                sock.sendall(held)
            else:
                before.insert(0, held)
    return status, body


class Notice:
    """The notice that a job's work started (frames.READY), held back: sent with the
    answer when the job ends within READY_AFTER seconds, else then (a SIGALRM), saying
    how long ago the work started, so the server's bound counts from the same moment."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.since: float | None = None  # when the work started, while the notice is held
        signal.signal(signal.SIGALRM, self._ring)
        signal.siginterrupt(signal.SIGALRM, False)  # (system calls resume after it)

    def hold(self) -> None:
        self.since = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, READY_AFTER)

    def take(self) -> bytes | None:
        """The notice's frame, if still held (no longer held after this)."""
        if self.since is None:
            return None
        _sigmask(signal.SIG_BLOCK, _ALARM)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            since, self.since = self.since, None
        finally:  # (a SIGALRM that came meanwhile finds nothing held)
            _sigmask(signal.SIG_UNBLOCK, _ALARM)
        if since is None:
            return None
        return frames.frame(frames.READY, b"%.6f" % (time.monotonic() - since))

    def flush(self) -> None:
        """Send the notice now, if held."""
        held = self.take()
        if held is not None:
            self.sock.sendall(held)

    def _ring(self, _signum, _frame) -> None:
        self.flush()


#: `signal.pthread_sigmask` without its answer made a set of `signal.Signals` (each one
#: an enum's lookup: most of its cost, twice a job), which `Notice.take` does not read
_sigmask = getattr(importlib.import_module("_signal"), "pthread_sigmask", signal.pthread_sigmask)
_ALARM = frozenset({signal.SIGALRM})


def _tell_table(tell, job: dict, answer, size: int) -> None:
    """The table's event of this answer, made here from the answer itself (the server
    does not read the answer's JSON back): sent before the answer (frames.TOLD)."""
    try:
        made = told.told_frame(job["tell"], job["args"].get("body"), answer, size)
    except Exception:  # a bug: the answer goes out all the same, the table is not told
        log.exception("the table's event of job %s could not be made", job.get("job"))
        return
    if made is not None:
        tell(frames.TOLD, made)


def render(answer: dict, work: jobs.Work, job: dict) -> bytes:
    """The answer's bytes: as Starlette's JSONResponse writes them, or a stream's last
    line; refused past the largest answer the server sends."""
    public_files(answer, work.library)
    body = jobs.line({"result": answer}) if work.stream else compact(versioned(answer))
    return _within(body, job)


def _within(body: bytes, job: dict) -> bytes:
    """The answer's bytes, refused past the largest answer the server sends."""
    most = job.get("most", 1 << 62)
    if len(body) > most:
        raise LimitExceeded(
            tr(
                "the answer would be {size} bytes, more than the {most} the server sends",
                size=len(body),
                most=most,
            ),
            None,
            tr("ask for less: a smaller trace, fewer outcomes"),
        )
    return body


#: the folder served → its paths and what an answer says instead (made once per process)
_NAMES: dict = {}


def public_files(answer, library: Library) -> None:
    """The files of a trace's steps named as the client knows them (a shipped rulebook by
    its name), here, each one looked up: the server's pass over the answer's bytes
    (interpreter.web.paths.PublicPaths, which every answer still goes through) then
    finds none to rewrite. A path that is not one of its names is left to that pass."""
    steps = answer.get("trace") if isinstance(answer, dict) else None
    if type(steps) is not list:
        return
    names = _NAMES.get(library.folder)
    if names is None:
        names = _NAMES[library.folder] = Names(library.folder).exact
    for step in steps:
        if type(step) is dict and type(path := step.get("file")) is str and path in names:
            step["file"] = names[path]


def failed(error: RulebookError, work: jobs.Work, job: dict) -> tuple[int, bytes]:
    """An error's status and document: the error answer, or once a stream's status line
    is out, its last line (`{"error": ...}`), both in the language the request asked,
    else (an undo) in the language of the rulebook of the run it undoes."""
    if error.language is None:
        error.speak(jobs.language_asked_of(work, job.get("args")))
    if work.stream:
        return 200, jobs.line(error_json(error, job.get("stream_lang")))
    return status_of(error), compact(error_json(error, job.get("lang")))


def unexpected(error: Exception) -> ServerFailed:
    return ServerFailed(
        tr(
            "the server failed on this request ({kind}); this is a bug in rulebook, not "
            "in your input: its log has the details",
            kind=type(error).__name__,
        ),
        status=500,
    )


def compact(document: dict) -> bytes:
    """JSON as Starlette's JSONResponse renders it: compact, UTF-8, texts not escaped to
    ASCII. Written by orjson (`FAST_JSON`; a run's answer in about a ninth of the time)
    where it writes what the standard encoder would: the same bytes but for a number that
    is not whole (`1e16` for `1e+16`, the same number) and a NaN or infinity (null; the
    standard encoder refuses one with a ValueError, and the engine, exact, makes none).
    What orjson refuses (a whole number past 64 bits, a key that is not a text, a lone
    surrogate, a value of another kind) goes to the standard encoder, as it all did."""
    if FAST_JSON is not None:
        try:
            return FAST_JSON(document)
        except TypeError:  # (orjson.JSONEncodeError)
            pass
    return _COMPACT(document).encode("utf-8")


#: orjson's writer, where it is installed (a dependency: see pyproject.toml); None: the
#: standard encoder writes every answer (tests switch it off to compare)
FAST_JSON: Callable[[Any], bytes] | None = None
with contextlib.suppress(ImportError):  # (an install without it: the standard encoder alone)
    from orjson import dumps as FAST_JSON

#: the encoder of `compact`, made once (`json.dumps` given options makes one each call)
_COMPACT = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
).encode


def _too_much_memory(settings: dict) -> LimitExceeded:
    return LimitExceeded(
        tr(
            "the work needed more memory than the server gives one request ({most} MB)",
            most=settings.get("memory", 0) // 2**20,
        )
    )


def _bound_memory(most: int | None) -> None:
    """The address space a worker may take: past it, a MemoryError, answered as a limit."""
    if most:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > most:
            resource.setrlimit(resource.RLIMIT_AS, (most, hard))


def _holds_more_than(most: int) -> bool:
    """Whether the process holds more than `most` bytes now. Its peak is asked first (one
    system call): never past `most`, neither is what it holds now, and /proc is not read."""
    if resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 <= most:
        return False
    return _resident() > most


def _resident() -> int:
    """Bytes of memory the process holds now (Linux), else its peak."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
