"""`GetGradesAtOnce`: nbgrader's GetGrades for a feedback page, a student's grades and comments in three queries.

nbgrader's GetGrades opens the gradebook for each notebook and asks it once for
each graded cell and once for each answer cell (find_grade, find_comment: five
joins each), twice for a task cell, then for the notebook's score and maximum
score: about 25 queries a notebook. Here a notebook's grade rows, its comment
rows and its score, maximum score and late penalty are read in one query each
(save_scores.py `rows_by_notebook`, with the very columns find_grade and
find_comment read: Grade.score, Grade.max_score, Comment.comment). While
`one_read_per_student()` is open (one student's pages, feedback.py;
per_student.py), the first page reads those of all the student's notebooks
and the others read none: a student's nine pages cost three queries. The page gets the same values; a cell
or notebook with no row fails it with nbgrader's MissingEntry, as there.
"""

from __future__ import annotations

from typing import NamedTuple

from nbgrader.api import Comment, Grade, Gradebook, MissingEntry, Notebook, SubmittedNotebook
from nbgrader.preprocessors import GetGrades, NbGraderPreprocessor
from sqlalchemy import Row

from kit.nbgrader_glue.per_student import per_student
from kit.nbgrader_glue.save_scores import COMMENTED_TYPES, GRADED_TYPES, cell_row, of_submission, rows_by_notebook


class StudentRows(NamedTuple):
    """A student's rows for their feedback pages, each by notebook name, then by cell name."""
    grades: dict[str, dict[str, Row]]
    comments: dict[str, dict[str, Row]]
    notebooks: dict[str, Row]  # notebook name → (score, max_score, late_submission_penalty)


def student_rows(info: dict) -> StudentRows:
    """The student's rows of the notebook `info` names (resources["nbgrader"]), or of every notebook of theirs,
    read by the first page that asks while `one_read_per_student()` is open (per_student.py)."""
    def read(which: str | None) -> StudentRows:
        with Gradebook(info["db_url"]) as gradebook:  # as GetGrades opens it
            return StudentRows(
                rows_by_notebook(gradebook, Grade, GRADED_TYPES, info, Grade.score, Grade.max_score, notebook=which),
                rows_by_notebook(gradebook, Comment, COMMENTED_TYPES, info, Comment.comment, notebook=which),
                _notebook_scores(gradebook, info, which))

    return per_student("feedback rows", info, read)


def _notebook_scores(gradebook: Gradebook, info: dict, notebook: str | None) -> dict[str, Row]:
    """Notebook name → (score, max_score, late_submission_penalty) of the student's submitted notebooks, or of
    `notebook` alone."""
    query = gradebook.db.query(Notebook.name, SubmittedNotebook.score, SubmittedNotebook.max_score,
                               SubmittedNotebook.late_submission_penalty)
    return {row.name: row for row in of_submission(query, info, notebook).all()}


class GetGradesAtOnce(GetGrades):
    """GetGrades, a student's grade and comment rows and notebook scores read in one query each."""

    def preprocess(self, nb, resources):
        """GetGrades.preprocess (nbgrader 0.9.6): each cell's score, points and comment, then the notebook's score,
        maximum score and late penalty, from `student_rows`."""
        info = self._info = resources["nbgrader"]
        self.notebook_id, self.assignment_id = info["notebook"], info["assignment"]
        self.student_id, self.db_url = info["student"], info["db_url"]
        rows = student_rows(info)
        self._grades = rows.grades.get(self.notebook_id, {})
        self._comments = rows.comments.get(self.notebook_id, {})
        nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)  # each cell, as GetGrades
        notebook = rows.notebooks.get(self.notebook_id)
        if notebook is None:  # nbgrader's own message (find_submission_notebook)
            raise MissingEntry(f"No such submitted notebook: {self.assignment_id}/{self.notebook_id} for "
                               f"{self.student_id}")
        late_penalty = notebook.late_submission_penalty
        if late_penalty is None:
            late_penalty = 0
        else:
            self.log.warning("Late submission penalty: {}".format(late_penalty))
        resources["nbgrader"]["score"] = notebook.score - late_penalty
        resources["nbgrader"]["max_score"] = notebook.max_score
        resources["nbgrader"]["late_penalty"] = late_penalty
        return nb, resources

    def _get_comment(self, cell, resources) -> None:
        cell.metadata.nbgrader["comment"] = cell_row(self._comments, cell, "comment", self._info).comment

    def _get_score(self, cell, resources) -> None:
        grade = cell_row(self._grades, cell, "grade", self._info)
        cell.metadata.nbgrader["score"] = grade.score
        cell.metadata.nbgrader["points"] = grade.max_score
