"""Scratch copies of the course, for the tests and the benchmarks that run whole commands.

Not shipped in the kit: only the suite (tests/) and the benchmarks (benchmarks/),
both run from a clone, make scratch courses, and the benchmarks import it from here.
Files come from git's index (committed or staged), so work in progress
elsewhere in the tree cannot leak into a test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID, ROOT, db_url

EXAMPLE = ROOT / "examples" / "class" / "submitted"


def copy_course(target: Path) -> Path:
    subprocess.run(["git", "checkout-index", "--all", f"--prefix={target}/"], cwd=ROOT, check=True)
    return target


def run_nbgrader(course: Path, *args: str, grading: str = "out-of-process", **kwargs) -> subprocess.CompletedProcess:
    """An nbgrader command in `course`; grading: "out-of-process" (the kit) or "in-kernel" (stock nbgrader)."""
    return nbgrader_cli.run(*args, cwd=course, grading=grading, check=True, capture_output=True, **kwargs)


def autograde(course: Path, **env: str) -> subprocess.CompletedProcess:
    """`nbgrader autograde <assignment> --force` on the kit's path in `course`, with these environment
    variables set (KIT_GRADING_WORKERS, KIT_GRADING_SCHEDULER); not checked, output captured."""
    return nbgrader_cli.run("autograde", ASSIGNMENT, "--force", cwd=course, grading="out-of-process", env=env,
                            capture_output=True, text=True)


def gradebook_snapshot(course: Path, students: list[str]) -> dict:
    """Every score, penalty and timestamp in a course's gradebook, by name rather than row id."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url(course), COURSE_ID) as gb:
        return {(s, nb.name, g.name): (g.auto_score, g.manual_score, nb.late_submission_penalty)
                for s in students for nb in gb.find_submission(ASSIGNMENT, s).notebooks for g in nb.grades}


def class_course(target: Path, n_students: int, released: Path | None = None) -> list[str]:
    """A scratch course with the release generated and `n_students` copies of the
    example class submitted (ids like ``bo003``); returns the ids. `released`: a
    course whose release is already generated, copied rather than generated again."""
    from kit.classroom import set_aside_unreadable

    if released:
        shutil.copytree(released, target, dirs_exist_ok=True, symlinks=True)
    else:
        copy_course(target)
        run_nbgrader(target, "generate_assignment", ASSIGNMENT, "--force")
    kinds = sorted(p.name for p in EXAMPLE.iterdir())
    students = [f"{kinds[i % len(kinds)]}{i // len(kinds):03d}" for i in range(n_students)]
    for student in students:
        shutil.copytree(EXAMPLE / student[:-3] / ASSIGNMENT, target / "submitted" / student / ASSIGNMENT)
        set_aside_unreadable(student, target)
    return students


def run_demo(course: Path, env: dict | None = None) -> str:
    result = subprocess.run([sys.executable, "-m", "kit.demo"], cwd=course, capture_output=True, text=True,
                            timeout=1800, env={**os.environ, **(env or {})})  # a generous bound: a loaded machine is slow
    assert result.returncode == 0, result.stderr[-12000:]
    return result.stdout
