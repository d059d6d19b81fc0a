"""Two graders at once: `nbgrader autograde` runs while a teaching assistant, in another process, records
manual grades and comments through nbgrader's Gradebook API (as the formgrader does). Nothing either of
them writes is lost: on PostgreSQL their writes interleave, on SQLite they take turns."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from autograder.grade import REPORT_FILE
from kit import nbgrader_cli
from kit.course import COURSE_ID, db_url
from tests.shared.course_copy import class_course
from kit.notebooks import ROOT
from tests.nbgrader_glue.databases import DATABASES, gradebook_environment
from tests.nbgrader_glue.teaching_assistant import comment_for

N_STUDENTS = 3


@pytest.mark.parametrize("database", DATABASES)
def test_an_autograde_run_and_a_grader_writing_by_hand_lose_nothing(database, request, tmp_path, monkeypatch,
                                                                   released_course):
    for name, value in gradebook_environment(request, database, "two_graders").items():
        monkeypatch.setenv(name, value)  # every nbgrader command below grades on this gradebook
    # A copy of the release holds it recorded in its SQLite gradebook; a new PostgreSQL database needs it made.
    students = class_course(tmp_path, N_STUDENTS, released_course if database == "sqlite" else None)
    url = db_url(tmp_path)
    assert url.startswith("postgresql" if database == "postgresql" else "sqlite")

    env = nbgrader_cli.environment()
    autograde = subprocess.Popen(nbgrader_cli.command("autograde", "attention"), cwd=tmp_path, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assistant = subprocess.Popen([sys.executable, "-m", "tests.nbgrader_glue.teaching_assistant", url, *students], cwd=ROOT,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    autograde_log = autograde.communicate(timeout=1200)[1]
    if autograde.returncode != 0:
        assistant.kill()  # it would wait for the failed student's submission until its patience ran out
    by_hand, assistant_log = assistant.communicate(timeout=1200)
    assert autograde.returncode == 0, autograde_log[autograde_log.find("ERROR"):][:3000]  # the first error
    assert assistant.returncode == 0, assistant_log[-3000:]
    written = json.loads(by_hand)

    with Gradebook(url, COURSE_ID) as gb:
        notebooks = gb.find_assignment("attention").notebooks
        cells = sum(len(nb.grade_cells) + len(nb.task_cells) for nb in notebooks)  # checks and written answers
        written_questions = {cell.name for nb in notebooks for cell in nb.task_cells}
        assert len(written) == cells * len(students)  # the assistant graded every cell of every student
        for student in students:
            graded = json.loads((tmp_path / "autograded" / student / "attention" / REPORT_FILE).read_text())["cells"]
            for nb in gb.find_submission("attention", student).notebooks:
                for grade in nb.grades:
                    assert grade.manual_score == written[f"{student}/{nb.name}/{grade.name}"]
                    autograded = None if grade.name in written_questions else graded[grade.name]["earned"]
                    assert grade.auto_score == autograded, (student, grade.name)
                assert all(c.manual_comment == comment_for(student) for c in nb.comments)
