"""`GetGradesAtOnce`: nbgrader's GetGrades for a feedback page, a notebook's grades and comments in two queries.

nbgrader's GetGrades asks the gradebook once for each graded cell and once
for each answer cell (find_grade, find_comment: five joins each), twice for
a task cell: about 25 queries a notebook. Here, on the first cell that asks,
the notebook's grade rows and its comment rows are read in one query each
(save_scores.py `notebook_rows`, with the very columns find_grade and
find_comment read: Grade.score, Grade.max_score, Comment.comment); the
notebook's score and maximum score in one query, its late penalty as
GetGrades reads it. The page
gets the same values; a cell with no row fails it with nbgrader's
MissingEntry, as there.
"""

from __future__ import annotations

from nbgrader.api import Comment, Grade, Gradebook
from nbgrader.preprocessors import GetGrades, NbGraderPreprocessor

from kit.nbgrader_glue.save_scores import COMMENTED_TYPES, GRADED_TYPES, cell_row, notebook_rows


class GetGradesAtOnce(GetGrades):
    """GetGrades, each notebook's grade and comment rows read in one query each."""

    def preprocess(self, nb, resources):
        """GetGrades.preprocess (nbgrader 0.9.6), the notebook's score and maximum score read in one query (nbgrader
        reads each when it is first used: two)."""
        self._rows = None  # (grades, comments, names) of this notebook, read by the first cell that asks
        info = resources["nbgrader"]
        self.notebook_id, self.assignment_id = info["notebook"], info["assignment"]
        self.student_id, self.db_url = info["student"], info["db_url"]
        self.gradebook = Gradebook(self.db_url)
        with self.gradebook:
            nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)  # each cell, as GetGrades
            notebook = self.gradebook.find_submission_notebook(self.notebook_id, self.assignment_id,
                                                               self.student_id)
            self.gradebook.db.refresh(notebook, ["score", "max_score"])
            late_penalty = notebook.late_submission_penalty
            if late_penalty is None:
                late_penalty = 0
            else:
                self.log.warning("Late submission penalty: {}".format(late_penalty))
            resources["nbgrader"]["score"] = notebook.score - late_penalty
            resources["nbgrader"]["max_score"] = notebook.max_score
            resources["nbgrader"]["late_penalty"] = late_penalty
        return nb, resources

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
