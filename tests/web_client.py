"""A test client of the server as its own page talks to it: with the CSRF token the page
is served with (every request that posts carries it), and its token if it asks one; and
a transport that keeps what a protocol writes (the server's protocol driven by hand)."""

from __future__ import annotations

from starlette.testclient import TestClient


def page_client(app, base_url: str = "http://127.0.0.1:8000", **options) -> TestClient:
    headers = {"x-csrf-token": app.access.csrf}
    if app.access.token is not None:
        headers["authorization"] = f"Bearer {app.access.token}"
    return TestClient(app, base_url=base_url, headers=headers, **options)


class FakeTransport:
    """What a protocol writes to: each write kept, closing noted."""

    def __init__(self):
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.2", 5000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, *args, **kwargs) -> None:
        pass
