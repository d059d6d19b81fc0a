"""A class's results, from nbgrader's gradebook and the grader's per-student reports.

Scores, late penalties and which graded cells passed come from the gradebook
(nbgrader's API, any database URL nbgrader accepts). Why a cell failed comes
from the ``grading_report.json`` beside each student's autograded notebooks:
the kind of failure and the known mistake the answer matched. A report
without those fields (an older grader) still counts: the failure is then
"not recorded" and no mistake is named.

Written answers (nbgrader task cells, kit/written.py) are graded by hand: the
gradebook says which have a grader's score yet and which still wait for one.

Where the grading service graded hand-ins as they arrived (kit/grading_service/),
its journal says how each student's graded attempts went, exercise by exercise:
how many it took before an exercise passed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.coursedir import CourseDirectory

from autograder.grade import REPORT_FILE
from autograder.handed_in import MISSING, set_aside, under_their_names
from autograder.mistakes import MISTAKES
from autograder.source_assignment import GradeId, SourceAssignment
from kit.grading_service.journal import attempts, journal_path
from kit.hand_in.collect import read_refused
from kit.nbgrader_glue.whole_or_absent import is_unfinished, students_who_handed_in

UNRECORDED = "not recorded"      # a failed cell whose report says nothing of how it failed
NO_REPORT = "no grading report"  # nbgrader has scores but the grader wrote no report (it could not grade)


@dataclass
class Exercise:
    """One exercise across the class; every list holds student ids."""
    name: str
    section: int | None
    has_check: bool                  # a visible check cell (check-yourself answers have only hidden graders)
    students: int = 0                # students who submitted
    visible_passed: list[str] = field(default_factory=list)
    hidden_passed: list[str] = field(default_factory=list)
    mistakes: dict[str, list[str]] = field(default_factory=dict)  # named mistake → students who made it
    known_mistakes: dict[str, int] = field(default_factory=dict)  # the grader's mistakes of this exercise → section
    failures: dict[str, list[str]] = field(default_factory=dict)  # kind → students who failed, no mistake named
    attempts: dict[str, list[bool]] = field(default_factory=dict)  # graded on hand-in: student → each attempt passed?

    def share(self, students: list[str]) -> float:
        return len(students) / self.students if self.students else 0.0

    def passed_at(self) -> dict[str, int]:
        """Graded on hand-in: student → the graded attempt (1: the first) at which the exercise first passed."""
        return {student: tries.index(True) + 1 for student, tries in self.attempts.items() if True in tries}

    def not_passed_yet(self) -> dict[str, int]:
        """Graded on hand-in: student → their graded attempts so far, none of which passed the exercise."""
        return {student: len(tries) for student, tries in self.attempts.items() if True not in tries}


@dataclass
class Student:
    id: str
    score: float                  # after the late penalty
    max_score: float
    late_penalty: float
    seconds_late: float
    unreadable: dict[str, str] = field(default_factory=dict)  # notebook → why it could not be read
    renamed: dict[str, str] = field(default_factory=dict)     # notebook → handed in under which name, or why not graded
    tampering: list[str] = field(default_factory=list)        # read-only cells changed (restored before grading)
    graded: bool = True                                       # the grader wrote a report
    unfinished: bool = False                                  # an autograde began and did not end: scores so far


@dataclass
class WrittenQuestion:
    """One written question across the class, graded by hand."""
    name: str
    notebook: str
    points: float
    section: int | None = None
    graded: dict[str, float] = field(default_factory=dict)  # student → the points a grader gave
    ungraded: list[str] = field(default_factory=list)       # students whose answer no grader has scored yet

    def mean(self) -> float | None:
        """The mean of the points given so far, None before any."""
        return sum(self.graded.values()) / len(self.graded) if self.graded else None


@dataclass
class ClassResults:
    assignment: str
    exercises: list[Exercise]
    students: list[Student]       # those who submitted
    not_submitted: list[str]      # in the gradebook's roster, nothing handed in
    refused: list[dict] = field(default_factory=list)  # hand-ins the last collect refused (kit.hand_in.collect)
    written: list[WrittenQuestion] = field(default_factory=list)
    awaiting: list[str] = field(default_factory=list)  # handed in (a submitted folder), no grades in the gradebook yet

    def written_counts(self) -> tuple[int, int]:
        """(written answers graded, not yet graded), over every question and student."""
        return (sum(len(q.graded) for q in self.written), sum(len(q.ungraded) for q in self.written))


def read_report(path: Path) -> dict | None:
    """A grading report's JSON, or None if there is none or it cannot be read."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def _unreadable(submitted: Path, report: dict | None) -> dict[str, str]:
    """Notebook → why it could not be graded: set aside as unreadable before grading, or found so by the grader."""
    found = {nb: why for nb, why in (report or {}).get("problems", {}).items() if why != MISSING}
    return {**found, **set_aside(submitted)}


