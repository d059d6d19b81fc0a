"""The gradebooks a test of the grading runs grades on: the course's own SQLite file, or a fresh database on the
suite's PostgreSQL server (tests/conftest.py's `postgres` fixture)."""

from __future__ import annotations

from kit.course import DB_URL_VARIABLE

DATABASES = ["sqlite", "postgresql"]


def gradebook_environment(request, database: str, name: str) -> dict[str, str]:
    """Environment for commands that grade on `database` ("sqlite": the course's own gradebook.db;
    "postgresql": a fresh database `name` on the suite's server, through KIT_DB_URL)."""
    if database == "sqlite":
        return {}
    return {DB_URL_VARIABLE: request.getfixturevalue("postgres").new_database(name)}
