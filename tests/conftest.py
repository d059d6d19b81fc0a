"""Fixtures shared by the test files: the suite's own PostgreSQL server, and the gradebooks a test runs on."""

from __future__ import annotations

import os

import pytest

from kit.course import DB_URL_VARIABLE
from tests import postgres as postgres_server

# Each test chooses its gradebook itself: an instructor's own KIT_DB_URL must not leak into the suite.
os.environ.pop(DB_URL_VARIABLE, None)

DATABASES = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server per test process (initdb + pg_ctl in a temporary folder)."""
    reason = postgres_server.why_unavailable()
    if reason:
        pytest.skip(f"no PostgreSQL server for the tests: {reason}")
    with postgres_server.running_server() as server:
        yield server


def gradebook_environment(request, database: str, name: str) -> dict[str, str]:
    """Environment for commands that grade on `database` ("sqlite": the course's own gradebook.db;
    "postgresql": a fresh database `name` on the suite's server, through KIT_DB_URL)."""
    if database == "sqlite":
        return {}
    return {DB_URL_VARIABLE: request.getfixturevalue("postgres").new_database(name)}
