"""The join code's guard against guessing: wrong codes counted per client, a wait after too many.

A client (its address) that gave WRONG_CODES wrong codes within WINDOW_SECONDS waits
until the oldest of them is that old: every join it asks meanwhile, right code or not,
is answered 429 with `Retry-After`. The clock is given (`time.monotonic` by default), so
that tests count, not wait. What is kept is bounded: CLIENTS_KEPT clients at most, each
with WRONG_CODES times at most.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

#: wrong codes one client may give within WINDOW_SECONDS before it must wait
WRONG_CODES = 10
#: seconds a wrong code counts against its client
WINDOW_SECONDS = 600.0
#: clients whose wrong codes are kept at most (the least recent forgotten first)
CLIENTS_KEPT = 4096


class JoinTries:
    """Wrong join codes per client within a window, and how long a client must wait."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        most: int = WRONG_CODES,
        window: float = WINDOW_SECONDS,
        kept: int = CLIENTS_KEPT,
    ):
        self.clock = clock
        self.most = most
        self.window = window
        self.kept = kept
        self._wrong: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, client: str) -> int:
        """Whole seconds `client` must wait before its next try (0: it may try now)."""
        with self._lock:
            times = self._recent(client)
            if len(times) < self.most:
                return 0
            return max(1, math.ceil(times[0] + self.window - self.clock()))

    def wrong(self, client: str) -> None:
        """`client` gave a wrong code now."""
        with self._lock:
            times = self._recent(client)
            times.append(self.clock())
            while len(times) > self.most:
                times.popleft()
            self._wrong[client] = times
            self._wrong.move_to_end(client)
            while len(self._wrong) > self.kept:
                self._wrong.popitem(last=False)

    def _recent(self, client: str) -> deque[float]:
        """The client's wrong codes still within the window (older ones dropped)."""
        times = self._wrong.get(client, deque())
        now = self.clock()
        while times and times[0] + self.window <= now:
            times.popleft()
        if not times:
            self._wrong.pop(client, None)
        return times
