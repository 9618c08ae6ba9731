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
import http.client
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import (
    PAGE_HEADERS,
    ROOT,
    Server,
    call,
    campaign,
    checkout,
    error_code,
    percentile,
)

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


def raw(port: int, method: str, path: str, body=None, headers=None, timeout=60.0):
    """(status, body) of one request with exactly these headers (no page's CSRF token
    unless given): what a client that is not the page sends."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = {"Host": f"127.0.0.1:{port}", **(headers or {})}
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=sent)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


RUN = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": 1}
TOKEN = "a-token-of-the-attacks-0123456789abcdef"


def lan(server: Server) -> tuple[str, float]:
    """A server opened to the LAN (--host 0.0.0.0 with a token): a request without the
    token, one with it naming another site's Host (DNS rebinding), one as the page."""
    started = time.perf_counter()
    with Server(campaign(), "--host", "0.0.0.0", "--token", TOKEN) as opened:
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        none = raw(opened.port, "GET", "/api/rulebooks")[0]
        rebound = raw(
            opened.port, "GET", "/api/rulebooks", None, {**bearer, "Host": "evil.example"}
        )
        fine = raw(opened.port, "GET", "/api/rulebooks", None, bearer)[0]
    told = f"no token {none}, Host evil.example {rebound[0]} {error_code(rebound[1])}"
    return f"{told}, with the token {fine}", time.perf_counter() - started


def cross_site(server: Server) -> tuple[str, float]:
    """Writes as another site's page would send them: no CSRF token, another Origin,
    Sec-Fetch-Site cross-site, a form's Content-Type."""
    started = time.perf_counter()
    page = {**PAGE_HEADERS[server.port], "Content-Type": "application/json"}
    tries = {
        "no CSRF": {"Content-Type": "application/json"},
        "Origin": {**page, "Origin": "http://evil.example"},
        "cross-site": {**page, "Sec-Fetch-Site": "cross-site"},
        "text/plain": {**page, "Content-Type": "text/plain"},
    }
    out = [f"{name} {raw(server.port, 'POST', '/api/run', RUN, h)[0]}" for name, h in tries.items()]
    return ", ".join(out), time.perf_counter() - started


def overwrites(server: Server) -> tuple[str, float]:
    """A folder rulebook saved over without naming the version it replaces, or naming
    another; an editor's text run and saved into a folder character."""
    started = time.perf_counter()
    page = {**PAGE_HEADERS[server.port], "Content-Type": "application/json"}
    text = {"text": "action a() { result { v: 1 } }"}
    first = raw(server.port, "PUT", "/api/rulebooks/mine", text, page)[0]
    blind = raw(server.port, "PUT", "/api/rulebooks/mine", text, page)[0]
    stale = raw(server.port, "PUT", "/api/rulebooks/mine", text, {**page, "If-Match": '"x"'})[0]
    adhoc = {**text, "action": "a", "character": "ana", "save": True}
    saved = raw(server.port, "POST", "/api/run", adhoc, page)
    return (
        f"new {first}, no If-Match {blind}, stale {stale}, "
        f"ad-hoc save {saved[0]} {error_code(saved[1])}"
    ), time.perf_counter() - started


