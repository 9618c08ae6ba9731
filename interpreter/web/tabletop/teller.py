"""The table's events kept by a thread of their own, in batches: no commit holds the loop."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("rulebook.web")

#: seconds the keeping thread waits for another event before it ends (made anew on the next)
IDLE_SECONDS = 2.0
#: seconds a batch gathers the events told after its first, before it is kept (one commit
#: for them all: a commit waits for the disk and costs about 0.4 ms of CPU, an event
#: about 10 µs more; a read of the log does not wait this, a page's news waits at most it)
GATHER_SECONDS = 0.1


class Teller:
    """Events handed over by the event loop (`put`, which never waits), kept by one thread:
    every event handed over while it keeps a batch goes in its next batch, one transaction
    (`keep(rows)`), after which `kept()` is called (the waiting pages woken). A batch
    gathers for `gather` seconds after its first event. `settle()` waits until everything
    handed over is kept, the batch gathering kept at once (a read of the log sees it)."""

    def __init__(
        self,
        keep: Callable[[list], None],
        kept: Callable[[], None],
        done=None,
        gather: float = GATHER_SECONDS,
    ):
        self._keep, self._kept, self._done = keep, kept, done
        self.gather = gather
        self._rows: list = []
        self._busy = False
        self._hurry = False  # a reader waits: the batch gathering is kept now
        self._thread: threading.Thread | None = None
        self._changed = threading.Condition()

    def put(self, row) -> None:
        with self._changed:
            self._rows.append(row)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="table", daemon=True)
                self._thread.start()
            elif len(self._rows) == 1:  # (the thread waits for a first event, not gathering)
                self._changed.notify_all()

    def settle(self) -> None:
        """Wait until every event handed over so far is kept (or failed to be)."""
        with self._changed:
            if self._rows:
                self._hurry = True
                self._changed.notify_all()
            while self._rows or self._busy:
                self._changed.wait()

    def _run(self) -> None:
        while True:
            with self._changed:
                if not self._rows:
                    self._changed.wait(IDLE_SECONDS)
                if not self._rows:  # idle: the thread ends (its connection closed)
                    self._thread = None
                    break
                gathered = time.monotonic() + self.gather
                while not self._hurry and (left := gathered - time.monotonic()) > 0:
                    self._changed.wait(left)
                rows, self._rows, self._busy, self._hurry = self._rows, [], True, False
            try:
                self._keep(rows)
            except Exception:
                # the answers went out already; a folder that cannot keep the log (read
                # only, a full disk) says so on the server's terminal, as app.py does
                log.exception("the table's log could not keep %d event(s)", len(rows))
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()
            try:
                self._kept()
            except Exception:  # (the thread goes on: what is handed over later is kept)
                log.exception("the pages waiting for the table's news could not be woken")
        if self._done is not None:
            try:
                self._done()
            except Exception:
                log.exception("the table's thread could not let its connection go")
