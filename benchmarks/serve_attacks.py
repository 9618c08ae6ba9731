"""The server's attacks (issue 23), each against a real `rulebook serve`: what it cost.

    python benchmarks/serve_attacks.py                  # every attack, this code
    python benchmarks/serve_attacks.py --before main    # and another revision's
    python benchmarks/serve_attacks.py half             # only those whose name has "half"

`benchmarks/attacks.py` runs the command line's attacks; these are the server's. Each
attack gets a fresh server (benchmarks/serving.py). While it runs, another client
(127.0.0.9) sends cheap requests one after another: "meanwhile" is how many it got
answered and the slowest. "answer" is what the attack got back (its status and the
project's error code), "s" how long (wall seconds: the machine's other load counts),
"MB" the resident memory of the server, and of every process below it, afterwards.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import ROOT, Server, call, campaign, checkout, error_code, percentile

CHEAP = ("POST", "/api/odds", {"expression": "3d6"})
# A 400-byte run whose trace doubles a text, then notes it 1,000 times (~160 MB of JSON).
TRACE = """rulebook "T" {
}
action a() {
  let s = "xxxxxxxxxx"
  repeat 13 times { set s to "{s}{s}" }
  repeat 1000 times { note "{s}" }
  result { n: 1 }
}
"""
TEXT = (ROOT / "rulebooks/brujeria.rules").read_text(encoding="utf-8")


class Meanwhile:
    """Cheap requests from another client while an attack runs."""

    def __init__(self, port: int):
        self.port, self.seconds, self.failed = port, [], 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> Meanwhile:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(300)

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                status, _, took = call(self.port, *CHEAP, source="127.0.0.9", timeout=300)
            except OSError:
                status, took = 0, 0.0
            if status == 200:
                self.seconds.append(took)
            else:
                self.failed += 1
            time.sleep(0.05)

    def __str__(self) -> str:
        worst = max(self.seconds, default=float("nan"))
        failed = f", {self.failed} failed" if self.failed else ""
        return f"{len(self.seconds)} ok, worst {worst:.2f} s{failed}"


def answered(status: int, body: bytes) -> str:
    return f"{status} {error_code(body)}" if status != 200 else f"200 ({len(body) // 1000} KB)"


# ─── the attacks ───────────────────────────────────────────────────────────


def backtracking(server: Server) -> tuple[str, float]:
    """One 31-byte odds request whose dice token backtracks in the regular expression."""
    body = {"expression": "1 + 5d6aaaaaaaaaaaaaaaaaaaaaa_"}
    status, answer, took = call(server.port, "POST", "/api/odds", body)
    return answered(status, answer), took


def trace(server: Server) -> tuple[str, float]:
    """A run whose trace would be about 160 MB."""
    status, answer, took = call(server.port, "POST", "/api/run", {"text": TRACE, "action": "a"})
    return answered(status, answer), took


def half_sent(server: Server) -> tuple[str, float]:
    """64 requests whose headers or body never finish, from four addresses; then five
    requests from another: how they were answered."""
    started = time.perf_counter()
    socks = []
    for i in range(64):
        sock = socket.socket()
        sock.settimeout(120)
        sock.bind((f"127.0.0.{2 + i % 4}", 0))
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(f"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode())
        socks.append(sock)
    others = [call(server.port, *CHEAP, timeout=120)[0] for _ in range(5)]
    statuses = []
    for sock in socks:
        try:
            head = sock.recv(100)
            statuses.append(int(head.split(b" ", 2)[1]) if head else 0)
        except (OSError, IndexError, ValueError):
            statuses.append(-1)
        sock.close()
    took = time.perf_counter() - started
    told = {s: statuses.count(s) for s in sorted(set(statuses))}
    return f"others {others.count(200)}/5 ok; the 64: {told}", took


def new_texts(server: Server) -> tuple[str, float]:
    """300 checks and runs of new 57 KB texts (an editor in use)."""
    started = time.perf_counter()
    before = server.memory()
    for i in range(300):
        text = f"{TEXT}\n# edit {i}\n"
        body = {"text": text} if i % 2 else {"text": text, "action": "asustarse"}
        body.update({} if i % 2 else {"character": "ana", "seed": i})
        call(server.port, "POST", "/api/check" if i % 2 else "/api/run", body)
    after = server.memory()
    grown = after[0] - before[0], sum(after[1]) - sum(before[1])
    return f"server {grown[0]:+.0f} MB, below it {grown[1]:+.0f} MB", time.perf_counter() - started


def starving(server: Server) -> tuple[str, float]:
    """Two clients keep two odds computations each going that take the whole time bound;
    a third sends 20 cheap odds requests: their p50 and p99."""
    stop = threading.Event()

    def heavy(source: str) -> None:
        while not stop.is_set():
            try:
                call(server.port, "POST", "/api/odds", {"expression": "{999d6+3d8}k4"}, source)
            except OSError:
                return

    for source in ("127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"):
        threading.Thread(target=heavy, args=(source,), daemon=True).start()
    time.sleep(2)
    started = time.perf_counter()
    seconds = [call(server.port, *CHEAP, source="127.0.0.4")[2] for _ in range(20)]
    stop.set()
    return (
        f"cheap p50 {percentile(seconds, 50):.2f} s, p99 {percentile(seconds, 99):.2f} s",
        time.perf_counter() - started,
    )


def bodies(server: Server) -> tuple[str, float]:
    """Bodies at their extremes: a 5,000-digit number, NaN, 1e999, nesting 100,000 deep,
    a lone surrogate, a key given twice."""
    raw = {
        "5000 digits": '{"expression": "3d6", "seed": %s}' % ("9" * 5000),
        "NaN": '{"expression": "3d6", "seed": NaN}',
        "1e999": '{"expression": "3d6", "seed": 1e999}',
        "deep": "[" * 100_000,
        "surrogate": '{"expression": "\\ud800"}',
        "twice": '{"expression": "3d6", "expression": "d4"}',
    }
    started = time.perf_counter()
    out = []
    for name, text in raw.items():
        status, _, _ = call(server.port, "POST", "/api/odds", text.encode())
        out.append(f"{name} {status}")
    return ", ".join(out), time.perf_counter() - started


ATTACKS = [
    ("backtracking odds", backtracking),
    ("trace doubling in /api/run", trace),
    ("64 half-sent requests", half_sent),
    ("memory: 300 new texts", new_texts),
    ("heavy odds, cheap requests", starving),
    ("extreme JSON bodies", bodies),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="?", default="", help="attacks whose name has this")
    parser.add_argument("--before", metavar="REVISION", help="also attack this git revision")
    args = parser.parse_args()
    runs = [("this code", None)]
    if args.before:
        runs.insert(0, (args.before, checkout(args.before)))
    for name, code in runs:
        print(f"\n{name}")
        print(f"{'attack':<28} {'s':>7}  {'MB after':<12} {'meanwhile':<28} answer")
        for title, attack in ATTACKS:
            if args.only not in title:
                continue
            with Server(campaign(), code=code) as server:
                call(server.port, *CHEAP)  # warm: the workers started, the parser built
                with Meanwhile(server.port) as others:
                    try:
                        outcome, took = attack(server)
                    except OSError as error:
                        outcome, took = f"FAILED: {error}", float("nan")
                own, below = server.memory()
                memory = f"{own:.0f}+{sum(below):.0f}"
                print(f"{title:<28} {took:7.1f}  {memory:<12} {others!s:<28} {outcome}")


if __name__ == "__main__":
    main()
