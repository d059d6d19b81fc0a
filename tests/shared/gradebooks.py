"""Reading a whole gradebook, on SQLite or PostgreSQL, to compare two of them; counting the statements sent;
making nbgrader cells as a release holds them."""

from __future__ import annotations

from contextlib import contextmanager

from nbgrader import utils
from nbgrader.api import Gradebook
from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.engine import Engine

from kit.course import COURSE_ID


def dump(url: str) -> list:
    """Every row of every table (row ids included): the same dump means the same gradebook."""
    engine = create_engine(url)
    try:
        with engine.connect() as con:
            meta = MetaData()
            meta.reflect(con)
            return [(name, sorted(map(repr, con.execute(meta.tables[name].select())))) for name in sorted(meta.tables)]
    finally:
        engine.dispose()


def summed(total: float | None) -> float | None:
    """A sum the database adds up in an order of its own: SQLite and PostgreSQL agree to
    the last few bits only (29.7 against 29.700000000000003)."""
    return None if total is None else round(total, 9)


def by_name(url: str) -> dict:
    """What graders and students see of a gradebook, keyed by names rather than row ids
    (which differ between two gradebooks filled by the same commands)."""
    with Gradebook(url, COURSE_ID) as gb:
        seen = {"students": sorted((s.id, s.first_name, s.last_name, s.email) for s in gb.students)}
        for assignment in gb.assignments:
            seen[assignment.name] = (str(assignment.duedate), assignment.max_score)
            for submission in assignment.submissions:
                student = submission.student.id
                seen[student] = (str(submission.timestamp), summed(submission.score),
                                 summed(submission.late_submission_penalty))
                for nb in submission.notebooks:
                    for g in nb.grades:
                        seen[student, nb.name, g.name] = (g.auto_score, g.manual_score, g.extra_credit, g.max_score,
                                                          g.needs_manual_grade)
                    for c in nb.comments:
                        seen[student, nb.name, c.name, "comment"] = (c.auto_comment, c.manual_comment)
        return seen


@contextmanager
def statements_counted():
    """[statements sent to any database while the block runs]."""
    count = [0]

    def counted(*args, **kwargs):
        count[0] += 1
    event.listen(Engine, "before_cursor_execute", counted)
    try:
        yield count
    finally:
        event.remove(Engine, "before_cursor_execute", counted)


def released_cell(make, grade_id: str, source: str, points: float = 0, **flags):
    """A cell `make` (nbformat's new_code_cell or new_markdown_cell) with nbgrader's metadata and checksum as
    released (an answer typed in changes the checksum); flags: grade, solution, task, locked."""
    meta = {"grade": False, "solution": False, "task": False, "locked": False, "schema_version": 3,
            "grade_id": grade_id, **flags}
    if meta["grade"] or meta["task"]:
        meta["points"] = points
    cell = make(source, metadata={"nbgrader": meta})
    cell.metadata.nbgrader["checksum"] = utils.compute_checksum(cell)
    return cell

