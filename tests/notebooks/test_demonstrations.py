"""A demonstration cell that calls a student's function which raises (anything but a stub's
NotImplementedError) says in one line which function of theirs raised, who called it and where
to fix it, and the notebook goes on (workbook.demonstration)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from kit.notebooks import ROOT
from tests.notebooks.execute import errors_outside_graded_cells, execute

SOURCE = ROOT / "source" / "attention"
BROKEN_SOFTMAX = 'def softmax(S, axis=-1):\n    raise ValueError("a planted bug")\n'
FLAT_MASK = "def causal_mask(n):\n    return np.zeros(n)\n"  # runs, but returns (n,), not (n, n)
# Keys that carry their token's position, 0.1 a place: a "flag" a layer could tell a copy from its original by.
POSITIONAL_KEYS = ("def project_qkv(X, W_q, W_k, W_v):\n    X = np.asarray(X, dtype=float)\n"
                   "    return X @ W_q, X @ W_k + 0.1 * np.arange(X.shape[-2])[:, None], X @ W_v\n")


def _with_answer(folder, notebook: str, grade_id: str, source: str):
    """The instructor's notebooks in `folder`, with `grade_id`'s answer cell of `notebook` replaced by `source`."""
    shutil.copytree(SOURCE, folder, dirs_exist_ok=True)
    path = folder / notebook
    nb = json.loads(path.read_text())
    [cell] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    cell["source"] = source
    path.write_text(json.dumps(nb))


def _printed(nb) -> list[str]:
    return [out.get("text", "") for cell in nb.cells for out in cell.get("outputs", [])]


@pytest.mark.parametrize("notebook, who", [
    ("05_masks_and_cross_attention.ipynb", "your softmax, called by your attention, raised"),
    ("09_model_explorer.ipynb", "your softmax raised"),  # the model calls softmax itself first
])
def test_a_demonstration_names_the_students_function_that_raised_and_the_notebook_goes_on(notebook, who,
                                                                                           tmp_path):
    _with_answer(tmp_path, "03_softmax_and_mix.ipynb", "softmax", BROKEN_SOFTMAX)
    nb = execute(tmp_path / notebook, with_graders=True, timeout=300)
    assert errors_outside_graded_cells(nb) == []
    named = [text for text in _printed(nb) if who in text]
    assert named, f"no demonstration said {who!r}"
    assert all("ValueError: a planted bug" in t and "Fix softmax in 03_softmax_and_mix.ipynb, save it" in t
               for t in named), named


def test_the_model_names_the_piece_whose_return_it_cannot_use_and_the_notebook_goes_on(tmp_path):
    _with_answer(tmp_path, "05_masks_and_cross_attention.ipynb", "causal_mask", FLAT_MASK)
    nb = execute(tmp_path / "09_model_explorer.ipynb", with_graders=True, timeout=300)
    assert errors_outside_graded_cells(nb) == []
    named = [text for text in _printed(nb) if "your causal_mask returned an array of shape (" in text]
    assert named, "no demonstration named causal_mask"
    assert all("where the model needs real numbers of shape" in t and "Run the check of causal_mask" in t
               and "softmax" not in t for t in named), named


def test_notebook_05s_trust_demonstration_measures_the_students_own_functions(tmp_path):
    """The copy on the page and the instruction it copies get one key and one weight because the student's
    project_qkv and attention read nothing but the vectors: measured through them, a project_qkv whose keys
    carry the token's position shows the two apart (a measurement that held by construction would not)."""
    _with_answer(tmp_path, "01_worked_example.ipynb", "project_qkv", POSITIONAL_KEYS)
    nb = execute(tmp_path / "05_masks_and_cross_attention.ipynb", with_graders=True, timeout=300)
    printed = "".join(_printed(nb))
    keys = re.search(r"the instruction's key and its copy's on the page: largest difference (\S+)", printed)
    weights = re.search(r"answer token 0 weighs the instruction and its copy on the page: (\S+) and (\S+)", printed)
    assert keys and weights, printed[-2000:]
    assert float(keys[1]) == pytest.approx(0.4)  # token 5 against token 1: 4 places apart
    assert float(weights[1]) != pytest.approx(float(weights[2]))