def collect(coursedir: CourseDirectory, assignment: str) -> ClassResults:
    source = SourceAssignment.of(Path(coursedir.format_path(coursedir.source_directory, ".", assignment)))
    sections = source.sections
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        try:
            entry = gb.find_assignment(assignment)
        except MissingEntry:
            raise SystemExit(f"the gradebook at {coursedir.db_url} has no assignment {assignment!r}") from None
        cells = [cell.name for notebook in entry.notebooks for cell in notebook.grade_cells]
        names = list(dict.fromkeys(GradeId.parse(c).exercise for c in cells))
        names.sort(key=lambda n: list(sections).index(n) if n in sections else len(sections))
        exercises = {n: Exercise(n, sections.get(n), f"check_{n}" in cells,
                                 known_mistakes={m.name: m.section for m in MISTAKES.get(n, ())}) for n in names}
        students, submitted = [], set()
        for sub in sorted(entry.submissions, key=lambda s: s.student.id):
            sid = sub.student.id
            submitted.add(sid)
            folder = Path(coursedir.format_path(coursedir.autograded_directory, sid, assignment))
            report = read_report(folder / REPORT_FILE)
            passed = {grade.name: grade.max_score > 0 and (grade.score or 0) >= grade.max_score
                      for notebook in sub.notebooks for grade in notebook.grades}
            for exercise in exercises.values():
                count_answer(exercise, sid, passed, report)
            submitted_folder = Path(coursedir.format_path(coursedir.submitted_directory, sid, assignment))
            penalty = float(sub.late_submission_penalty or 0)
            students.append(Student(
                sid, float(sub.score) - penalty, float(sub.max_score), penalty, float(sub.total_seconds_late),
                _unreadable(submitted_folder, report), under_their_names(submitted_folder, source, copy=False),
                list((report or {}).get("tampering", [])), report is not None, is_unfinished(folder)))
        roster = sorted(s.id for s in gb.students)
        written = written_questions(entry, sections)
    for name, students in attempts(journal_path(Path(coursedir.root), assignment)).items():
        if name in exercises:
            exercises[name].attempts = students
    awaiting = students_who_handed_in(coursedir, assignment) - submitted
    return ClassResults(assignment, list(exercises.values()), students,
                        [s for s in roster if s not in submitted and s not in awaiting],
                        read_refused(Path(coursedir.root), assignment), written, sorted(awaiting))


def written_questions(entry, sections: dict[str, int] | None = None) -> list[WrittenQuestion]:
    """Each written question of an nbgrader assignment (its task cells), with who has a grader's score for
    it and who does not yet."""
    questions = {cell.name: WrittenQuestion(cell.name, notebook.name, float(cell.max_score),
                                            (sections or {}).get(cell.name))
                 for notebook in entry.notebooks for cell in notebook.task_cells}
    for sub in sorted(entry.submissions, key=lambda s: s.student.id):
        for grade in (g for notebook in sub.notebooks for g in notebook.grades if g.name in questions):
            question = questions[grade.name]
            if grade.manual_score is None:
                question.ungraded.append(sub.student.id)
            else:
                question.graded[sub.student.id] = float(grade.manual_score)
    return list(questions.values())


def count_answer(exercise: Exercise, student: str, passed: dict[str, bool], report: dict | None) -> None:
    """Count one student's answer to `exercise`."""
    exercise.students += 1
    check, hidden = f"check_{exercise.name}", f"hidden_{exercise.name}"
    if passed.get(check):
        exercise.visible_passed.append(student)
    if passed.get(hidden):
        exercise.hidden_passed.append(student)
    failed = [c for c in (check, hidden) if c in passed and not passed[c]]
    if not failed:
        return
    verdicts = (report or {}).get("cells", {})
    named = [m for m in dict.fromkeys(verdicts.get(c, {}).get("mistake") for c in failed) if m]
    for mistake in named:
        exercise.mistakes.setdefault(mistake, []).append(student)
    if not named:
        # The hidden graders' verdict says most (they try more inputs); the visible one if they passed.
        cell = verdicts.get(failed[-1], {})
        kind = cell.get("kind", UNRECORDED) if report is not None else NO_REPORT
        exercise.failures.setdefault(kind, []).append(student)
