"""The instructor's notebooks of one assignment (source/<assignment>/*.ipynb), read once.

`SourceAssignment.of(folder)` reads every notebook of the folder once per
process (again only when a file changes) and answers what grading, the class
report and the release ask of it: the graded cells with their points, which
notebook asks for each answer, and the chapter section each exercise follows.
A graded cell's id is a `GradeId`: `check_<exercise>` (the visible check) or
`hidden_<exercise>` (the hidden one).
"""

from __future__ import annotations

import json
import re
from functools import cached_property, lru_cache
from pathlib import Path
from typing import NamedTuple

_NAMED = re.compile(r"chapter section (\d+)")
_FOLLOWS = re.compile(r"follows (?:the end of )?(?:chapter )?section (\d+)")


class GradeId(NamedTuple):
    """A graded cell's id, `<kind>_<exercise>`: kind "check" or "hidden"."""
    kind: str
    exercise: str

    @classmethod
    def parse(cls, grade_id: str) -> GradeId:
        kind, _, exercise = grade_id.partition("_")
        return cls(kind, exercise)

    def __str__(self) -> str:
        return f"{self.kind}_{self.exercise}"


class GradedCell(NamedTuple):
    notebook: str   # its file name, 01_worked_example.ipynb
    grade_id: str
    points: float

    @property
    def exercise(self) -> str:
        return GradeId.parse(self.grade_id).exercise


def cell_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _nbgrader(cell: dict) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
    return meta if isinstance(meta, dict) else {}


class SourceAssignment:
    def __init__(self, folder: Path, notebooks: dict[str, dict]):
        self.folder = folder
        self.notebooks = notebooks  # file name → the notebook's JSON, in file-name order

    @classmethod
    def of(cls, folder: Path) -> SourceAssignment:
        """The assignment in `folder`, read once per process while its notebooks are unchanged."""
        paths = sorted(Path(folder).glob("*.ipynb"))
        return _read(Path(folder), tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in paths))

    def cells(self, notebook: str) -> list[dict]:
        return self.notebooks[notebook]["cells"]

    @cached_property
    def graded_cells(self) -> list[GradedCell]:
        """Every graded code cell (visible and hidden checks), in order."""
        return [GradedCell(name, meta["grade_id"], float(meta["points"]))
                for name, nb in self.notebooks.items() for cell in nb["cells"]
                if (meta := _nbgrader(cell)).get("grade") and cell["cell_type"] == "code"]

    @cached_property
    def answer_notebooks(self) -> dict[str, str]:
        """Answer cell id → the notebook that asks for it."""
        return {_nbgrader(cell)["grade_id"]: name for name, nb in self.notebooks.items() for cell in nb["cells"]
                if _nbgrader(cell).get("solution")}

    @cached_property
    def sections(self) -> dict[str, int]:
        """Answer cell id (the exercise) or written question → the chapter section it follows: the last
        "chapter section N" named in the markdown above it, or, before any, the notebook's "follows section N"."""
        found: dict[str, int] = {}
        for nb in self.notebooks.values():
            section = None
            for cell in nb["cells"]:
                if cell["cell_type"] == "markdown":
                    named = _NAMED.findall(cell_text(cell)) or _FOLLOWS.findall(cell_text(cell))
                    section = int(named[-1]) if named else section
                meta = _nbgrader(cell)
                if (meta.get("solution") or meta.get("task")) and section is not None:
                    found[meta["grade_id"]] = section
        return found


@lru_cache(maxsize=8)
def _read(folder: Path, files: tuple[tuple[str, int, int], ...]) -> SourceAssignment:
    return SourceAssignment(folder, {name: json.loads((folder / name).read_text(encoding="utf-8"))
                                     for name, _, _ in files})
