"""Grades where the course keeps them: `nbgrader export` as nbgrader's CSV, and as the gradebook-import
CSV of Canvas and of Moodle.

    nbgrader export                       # grades.csv, nbgrader's columns (kit.nbgrader_glue.export.CsvExport)
    nbgrader export --exporter=kit.nbgrader_glue.export.CanvasExport --to canvas.csv
    nbgrader export --exporter=kit.nbgrader_glue.export.MoodleExport --to moodle.csv

Both files hold one row per student of the gradebook (by id) and ONE assignment column:
the score after the late penalty, as nbgrader's own CSV computes it
(max(0, score - penalty); 0 for a student who submitted nothing), written as a
plain decimal with a point and at most two decimals, which both importers read.
The gradebook must hold one assignment, or `--assignment` names one.

`CsvExport` writes nbgrader's own columns, one row per assignment and student,
with every score rounded to a millionth of a point: a late penalty summed over
nine notebooks is 30.9, not the 30.900000000000002 or 30.9 that SQLite's and
PostgreSQL's summation orders give.

Canvas (Grades ▸ Import; rules as Canvas's GradebookImporter reads them): the
header is ``Student, ID, SIS User ID, SIS Login ID, Section`` then the
assignment as ``Name (id)`` (`CanvasExport.assignment_id`, course.toml's
``[export] canvas_assignment_id``; without an id, Canvas matches the column by
the assignment's title or creates the assignment); a ``Points Possible`` row
follows the header. Students are matched by SIS Login ID (nbgrader's student
id; `CanvasExport.student_id_column` moves it to SIS User ID), the name
(``Last, First``) being Canvas's fallback.

Moodle (Grades ▸ Import ▸ CSV file): a header row, then one row per student.
On import, map ``Username`` to *username* (or ``Email address`` to *useremail*
when every student has one) and the assignment's column to its grade item.
Moodle aborts the whole import on a row whose identifier is empty, so every row
has a username; it refuses grades above 100 unless the site allows more.
"""

from __future__ import annotations

import csv
import io
import shlex

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Enum, Unicode

from autograder.whole_file import write_bytes_whole
from kit.nbgrader_glue.whole_or_absent import students_who_handed_in, unfinished_students


def final_score(gradebook: Gradebook, assignment: str, student: str) -> float:
    """The student's score after the late penalty; 0 when they submitted nothing."""
    try:
        submission = gradebook.find_submission(assignment, student)
    except MissingEntry:
        return 0.0
    return max(0.0, submission.score - (submission.late_submission_penalty or 0.0))


def write_csv(destination: str, rows: list[list[str]]) -> None:
    """The rows as a CSV file, written whole (a killed export or a full disk leaves the last file, not part of a
    new one to upload), each cell `inert`."""
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([[inert(cell) for cell in row] for row in rows])
    try:
        write_bytes_whole(destination, text.getvalue().encode("utf-8"), mode=0o666)  # as open() makes it: the umask's
    except OSError as e:  # a folder that does not exist, a full disk: one line, not a traceback
        raise SystemExit(f"nbgrader export: the grades were not written: {destination}: {e.strerror}"
                         + (" (its folder must exist)" if isinstance(e, FileNotFoundError) else "")) from None


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


def inert(cell: str) -> str:
    """`cell` as a spreadsheet shows it as text, never runs it: a name or an id from a roster (which students may
    have written, as their display name in an LMS) that starts a formula (=HYPERLINK(...), @SUM(...)) behind a
    quote, as OWASP advises against CSV injection; a number as it is."""
    if not cell.startswith(FORMULA_STARTS):
        return cell
    try:
        float(cell)
    except ValueError:
        return "'" + cell
    return cell


def decimal(points: float) -> str:
    """A plain decimal, point-separated, at most two decimals: 62.3, 75, 0."""
    return f"{points:.2f}".rstrip("0").rstrip(".")


def points(value: float) -> str:
    """A score as nbgrader's CSV writes one (103.0, 72.1), rounded to a millionth of a point."""
    return repr(round(float(value), 6))


class WarnsOfUnfinished(ExportPlugin):
    """An export that says which students an autograde left part-way (whole_or_absent.py: their rows hold
    only the grades recorded so far) and which handed in work no autograde has graded (their rows hold 0)."""

    def warn_of_unfinished(self, gradebook: Gradebook, assignments) -> None:
        coursedir = getattr(self.parent, "coursedir", None)
        if coursedir is None:
            return
        again = f"run {', '.join(f'`nbgrader autograde {shlex.quote(a)}`' for a in assignments)}, then export again"
        students = unfinished_students(coursedir, assignments)
        if students:
            self.log.warning("The autograde of %s stopped part-way: their rows hold only the grades recorded so "
                             "far; %s", ", ".join(students), again)
        ungraded = sorted(f"{student} ({assignment})" for assignment in assignments
                          for student in students_who_handed_in(coursedir, assignment) - graded(gradebook, assignment))
        if ungraded:
            self.log.warning("Handed in and never graded: %s: this file gives them 0, or no row if they are not on "
                             "the roster; %s (its log says why it leaves a student out)", ", ".join(ungraded), again)


