"""Cells a student adds (no nbgrader metadata) count as theirs: a helper defined
there is defined when their answer is graded, and nothing else of it runs."""

from __future__ import annotations

import json
import shutil

from autograder.grade import grade_submission
from autograder.handed_in import restore_locked_cells
from kit.notebooks import ROOT

SOURCE = ROOT / "source" / "attention"
NOTEBOOK = "03_softmax_and_mix.ipynb"

HELPER = '''import math

def shifted(S, axis):
    """S minus its largest entry along `axis`."""
    return S - S.max(axis=axis, keepdims=True)

print("a demonstration that grading must not run")
while True:  # a forgotten experiment: grading must not run it either
    pass
'''

SOFTMAX = '''def softmax(S, axis=-1):
    S = np.asarray(S)
    e = np.exp(shifted(np.where(np.isneginf(S).all(axis=axis, keepdims=True), 0.0, S), axis))
    e = np.where(np.isneginf(S), 0.0, e)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
'''


def _with_helper(folder):
    shutil.copytree(SOURCE, folder)
    nb = json.loads((folder / NOTEBOOK).read_text())
    at = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")
    nb["cells"][at]["source"] = SOFTMAX
    nb["cells"].insert(at, {"cell_type": "code", "id": "helper", "metadata": {}, "source": HELPER,
                            "outputs": [], "execution_count": None})
    (folder / NOTEBOOK).write_text(json.dumps(nb))
    return nb


def test_a_helper_in_a_cell_of_the_students_own_is_there_when_the_answer_is_graded(tmp_path):
    _with_helper(tmp_path / "attention")
    report = grade_submission(tmp_path / "attention")
    for cell in ("check_softmax", "hidden_softmax", "check_attention", "hidden_attention"):
        assert report.cells[cell].message == "passed", report.cells[cell].message


