"""Does an answer that Jupyter runs, with IPython's own syntax in its cell (`%timeit`, `%%time`, `!pip`,
`name?`), earn its points when graded outside a kernel, where a cell is plain Python?"""

from __future__ import annotations

import json
import shutil

from autograder.grade import grade_submission
from kit.notebooks import ROOT

SOURCE = ROOT / "source" / "attention"
NOTEBOOK = "03_softmax_and_mix.ipynb"


def _cells(folder):
    shutil.copytree(SOURCE, folder)
    nb = json.loads((folder / NOTEBOOK).read_text())
    return nb, {c["metadata"]["nbgrader"]["grade_id"]: c for c in nb["cells"]
                if c["metadata"].get("nbgrader", {}).get("solution")}


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_answers_under_magics_shell_escapes_and_help_are_graded_as_jupyter_runs_them(tmp_path):
    nb, answers = _cells(tmp_path / "attention")
    answers["softmax"]["source"] = "%%time\n" + _source(answers["softmax"]) + "\n%timeit softmax(np.zeros(3))\nsoftmax?\n"
    answers["attention"]["source"] = "!pip install numpy\nfiles = !ls\n" + _source(answers["attention"])
    at = nb["cells"].index(answers["reach"])  # reach answered in a cell of the student's own, above its own cell
    nb["cells"].insert(at, {"cell_type": "code", "id": "own", "metadata": {}, "outputs": [], "execution_count": None,
                            "source": "%matplotlib inline\n" + _source(answers["reach"])})
    answers["reach"]["source"] = "%%timeit\ndef reach(*args):\n    return 'a definition Jupyter keeps inside its timer'\n"
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    cells = grade_submission(tmp_path / "attention").cells
    for grade_id in ("check_softmax", "hidden_softmax", "check_attention", "hidden_attention", "check_reach",
                     "hidden_reach"):
        assert cells[grade_id].message == "passed", cells[grade_id].message


def test_a_syntax_error_beside_a_magic_is_named_at_its_line_in_the_cell_as_an_error_not_as_not_started(tmp_path):
    nb, answers = _cells(tmp_path / "attention")
    answers["softmax"]["source"] = "\n%%time\n%timeit 1\ndef softmax(S, axis=-1):\n    return S +\n"
    (tmp_path / "attention" / NOTEBOOK).write_text(json.dumps(nb))
    graded = grade_submission(tmp_path / "attention").cells["hidden_softmax"]
    assert graded.kind == "error raised", graded
    assert "its cell failed before softmax was defined: SyntaxError" in graded.message, graded.message
    assert "line 5" in graded.message and "not started" not in graded.message, graded.message


def test_scripts_run_with_percent_run_from_the_hand_in_are_graded_as_jupyter_runs_them(tmp_path):
    """softmax answered by `%run -i my_softmax.py`, attention's helper loaded by `%run helpers.py` in a cell of the
    student's own: both scripts handed in beside the notebooks (autograder/student_modules.py)."""
    nb, answers = _cells(tmp_path / "attention")
    folder = tmp_path / "attention"
    (folder / "my_softmax.py").write_text("import numpy as np\n\n" + "".join(
        line for line in _source(answers["softmax"]).splitlines(True) if "SOLUTION" not in line))
    (folder / "helpers.py").write_text("import math\n\n\ndef scale_of(d):\n    return math.sqrt(d)\n")
    answers["softmax"]["source"] = "%run -i my_softmax.py\n"
    at = nb["cells"].index(answers["attention"])
    nb["cells"].insert(at, {"cell_type": "code", "id": "own", "metadata": {}, "outputs": [], "execution_count": None,
                            "source": "%run helpers.py\nprint(scale_of(4))\n"})
    answers["attention"]["source"] = _source(answers["attention"]).replace("math.sqrt(", "scale_of(")
    assert "scale_of(" in answers["attention"]["source"]
    (folder / NOTEBOOK).write_text(json.dumps(nb))
    cells = grade_submission(folder).cells
    for grade_id in ("check_softmax", "hidden_softmax", "check_attention", "hidden_attention"):
        assert cells[grade_id].message == "passed", cells[grade_id].message
