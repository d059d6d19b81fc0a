"""An answer cell the student retyped or duplicated: is it graded as the notebook runs top to bottom, and as
nbgrader's stock path grades it? (Its OverwriteCells makes a retyped answer cell code again, keeping the
student's source; its kernel runs every copy of a duplicated one, so a check runs on the copy above it.)"""

from __future__ import annotations

import copy
import json
import shutil

import pytest

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


def _softmax_cell(nb: dict) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")


def _restored_softmax(student: dict) -> str:
    source = json.loads((SOURCE / NOTEBOOK).read_text())
    return next(c for c in restore_locked_cells(student, source)["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")["source"]


ANOTHER_TRY = "def softmax(S, axis=-1):\n    return S  # another try\n"


@pytest.mark.parametrize("where, the_copy_graded", [
    ("right below the answer", True),                      # tried again: the check below runs on the new try
    ("right above the answer", False),                     # the answer below it is the later definition
    ("at the end of the notebook, below the checks", False)])
def test_of_a_duplicated_answer_cell_the_copy_its_check_runs_on_is_graded(where, the_copy_graded):
    student = json.loads((SOURCE / NOTEBOOK).read_text())
    at = _softmax_cell(student)
    answer = student["cells"][at]["source"]
    other = {**copy.deepcopy(student["cells"][at]), "id": "another-try", "source": ANOTHER_TRY}
    student["cells"].insert({"right below the answer": at + 1, "right above the answer": at}.get(
        where, len(student["cells"])), other)
    assert _restored_softmax(student) == (ANOTHER_TRY if the_copy_graded else answer)


def test_an_answer_tried_again_in_a_copy_below_earns_its_points(tmp_path):
    shutil.copytree(SOURCE, tmp_path / "attention")
    nb = json.loads((tmp_path / "attention" / NOTEBOOK).read_text())
    at = _softmax_cell(nb)
    nb["cells"].insert(at, {**copy.deepcopy(nb["cells"][at]), "id": "first-try", "source": ANOTHER_TRY})
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    cells = grade_submission(tmp_path / "attention").cells
    assert cells["check_softmax"].message == cells["hidden_softmax"].message == "passed"


def test_a_code_copy_of_the_answer_wins_over_a_retyped_one():
    source = json.loads((SOURCE / NOTEBOOK).read_text())
    student = json.loads((SOURCE / NOTEBOOK).read_text())
    retyped = _retyped(student, "softmax", "markdown")
    student["cells"].append({**retyped, "cell_type": "code", "source": "def softmax(S):\n    return S\n",
                             "outputs": [], "execution_count": None})
    restored = next(c for c in restore_locked_cells(student, source)["cells"]
                    if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")
    assert restored["cell_type"] == "code" and restored["source"] == "def softmax(S):\n    return S\n"
