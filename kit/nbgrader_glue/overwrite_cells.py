"""`OverwriteCellsAtOnce`: nbgrader's OverwriteCells reading a notebook's cells from the gradebook in two queries.

nbgrader's OverwriteCells puts each nbgrader cell's type, read-only flag,
points and (for read-only cells) source back as the gradebook holds them. It
asks the gradebook once per cell (`find_source_cell`), and again for every
graded cell (`find_graded_cell`): about 40 queries for one of the kit's
notebooks, each joined through the notebook and the assignment. This one reads
the notebook's source cells in one query and its graded cells (grade and task
cells) in two more, once per run and notebook while `one_read_per_run()` is
open (autograde.py; per_student.py: no student changes them), then runs
nbgrader's own steps on them unchanged: the same cells come out, with the
same warnings. configure.py puts it in OverwriteCells'
place among the kit's sanitizing steps.
"""

from __future__ import annotations

from nbgrader.api import Assignment, GradeCell, Gradebook, MissingEntry, Notebook, SourceCell, TaskCell
from nbgrader.preprocessors import NbGraderPreprocessor, OverwriteCells

from kit.nbgrader_glue.per_student import per_run


class _NotebookCells:
    """The gradebook as OverwriteCells asks it about one notebook, read ahead; anything else as the gradebook
    answers it."""

    def __init__(self, gradebook: Gradebook, notebook: str, assignment: str):
        self._gradebook = gradebook

        def by_name(model) -> dict:
            cells = {cell.name: cell for cell in gradebook.db.query(model)
                     .join(Notebook, Notebook.id == model.notebook_id)
                     .join(Assignment, Assignment.id == Notebook.assignment_id)
                     .filter(Notebook.name == notebook, Assignment.name == assignment)}
            for cell in cells.values():  # read-only copies, kept for the run's next notebooks (per_student.py)
                gradebook.db.expunge(cell)
            return cells

        def read() -> tuple[dict, dict]:  # graded cells: a grade cell first, as find_graded_cell looks
            return by_name(SourceCell), {**by_name(TaskCell), **by_name(GradeCell)}

        self._source, self._graded = per_run(("released cells", str(gradebook.engine.url), assignment, notebook),
                                             read)

    def find_source_cell(self, name: str, notebook: str, assignment: str) -> SourceCell:
        if name not in self._source:  # nbgrader's own message
            raise MissingEntry(f"No such source cell: {assignment}/{notebook}/{name}")
        return self._source[name]

    def find_graded_cell(self, name: str, notebook: str, assignment: str) -> GradeCell | TaskCell:
        if name not in self._graded:
            raise MissingEntry(f"No such grade cell: {assignment}/{notebook}/{name}")
        return self._graded[name]

    def __getattr__(self, name: str):
        return getattr(self._gradebook, name)


class OverwriteCellsAtOnce(OverwriteCells):
    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        self.notebook_id, self.assignment_id, self.db_url = info["notebook"], info["assignment"], info["db_url"]
        with Gradebook(self.db_url) as gradebook:
            self.gradebook = _NotebookCells(gradebook, self.notebook_id, self.assignment_id)
            nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)  # each cell, as OverwriteCells
            if self.add_missing_cells:
                nb, resources = self.add_missing_grade_cells(nb, resources)
                nb, resources = self.add_missing_task_cells(nb, resources)
        return nb, resources