def test_the_restored_notebook_keeps_the_students_cell_where_it_was(tmp_path):
    student = _with_helper(tmp_path / "attention")
    source = json.loads((SOURCE / NOTEBOOK).read_text())
    for answers_only in (False, True):
        cells = restore_locked_cells(student, source, answers_only)["cells"]
        at = next(i for i, c in enumerate(cells) if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")
        assert cells[at - 1]["source"] == HELPER and cells[at - 1]["metadata"] == {}


def test_a_cell_whose_nbgrader_metadata_the_student_broke_is_theirs_and_runs(tmp_path):
    # Metadata edited by hand into no table at all (a string, a list, null): its code counts as theirs, as it runs
    # in their notebook; before, the answer's code was dropped and graded "not started". A table naming another
    # id, or one that is not text, is still an nbgrader cell not under its own name: its code is not theirs.
    student = _with_helper(tmp_path / "attention")
    source = json.loads((SOURCE / NOTEBOOK).read_text())
    at = next(i for i, c in enumerate(student["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")
    for broken, theirs in (("softmax", True), (["softmax"], True), (None, True),
                           ({"grade_id": None, "solution": True}, False), ({"grade_id": 12}, False)):
        student["cells"][at]["metadata"]["nbgrader"] = broken
        cells = restore_locked_cells(student, source, answers_only=True)["cells"]
        own = [c["source"] for c in cells if c["metadata"] == {}]
        assert own == ([HELPER, SOFTMAX] if theirs else [HELPER]), broken


TABLE_BY_LOOP = """SHIFTERS = {}
for axis in (-1, 0, 1, 2):
    SHIFTERS[axis] = lambda S, a=axis: S - S.max(axis=a, keepdims=True)
print(np.round(np.exp(np.arange(3.0)), 2))  # a demonstration: no answer reads what it changes
"""


def test_a_table_a_loop_of_the_students_own_fills_is_named_when_the_answer_meets_it_empty(tmp_path):
    """A cell of the student's own runs only its definitions while graded, so a loop there filling a table the
    answer reads did not run: the answer met an empty table (a KeyError, 0 points) where in JupyterLab it
    passed, and the message said nothing of why. It now names the loop, its line and cell, and the table; the
    demonstration beside it, which changes nothing the answer reads, is not named. The cell is named by its first
    line: the cells graded are not numbered as in the student's notebook."""
    _with_helper(tmp_path / "attention")
    nb = json.loads((tmp_path / "attention" / NOTEBOOK).read_text())
    helper = next(i for i, c in enumerate(nb["cells"]) if c.get("id") == "helper")
    nb["cells"][helper]["source"] = TABLE_BY_LOOP
    nb["cells"][helper + 1]["source"] = SOFTMAX.replace("shifted(", "SHIFTERS[axis](").replace(", axis))", "))")
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    message = grade_submission(tmp_path / "attention").cells["hidden_softmax"].message
    assert "KeyError" in message, message
    assert "so these did not run: the for loop at line 2 of your cell that begins `SHIFTERS = {}`, which changes " \
        "SHIFTERS." in message, message
    assert "call at line 4" not in message, message


TABLE_FILLED_IN_PART = """SHIFTERS = {axis: (lambda S: S) for axis in (-1, 0, 1, 2)}  # a start the loop below corrects
for axis in (-1, 0, 1, 2):
    SHIFTERS[axis] = lambda S, a=axis: S - S.max(axis=a, keepdims=True)
"""


def test_a_loop_that_would_have_corrected_a_table_is_named_when_the_answer_gives_a_wrong_value(tmp_path):
    """The same loop correcting a table an assignment (which runs while graded) filled first: the answer meets
    the uncorrected table and returns a wrong value, not an error, and the child cannot tell a wrong value from
    a right one. The note comes with every value of the answer; the grader adds it where a value fails its
    case (softmax unshifted: overflow on large scores), and a case the value passes says nothing of it."""
    _with_helper(tmp_path / "attention")
    nb = json.loads((tmp_path / "attention" / NOTEBOOK).read_text())
    helper = next(i for i, c in enumerate(nb["cells"]) if c.get("id") == "helper")
    nb["cells"][helper]["source"] = TABLE_FILLED_IN_PART
    nb["cells"][helper + 1]["source"] = SOFTMAX.replace("shifted(", "SHIFTERS[axis](").replace(", axis))", "))")
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    report = grade_submission(tmp_path / "attention")
    message = report.cells["hidden_softmax"].message
    assert "raised" not in message, message
    assert "so these did not run: the for loop at line 2 of your cell that begins `SHIFTERS = {axis: (lambda S: S) " \
        "for axi…`, which changes SHIFTERS." in message, message
    assert report.cells["check_attention"].message == "passed"  # attention's stand-in softmax is the reference's


SCALED_HELPER = '''def raw_scores(Q, K):
    """Q Kᵀ / √d_k: named like notebook 02's exercise, scaled all the same."""
    return Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
'''


def _answer_cell(nb: dict, grade_id: str) -> dict:
    return next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)


def _notebook_with(folder, change) -> None:
    shutil.copytree(SOURCE, folder)
    nb = json.loads((folder / NOTEBOOK).read_text())
    change(nb)
    (folder / NOTEBOOK).write_text(json.dumps(nb))


def test_a_helper_of_the_students_named_like_another_notebooks_exercise_is_theirs_while_graded(tmp_path):
    """raw_scores is notebook 02's exercise, not notebook 03's: a helper of that name in 03 (in a cell of the
    student's own, or in the answer's cell beside it) is the student's, scaled inside. It was stood in for by
    the reference's raw_scores (unscaled), and a right answer lost its points to "Likely mistake: no scaling"."""
    for in_the_answers_cell in (False, True):
        def change(nb):
            cell = _answer_cell(nb, "attention")
            body = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            cell["source"] = (SCALED_HELPER + "\n\n" if in_the_answers_cell else "") + body.replace(
                "Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])", "raw_scores(Q, K)")
            if not in_the_answers_cell:
                nb["cells"].insert(nb["cells"].index(cell), {"cell_type": "code", "id": "helper", "metadata": {},
                                                             "source": SCALED_HELPER, "outputs": [],
                                                             "execution_count": None})
        folder = tmp_path / str(in_the_answers_cell) / "attention"
        _notebook_with(folder, change)
        report = grade_submission(folder)
        for cell in ("check_attention", "hidden_attention"):
            assert report.cells[cell].message == "passed", (in_the_answers_cell, report.cells[cell].message)


def test_a_cell_of_the_students_own_between_an_answer_and_its_check_runs_with_the_answer(tmp_path):
    """A helper the answer calls, defined in a cell the student inserted below the answer's cell (above its check,
    where JupyterLab's check saw it), and a corrected definition there over a first try left in the answer's
    cell: grading ran the cells only until the answer was defined, so the first failed with a NameError and the
    second graded the first try."""
    below = {"helper below": ("def softmax(S, axis=-1):\n    return _stable(S, axis)\n",
                              HELPER.split("\nprint(")[0].replace("def shifted", "def _shifted") + "\n\n"
                              + SOFTMAX.replace("def softmax", "def _stable").replace("shifted(", "_shifted(")),
             "corrected below": ("def softmax(S, axis=-1):\n    e = np.exp(S)\n    return e / e.sum(axis=axis, "
                                 "keepdims=True)\n", "import math\n\n" + HELPER.split("\nprint(")[0].split(
                                     "import math\n")[1] + "\n\n" + SOFTMAX)}
    for case, (answer, own) in below.items():
        def change(nb):
            cell = _answer_cell(nb, "softmax")
            cell["source"] = answer
            nb["cells"].insert(nb["cells"].index(cell) + 1, {"cell_type": "code", "id": "below", "metadata": {},
                                                             "source": own, "outputs": [], "execution_count": None})
        folder = tmp_path / case.replace(" ", "_") / "attention"
        _notebook_with(folder, change)
        report = grade_submission(folder)
        for cell in ("check_softmax", "hidden_softmax"):
            assert report.cells[cell].message == "passed", (case, report.cells[cell].message)
