"""Does each course fact and each way of running nbgrader live in one place? (issue 16, part 4)

course.toml is read by kit/course.py alone, nbgrader is started by kit/nbgrader_cli.py alone, and the
course id is written in course.toml alone: the kit, its tests and its benchmarks ask those modules.
"""

from __future__ import annotations

import re
from pathlib import Path

from kit.notebooks import ROOT

FOLDERS = ("kit", "autograder", "tests", "benchmarks", "examples", "explorer", "model", "solutions")


def modules() -> dict[str, str]:
    """Path (from the course root) → source, for every Python file of the kit, its tests and its tools."""
    paths = [ROOT / "nbgrader_config.py", *(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py"))]
    return {str(p.relative_to(ROOT)): p.read_text() for p in paths
            if "__pycache__" not in p.parts and p != Path(__file__)}  # this file names the patterns


def test_course_toml_is_parsed_by_the_course_module_alone():
    readers = {path for path, text in modules().items() if re.search(r"\btomllib\b|\btoml\.load", text)}
    assert readers == {"kit/course.py"}


def test_nbgrader_is_started_by_the_runner_alone():
    # A command line (python -m nbgrader, or the nbgrader script), or nbgrader's application run in-process.
    starting = re.compile(r"""["']-m["'],\s*["']nbgrader["']|["']nbgrader["']\s*,\s*\*|\bNbGraderApp\b""")
    starters = {path for path, text in modules().items() if starting.search(text)}
    assert starters == {"kit/nbgrader_cli.py"}


def test_the_course_id_is_written_in_course_toml_alone():
    writing = {path for path, text in modules().items() if re.search(r"""["']attention-kit["']""", text)}
    assert writing == {"tests/house/test_course.py"}  # which checks that the course module reads it
    assert (ROOT / "Makefile").read_text().count("attention-kit") == 0
