"""Heavy odds from two clients while a third sends cheap requests: the cheap ones' latency.

    python benchmarks/serve_load.py                  # this code
    python benchmarks/serve_load.py --before main    # and another revision's, to compare
    python benchmarks/serve_load.py --cheap 60 --heavy 3

A real server (benchmarks/serving.py). The third client (127.0.0.4) sends cheap requests
one after another (the odds of 3d6, a rulebook's `describe`, a seeded run), first alone,
then while clients 127.0.0.2 and 127.0.0.3 each keep `--heavy` odds computations going
that take the server's whole time bound. Prints each phase's p50, p99 and worst latency
of the cheap requests, in seconds of wall time (the machine's other load counts).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import Server, call, campaign, checkout, percentile

#: an odds computation that runs until the server's time bound stops it
HEAVY = {"expression": "{999d6+3d8}k4"}
CHEAP = [
    ("POST", "/api/odds", {"expression": "3d6"}),
    ("GET", "/api/rulebooks/brujeria", None),
    ("POST", "/api/run", {"rulebook": "brujeria", "action": "asustarse", "character": "ana"}),
]


def cheap_latencies(port: int, count: int) -> list[float]:
    seconds = []
    for i in range(count):
        method, path, body = CHEAP[i % len(CHEAP)]
        if path == "/api/run":
            body = {**body, "seed": i}
        status, answer, took = call(port, method, path, body, source="127.0.0.4")
        if status != 200:
            raise RuntimeError(f"{path}: {status} {answer[:200]!r}")
        seconds.append(took)
    return seconds


def heavy_clients(port: int, per_client: int, stop: threading.Event) -> list[threading.Thread]:
    def keep_busy(source: str) -> None:
        while not stop.is_set():
            try:
                call(port, "POST", "/api/odds", HEAVY, source=source, timeout=120)
            except OSError:
                return

    threads = [
        threading.Thread(target=keep_busy, args=(f"127.0.0.{2 + c}",), daemon=True)
        for c in range(2)
        for _ in range(per_client)
    ]
    for thread in threads:
        thread.start()
    return threads


def measure(code: Path | None, cheap: int, heavy: int) -> dict:
    with Server(campaign(), code=code) as server:
        cheap_latencies(server.port, len(CHEAP))  # warm: each kind once
        alone = cheap_latencies(server.port, cheap)
        stop = threading.Event()
        heavy_clients(server.port, heavy, stop)
        time.sleep(2.0)  # the heavy computations are running
        loaded = cheap_latencies(server.port, cheap)
        stop.set()
    return {"alone": alone, "loaded": loaded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cheap", type=int, default=60, help="cheap requests per phase")
    parser.add_argument("--heavy", type=int, default=2, help="heavy odds in flight per client")
    parser.add_argument("--before", metavar="REVISION", help="also measure this git revision")
    args = parser.parse_args()
    runs = [("this code", None)]
    if args.before:
        runs.insert(0, (args.before, checkout(args.before)))
    print(f"cheap requests: {args.cheap} per phase; heavy: 2 clients x {args.heavy} odds")
    print(f"{'code':<12} {'phase':<22} {'p50 s':>8} {'p99 s':>8} {'worst s':>8}")
    for name, code in runs:
        phases = measure(code, args.cheap, args.heavy)
        for phase, label in (("alone", "alone"), ("loaded", "with heavy odds")):
            values = phases[phase]
            print(
                f"{name:<12} {label:<22} {percentile(values, 50):8.3f} "
                f"{percentile(values, 99):8.3f} {max(values):8.3f}"
            )


if __name__ == "__main__":
    main()
