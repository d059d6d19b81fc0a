"""A demonstration cell that calls a student's function which raises (anything but a stub's
NotImplementedError) says in one line which function of theirs raised, who called it and where
to fix it, and the notebook goes on (workbook.demonstration)."""

from __future__ import annotations

import json
import shutil

import pytest

from kit.notebooks import ROOT
from tests.execute import errors_outside_graded_cells, execute

SOURCE = ROOT / "source" / "attention"
BROKEN_SOFTMAX = 'def softmax(S, axis=-1):\n    raise ValueError("a planted bug")\n'


def _with_broken_softmax(folder):
    shutil.copytree(SOURCE, folder, dirs_exist_ok=True)
    path = folder / "03_softmax_and_mix.ipynb"
    nb = json.loads(path.read_text())
    [cell] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax"]
    cell["source"] = BROKEN_SOFTMAX
    path.write_text(json.dumps(nb))


@pytest.mark.parametrize("notebook, who", [
    ("05_masks_and_cross_attention.ipynb", "your softmax, called by your attention, raised"),
    ("09_model_explorer.ipynb", "your softmax raised"),  # the model calls softmax itself first
])
def test_a_demonstration_names_the_students_function_that_raised_and_the_notebook_goes_on(notebook, who,
                                                                                           tmp_path):
    _with_broken_softmax(tmp_path)
    nb = execute(tmp_path / notebook, with_graders=True, timeout=300)
    assert errors_outside_graded_cells(nb) == []
    printed = [out.get("text", "") for cell in nb.cells for out in cell.get("outputs", [])]
    named = [text for text in printed if who in text]
    assert named, f"no demonstration said {who!r}"
    assert all("ValueError: a planted bug" in t and "Fix softmax in 03_softmax_and_mix.ipynb, save it" in t
               for t in named), named
