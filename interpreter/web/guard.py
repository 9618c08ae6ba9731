"""What every request passes first: its Host, its size, where it came from; safe headers.

- Host: only the names the server was bound to (a page on another site that rebinds its
  own name to 127.0.0.1 is refused: DNS rebinding).
- Size: a body over `max_body` bytes is refused (413) before it is read whole.
- Cross-site requests: a request that changes or computes anything (any method but GET,
  HEAD, OPTIONS) must be JSON (`Content-Type: application/json`, which a cross-site form
  cannot send without a CORS preflight this server never grants), and must come from the
  server's own page (`Origin` and `Sec-Fetch-Site`, when the browser sends them).
- Every answer carries a Content-Security-Policy allowing nothing but the server itself.
"""

from __future__ import annotations

import json

from dsl.messages import tr
from interpreter.web.errors import RequestError, error_json

#: bytes a request body may have (a rulebook text of MAX_TEXT characters, escaped)
MAX_BODY = 1_000_000
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


class Guard:
    """ASGI middleware: the checks above, then the app."""

    def __init__(self, app, hosts: set[str] | None, max_body: int = MAX_BODY):
        self.app = app
        self.hosts = hosts  # None: any Host (the server was opened to the network on purpose)
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}

        async def send_safe(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        refusal = self.refusal(scope, headers)
        if refusal is not None:
            return await _answer(send_safe, refusal)
        if scope["method"] in SAFE_METHODS:
            return await self.app(scope, receive, send_safe)
        body = await self.read_body(receive, headers)
        if isinstance(body, RequestError):
            return await _answer(send_safe, body)
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send_safe)

    def refusal(self, scope, headers: dict) -> RequestError | None:
        host = headers.get("host", "")
        if self.hosts is not None and _host_name(host) not in self.hosts:
            return RequestError(
                tr("this server does not answer to the host {host}", host=repr(host)),
                tr("open it at the address `rulebook serve` printed"),
            )
        if scope["method"] in SAFE_METHODS:
            return None
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return RequestError(
                tr("a cross-site request: this server only takes requests from its own page"),
                status=403,
            )
        origin = headers.get("origin")
        scheme = scope.get("scheme", "http")
        if origin is not None and origin != f"{scheme}://{host}":
            return RequestError(
                tr(
                    "a request from another origin ({origin}): this server only takes "
                    "requests from its own page",
                    origin=origin,
                ),
                status=403,
            )
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return RequestError(
                tr("the body must be JSON, sent with Content-Type: application/json"),
                status=415,
            )
        return None

    async def read_body(self, receive, headers: dict) -> bytes | RequestError:
        too_large = RequestError(
            tr("the body is larger than {most} bytes", most=self.max_body), status=413
        )
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            return too_large
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return RequestError(tr("the client went away"), status=400)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return too_large
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _host_name(host: str) -> str:
    """`127.0.0.1:8000` → `127.0.0.1`; `[::1]:8000` → `::1`."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


async def _answer(send, error: RequestError) -> None:
    body = json.dumps(error_json(error), ensure_ascii=False).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
