"""nbgrader's command line, run with this environment's tools on PATH
(nbgrader calls `alembic` to set up the gradebook)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "nbgrader", *args]


def environment(grading: str | None = None) -> dict[str, str]:
    """This process's environment, this Python's tools first on PATH; grading sets
    KIT_GRADING ("out-of-process", the kit, or "in-kernel", stock nbgrader)."""
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    if grading:
        env["KIT_GRADING"] = grading
    return env


def run(*args: str, cwd: Path, grading: str | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), cwd=cwd, env=environment(grading), **kwargs)
