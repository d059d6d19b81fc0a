"""A teaching assistant grading by hand while `nbgrader autograde` runs: a process of its own.

    python -m tests.nbgrader_glue.teaching_assistant URL STUDENT...

As each student's submission appears in the gradebook, it gives every graded
cell a manual score (half its points) and every answer a comment, one commit
each, the way the formgrader's grade and comment handlers write them through
nbgrader's Gradebook API (kit/teaching_assistant.py, which also grades the
written answers of `make demo` by their rubric). Prints what it wrote as JSON
({"student/notebook/cell": points}); exits non-zero if a write fails or the
submissions never all appear.
"""

from __future__ import annotations

import json
import sys
import time

from nbgrader.api import Gradebook, MissingEntry

from kit.course import ASSIGNMENT, COURSE_ID
from kit.teaching_assistant import record_comment, record_grade

PATIENCE = 900  # seconds for every submission to appear


def comment_for(student: str) -> str:
    return f"Read by a TA: well laid out, {student}."


def grade_by_hand(url: str, students: list[str]) -> dict[str, float]:
    written: dict[str, float] = {}
    pending, deadline = list(students), time.monotonic() + PATIENCE
    while pending:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no submission in the gradebook for {pending}")
        with Gradebook(url, COURSE_ID) as gb:
            for student in list(pending):
                try:
                    submission = gb.find_submission(ASSIGNMENT, student)
                except MissingEntry:
                    continue
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        record_grade(gb, grade, grade.max_score / 2)
                        written[f"{student}/{notebook.name}/{grade.name}"] = grade.max_score / 2
                    for comment in notebook.comments:
                        record_comment(gb, comment, comment_for(student))
                pending.remove(student)
        time.sleep(1)
    return written


if __name__ == "__main__":
    print(json.dumps(grade_by_hand(sys.argv[1], sys.argv[2:])))
