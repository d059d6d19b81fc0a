"""A proportional late penalty (nbgrader's own plugin offers only none or zero).

A submission loses `per_hour` of its score for every started hour past the
deadline, up to `max_fraction`; both come from course.toml's [late] table
through nbgrader_config.py.

nbgrader sets the penalties as autograde runs, on the scores of that moment:
points a grader gives afterwards (the written answers, kit/written.py) are not
in them until autograde runs again. `reassign_late_penalties`, run after
grading by hand (`python -m kit.nbgrader_glue.late`; `make demo` runs it after its stand-in
teaching assistant), sets them again by the same rule on the scores as they are.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.utils import parse_utc
from traitlets import Float

from kit.course import ASSIGNMENT, COURSE_ID, course, db_url, said_in_one_line


def late_penalty(score: float, seconds_late: float, per_hour: float, max_fraction: float) -> float:
    """Points lost: per_hour × started hours late, as a fraction of `score`, capped."""
    if seconds_late <= 0 or score <= 0:
        return 0.0
    fraction = min(max_fraction, per_hour * math.ceil(seconds_late / 3600))
    return round(score * fraction, 6)


class ProportionalLatePenalty(LateSubmissionPlugin):
    per_hour = Float(0.01, help="Fraction of the score lost per started hour late.").tag(config=True)
    max_fraction = Float(1.0, help="The largest fraction of the score a late submission can lose.").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        return late_penalty(score, total_seconds_late, self.per_hour, self.max_fraction)


def reassign_late_penalties(url: str, course_id: str, assignment: str, per_hour: float, max_fraction: float) -> None:
    """Every late submission's penalty again, per notebook on its score now, as nbgrader's AssignLatePenalties
    does (a penalty never above the notebook's score).

    Each notebook's row is written again, one after another in the notebooks' order, even where its penalty
    is unchanged: the submission's penalty is a SQL sum of floats, and a database that moves rewritten rows to
    its end (PostgreSQL) would otherwise add them in another order than SQLite and differ in the last bit.
    """
    with Gradebook(url, course_id) as gb:
        for submission in gb.find_assignment(assignment).submissions:
            late = submission.total_seconds_late
            if late <= 0:
                continue
            notebooks = sorted(submission.notebooks, key=lambda notebook: notebook.name)
            penalties = [min(nb.score, late_penalty(nb.score, late, per_hour, max_fraction)) for nb in notebooks]
            for notebook in notebooks:
                notebook.late_submission_penalty = None
            gb.db.flush()
            for notebook, penalty in zip(notebooks, penalties):
                notebook.late_submission_penalty = penalty
                gb.db.flush()
        gb.db.commit()


def due_date_problem(root: Path, url: str, course_id: str, assignment: str) -> str | None:
    """Why late penalties would not be counted from course.toml's due date of `assignment`: the gradebook, which
    nbgrader counts them from, holds another (course.toml edited since `make release`) or none; None when they
    agree, or for an assignment course.toml does not name."""
    settings = course(root)
    if assignment != settings.assignment:
        return None
    with Gradebook(url, course_id) as gradebook:
        try:
            recorded = gradebook.find_assignment(assignment).duedate
        except MissingEntry:
            return None  # nbgrader says so itself
    if recorded == parse_utc(settings.duedate):
        return None
    held = f"holds {recorded:%Y-%m-%d %H:%M} UTC" if recorded else "holds none"
    return (f"course.toml's due date of {assignment} is {settings.duedate}, but the gradebook, which late penalties "
            f"are counted from, {held}: run `make release` (python -m kit.release) so that they agree, then "
            f"autograde again")


@said_in_one_line("python -m kit.nbgrader_glue.late")
def main(argv: list[str] | None = None) -> int:
    """`python -m kit.nbgrader_glue.late [assignment]`: the late penalties set again after grading by hand, by course.toml's
    policy, in the gradebook nbgrader's configuration names."""
    parser = argparse.ArgumentParser(prog="python -m kit.nbgrader_glue.late", description=main.__doc__.split("\n")[0])
    parser.add_argument("assignment", nargs="?", default=ASSIGNMENT, help=f"default: {ASSIGNMENT}")
    assignment = parser.parse_args(argv).assignment
    policy = course()
    try:
        reassign_late_penalties(db_url(), COURSE_ID, assignment, policy.late_per_hour, policy.late_max_fraction)
    except MissingEntry:
        raise SystemExit(f"python -m kit.nbgrader_glue.late: the gradebook has no assignment {assignment!r}") from None
    print("late penalties set again on the scores in the gradebook, graded by hand included")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
