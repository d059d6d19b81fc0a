"""An answer cell the student made markdown or raw by mistake: is it graded as nbgrader grades it (its
OverwriteCells makes the cell code again, keeping the student's source, and its stock path runs it)?"""

from __future__ import annotations

import json
import shutil

from autograder.grade import grade_submission
from autograder.handed_in import restore_locked_cells
from kit.notebooks import ROOT

SOURCE = ROOT / "source" / "attention"
NOTEBOOK = "03_softmax_and_mix.ipynb"


def _retyped(nb: dict, grade_id: str, cell_type: str) -> dict:
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    cell["cell_type"] = cell_type
    cell.pop("outputs", None), cell.pop("execution_count", None)
    return cell


def test_an_answer_cell_made_markdown_or_raw_is_graded_as_code(tmp_path):
    shutil.copytree(SOURCE, tmp_path / "attention")
    nb = json.loads((tmp_path / "attention" / NOTEBOOK).read_text())
    _retyped(nb, "softmax", "markdown"), _retyped(nb, "attention", "raw")
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    cells = grade_submission(tmp_path / "attention").cells
    for grade_id in ("check_softmax", "hidden_softmax", "check_attention", "hidden_attention"):
        assert cells[grade_id].message == "passed", cells[grade_id].message


def test_a_code_copy_of_the_answer_wins_over_a_retyped_one():
    source = json.loads((SOURCE / NOTEBOOK).read_text())
    student = json.loads((SOURCE / NOTEBOOK).read_text())
    retyped = _retyped(student, "softmax", "markdown")
    student["cells"].append({**retyped, "cell_type": "code", "source": "def softmax(S):\n    return S\n",
                             "outputs": [], "execution_count": None})
    restored = next(c for c in restore_locked_cells(student, source)["cells"]
                    if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")
    assert restored["cell_type"] == "code" and restored["source"] == "def softmax(S):\n    return S\n"
