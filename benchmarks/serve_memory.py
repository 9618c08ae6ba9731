"""The server's memory over thousands of requests of new rulebook texts: flat.

    python benchmarks/serve_memory.py                   # 5,000 requests, this code
    python benchmarks/serve_memory.py --requests 500 --before main

A real server (benchmarks/serving.py) is sent what the page's editor sends as it is used:
the rulebook's text with a new comment each time (so never a text it has seen), checked,
run, and its odds asked (`POST /api/check`, `/api/run`, `/api/odds` with `text`), from two
clients at once. Every `--every` requests the resident memory (RSS) of the server and of
each process below it (the fork server and the workers) is sampled; printed as a table,
with the growth from the first sample to the last.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import ROOT, Server, call, campaign, checkout

TEXT = (ROOT / "rulebooks/brujeria.rules").read_text(encoding="utf-8")
WHO = {"action": "asustarse", "character": "ana"}


def request(i: int) -> tuple[str, dict]:
    text = f"{TEXT}\n# edit {i}\n"
    kind = i % 3
    if kind == 0:
        return "/api/check", {"text": text}
    if kind == 1:
        return "/api/run", {"text": text, **WHO, "seed": i}
    return "/api/odds", {"text": text, **WHO, "field": "superado"}


def measure(code: Path | None, requests: int, every: int) -> list[tuple]:
    samples: list[tuple] = []
    with Server(campaign(), code=code) as server:
        lock, sent = threading.Lock(), [0]
        failures: list[str] = []

        def client(source: str) -> None:
            while True:
                with lock:
                    i = sent[0]
                    if i >= requests:
                        return
                    sent[0] += 1
                path, body = request(i)
                status, answer, _ = call(server.port, "POST", path, body, source=source)
                if status != 200:
                    failures.append(f"{path}: {status} {answer[:120]!r}")
                if (i + 1) % every == 0:
                    own, below = server.memory()
                    sample = (i + 1, own, sum(below), max(below, default=0), len(below))
                    samples.append(sample)
                    print("  sampled:", *(f"{v:.0f}" for v in sample), flush=True)

        threads = [threading.Thread(target=client, args=(f"127.0.0.{n}",)) for n in (2, 3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            print(f"{len(failures)} requests failed, the first: {failures[0]}")
    return sorted(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--every", type=int, default=250, help="requests between two samples")
    parser.add_argument("--before", metavar="REVISION", help="also measure this git revision")
    args = parser.parse_args()
    runs = [("this code", None)]
    if args.before:
        runs.insert(0, (args.before, checkout(args.before)))
    for name, code in runs:
        samples = measure(code, args.requests, args.every)
        print(f"\n{name}: {args.requests} requests of new {len(TEXT) // 1000} KB texts")
        print(f"{'requests':>9} {'server MB':>10} {'below MB':>9} {'largest MB':>11} {'procs':>6}")
        for done, own, below, largest, count in samples:
            print(f"{done:>9} {own:>10.0f} {below:>9.0f} {largest:>11.0f} {count:>6}")
        first, last = samples[0], samples[-1]
        print(
            f"growth from {first[0]} to {last[0]} requests: server {last[1] - first[1]:+.0f} MB, "
            f"below it {last[2] - first[2]:+.0f} MB"
        )


if __name__ == "__main__":
    main()
