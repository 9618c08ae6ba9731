"""Who may use the server: the Host names it answers to, its token, its CSRF token.

- Host: a request must name this server as the browser reached it: the bound address,
  localhost, this machine's names and addresses, or a name given with `--allow-host`.
  A page on another site whose name was rebound to this machine's address (DNS
  rebinding) sends its own name, and is refused.
- Token: a server bound to anything but loopback (or given a token) requires it on
  every request: `Authorization: Bearer TOKEN` from a program, or from the page a cookie
  (HttpOnly, SameSite=Strict) set once from the address `rulebook serve` printed
  (`/?token=TOKEN`, then taken out of the address). Compared in constant time.
- CSRF token: every request that posts (any method but GET, HEAD, OPTIONS) carries the
  server's CSRF token in the `X-CSRF-Token` header; the page is served with it, a
  program reads it at `GET /api/session`. No other site can read either.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import socket
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlencode

import attrs

from dsl.messages import tr
from interpreter.errors import ParameterError

#: the environment variable a token may be given in (as `serve --token`)
TOKEN_ENV = "RULEBOOK_TOKEN"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: all addresses: the server is on every network this machine is on
EVERY_ADDRESS = frozenset({"0.0.0.0", "::", ""})
#: what a token may be: long enough not to be guessed, and fit for a URL and a cookie
TOKEN = re.compile(r"[A-Za-z0-9._~-]{16,256}")
#: a host name (RFC 1123 labels) or an IP address, as --allow-host takes it
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*")
CSRF_HEADER = "x-csrf-token"


@attrs.frozen
class Access:
    """The server's allowed Host names, its token (None: no token asked) and CSRF token."""

    hosts: frozenset[str]
    token: str | None
    csrf: str

    @property
    def cookie(self) -> str:
        """The token's cookie: named after the token, so that two servers on one machine
        (cookies do not tell ports apart) do not overwrite each other's."""
        if self.token is None:
            return ""
        return "rulebook_" + hashlib.sha256(self.token.encode()).hexdigest()[:12]

    def allows_host(self, header: str) -> bool:
        return host_name(header) in self.hosts

    def is_token(self, given: str | None) -> bool:
        """Whether `given` is the server's token (constant time: its length and content
        are not told by how long the answer takes beyond the comparison of a digest)."""
        if self.token is None or given is None:
            return False
        given_digest = hashlib.sha256(given.encode("utf-8", "surrogateescape")).digest()
        return hmac.compare_digest(given_digest, _digest(self.token))

    def is_csrf(self, given: str | None) -> bool:
        if given is None:
            return False
        given_digest = hashlib.sha256(given.encode("utf-8", "surrogateescape")).digest()
        return hmac.compare_digest(given_digest, _digest(self.csrf))

    def set_cookie(self) -> bytes:
        return f"{self.cookie}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()


def access_for(host: str, token: str | None = None, allow_hosts: Iterable[str] = ()) -> Access:
    """The access of a server bound to `host`: a token is required when one is given, or
    when the server is bound to anything but loopback (one is made then: `Access.token`).
    """
    if token is not None:
        check_token(token)
    elif not is_loopback(host):
        token = new_token()
    allowed = {host_name(name) for name in allow_hosts}
    return Access(
        frozenset(LOOPBACK_NAMES | machine_names() | {host_name(host)} | allowed) - {""},
        token,
        secrets.token_urlsafe(32),
    )


def new_token() -> str:
    return secrets.token_urlsafe(32)


def check_token(token: str) -> None:
    if not TOKEN.fullmatch(token):
        raise ParameterError(
            tr("the token must be 16 to 256 letters, digits or . _ ~ - (it goes in an address)"),
            None,
            tr("leave it out and `rulebook serve` makes one"),
        )


def check_host_name(name: str) -> str:
    """A name given with --allow-host (a host name or an address, nothing around it), as
    it is compared: lower case."""
    bare = name.strip().lower()
    if not (HOST_NAME.fullmatch(bare) or _address(bare.strip("[]"))):
        raise ParameterError(
            tr("--allow-host {name}: not a host name nor an address", name=repr(name)),
            None,
            tr("a name as it is in the browser's address, without scheme, port or path"),
        )
    return host_name(bare)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    address = _address(host.strip("[]"))
    return address is not None and address.is_loopback


@functools.lru_cache(maxsize=8)
def _digest(secret: str) -> bytes:
    """The server's token's or CSRF token's digest (the same few, asked every request)."""
    return hashlib.sha256(secret.encode()).digest()


@functools.lru_cache(maxsize=256)  # (every request names its Host: the same few, parsed once)
def host_name(header: str) -> str:
    """The name a Host header gives, as compared: `LAN-Box.:8000` → `lan-box`,
    `[FD00::2]:8000` → `fd00::2`, `127.0.0.1` → `127.0.0.1`."""
    header = header.strip().lower()
    if header.startswith("["):
        header = header[1 : header.find("]")] if "]" in header else header
    elif header.count(":") == 1:
        header = header.rsplit(":", 1)[0]
    address = _address(header)
    if address is not None:
        return address.compressed
    return header.rstrip(".")


def machine_names() -> set[str]:
    """This machine's names and the addresses of its interfaces (what a browser on the
    network may use to reach it)."""
    names: set[str] = set()
    for name in (socket.gethostname(), socket.getfqdn()):
        if name:
            names.add(host_name(name))
            try:
                for *_rest, sockaddr in socket.getaddrinfo(name, None):
                    names.add(host_name(str(sockaddr[0])))
            except OSError:  # a name that does not resolve: the name alone
                pass
    names |= _interface_addresses()
    return names


def _interface_addresses() -> set[str]:
    """The addresses of this machine's interfaces: from Linux's tables where there are
    any, else the address a connection out would use (no packet is sent)."""
    out: set[str] = set()
    out |= _linux_ipv4(Path("/proc/net/fib_trie"))
    out |= _linux_ipv6(Path("/proc/net/if_inet6"))
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                out.add(host_name(s.getsockname()[0]))
        except OSError:
            pass
    return out


def _linux_ipv4(table: Path) -> set[str]:
    out: set[str] = set()
    last = None
    try:
        lines = table.read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        part = line.strip()
        if part.startswith("|--"):
            last = part[3:].strip()
        elif part.startswith("/32 host LOCAL") and last is not None:
            out.add(host_name(last))
    return out


def _linux_ipv6(table: Path) -> set[str]:
    out: set[str] = set()
    try:
        lines = table.read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        word = line.split()[0] if line.split() else ""
        if len(word) == 32:
            address = _address(":".join(word[i : i + 4] for i in range(0, 32, 4)))
            if address is not None:
                out.add(address.compressed)
    return out


def _address(text: str):
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def cookie_value(header: str, name: str) -> str | None:
    """The value of cookie `name` in a Cookie header (the last one of that name)."""
    found = None
    for part in header.split(";"):
        key, equals, value = part.strip().partition("=")
        if equals and key == name:
            found = value.strip().strip('"')
    return found


def with_token(address: str, token: str | None) -> str:
    """The address to open: with the token the page takes into its cookie (if any)."""
    return address if token is None else f"{address}?{urlencode({'token': token})}"


def token_from_environment() -> str | None:
    return os.environ.get(TOKEN_ENV) or None
