"""The gradebook answers, or the command stops before it touches anything.

nbgrader_config.py calls `require_gradebook` for every nbgrader command that
reads or writes grades (`GRADEBOOK_COMMANDS`), and the demo and the release
call it first: a bad URL, a missing driver, a server that is down or that
refuses the login ends the command with ONE line naming the gradebook (its
password hidden) and the reason, before any student's work is read, moved or
graded. A cleanly reachable gradebook costs one connection.
"""

from __future__ import annotations

import re
import sys
from functools import cache

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

# nbgrader commands that open the gradebook (generate_assignment only without --no-db).
GRADEBOOK_COMMANDS = {"generate_assignment", "assign", "autograde", "collect", "zip_collect", "generate_feedback",
                      "export", "db", "formgrader"}
WHERE_SET = "set in course.toml [gradebook] url, or the KIT_DB_URL environment variable"


def _one_line(error: BaseException) -> str:
    cause = getattr(error, "orig", None) or error  # SQLAlchemy wraps the driver's error
    return re.sub(r"\s+", " ", str(cause)).strip() or type(cause).__name__


def shown_url(url: str) -> str:
    """`url` as a message may show it: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL is shown as given: it holds no parsable password
        return url


def unreachable(url: str) -> str | None:
    """Why the gradebook at `url` cannot be used, in one line; None when it answers."""
    try:
        engine = create_engine(url)
    except ModuleNotFoundError as e:
        hint = " (for PostgreSQL use postgresql+psycopg://)" if e.name == "psycopg2" else ""
        return f"no database driver {e.name!r} for this URL{hint}"
    except Exception as e:  # ArgumentError (not a URL), NoSuchModuleError (unknown dialect)
        return _one_line(e)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as e:  # OperationalError: refused, unknown host or database, bad login
        return _one_line(e)
    finally:
        engine.dispose()
    return None


@cache
def require_gradebook(url: str) -> None:
    """Exit with one line on stderr unless the gradebook at `url` answers (checked once per process)."""
    why = unreachable(url)
    if why:
        sys.exit(f"gradebook unreachable: {shown_url(url)}: {why} ({WHERE_SET})")


def opens_gradebook(argv: list[str]) -> bool:
    """Does this nbgrader command line (sys.argv) open the gradebook?"""
    command = next((arg for arg in argv[1:] if not arg.startswith("-")), "")
    return command in GRADEBOOK_COMMANDS and "--no-db" not in argv


def url_on_command_line(argv: list[str]) -> str | None:
    """The URL given with --db or --CourseDirectory.db_url, which overrides the configured one."""
    for i, arg in enumerate(argv):
        for flag in ("--db", "--CourseDirectory.db_url"):
            if arg.startswith(flag + "="):
                return arg.split("=", 1)[1]
            if arg == flag and i + 1 < len(argv):
                return argv[i + 1]
    return None
