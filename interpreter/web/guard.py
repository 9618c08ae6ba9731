"""What every request passes first: its Host, its token, where it came from, its size.

- Host: only the names of this server (interpreter.web.access): a page on another site
  that rebinds its own name to this machine's address is refused (DNS rebinding).
- Token: when the server has one (bound beyond loopback, or given), every request must
  carry it (401 otherwise); `?token=` in an address sets the page's cookie and is taken
  out of the address at once (a redirect).
- Cross-site requests: a request that changes or computes anything (any method but GET,
  HEAD, OPTIONS) must be JSON (`Content-Type: application/json`, which a cross-site form
  cannot send without a CORS preflight this server never grants), must come from the
  server's own page (`Origin` and `Sec-Fetch-Site`, when the browser sends them), and
  must carry the server's CSRF token (`X-CSRF-Token`; 403 otherwise).
- Size: a body over `max_body` bytes is refused (413) before it is read whole.
- Every answer carries a Content-Security-Policy allowing nothing but the server itself.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from dsl.messages import tr
from interpreter.web.access import CSRF_HEADER, Access, cookie_value
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

    def __init__(self, app, access: Access, max_body: int = MAX_BODY, table=None):
        self.app = app
        self.access = access
        self.max_body = max_body
        # the shared table (interpreter.web.tabletop.roles): a player's seat is a door too, to a
        # player's rights only; who the request is goes on in `scope["state"]["role"]`
        self.table = table

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":  # none is served: refused before anything is read
            return await send({"type": "websocket.close", "code": 1008})
        if scope["type"] != "http":  # the lifespan's start and stop
            return await self.app(scope, receive, send)
        headers = _headers(scope)

        async def send_safe(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        refusal = self.refusal(scope, headers)
        if refusal is not None:
            return await _answer(send_safe, refusal)
        if self.access.token is not None and scope["method"] in SAFE_METHODS:
            given = _query(scope).get("token")
            if given is not None:  # the address printed: into the cookie, out of the address
                if not self.access.is_token(given):
                    return await _answer(send_safe, _unauthorized())
                return await self.take_token(scope, send_safe)
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
        if not self.access.allows_host(host):
            return RequestError(
                tr("this server does not answer to the host {host}", host=repr(host)),
                tr(
                    "open it at the address `rulebook serve` printed, or start it with "
                    "--allow-host NAME for a name of your own"
                ),
            )
        holds_token = self.access.token is not None and self.authorized(scope, headers)
        if self.table is not None:
            role = self.table.role_of(headers, self.access, holds_token)
            scope.setdefault("state", {})["role"] = role
            if role is None and not self.table.is_open(scope["method"], scope["path"]):
                return _unauthorized()
        elif self.access.token is not None and not holds_token:
            return _unauthorized()
        if scope["method"] in SAFE_METHODS:
            return None
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return Forbidden(
                tr("a cross-site request: this server only takes requests from its own page"),
                status=403,
            )
        origin = headers.get("origin")
        if origin is not None and not _same_origin(origin, host):
            return Forbidden(
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
        if not self.access.is_csrf(headers.get(CSRF_HEADER)):
            return Forbidden(
                tr("a request that posts must carry this server's CSRF token (X-CSRF-Token)"),
                tr(
                    "reload the page (it is served with the token); a program reads it at "
                    "GET /api/session"
                ),
                status=403,
            )
        return None

    def authorized(self, scope, headers: dict) -> bool:
        """The token in `Authorization: Bearer`, in the page's cookie, or (a GET of an
        address `rulebook serve` printed) in `?token=`."""
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self.access.is_token(given.strip()):
            return True
        if self.access.is_token(cookie_value(headers.get("cookie", ""), self.access.cookie)):
            return True
        return scope["method"] in SAFE_METHODS and self.access.is_token(_query(scope).get("token"))

    async def take_token(self, scope, send) -> None:
        """The page opened with `?token=` (checked already): the token goes into its
        cookie, and the browser is sent to the same address without it (so that it is in
        no address bar, history or bookmark)."""
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), True)
        rest = urlencode([(k, v) for k, v in query if k != "token"])
        # this server's own path, never another site's (`//evil.example`, `/\evil.example`)
        location = "/" + quote(scope["path"].lstrip("/"), safe="/") + (f"?{rest}" if rest else "")
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode("ascii")),
                    (b"set-cookie", self.access.set_cookie()),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def read_body(self, receive, headers: dict) -> bytes | RequestError:
        def too_large() -> RequestError:  # (made only when it is: a message costs)
            return RequestError(
                tr("the body is larger than {most} bytes", most=self.max_body), status=413
            )

        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            return too_large()
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return RequestError(tr("the client went away"), status=400)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


class Unauthorized(RequestError):
    """A request without the server's token (HTTP 401)."""

    code = "unauthorized"


class Forbidden(RequestError):
    """A request from another site, or without the CSRF token (HTTP 403)."""

    code = "forbidden"


def _unauthorized() -> Unauthorized:
    return Unauthorized(
        tr("this server asks for its token, and the request carries none that fits"),
        tr(
            "open the address `rulebook serve` printed (it ends in ?token=...); a "
            "program sends the header Authorization: Bearer TOKEN"
        ),
        status=401,
    )


def _same_origin(origin: str, host: str) -> bool:
    """Whether a request's Origin is this server as the request names it (its Host): the
    same host and port, over HTTP or HTTPS (a proxy in front may speak HTTPS)."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()


def _headers(scope) -> dict[str, str]:
    """The request's headers by lower-case name (a repeated one joined, cookies by `;`)."""
    out: dict[str, str] = {}
    for key, value in scope["headers"]:
        name, text = key.decode("latin-1").lower(), value.decode("latin-1")
        if name in out:
            text = out[name] + ("; " if name == "cookie" else ", ") + text
        out[name] = text
    return out


def _query(scope) -> dict[str, str]:
    return dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))


async def _answer(send, error: RequestError) -> None:
    body = json.dumps(error_json(error), ensure_ascii=False).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if error.status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="rulebook"'))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
