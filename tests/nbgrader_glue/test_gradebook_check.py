"""A gradebook that does not answer (a bad URL, a missing driver, a server that is down) stops every
command that opens it with ONE line naming it (its password hidden) and why, before any student's work
is read, moved or graded."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kit import nbgrader_cli
from kit.course import DB_URL_VARIABLE
from kit.notebooks import ROOT

SECRET = "s3cret"
DOWN = f"postgresql+psycopg://grader:{SECRET}@127.0.0.1:9/attention"  # nothing listens on port 9 (discard)
BAD_URLS = {
    "server down": DOWN,
    "unknown dialect": "postgres://grader@db.example.edu/attention",
    "not a URL": "gradebook on the server",
    "no such folder": "sqlite:////nonexistent-folder/gradebook.db",
}


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def course(tmp_path) -> Path:
    """The kit's configuration and one collected submission."""
    for name in ("nbgrader_config.py", "course.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "examples" / "class" / "submitted" / "ada" / "attention",
                    tmp_path / "submitted" / "ada" / "attention")
    return tmp_path


def stops_with_one_line(command: list[str], course: Path, url: str) -> str:
    before = tree(course)
    result = subprocess.run(command, cwd=course, capture_output=True, text=True,
                            env={**nbgrader_cli.environment(), DB_URL_VARIABLE: url})
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gradebook unreachable: "), result.stderr[-2000:]
    assert "KIT_DB_URL" in lines[0] and SECRET not in lines[0]
    assert tree(course) == before  # nothing read into autograded/, moved, or created (not even gradebook.db)
    return lines[0]


@pytest.mark.parametrize("problem", BAD_URLS)
def test_autograde_stops_before_grading_anyone(course, problem):
    line = stops_with_one_line(nbgrader_cli.command("autograde", "attention"), course, BAD_URLS[problem])
    if problem == "server down":
        assert "127.0.0.1" in line and "refused" in line.lower()


@pytest.mark.parametrize("args", [("generate_assignment", "attention"), ("collect", "attention"),
                                  ("generate_feedback", "attention"), ("export",), ("db", "student", "list")],
                         ids=lambda args: args[0])
def test_every_command_that_opens_the_gradebook_stops_the_same_way(course, args):
    stops_with_one_line(nbgrader_cli.command(*args), course, DOWN)


@pytest.mark.parametrize("module", ["kit.demo", "kit.release"])
def test_the_demo_and_the_release_stop_before_they_start(tmp_path, module):
    from tests.shared.course_copy import copy_course
    stops_with_one_line([sys.executable, "-m", module], copy_course(tmp_path / "course"), DOWN)
