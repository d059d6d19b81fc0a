"""`AssignLatePenaltiesAtOnce`: nbgrader's AssignLatePenalties, for a submission on time in one statement a notebook.

For each notebook nbgrader's step opens the gradebook, reads the student's
submission and the submitted notebook, resets the notebook's late penalty,
works out a new one if the submission is late (its `total_seconds_late`), and
commits. Most submissions are on time, and for them all it does is the
reset. Here the submission's seconds late and its notebooks' ids are read once
for all the student's notebooks (per_student.py); a notebook of a submission
on time gets its penalty reset in one statement, in the writer's turn on
SQLite; a late submission, or one the gradebook does not know, goes through
nbgrader's own step (AssignLatePenaltiesInTurn), its penalties, warnings and
errors as there.
"""

from __future__ import annotations

from typing import NamedTuple

from nbgrader.api import Gradebook, MissingEntry, Notebook, SubmittedNotebook
from sqlalchemy import bindparam, update

from kit.nbgrader_glue.gradebook_turns import AssignLatePenaltiesInTurn, gradebook_writes
from kit.nbgrader_glue.per_student import per_student
from kit.nbgrader_glue.save_scores import of_submission

_NOTEBOOKS = SubmittedNotebook.__table__
RESET = (update(_NOTEBOOKS).where(_NOTEBOOKS.c.id == bindparam("row_id"),
                                  _NOTEBOOKS.c.late_submission_penalty.is_not(None))
         .values(late_submission_penalty=None))


class Lateness(NamedTuple):
    seconds_late: float | None  # nbgrader's total_seconds_late of the submission; None: no such submission
    notebooks: dict[str, str]  # notebook name → the submitted notebook's row id


def lateness(gradebook: Gradebook, info: dict) -> Lateness:
    """The submission's lateness and the ids of its notebooks (of `info`'s notebook alone, outside a student's
    run). `info`: the notebook's resources["nbgrader"]."""
    def read(which: str | None) -> Lateness:
        try:
            seconds_late = gradebook.find_submission(info["assignment"], info["student"]).total_seconds_late
        except MissingEntry:
            return Lateness(None, {})
        query = of_submission(gradebook.db.query(Notebook.name, SubmittedNotebook.id), info, which)
        return Lateness(seconds_late, dict(query.all()))

    return per_student("lateness", info, read)


class AssignLatePenaltiesAtOnce(AssignLatePenaltiesInTurn):
    """AssignLatePenalties, a notebook of a submission on time reset in one statement (see the module)."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with gradebook_writes(info["db_url"]), Gradebook(info["db_url"]) as gradebook:
            found = lateness(gradebook, info)
            row_id = found.notebooks.get(info["notebook"])
            on_time = found.seconds_late is not None and found.seconds_late <= 0 and row_id is not None
            if on_time:
                self.init_plugin()  # as nbgrader makes it, late or not: a plugin that cannot be made fails all
                gradebook.db.execute(RESET, {"row_id": row_id})
                gradebook.db.commit()
        if not on_time:  # nbgrader's own step, which takes its turn
            return super().preprocess(nb, resources)
        return nb, resources
