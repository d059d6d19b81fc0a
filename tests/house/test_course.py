"""The course's facts come from course.toml, through kit/course.py. Where is the gradebook? course.toml says,
KIT_DB_URL overrides it, SQLite in the course folder otherwise."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from kit.course import ASSIGNMENT, COURSE_ID, DB_URL_VARIABLE, db_url, policy
from kit.course import course as kit_course
from kit.notebooks import ROOT

SERVER = "postgresql+psycopg://grader@db.example.edu/attention"


@pytest.fixture
def course(tmp_path):
    shutil.copy(ROOT / "course.toml", tmp_path / "course.toml")
    return tmp_path


def set_url(course, url: str) -> None:
    text = (course / "course.toml").read_text()
    assert '\nurl = ""\n' in text
    (course / "course.toml").write_text(text.replace('\nurl = ""\n', f'\nurl = "{url}"\n'))


def test_without_a_url_the_gradebook_is_sqlite_in_the_course_folder(course):
    assert db_url(course) == f"sqlite:///{course / 'gradebook.db'}"


def test_course_toml_names_a_database_server(course):
    set_url(course, SERVER)
    assert db_url(course) == SERVER


def test_the_environment_variable_overrides_course_toml(course, monkeypatch):
    set_url(course, "sqlite:///elsewhere.db")
    monkeypatch.setenv(DB_URL_VARIABLE, SERVER)
    assert db_url(course) == SERVER


def test_a_relative_sqlite_path_is_in_the_course_folder_wherever_a_command_runs(course, monkeypatch):
    set_url(course, "sqlite:///grades/gradebook.db")
    monkeypatch.chdir("/")
    assert db_url(course) == f"sqlite:///{course / 'grades' / 'gradebook.db'}"


def test_the_course_facts_are_course_tomls(course):
    text = (course / "course.toml").read_text()
    (course / "course.toml").write_text(text.replace('id = "attention-kit"', 'id = "another-course"')
                                        .replace("per_hour = 0.01", "per_hour = 0.02"))
    facts = kit_course(course)
    assert (facts.assignment, facts.course_id, facts.late_per_hour) == ("attention", "another-course", 0.02)
    assert facts.duedate == policy(course)["assignment"]["duedate"]


def test_the_makefile_reads_the_names_from_the_course_module():
    for fact, value in (("assignment", ASSIGNMENT), ("course_id", COURSE_ID)):
        printed = subprocess.run([sys.executable, "-m", "kit.course", fact], cwd=ROOT, capture_output=True, text=True)
        assert printed.stdout == f"{value}\n", printed.stderr
    assert (ASSIGNMENT, COURSE_ID) == ("attention", "attention-kit")
