"""Scratch copies of the kit, for tests and benchmarks that run whole commands.

Files come from git's index (committed or staged), so work in progress
elsewhere in the tree cannot leak into a test.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from kit import nbgrader_cli
from kit.notebooks import ROOT

EXAMPLE = ROOT / "examples" / "class" / "submitted"


def copy_course(target: Path) -> Path:
    subprocess.run(["git", "checkout-index", "--all", f"--prefix={target}/"], cwd=ROOT, check=True)
    return target


def run_nbgrader(course: Path, *args: str, grading: str = "out-of-process", **kwargs) -> subprocess.CompletedProcess:
    """An nbgrader command in `course`; grading: "out-of-process" (the kit) or "in-kernel" (stock nbgrader)."""
    return nbgrader_cli.run(*args, cwd=course, grading=grading, check=True, capture_output=True, **kwargs)


def autograde(course: Path, **env: str) -> subprocess.CompletedProcess:
    """`nbgrader autograde attention --force` on the kit's path in `course`, with these environment
    variables set (KIT_GRADING_WORKERS, KIT_GRADING_SCHEDULER); not checked, output captured."""
    return subprocess.run(nbgrader_cli.command("autograde", "attention", "--force"), cwd=course,
                          env={**nbgrader_cli.environment("out-of-process"), **env}, capture_output=True, text=True)


def gradebook_snapshot(course: Path, students: list[str]) -> dict:
    """Every score, penalty and timestamp in a course's gradebook, by name rather than row id."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(s, nb.name, g.name): (g.auto_score, g.manual_score, nb.late_submission_penalty)
                for s in students for nb in gb.find_submission("attention", s).notebooks for g in nb.grades}


def class_course(target: Path, n_students: int, released: Path | None = None) -> list[str]:
    """A scratch course with the release generated and `n_students` copies of the
    example class submitted (ids like ``bo003``); returns the ids. `released`: a
    course whose release is already generated, copied rather than generated again."""
    from kit.classroom import set_aside_unreadable

    if released:
        shutil.copytree(released, target, dirs_exist_ok=True, symlinks=True)
    else:
        copy_course(target)
        run_nbgrader(target, "generate_assignment", "attention", "--force")
    kinds = sorted(p.name for p in EXAMPLE.iterdir())
    students = [f"{kinds[i % len(kinds)]}{i // len(kinds):03d}" for i in range(n_students)]
    for student in students:
        shutil.copytree(EXAMPLE / student[:-3] / "attention", target / "submitted" / student / "attention")
        set_aside_unreadable(student, target)
    return students