def machine_told(server: Server) -> tuple[str, float]:
    """Answers that might name the server's files: the listings, a source, a saved run's
    trace, an error, the journal; and `extends` of a file that exists outside the folder
    beside one that does not (two messages would tell which files exist)."""
    started = time.perf_counter()
    secret = server.folder.parent / f"{server.folder.name}-secret.rules"
    secret.write_text('rulebook "S" {\n}\n', encoding="utf-8")
    answers = [
        call(server.port, "GET", "/api/rulebooks")[1],
        call(server.port, "GET", "/api/rulebooks/brujeria/source")[1],
        call(server.port, "POST", "/api/run", {**RUN, "save": True})[1],
        call(server.port, "GET", "/api/characters/ana/history")[1],
        call(server.port, "POST", "/api/run", {"text": "action a() { result { v: x } }"})[1],
    ]
    messages = set()
    for reference in (str(secret), str(secret) + ".none", f"../{secret.name}", "../none.rules"):
        text = f'rulebook "H" extends "{reference}" {{\n}}\n'
        answer = call(server.port, "POST", "/api/check", {"text": text})[1]
        answers.append(answer)
        messages.add(answer.decode("utf-8").replace(json.dumps(reference)[1:-1], "REF"))
    places = (str(server.folder), str(ROOT), str(Path.home()))
    told = sum(a.decode("utf-8", "replace").count(p) for a in answers[:5] for p in places)
    secret.unlink()
    return f"absolute paths {told}, extends messages {len(messages)}", time.perf_counter() - started


def twice_placed(server: Server) -> tuple[str, float]:
    """A key given twice in a body of almost 1 MB: refused naming where each is, found off the
    event loop (the client meanwhile says whether others waited)."""
    filler = ", ".join(f'"k{i}": [1]' for i in range(60_000))
    body = '{"expression": "3d6", "params": {' + filler + ', "k7": 1}}'
    status, answer, took = call(server.port, "POST", "/api/odds", body.encode())
    message = json.loads(answer)["error"]["message"] if status != 200 else ""
    return f"{status} {'both places named' if 'column' in message else message[:40]}", took


def slow_and_gone(server: Server) -> tuple[str, float]:
    """Headers sent a byte at a time (never finished in time), then a client that asks
    for heavy odds and goes away: when the first is answered, and whether the work of
    the second stops (a cheap request after it)."""
    started = time.perf_counter()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=1)
    got = b""
    for byte in b"GET /api/rulebooks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 60:
        try:
            sock.sendall(bytes([byte]))
            got = sock.recv(100)
        except TimeoutError:
            continue
        except OSError:
            break
        if got:
            break
    sock.close()
    trickled = time.perf_counter() - started
    body = json.dumps({"expression": "10000d6x=6kh3"}).encode()
    heavy = socket.create_connection(("127.0.0.1", server.port))
    head = (
        f"POST /api/odds HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"X-CSRF-Token: {PAGE_HEADERS[server.port]['X-CSRF-Token']}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    heavy.sendall(head.encode() + body)
    time.sleep(1)
    heavy.close()
    time.sleep(1)
    cheap = [call(server.port, *CHEAP)[2] for _ in range(3)]
    status = got.split(b" ", 2)[1].decode() if got.count(b" ") >= 2 else "nothing"
    return (
        f"trickle answered {status} after {trickled:.1f} s; after a client left: cheap "
        f"{max(cheap):.2f} s, busy workers {server.busy()}"
    ), time.perf_counter() - started


def pipes(server: Server) -> tuple[str, float]:
    """Named pipes in the folder, named as a rulebook and a character: the listings."""
    os.mkfifo(server.folder / "pipe.rules")
    os.mkfifo(server.folder / "pipe.yaml")
    started = time.perf_counter()
    statuses = [
        call(server.port, "GET", path, timeout=60)[0]
        for path in ("/api/rulebooks", "/api/characters", "/api/rulebooks/pipe/source")
    ]
    return f"listings and source: {statuses}", time.perf_counter() - started


ATTACKS = [
    ("backtracking odds", backtracking),
    ("trace doubling in /api/run", trace),
    ("64 half-sent requests", half_sent),
    ("memory: 300 new texts", new_texts),
    ("heavy odds, cheap requests", starving),
    ("extreme JSON bodies", bodies),
    ("LAN: token and Host", lan),
    ("cross-site writes", cross_site),
    ("overwrites and ad-hoc saves", overwrites),
    ("paths and extends told", machine_told),
    ("a key twice in 0.9 MB", twice_placed),
    ("slow client, client gone", slow_and_gone),
    ("named pipes in the folder", pipes),
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
