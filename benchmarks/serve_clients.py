"""A served cheap run under load: 1, 8 and 32 clients at once; latency, requests/s, server CPU.

    python benchmarks/serve_clients.py                       # this code, --workers 2
    python benchmarks/serve_clients.py --before main         # and another revision's, in turns
    python benchmarks/serve_clients.py --clients 1 8 --seconds 3 --workers 4

Starts a real `rulebook serve` itself (benchmarks/serving.py) on a folder with one of
Brujería's characters, `ana`, and sends it the cheap run the page sends most: `POST
/api/run` of `asustarse` with a seed (a new seed each request), its whole trace in the
answer. Each client is one keep-alive connection from an address of its own (127.0.0.N:
the server takes turns by client), sending its next request as soon as the answer is in.
Each level runs `--seconds` of wall time after a warm-up; its line: requests/s, p50 and
p99 latency (wall time, ms), and the server's CPU per request (ms: the server's process
and every process below it, its workers, from /proc; the machine's other load does not
count in it, unlike in the latency). With `--before REV`, the other revision is served
and measured the same way, the two taking turns `--rounds` times; the best round of each.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import PAGE_HEADERS, Server, campaign, checkout, cpu_seconds, descendants, percentile

RUN = {"rulebook": "brujeria", "action": "asustarse", "character": "ana"}


def request_bytes(port: int, seed: int) -> bytes:
    body = json.dumps({**RUN, "seed": seed}).encode("utf-8")
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Content-Type": "application/json",
        "Content-Length": str(len(body)),
        **PAGE_HEADERS.get(port, {}),
    }
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return f"POST /api/run HTTP/1.1\r\n{head}\r\n".encode("latin-1") + body


async def client(port: int, source: str, until: list, seconds: list, first: int) -> None:
    """One keep-alive connection sending runs one after another until `until[0]`."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    seed = first
    try:
        while time.perf_counter() < until[0]:
            started = time.perf_counter()
            writer.write(request_bytes(port, seed))
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = await reader.readexactly(length)
            if status != 200:
                raise RuntimeError(f"{status}: {body[:300]!r}")
            if until[1] <= started:  # past the warm-up
                seconds.append(time.perf_counter() - started)
            seed += 1
    finally:
        writer.close()


def server_cpu(server: Server) -> tuple[float, float, list[int]]:
    """CPU seconds so far: the server's own process (its event loop), and its workers
    (and which processes they are)."""
    below = descendants(server.pid)
    return cpu_seconds(server.pid), sum(cpu_seconds(p) for p in below), below


async def level(server: Server, clients: int, seconds: float, warm: float) -> dict:
    """One level of load: `clients` at once for `seconds` (after `warm` seconds)."""
    now = time.perf_counter()
    until = [now + warm + seconds, now + warm]
    latencies: list[float] = []
    tasks = [
        asyncio.ensure_future(client(server.port, f"127.0.0.{2 + i}", until, latencies, i * 10**6))
        for i in range(clients)
    ]
    await asyncio.sleep(warm)
    loop_before, workers_before, below = server_cpu(server)
    await asyncio.gather(*tasks)
    loop_after, workers_after, still = server_cpu(server)
    count = len(latencies)
    return {
        "clients": clients,
        "requests": count,
        "per_second": count / seconds,
        "p50": percentile(latencies, 50) * 1000,
        "p99": percentile(latencies, 99) * 1000,
        "cpu_ms": (loop_after - loop_before + workers_after - workers_before)
        / max(count, 1)
        * 1000,
        "loop_ms": (loop_after - loop_before) / max(count, 1) * 1000,
        # a worker replaced meanwhile (a job past its slice on a loaded machine goes to the
        # heavy lane, its process ends): its CPU is not all counted, the level not taken
        "counted": below == still and count > 0,
    }


def measure(code: Path | None, args) -> list[dict]:
    folder = campaign()
    with Server(folder, "--workers", str(args.workers), code=code) as server:
        asyncio.run(level(server, max(args.clients), 3.0, 0.0))  # every worker warm
        return [
            asyncio.run(level(server, clients, args.seconds, args.warm)) for clients in args.clients
        ]


def _better(row: dict, best: dict) -> bool:
    """The level whose CPU per request is lowest, of those whose every worker was counted."""
    return (row["counted"], -row["cpu_ms"]) > (best["counted"], -best["cpu_ms"])


def line(name: str, row: dict) -> str:
    return (
        f"{name:>8} {row['clients']:3} clients  {row['per_second']:7.1f} req/s  "
        f"p50 {row['p50']:7.1f} ms  p99 {row['p99']:7.1f} ms  "
        f"server CPU {row['cpu_ms']:5.2f} ms/request ({row['loop_ms']:4.2f} its event loop)  "
        f"({row['requests']} requests{'' if row['counted'] else '; a worker replaced'})"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured, each level")
    parser.add_argument("--warm", type=float, default=1.0, help="warm-up, each level")
    parser.add_argument("--workers", type=int, default=2, help="rulebook serve --workers")
    parser.add_argument("--before", help="another revision to compare (git), in turns")
    parser.add_argument("--rounds", type=int, default=2, help="turns each side takes")
    args = parser.parse_args(argv)
    sides = [("this", None)]
    if args.before:
        sides.insert(0, (args.before, checkout(args.before)))
    best: dict = {}
    for _ in range(args.rounds if args.before else 1):
        for name, code in sides:
            for row in measure(code, args):
                key = (name, row["clients"])
                if key not in best or _better(row, best[key]):
                    best[key] = row
    for clients in args.clients:
        for name, _code in sides:
            print(line(name, best[name, clients]))
        if args.before:
            ours, theirs = best["this", clients], best[args.before, clients]
            print(
                f"{'':>8} this/{args.before}: server CPU {ours['cpu_ms'] / theirs['cpu_ms']:.2f}x, "
                f"req/s {ours['per_second'] / theirs['per_second']:.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
