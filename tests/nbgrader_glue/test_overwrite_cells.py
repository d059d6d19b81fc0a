"""Does autograde's OverwriteCellsAtOnce put a tampered notebook back exactly as nbgrader's OverwriteCells does, with
the same warnings, in as many queries for forty cells as for two, the released cells read once a run?"""

from __future__ import annotations

import copy
import logging
import shutil

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.api import Gradebook
from nbgrader.preprocessors import OverwriteCells, SaveCells

from kit.course import COURSE_ID
from kit.nbgrader_glue.overwrite_cells import OverwriteCellsAtOnce
from kit.nbgrader_glue.per_student import one_read_per_run
from tests.shared.gradebooks import released_cell, statements_counted

ASSIGNMENT, NOTEBOOK = "attention", "03_softmax"


def _released(checks: int):
    """An answer cell, a read-only explanation, a written answer, a task, and `checks` read-only checks."""
    cells = [released_cell(new_markdown_cell, "intro", "Read this first.", locked=True),
             released_cell(new_code_cell, "softmax", "raise NotImplementedError()", solution=True),
             released_cell(new_markdown_cell, "why_scale", "YOUR ANSWER HERE", points=2, grade=True, solution=True),
             released_cell(new_markdown_cell, "plot_task", "Plot the weights.", points=1, task=True)]
    cells += [released_cell(new_code_cell, f"check_softmax_{i}", f"assert softmax({i}) is not None", points=1,
                            grade=True, locked=True) for i in range(checks)]
    return new_notebook(cells=cells)


def _tampered(nb):
    """What a student can do to the read-only parts of `nb`."""
    nb = copy.deepcopy(nb)
    cells = {c.metadata.nbgrader["grade_id"]: c for c in nb.cells}
    cells["intro"].source = "Nothing to read."                      # a read-only cell retyped
    cells["check_softmax_0"].source = "pass"                         # a check emptied
    cells["check_softmax_1"].metadata.nbgrader["points"] = 50        # its points raised
    cells["check_softmax_1"].metadata.nbgrader["locked"] = False     # and unlocked
    cells["why_scale"].cell_type = "code"                            # a written answer turned into code
    cells["why_scale"].outputs, cells["why_scale"].execution_count = [], None
    cells["softmax"].source = "def softmax(S):\n    return S\n"      # the answer itself
    nb.cells.append(released_cell(new_code_cell, "mine", "print('a cell of my own')", grade=True, points=10))
    return nb


def _gradebook(empty, folder, nb) -> str:
    folder.mkdir()
    url = f"sqlite:///{shutil.copy(empty, folder)}"
    with Gradebook(url, COURSE_ID) as gb:
        gb.add_assignment(ASSIGNMENT)
    SaveCells().preprocess(copy.deepcopy(nb), {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT,
                                                            "db_url": url}})
    return url


def _overwritten(step, url: str, nb, caplog) -> tuple:
    """The notebook `step` gives back, and the warnings it logged."""
    caplog.clear()
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "db_url": url}}
    with caplog.at_level(logging.WARNING):
        with statements_counted() as count:
            out, _ = step().preprocess(copy.deepcopy(nb), resources)
    return out, [r.getMessage() for r in caplog.records], count[0]


@pytest.mark.parametrize("add_missing_cells", [False, True])
def test_a_tampered_notebook_comes_back_as_nbgraders_own_step_gives_it(empty_gradebook, tmp_path, caplog,
                                                                       add_missing_cells):
    released = _released(checks=3)
    url = _gradebook(empty_gradebook, tmp_path / "gradebook", released)
    tampered = _tampered(released)
    if add_missing_cells:  # a check and a task deleted (and no cell of the student's own: nbgrader's step fails on it)
        tampered.cells = [c for c in tampered.cells if c.metadata.nbgrader["grade_id"] not in
                          ("check_softmax_2", "plot_task", "mine")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(OverwriteCells, "add_missing_cells", add_missing_cells)
        ours, our_warnings, _ = _overwritten(OverwriteCellsAtOnce, url, tampered, caplog)
        theirs, their_warnings, _ = _overwritten(OverwriteCells, url, tampered, caplog)
    assert ours == theirs
    assert our_warnings == their_warnings and len(our_warnings) >= 4
    restored = {c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in ours.cells}
    assert restored["intro"].source == "Read this first." and restored["check_softmax_0"].source.startswith("assert")
    assert restored["check_softmax_1"].metadata.nbgrader["points"] == 1
    assert restored["why_scale"].cell_type == "markdown"
    assert restored["softmax"].source == "def softmax(S):\n    return S\n"  # answers are the student's


def test_a_notebook_takes_as_many_queries_for_forty_checks_as_for_two(empty_gradebook, tmp_path, caplog):
    counts = {}
    for checks in (2, 40):
        released = _released(checks)
        url = _gradebook(empty_gradebook, tmp_path / f"gradebook{checks}", released)
        counts[checks] = (_overwritten(OverwriteCellsAtOnce, url, _tampered(released), caplog)[2],
                          _overwritten(OverwriteCells, url, _tampered(released), caplog)[2])
    assert counts[40][0] == counts[2][0] < counts[2][1] < counts[40][1], counts


@pytest.mark.parametrize("add_missing_cells", [False, True])
def test_does_the_next_students_notebook_in_a_run_read_no_released_cell_and_come_back_the_same(
        empty_gradebook, tmp_path, caplog, add_missing_cells):
    released = _released(checks=3)
    url = _gradebook(empty_gradebook, tmp_path / "gradebook", released)
    tampered = _tampered(released)
    if add_missing_cells:  # a check deleted
        tampered.cells = [c for c in tampered.cells if c.metadata.nbgrader["grade_id"] not in ("check_softmax_2", "mine")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(OverwriteCells, "add_missing_cells", add_missing_cells)
        alone = _overwritten(OverwriteCellsAtOnce, url, tampered, caplog)
        with one_read_per_run():
            first = _overwritten(OverwriteCellsAtOnce, url, tampered, caplog)
            with Gradebook(url, COURSE_ID) as gb:  # a session that commits: the kept cells are not its own
                gb.add_student("someone")
            second = _overwritten(OverwriteCellsAtOnce, url, tampered, caplog)
    assert alone[:2] == first[:2] == second[:2]
    assert second[2] < first[2] == alone[2]  # statements: the second read none of the released cells
