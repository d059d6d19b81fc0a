"""Does the grader's own copy of nbgrader's cell checksum agree with nbgrader's, on every kind of cell?"""

from __future__ import annotations

import copy
import json

import nbformat
from nbgrader.utils import compute_checksum

from autograder.handed_in import nbgrader_checksum
from kit.notebooks import ROOT


def released_cells() -> list[dict]:
    """Every nbgrader cell of the student release, as nbgrader wrote it (checksum included)."""
    cells = []
    for path in sorted((ROOT / "assignments" / "attention").glob("*.ipynb")):
        cells += [c for c in json.loads(path.read_text())["cells"] if "nbgrader" in c["metadata"]]
    return cells


def variants(cell: dict) -> list[dict]:
    """The cell with its source joined, and with each flag nbgrader hashes turned over."""
    cell = {**cell, "source": "".join(cell["source"])}
    out = [cell]
    for key, value in [("grade", True), ("grade", False), ("solution", True), ("solution", False),
                       ("locked", True), ("locked", False), ("points", 2.5), ("grade_id", "renamed")]:
        changed = copy.deepcopy(cell)
        changed["metadata"]["nbgrader"][key] = value
        changed["metadata"]["nbgrader"].setdefault("points", 1)
        out.append(changed)
    out.append({**cell, "source": cell["source"] + "\n# é, 注"})
    return out


def test_the_release_holds_graded_answer_and_locked_cells():
    flags = [c["metadata"]["nbgrader"] for c in released_cells()]
    assert any(f.get("grade") and not f.get("solution") for f in flags)  # a check
    assert any(f.get("solution") and not f.get("grade") for f in flags)  # an answer
    assert any(f.get("locked") and not f.get("grade") for f in flags)    # a locked cell that is not graded


def test_the_checksum_is_nbgraders_on_every_released_cell_and_its_variants():
    wrong = []
    for cell in released_cells():
        meta = cell["metadata"]["nbgrader"]
        if "checksum" in meta and nbgrader_checksum({**cell, "source": "".join(cell["source"])}) != meta["checksum"]:
            wrong.append((meta["grade_id"], "stored"))
        wrong += [(meta["grade_id"], i) for i, variant in enumerate(variants(cell))
                  if nbgrader_checksum(variant) != compute_checksum(nbformat.from_dict(variant))]
    assert wrong == []
