"""`GetGradesAtOnce`: nbgrader's GetGrades for a feedback page, a notebook's grades and comments in two queries.

nbgrader's GetGrades asks the gradebook once for each graded cell and once
for each answer cell (find_grade, find_comment: five joins each), twice for
a task cell: about 25 queries a notebook. Here, on the first cell that asks,
the notebook's grade rows and its comment rows are read in one query each
(save_scores.py `notebook_rows`, with the very columns find_grade and
find_comment read: Grade.score, Grade.max_score, Comment.comment); the
notebook's score and late penalty are read as GetGrades reads them. The page
gets the same values; a cell with no row fails it with nbgrader's
MissingEntry, as there.
"""

from __future__ import annotations

from nbgrader.api import Comment, Grade
from nbgrader.preprocessors import GetGrades

from kit.nbgrader_glue.save_scores import COMMENTED_TYPES, GRADED_TYPES, cell_row, notebook_rows


class GetGradesAtOnce(GetGrades):
    """GetGrades, each notebook's grade and comment rows read in one query each."""

    def preprocess(self, nb, resources):
        self._rows = None  # (grades, comments, names) of this notebook, read by the first cell that asks
        return super().preprocess(nb, resources)

    def _notebook_rows(self) -> tuple[dict, dict, dict]:
        """(grade rows, comment rows, the notebook's names) of this notebook: two queries on the first call."""
        if self._rows is None:
            info = {"notebook": self.notebook_id, "assignment": self.assignment_id, "student": self.student_id}
            self._rows = (notebook_rows(self.gradebook, Grade, GRADED_TYPES, info, Grade.score, Grade.max_score),
                          notebook_rows(self.gradebook, Comment, COMMENTED_TYPES, info, Comment.comment), info)
        return self._rows

    def _get_comment(self, cell, resources) -> None:
        _, comments, info = self._notebook_rows()
        cell.metadata.nbgrader["comment"] = cell_row(comments, cell, "comment", info).comment

    def _get_score(self, cell, resources) -> None:
        grades, _, info = self._notebook_rows()
        grade = cell_row(grades, cell, "grade", info)
        cell.metadata.nbgrader["score"] = grade.score
        cell.metadata.nbgrader["points"] = grade.max_score
