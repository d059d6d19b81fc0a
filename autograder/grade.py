"""Grade a submission cell by cell, the student's code running in its own process.

`grade_cells(folder)` gives, for every graded cell of the assignment, the
points earned and the first message, computed in this process from the plain
answers the child returns: a visible check cell `check_<f>` earns its points
when every worked-example case of <f> passes, a hidden cell `hidden_<f>` when
every hidden case does.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from autograder.cases import EXERCISES, hidden_cases
from autograder.judge import load_cases, verdict
from autograder.submission import Submission
from kit.notebooks import ROOT, course_points

VISIBLE = ROOT / "source" / "attention" / "worked_example.npz"


class CellGrade(NamedTuple):
    grade_id: str
    earned: float
    possible: float
    message: str


def _first_problem(submission: Submission, name: str, cases, reveal: bool) -> str | None:
    for case in cases:
        problem = verdict(f"{name} on {case['label']}", submission.outcome(name, case), case, reveal)
        if problem:
            return problem
    return None


def grade_cells(folder: Path) -> dict[str, CellGrade]:
    points = course_points()
    visible = load_cases(VISIBLE)
    grades = {}
    with Submission(folder) as submission:
        for name in EXERCISES:
            for kind, cases, reveal in (("check", [c for c in visible if c["func"] == name], True),
                                        ("hidden", hidden_cases(name), False)):
                grade_id = f"{kind}_{name}"
                if grade_id not in points:
                    continue
                problem = _first_problem(submission, name, cases, reveal)
                grades[grade_id] = CellGrade(grade_id, 0.0 if problem else float(points[grade_id]),
                                             float(points[grade_id]), problem or "passed")
    return grades
