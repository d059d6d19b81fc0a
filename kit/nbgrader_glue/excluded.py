"""The students a command leaves alone: `--CourseDirectory.student_id_exclude` (a comma-separated list; the
grading service excludes every student but a round's, rounds.py)."""

from __future__ import annotations

from nbgrader.coursedir import CourseDirectory


def excluded_students(coursedir: CourseDirectory) -> set[str]:
    """The student ids excluded on the command line."""
    return set(filter(None, (coursedir.student_id_exclude or "").split(",")))
