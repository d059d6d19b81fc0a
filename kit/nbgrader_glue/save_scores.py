"""`SaveScoresFromReport`: nbgrader's SaveAutoGrades on the kit's path, each check's score taken from the report.

In `nbgrader autograde` it takes SaveAutoGrades's place (configure.py). For
each notebook it writes the same grade and comment rows as SaveAutoGrades,
with two differences in how:

- a hidden or visible check (a code cell that is graded and is not a solution
  cell) scores what the student's report says it earned (the `CellGrade`'s
  `earned`, from the run in the notebook's resources, grading_run.py), not
  what nbgrader decodes from the ✓ or error output GradeOutOfProcess wrote
  for people to read (nbgrader.utils.determine_grade: all the points or
  none). A check with no grade in the report scores as that decoding scores
  its NotGraded error: 0;
- the notebook's grade rows are written in one statement (executemany), its
  comment rows likewise, and committed once, holding the writer's turn on
  SQLite (gradebook_turns.py): a notebook costs the same few queries whatever
  its number of cells. The rows' ids are read in one query each, for every
  notebook of the student at once while the student is autograded
  (per_student.py); whether a grade needs a grader's look is decided by the
  database from the row as it writes it. SaveAutoGrades reads,
  writes and commits each cell's rows one at a time. A cell with no row in the
  gradebook fails the notebook with nbgrader's MissingEntry, as there, but
  before anything of the notebook is written.

Everything else is SaveAutoGrades's: a graded answer cell (a written answer,
graded by hand) scores 0 when left as released and nothing otherwise; a
grade a grader set by hand (`manual_score`) is never overwritten, and it, or
a missing automatic score, marks the grade as needing a grader's look; an
answer cell left as released gets the comment "No response.", any other
answer or task cell no automatic comment; a task cell's grade is left alone.
"""

from __future__ import annotations

from nbgrader import utils
from nbgrader.api import (Assignment, BaseCell, Comment, Grade, Gradebook, MissingEntry, Notebook,
                          SubmittedAssignment, SubmittedNotebook)
from nbgrader.preprocessors import NbGraderPreprocessor
from sqlalchemy import Boolean, Row, bindparam, or_, update
from sqlalchemy.orm import aliased

from kit.nbgrader_glue.gradebook_turns import gradebook_writes
from kit.nbgrader_glue.grading_run import RUN
from kit.nbgrader_glue.per_student import per_student

# The cell types whose rows nbgrader's find_grade and find_comment look a name up among, in their order.
GRADED_TYPES = ("GradeCell", "TaskCell")
COMMENTED_TYPES = ("SolutionCell", "TaskCell")


def auto_score(cell, earned: dict[str, float], log=None) -> float | None:
    """The automatic score of grade cell `cell`: its check's `earned` points in the report, if it is a check the
    report grades; otherwise as nbgrader decodes the cell (determine_grade)."""
    grade_id = cell.metadata.nbgrader["grade_id"]
    if cell.cell_type == "code" and not utils.is_solution(cell) and grade_id in earned:
        return earned[grade_id]
    return utils.determine_grade(cell, log)[0]


def of_submission(query, info: dict, notebook: str | None = None):
    """`query` (one that reaches SubmittedNotebook) joined through the submitted notebooks' notebook and
    submission to their assignment, kept to the student's submission of the assignment (`info`'s), and to
    `notebook` alone if given."""
    query = (query.join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
             .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
             .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
             .filter(Assignment.name == info["assignment"], SubmittedAssignment.student_id == info["student"]))
    return query if notebook is None else query.filter(Notebook.name == notebook)


