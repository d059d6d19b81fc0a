"""A script that stands in for a teaching assistant: it grades the written answers.

`grade_written` reads each student's autograded notebooks (what the formgrader shows a
grader: the question with its rubric above the student's answer, kit/written.py), marks
each written answer by its rubric (`mark`) and writes the points and a comment into the
gradebook the way the formgrader's API does (`record_grade`, `record_comment`: nbgrader's
GradeHandler.put and CommentHandler.put), one commit each.

`mark` gives a rubric point when one of the phrases its "Look for" names is in the answer.
That is a stand-in, not grading: a person reads the answer. It makes `make demo`'s grades
repeatable, and its comments name rubric points by number only, so no rubric text reaches
the feedback.
"""

from __future__ import annotations

import json
from pathlib import Path

from nbgrader.api import Gradebook

from kit.written import RubricPoint, answered, rubric, written_cells


def record_grade(gb: Gradebook, grade, score: float | None) -> None:
    """Give `grade` a manual score, as the formgrader's PUT /formgrader/api/grade/<id> does."""
    grade.manual_score = score
    grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
    gb.db.commit()


def record_comment(gb: Gradebook, comment, text: str | None) -> None:
    """Give `comment` a grader's text, as the formgrader's PUT /formgrader/api/comment/<id> does."""
    comment.manual_comment = text
    gb.db.commit()


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def mark(points: list[RubricPoint], answer: str) -> tuple[float, str]:
    """(points earned, comment) for `answer` by the rubric `points`."""
    worth = sum(point.points for point in points)
    if not answered(answer):
        return 0.0, f"No answer written: 0 of {worth:g} points."
    text = _normal(answer)
    met = [i for i, point in enumerate(points, 1) if any(cue in text for cue in point.cues)]
    earned = sum(points[i - 1].points for i in met)
    missing = [i for i in range(1, len(points) + 1) if i not in met]
    said = f"{earned:g} of {worth:g} points. Rubric points met: {', '.join(map(str, met)) or 'none'}"
    return earned, said + (f"; missing: {', '.join(map(str, missing))}." if missing else ".")


def marks_of(notebook: Path) -> dict[str, tuple[float, str]]:
    """Written question → (points, comment) for every written answer of an autograded notebook."""
    if not notebook.exists():
        return {}
    return {cell.grade_id: mark(rubric(cell.question), cell.answer)
            for cell in written_cells(json.loads(notebook.read_text()))}


def grade_written(root: Path, url: str, course_id: str, assignment: str, students: list[str]) -> dict[str, float]:
    """Grade every written answer of each student's submission; returns {"student/notebook/question": points}.

    A notebook nbgrader could not grade (missing or unreadable) has no answer to read: 0 points, said so.
    """
    written: dict[str, float] = {}
    with Gradebook(url, course_id) as gb:
        for student in students:
            for notebook in gb.find_submission(assignment, student).notebooks:
                questions = {cell.name for cell in notebook.notebook.task_cells}
                marks = marks_of(root / "autograded" / student / assignment / f"{notebook.name}.ipynb")
                for grade in (g for g in notebook.grades if g.name in questions):
                    worth = grade.max_score
                    earned, comment = marks.get(grade.name, (0.0, f"No notebook to read: 0 of {worth:g} points."))
                    record_grade(gb, grade, earned)
                    record_comment(gb, next(c for c in notebook.comments if c.name == grade.name), comment)
                    written[f"{student}/{notebook.name}/{grade.name}"] = earned
    return written
