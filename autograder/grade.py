"""Grade one submission cell by cell, the student's code running in its own process.

For every graded cell of the source notebooks: a visible check `check_<f>`
earns its points when every worked-example case of <f> passes, a hidden cell
`hidden_<f>` when every hidden case does. The comparison runs here, in the
parent, on plain data the child sent back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from autograder.cases import hidden_cases
from autograder.judge import load_cases, verdict
from autograder.submission import SOURCE, Submission


class CellGrade(NamedTuple):
    notebook: str
    grade_id: str
    earned: float
    possible: float
    message: str


class Report(NamedTuple):
    cells: dict[str, CellGrade]
    problems: dict[str, str]  # notebook → why it could not be graded
    tampering: list[str]      # read-only cells the student changed (restored before grading)

    def plain(self) -> dict:
        """JSON-ready: what crosses a process or a machine (see from_plain)."""
        return {"problems": self.problems, "tampering": self.tampering,
                "cells": {k: v._asdict() for k, v in self.cells.items()}}

    @classmethod
    def from_plain(cls, data: dict) -> Report:
        return cls({k: CellGrade(**v) for k, v in data["cells"].items()}, dict(data["problems"]),
                   list(data["tampering"]))


def graded_cells(source: Path) -> list[tuple[str, str, float]]:
    """(notebook, grade_id, points) of every graded cell, in order."""
    found = []
    for path in sorted(source.glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("grade") and cell["cell_type"] == "code":
                found.append((path.name, meta["grade_id"], float(meta["points"])))
    return found


def _first_problem(submission: Submission, name: str, cases, reveal: bool) -> str | None:
    for case in cases:
        problem = verdict(f"{name} on {case['label']}", submission.outcome(name, case), case, reveal)
        if problem:
            return problem
    return None


def grade_submission(folder: Path, source: Path = SOURCE) -> Report:
    visible = load_cases(source / "worked_example.npz")
    cells = {}
    with Submission(folder, source) as submission:
        for notebook, grade_id, points in graded_cells(source):
            kind, name = grade_id.split("_", 1)
            cases = hidden_cases(name) if kind == "hidden" else [c for c in visible if c["func"] == name]
            problem = _first_problem(submission, name, cases, reveal=kind != "hidden") if cases else \
                f"{grade_id}: no cases to grade this cell with"
            cells[grade_id] = CellGrade(notebook, grade_id, 0.0 if problem else points, points, problem or "passed")
        return Report(cells, dict(submission.problems), list(submission.tampering))


def grade_cells(folder: Path, source: Path = SOURCE) -> dict[str, CellGrade]:
    return grade_submission(folder, source).cells