def rows_by_notebook(gradebook: Gradebook, model: type[Grade] | type[Comment], cell_types: tuple[str, ...],
                     info: dict, *columns, notebook: str | None = None) -> dict[str, dict[str, Row]]:
    """Notebook name → cell name → (row id, *columns) of the submitted notebook's `model` row (Grade or Comment)
    of the cell of that name among `cell_types`, the first of them where two share a name (as nbgrader's
    find_grade, find_comment); for every notebook of the student's submission of the assignment, or for
    `notebook` alone: one query."""
    cell = aliased(BaseCell)
    query = of_submission(gradebook.db.query(model.id, *columns, cell.name.label("cell_name"),
                                             cell.type.label("cell_type"), Notebook.name.label("notebook_name"))
                          .join(cell, cell.id == model.cell_id)
                          .join(SubmittedNotebook, SubmittedNotebook.id == model.notebook_id)
                          .filter(cell.type.in_(cell_types)), info, notebook)
    rows: dict[str, dict[str, Row]] = {}
    for row in sorted(query.all(), key=lambda row: cell_types.index(row.cell_type), reverse=True):
        rows.setdefault(row.notebook_name, {})[row.cell_name] = row  # the preferred type written last
    return rows


def cell_row(rows: dict, cell, what: str, info: dict):
    name = cell.metadata.nbgrader["grade_id"]
    if name not in rows:  # nbgrader's own message (find_grade, find_comment)
        raise MissingEntry(f"No such {what}: {info['assignment']}/{info['notebook']}/{name} for {info['student']}")
    return rows[name]


# A grade's new automatic score, and whether a grader must look at it: they gave it a score by hand, or it has
# none from the grader. The database decides from the row as it is when it writes it.
_GRADES = Grade.__table__
SCORED = (update(_GRADES).where(_GRADES.c.id == bindparam("row_id"))
          .values(auto_score=bindparam("score"),
                  needs_manual_grade=or_(_GRADES.c.manual_score.is_not(None), bindparam("unscored", type_=Boolean))))


class SaveScoresFromReport(NbGraderPreprocessor):
    """SaveAutoGrades's rows for a notebook, each check's score from the student's report, in one commit."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        report = resources[RUN].report(info["student"], info["assignment"])
        earned = {grade_id: grade.earned for grade_id, grade in report.cells.items()}
        with gradebook_writes(info["db_url"]), Gradebook(info["db_url"]) as gradebook:
            grades, comments = self._rows(gradebook, info)
            new_grades, new_comments = {}, {}  # row id → its new values (a cell twice in `nb`: the last)
            for cell in nb.cells:
                if utils.is_grade(cell):
                    grade = cell_row(grades, cell, "grade", info)
                    score = auto_score(cell, earned, self.log)
                    new_grades[grade.id] = {"row_id": grade.id, "score": score, "unscored": score is None}
                if utils.is_solution(cell) or utils.is_task(cell):
                    comment = cell_row(comments, cell, "comment", info)
                    unchanged = cell.metadata.nbgrader.get("checksum", None) == utils.compute_checksum(cell)
                    new_comments[comment.id] = {"id": comment.id, "auto_comment": "No response."
                                                if unchanged and not utils.is_task(cell) else None}
            # every row in one statement (executemany)
            if new_grades:
                gradebook.db.execute(SCORED, list(new_grades.values()))
            if new_comments:
                gradebook.db.execute(update(Comment), list(new_comments.values()))
            gradebook.db.commit()
        return nb, resources

    @staticmethod
    def _rows(gradebook: Gradebook, info: dict) -> tuple[dict[str, Row], dict[str, Row]]:
        """(grade rows, comment rows) of the notebook, by cell name: the ids of every notebook of the student's,
        read by the first notebook while `one_read_per_student()` is open (autograde.py; per_student.py)."""
        def read(which: str | None) -> tuple[dict, dict]:
            return (rows_by_notebook(gradebook, Grade, GRADED_TYPES, info, notebook=which),
                    rows_by_notebook(gradebook, Comment, COMMENTED_TYPES, info, notebook=which))

        grades, comments = per_student("row ids", info, read)
        return grades.get(info["notebook"], {}), comments.get(info["notebook"], {})
