"""Course policy, read from course.toml: the one reader of that file.

`policy(root)` is the whole file as a dict; `db_url(root)` is where the
gradebook lives: the environment variable KIT_DB_URL when set, else
course.toml's ``[gradebook] url``, else SQLite in ``gradebook.db`` in the course
folder (the embedded default: nothing to install or start). A relative SQLite
path is taken from the course folder, wherever a command runs.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DB_URL_VARIABLE = "KIT_DB_URL"


def policy(root: Path = ROOT) -> dict:
    with open(root / "course.toml", "rb") as f:
        return tomllib.load(f)


def db_url(root: Path = ROOT) -> str:
    """The gradebook's SQLAlchemy URL (``sqlite:///...`` or ``postgresql+psycopg://...``)."""
    url = os.environ.get(DB_URL_VARIABLE) or policy(root).get("gradebook", {}).get("url", "")
    if not url:
        return f"sqlite:///{root / 'gradebook.db'}"
    from sqlalchemy.engine import make_url  # only for a configured URL: most readers of the policy need no database

    try:
        parsed = make_url(url)
    except Exception:  # not a URL: returned as given, for kit.gradebook to refuse in one line
        return url
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:" \
            and not Path(parsed.database).is_absolute():
        return parsed.set(database=str(root / parsed.database)).render_as_string(hide_password=False)
    return url
