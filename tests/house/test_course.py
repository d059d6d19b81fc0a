"""The course's facts come from course.toml, through kit/course.py. Where is the gradebook? course.toml says,
KIT_DB_URL overrides it, SQLite in the course folder otherwise."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from kit import nbgrader_cli
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


@pytest.mark.parametrize("line, replacement, said", [
    ("max_file_mib = 20", 'max_file_mib = "twenty"', "[exchange] max_file_mib = 'twenty': a number is expected"),
    ("unconfined = false", 'unconfined = "no"', "[grading] unconfined = 'no': true or false is expected"),
    ("per_hour = 0.01", "per_hour = true", "[late] per_hour = True: a number is expected"),
    ("[late]", "[late", "is not valid TOML: Expected ']' at the end of a table declaration (at line"),
    ("student_disk_mib = 64", "student_disk_mib = 0", "[grading] student_disk_mib = 0: a number above 0 is expected"),
    ("grader_cpu_seconds = 120", "grader_cpu_seconds = -1", "grader_cpu_seconds = -1: a number above 0 is expected"),
    ("grader_memory_mib = 512", "grader_memory_mib = nan", "grader_memory_mib = nan: a number above 0 is expected"),
    ("per_hour = 0.01", "per_hour = -0.01", "[late] per_hour = -0.01: a number of 0 or more is expected"),
    ("max_fraction = 1.0", "max_fraction = nan", "[late] max_fraction = nan: a fraction from 0 to 1 is expected"),
    ("workers = 0", "workers = -1", "[grading] workers = -1: a number of 0 or more is expected"),
    ('duedate = "2026-12-14T23:59:00+00:00"', 'duedate = "2026-12-14T23:59:00"',
     "[assignment] duedate = '2026-12-14T23:59:00': a time in ISO 8601 with its time zone"),
    ('duedate = "2026-12-14T23:59:00+00:00"', 'duedate = "tomorrow"', "a time in ISO 8601 with its time zone"),
    ('id = "attention-kit"', 'id = ""', "[course] id = '': a name, not empty and without /"),
    ('id = "attention-kit"', 'id = "../escape"', "[course] id = '../escape': a name, not empty and without /")])
def test_a_course_toml_value_of_the_wrong_kind_is_named_with_its_table_and_key(course, line, replacement, said):
    # Before: "twenty" * 1 MiB became a 6 MB string, then int() failed on it; "no" read as true (unconfined). A
    # budget of 0 failed every student's grading with exit code 0 (bubblewrap refuses a disk of 0 bytes); a negative
    # penalty added points (152.1 of 126), a fraction of nan took them all; -1 workers failed every student. A due
    # date without a zone was read in the service's local time, another form crashed it; an empty course id or one
    # with a / made the exchange's folders elsewhere.
    text = (course / "course.toml").read_text()
    assert f"\n{line}\n" in text
    (course / "course.toml").write_text(text.replace(f"\n{line}\n", f"\n{replacement}\n"))
    with pytest.raises(ValueError, match=re.escape(said)):
        kit_course(course)


@pytest.mark.parametrize("workers", ["-1", "abc", "2.5"])
def test_a_number_of_workers_in_the_environment_that_is_none_is_named(course, monkeypatch, workers):
    monkeypatch.setenv("KIT_GRADING_WORKERS", workers)
    with pytest.raises(ValueError, match=re.escape(f"KIT_GRADING_WORKERS={workers!r}: a whole number of 0 or more")):
        kit_course(course)


def test_nbgrader_stops_on_a_grading_path_it_does_not_know(tmp_path):
    # Any KIT_GRADING but the kit's chose nbgrader's stock path: a typo ran students' code unconfined in a kernel.
    for name in ("nbgrader_config.py", "course.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    ran = nbgrader_cli.run("autograde", ASSIGNMENT, cwd=tmp_path, capture_output=True, text=True,
                           env={"PYTHONPATH": str(ROOT), "KIT_GRADING": "out_of_process"})
    assert ran.returncode != 0 and ran.stderr.strip().endswith(
        "ValueError: KIT_GRADING='out_of_process' is neither 'out-of-process' (the kit's grading, the default) nor "
        "'in-kernel' (nbgrader's stock path, for comparison)")


def test_nbgrader_stops_on_a_course_toml_it_cannot_read_never_going_on_without_the_kit(tmp_path):
    # traitlets logs an error raised in nbgrader_config.py and goes on with nbgrader's defaults: its stock path
    # ran every student's code unconfined in a kernel, and the command ended with exit code 0.
    for name in ("nbgrader_config.py", "course.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    text = (tmp_path / "course.toml").read_text()
    (tmp_path / "course.toml").write_text(text.replace("\nunconfined = false\n", '\nunconfined = "no"\n'))
    ran = nbgrader_cli.run("autograde", ASSIGNMENT, cwd=tmp_path, capture_output=True, text=True,
                           env={"PYTHONPATH": str(ROOT)})
    assert ran.returncode != 0
    assert ran.stderr.strip().endswith("the kit could not be set up, so nbgrader stops here: CourseFileError: "
                                       "course.toml: [grading] unconfined = 'no': true or false is expected")
    assert "Exception while loading config file" not in ran.stderr and not (tmp_path / "autograded").exists()


@pytest.mark.parametrize("command", [["kit.report", "--root", "{course}"],
                                     ["kit.grading_service", "status", "--course", "{course}"]],
                         ids=["report", "service status"])
@pytest.mark.parametrize("fault", ["no course.toml", "a value of the wrong kind"])
def test_the_kits_own_commands_end_on_a_course_toml_fault_with_one_line(tmp_path, command, fault):
    if fault == "a value of the wrong kind":
        text = (ROOT / "course.toml").read_text()
        (tmp_path / "course.toml").write_text(text.replace("\non = false\n", '\non = "yes"\n'))
    ran = subprocess.run([sys.executable, "-m", *(part.format(course=tmp_path) for part in command)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    said = {"no course.toml": f"{tmp_path}/course.toml: No such file or directory (is {tmp_path} the course folder?)",
            "a value of the wrong kind": "course.toml: [service] on = 'yes': true or false is expected"}[fault]
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    assert ran.stderr.strip().endswith(said) and ran.stderr.startswith(f"python -m {command[0]}: ")


def test_the_late_penalty_command_takes_help_as_help_not_as_an_assignment():
    """It read --help as an assignment's name: nbgrader's MissingEntry traceback."""
    ran = subprocess.run([sys.executable, "-m", "kit.nbgrader_glue.late", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.startswith("usage: python -m kit.nbgrader_glue.late [-h] [assignment]")
