"""An answer cell the student duplicated or retyped: is it graded as their notebook runs top to bottom? A
check runs on the copy above it (as nbgrader's kernel runs every copy in turn); a cell made markdown or
raw no longer runs, so its answer is not given (where nbgrader's OverwriteCells would make it code again
and run it: tests/shared/adversarial/PLAIN_NBGRADER.md, retypes_an_answer_cell). An answer cell that runs
but binds the answer under another name is named for what it binds; answers pasted into a new notebook are
told where they go."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from autograder.grade import grade_submission
from autograder.handed_in import STUB, restore_locked_cells
from kit.notebooks import ROOT

SOURCE = ROOT / "source" / "attention"
NOTEBOOK = "03_softmax_and_mix.ipynb"


def _retyped(nb: dict, grade_id: str, cell_type: str) -> dict:
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    cell["cell_type"] = cell_type
    cell.pop("outputs", None), cell.pop("execution_count", None)
    return cell


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


@pytest.mark.parametrize("cell_type", ["markdown", "raw"])
def test_an_answer_cell_made_markdown_or_raw_is_not_answered_but_a_code_copy_of_it_is(cell_type):
    student = json.loads((SOURCE / NOTEBOOK).read_text())
    retyped = _retyped(student, "softmax", cell_type)
    assert _restored_softmax(student) != STUB and _restored_softmax(student).startswith("raise NotStarted(")
    student["cells"].append({**retyped, "id": "at-the-end", "cell_type": "code", "source": ANOTHER_TRY,
                             "outputs": [], "execution_count": None})
    assert _restored_softmax(student) == ANOTHER_TRY  # the only code copy, though below the checks


def test_an_answer_cell_made_markdown_is_named_as_such_not_as_an_answer_never_started(tmp_path):
    # Esc, then M, pressed by mistake: the code is still in the cell, so "replace raise NotStarted() with your
    # answer" would send the student looking for a stub that is not there.
    shutil.copytree(SOURCE, tmp_path / "attention")
    nb = json.loads((tmp_path / "attention" / NOTEBOOK).read_text())
    _retyped(nb, "softmax", "markdown")
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    cells = grade_submission(tmp_path / "attention").cells
    assert cells["hidden_softmax"].kind == "not started" and cells["hidden_softmax"].earned == 0
    assert "your answer cell for softmax is a markdown cell in your notebook, so its code never runs: make it a " \
           "code cell again" in cells["hidden_softmax"].message, cells["hidden_softmax"].message


def test_an_answer_given_another_name_is_named_for_the_name_its_cell_binds(tmp_path):
    shutil.copytree(SOURCE, tmp_path / "attention")
    nb = json.loads((tmp_path / "attention" / NOTEBOOK).read_text())
    nb["cells"][_softmax_cell(nb)]["source"] = "def soft_max(S, axis=-1):\n    return S\n"
    lead_share = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "lead_share")
    lead_share["source"] = "# later\n"
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    cells = grade_submission(tmp_path / "attention").cells
    assert cells["hidden_softmax"].kind == "not started", cells["hidden_softmax"]
    assert "softmax is not defined: your notebook defines soft_max instead" in cells["hidden_softmax"].message
    assert "lead_share is not defined: its cell ran without defining it" in cells["hidden_lead_share"].message


def test_answers_pasted_into_a_new_notebook_are_the_wrong_notebook_and_the_message_says_where_they_go(tmp_path):
    """A notebook none of whose cells keeps nbgrader's metadata is not graded (the kit's rule, the adversarial
    fixture hands_in_a_plain_notebook), even one that defines the answers: the message names them and says
    where they go."""
    shutil.copytree(SOURCE, tmp_path / "attention")
    nb = json.loads((tmp_path / "attention" / NOTEBOOK).read_text())
    for cell in nb["cells"]:
        cell["metadata"].pop("nbgrader", None)
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    problem = grade_submission(tmp_path / "attention").problems[NOTEBOOK]
    assert problem == ("wrong notebook: none of its cells keeps nbgrader's metadata, though it defines attention, "
                       "layer_counts, lead_share, permutation_gaps ... (pasted into a new notebook?): paste each "
                       "answer into its cell of the released notebook and hand that in"), problem
    nb["cells"] = [cell for cell in nb["cells"] if cell["cell_type"] == "markdown"]  # prose alone
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    problem = grade_submission(tmp_path / "attention").problems[NOTEBOOK]
    assert problem.startswith("wrong notebook: it has none of this notebook's exercises"), problem
