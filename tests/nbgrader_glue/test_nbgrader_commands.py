"""Do nbgrader's own commands, run as README shows them, do what `make demo` does? (issue 21, part 2)

An unreadable notebook costs its own points only, the release records the due date the late penalty
needs, and a command works from .venv/bin/ with no environment activated (nbgrader starts `alembic`).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

from autograder.grade import REPORT_FILE
from autograder.handed_in import set_aside
from kit.course import ASSIGNMENT, COURSE_ID, course, db_url
from kit.release import register_in_gradebook
from tests.shared.course_copy import EXAMPLE, copy_course, run_nbgrader

NBGRADER = Path(sys.executable).parent / "nbgrader"
NOT_ACTIVATED = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}  # this environment's tools nowhere on PATH


def test_nbgrader_autograde_sets_an_unreadable_notebook_aside_and_grades_the_rest(tmp_path, copy_released):
    """gus's notebook 03 is not valid JSON, and deep's is JSON nested too deeply for Python to read: stock
    nbgrader would fail gus and delete his autograded folder, and deep's would stop the whole class."""
    course = copy_released(tmp_path / "course")
    for student in ("gus", "deep"):
        shutil.copytree(EXAMPLE / "gus" / ASSIGNMENT, course / "submitted" / student / ASSIGNMENT)
    (course / "submitted" / "deep" / ASSIGNMENT / "03_softmax_and_mix.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    run_nbgrader(course, "autograde", ASSIGNMENT, "--force")
    for student, why in (("gus", "not valid JSON"), ("deep", "nested too deeply")):
        submitted = course / "submitted" / student / ASSIGNMENT
        unreadable = [p.name for p in submitted.iterdir() if p.name.endswith(".unreadable")]
        assert unreadable == ["03_softmax_and_mix.ipynb.unreadable"]
        assert why in set_aside(submitted)["03_softmax_and_mix.ipynb"]  # what the class report says
        assert (course / "autograded" / student / ASSIGNMENT / REPORT_FILE).exists()
        with Gradebook(db_url(course), COURSE_ID) as gb:
            scores = {nb.name: nb.score for nb in gb.find_submission(ASSIGNMENT, student).notebooks}
        assert scores["03_softmax_and_mix"] == 0 and scores["01_worked_example"] > 0


def test_the_release_records_the_due_date_in_the_gradebook(tmp_path):
    course_root = copy_course(tmp_path / "course")
    register_in_gradebook(course_root)
    with Gradebook(db_url(course_root), COURSE_ID) as gb:
        assert gb.find_assignment(ASSIGNMENT).duedate == parse_utc(course(course_root).duedate)


def test_a_student_is_added_from_dot_venv_without_an_activated_environment_on_a_new_course(tmp_path):
    course = copy_course(tmp_path / "course")
    assert not (course / "gradebook.db").exists()
    added = subprocess.run([NBGRADER, "db", "student", "add", "zoe", "--first-name=Zoe"], cwd=course,
                           env=NOT_ACTIVATED, capture_output=True, text=True, timeout=300)
    assert added.returncode == 0, added.stderr[-2000:]
    with Gradebook(db_url(course), COURSE_ID) as gb:
        assert gb.find_student("zoe").first_name == "Zoe"