def graded(gradebook: Gradebook, assignment: str) -> set[str]:
    """The students with a submission of `assignment` in the gradebook."""
    try:
        return {submission.student.id for submission in gradebook.find_assignment(assignment).submissions}
    except MissingEntry:
        return set()


class CsvExport(WarnsOfUnfinished):
    """nbgrader's CSV export, its columns and rows, with scores free of the database's rounding noise."""

    columns = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
               "raw_score", "late_submission_penalty", "score", "max_score"]

    def row(self, gradebook: Gradebook, assignment, student) -> list[str]:
        try:
            submission = gradebook.find_submission(assignment.name, student.id)
        except MissingEntry:
            timestamp, raw, penalty = "", 0.0, 0.0
        else:
            timestamp, raw, penalty = submission.timestamp, submission.score, submission.late_submission_penalty
        scores = [points(raw), points(penalty), points(max(0.0, raw - penalty)), points(assignment.max_score)]
        return [assignment.name, assignment.duedate, timestamp, student.id, student.last_name,
                student.first_name, student.email, *scores]

    def export(self, gradebook: Gradebook) -> None:
        wanted_assignments, wanted_students = {str(a) for a in self.assignment}, {str(s) for s in self.student}
        destination = self.to or "grades.csv"
        rows = [self.columns]
        for assignment in gradebook.assignments:
            if wanted_assignments and assignment.name not in wanted_assignments:
                continue
            rows += [self.row(gradebook, assignment, student) for student in gradebook.students
                     if not wanted_students or student.id in wanted_students]
        write_csv(destination, [["" if v is None else str(v) for v in row] for row in rows])
        self.log.info("Exported %d rows to %s", len(rows) - 1, destination)
        self.warn_of_unfinished(gradebook, sorted({row[0] for row in rows[1:]}))


class LmsExport(WarnsOfUnfinished):
    """One row per student, one column: the assignment's score after the late penalty."""

    default_file = "grades.csv"

    def table(self, assignment, students, scores: dict[str, str]) -> list[list[str]]:
        """Rows of the file, header first; `scores` is student id → the formatted score."""
        raise NotImplementedError

    def _assignment(self, gradebook: Gradebook):
        names = [str(a) for a in self.assignment] or [a.name for a in gradebook.assignments]
        if len(names) != 1:
            raise ValueError(f"{type(self).__name__} writes one assignment column: name one with --assignment "
                             f"(the gradebook holds {sorted(a.name for a in gradebook.assignments)})")
        return gradebook.find_assignment(names[0])

    def export(self, gradebook: Gradebook) -> None:
        assignment = self._assignment(gradebook)
        wanted = {str(s) for s in self.student}
        students = sorted((s for s in gradebook.students if not wanted or s.id in wanted), key=lambda s: s.id)
        scores = {s.id: decimal(final_score(gradebook, assignment.name, s.id)) for s in students}
        destination = self.to or self.default_file
        write_csv(destination, self.table(assignment, students, scores))
        self.log.info("Exported %s for %d students to %s", assignment.name, len(students), destination)
        self.warn_of_unfinished(gradebook, [assignment.name])


class CanvasExport(LmsExport):
    """Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then "Name (id)"."""

    default_file = "canvas.csv"
    assignment_id = Unicode("", help="The assignment's id in Canvas (the number in its address, "
                                     ".../assignments/<id>). Empty: Canvas matches the column by the "
                                     "assignment's title, or creates a new assignment.").tag(config=True)
    student_id_column = Enum(["SIS Login ID", "SIS User ID"], default_value="SIS Login ID",
                             help="The Canvas column that holds nbgrader's student id.").tag(config=True)

    def table(self, assignment, students, scores):
        info = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
        column = f"{assignment.name} ({self.assignment_id})" if self.assignment_id else assignment.name
        rows = [info + [column], ["Points Possible", "", "", "", "", decimal(assignment.max_score)]]
        for s in students:
            name = ", ".join(filter(None, [s.last_name, s.first_name])) or s.id
            row = {"Student": name, "ID": "", "SIS User ID": "", "SIS Login ID": "", "Section": ""}
            row[self.student_id_column] = s.id
            rows.append([row[key] for key in info] + [scores[s.id]])
        return rows


class MoodleExport(LmsExport):
    """Moodle's CSV grade import: identifier columns, then the assignment's grade column."""

    default_file = "moodle.csv"

    def table(self, assignment, students, scores):
        rows = [["Username", "Email address", "First name", "Last name", assignment.name]]
        rows += [[s.id, s.email or "", s.first_name or "", s.last_name or "", scores[s.id]] for s in students]
        return rows
