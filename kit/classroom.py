"""The steps of a term's loop for one assignment, each a small function over nbgrader
(its commands run in this process: kit.nbgrader_cli.run_here).

Every step is idempotent: run twice, it leaves the same gradebook and the same
files. Nothing here deletes a student's file: an unreadable notebook is set
aside beside itself, never removed (autograder.handed_in.set_aside_unreadable).
"""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

from nbgrader.api import Gradebook

from autograder import handed_in
from autograder.source_assignment import SourceAssignment
from kit.course import ASSIGNMENT, COURSE_ID, ROOT, course, db_url
from kit.nbgrader_cli import NbgraderFailed, run_here
from kit.nbgrader_glue.grading_run import check_confinement
from kit.nbgrader_glue.late import reassign_late_penalties
from kit.teaching_assistant import grade_written

RUN = ROOT / ".run"              # owned by the main command: the exchange and students' working copies
EXCHANGE = RUN / "exchange"
CACHE = RUN / "nbgrader_cache"   # the students' submit records (nbgrader's default: the account's ~/.local)


def roster(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def enrol(students: list[dict], root: Path = ROOT) -> None:
    """Every student of the roster in the gradebook (the release recorded the assignment and its due date)."""
    with Gradebook(db_url(root), COURSE_ID) as gb:
        for s in students:
            gb.update_or_create_student(s["id"], first_name=s["first_name"], last_name=s["last_name"],
                                        email=s["email"])


def release() -> None:
    """Put the generated release into the exchange (replacing an earlier release)."""
    run_here("release_assignment", ASSIGNMENT, "--force", f"--Exchange.root={EXCHANGE}",
             f"--CourseDirectory.course_id={COURSE_ID}", cwd=ROOT)


def submit(student: str, work: Path) -> None:
    """Submit a student's working folder `work` (holding their notebooks) through the exchange."""
    home = RUN / "students" / student
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(work, home / ASSIGNMENT, ignore=shutil.ignore_patterns("timestamp.txt"))
    run_here("submit", ASSIGNMENT, f"--student={student}", f"--Exchange.root={EXCHANGE}", f"--Exchange.cache={CACHE}",
             f"--CourseDirectory.course_id={COURSE_ID}", f"--CourseDirectory.root={home}", cwd=home)


def collect() -> None:
    run_here("collect", ASSIGNMENT, "--update", f"--Exchange.root={EXCHANGE}",
             f"--CourseDirectory.course_id={COURSE_ID}", cwd=ROOT)


def submitted_folder(student: str, root: Path = ROOT) -> Path:
    return root / "submitted" / student / ASSIGNMENT


def replay_timestamp(student: str, timestamp: str, root: Path = ROOT) -> None:
    """Give a collected submission the time the example class recorded for it
    (the exchange stamps it with the time of this run)."""
    (submitted_folder(student, root) / "timestamp.txt").write_text(timestamp)


def set_aside_unreadable(student: str, root: Path = ROOT) -> dict[str, str]:
    """Set aside each of the student's notebooks nbgrader cannot read (autograder.handed_in: `nbgrader
    autograde` does it too); returns notebook → why."""
    return handed_in.set_aside_unreadable(submitted_folder(student, root))


def under_their_names(student: str, root: Path = ROOT) -> dict[str, str]:
    """Copy each of the student's notebooks handed in under another name to its own (autograder.handed_in:
    `nbgrader autograde` does it too); returns notebook → what was done or why not."""
    return handed_in.under_their_names(submitted_folder(student, root),
                                       SourceAssignment.of(root / "source" / ASSIGNMENT))


def autograde(on_student) -> dict[str, str]:
    """`nbgrader autograde` for every submission; calls on_student(id) as each one
    starts; returns student → error for those nbgrader could not grade."""
    errors = {}

    def read(line: str) -> None:
        started = re.search(r"Creating/updating student with ID '([^']+)'", line)
        failed = re.search(r"error processing assignment: .*/submitted/([^/]+)/", line)
        if started:
            on_student(started.group(1))
        elif failed:
            errors[failed.group(1)] = "nbgrader could not grade this submission (see its log)"
    # The converter checks confinement too (and takes the grading lock), but its refusal would come back as
    # nbgrader's failure: checked here first, nothing is graded and the refusal (on stderr) ends the demo.
    check_confinement(course().unconfined)
    try:
        run_here("autograde", ASSIGNMENT, "--force", cwd=ROOT, on_line=read)
    except NbgraderFailed:
        if not errors:  # it failed for every student, not for some
            raise
    return errors


def grade_written_answers(students: list[str], root: Path = ROOT) -> dict[str, float]:
    """The stand-in teaching assistant grades every written answer (kit/teaching_assistant.py), then the late
    penalties are set again so that they count its points; returns what it gave."""
    policy = course(root)
    given = grade_written(root, db_url(root), COURSE_ID, ASSIGNMENT, students)
    reassign_late_penalties(db_url(root), COURSE_ID, ASSIGNMENT, policy.late_per_hour, policy.late_max_fraction)
    return given


def generate_feedback() -> None:
    run_here("generate_feedback", ASSIGNMENT, "--force", cwd=ROOT)


def export_grades(path: Path) -> None:
    run_here("export", f"--to={path}", cwd=ROOT)
