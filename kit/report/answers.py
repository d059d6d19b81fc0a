"""The code a similarity check compares: each student's answer cells, and what the course gave them.

From the instructor notebooks (source/): per exercise (an answer cell's
grade_id), the reference answer (the cell without nbgrader's solution markers:
the answer key in notebook form, as solutions/attention.py is in module form)
and the given code: the cell without its solution region (the signature and
docstring generate_assignment leaves in the release's stub) plus the
notebook's read-only set-up cells. From a handed-in folder: the source of each
answer cell, read as untrusted JSON (autograder/handed_in.py); a notebook that
cannot be read gives nothing. Nothing here runs code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from autograder.handed_in import read_notebook
from autograder.source_assignment import SourceAssignment

_SOLUTION = re.compile(r"^[^\n]*### BEGIN SOLUTION.*?### END SOLUTION[^\n]*(?:\n|$)", re.DOTALL | re.M)
_MARKER = re.compile(r"^[^\n]*### (?:BEGIN|END) SOLUTION[^\n]*(?:\n|$)", re.M)


@dataclass(frozen=True)
class Exercise:
    name: str
    notebook: str
    reference: str  # the instructor's answer, markers removed
    given: str      # the stub and the notebook's set-up code


def _text(cell: dict) -> str | None:
    source = cell.get("source") if isinstance(cell, dict) else None
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def _nbgrader(cell: dict) -> dict:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return meta if isinstance(meta, dict) else {}


def exercises(source: Path) -> dict[str, Exercise]:
    """grade_id → the exercise's reference and given code, for every answer cell of `source`'s notebooks."""
    found = {}
    assignment = SourceAssignment.of(source)
    for name in assignment.notebooks:
        cells = assignment.cells(name)
        setup = "\n".join(_text(c) or "" for c in cells if str(_nbgrader(c).get("grade_id", "")).startswith("setup"))
        for cell in cells:
            meta, text = _nbgrader(cell), _text(cell)
            if meta.get("solution") and cell.get("cell_type") == "code" and text is not None:
                found[meta["grade_id"]] = Exercise(meta["grade_id"], name, _MARKER.sub("", text),
                                                   _SOLUTION.sub("", text) + "\n" + setup)
    return found


def handed_in(folder: Path, names: set[str]) -> dict[str, str]:
    """Exercise → the source of its answer cell, for the exercises in `names` a student's folder holds."""
    found = {}
    for path in sorted(folder.glob("*.ipynb")):
        try:
            cells = read_notebook(path)["cells"]
        except (OSError, ValueError):
            continue
        for cell in cells:
            grade_id, text = _nbgrader(cell).get("grade_id"), _text(cell)
            if _nbgrader(cell).get("solution") and grade_id in names and text is not None:
                found.setdefault(grade_id, text)
    return found
