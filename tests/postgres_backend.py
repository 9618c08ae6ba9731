"""The journal tests' two databases: SQLite (the folder's file) and a throwaway PostgreSQL.

`.ci/run` starts a PostgreSQL (`.ci/postgres start`) and exports its URL as
RULEBOOK_TEST_POSTGRES; a test that asks for the fixture `journal_backend` (conftest.py)
runs once per database, each PostgreSQL run in a schema of its own (a fresh journal, as
a fresh folder is for SQLite), named by RULEBOOK_DATABASE as `--database` names it.
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager

URL_ENV = "RULEBOOK_TEST_POSTGRES"
BACKENDS = ("sqlite", "postgres")


def server_url() -> str | None:
    return os.environ.get(URL_ENV) or None


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def with_schema(url: str, schema: str) -> str:
    """The URL whose connections read and write `schema` (libpq's `options`)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{schema}"


@contextmanager
def own_schema(url: str):
    """A URL naming a new, empty schema of the database at `url`; dropped afterwards."""
    import psycopg

    schema = "t_" + uuid.uuid4().hex[:16]
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_schema(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


@contextmanager
def fresh_journal():
    """A journal of its own for one generated example (hypothesis runs many in one test):
    on PostgreSQL (the test's $RULEBOOK_DATABASE) a new schema, as each example's new
    folder is for SQLite."""
    from interpreter.journal.postgres import DATABASE_ENV

    named = os.environ.get(DATABASE_ENV)
    base = server_url()
    if not named or base is None:
        yield
        return
    with own_schema(base) as own:
        os.environ[DATABASE_ENV] = own
        try:
            yield
        finally:
            os.environ[DATABASE_ENV] = named
