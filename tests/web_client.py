"""A test client of the server as its own page talks to it: with the CSRF token the page
is served with (every request that posts carries it), and its token if it asks one."""

from __future__ import annotations

from starlette.testclient import TestClient


def page_client(app, base_url: str = "http://127.0.0.1:8000", **options) -> TestClient:
    headers = {"x-csrf-token": app.access.csrf}
    if app.access.token is not None:
        headers["authorization"] = f"Bearer {app.access.token}"
    return TestClient(app, base_url=base_url, headers=headers, **options)
