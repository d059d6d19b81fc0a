"""nbgrader on the kit: `nbgrader autograde` (the kit's out-of-process path, and
nbgrader's stock in-kernel path) awards what the kit's grader predicts, and
feedback shows hidden verdicts without hidden code or reference values."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.grade import grade_submission
from kit import nbgrader_cli
from kit.notebooks import ROOT, course_points
from tests.shared.adversarial.build import fixtures
from tests.shared.corpus_submissions import CORPUS, make_submission

STUDENTS = {"ada": None, "bo": CORPUS / "mistakes" / "softmax__wrong_axis.py"}
# Graded on the kit's path only: students whose edited cell metadata nbgrader's stock path
# trusts (it scores them 13 of 75); the kit rebuilds the cells from source before nbgrader reads them.
METADATA_EDITS = ("edits_locked_metadata", "edits_answer_metadata")


def nbgrader(course: Path, *args: str, grading: str) -> str:
    """The command's standard error."""
    return nbgrader_cli.run(*args, "--log-level=ERROR", cwd=course, grading=grading, env={"HOME": str(course)},
                            check=True, capture_output=True, text=True).stderr


pytestmark = pytest.mark.xdist_group("nbgrader")  # its module fixture is built once, on one worker


@pytest.fixture(scope="module", params=["out-of-process", "in-kernel"])  # in-kernel: a unit of its own (conftest SPLIT)
def course(request, tmp_path_factory, copy_released):
    grading = request.param
    course = copy_released(tmp_path_factory.mktemp(grading))
    students = {**STUDENTS, **({name: None for name in METADATA_EDITS} if grading == "out-of-process" else {})}
    for student, corpus_file in students.items():
        folder = course / "submitted" / student / "attention"
        if student in METADATA_EDITS:
            fixtures()[student].build(folder)
        elif corpus_file:
            make_submission(corpus_file, folder)
        else:
            shutil.copytree(ROOT / "source" / "attention", folder)
        (folder / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")
    (course / "students.csv").write_text("id\n" + "\n".join(students) + "\n")
    nbgrader(course, "db", "student", "import", "students.csv", grading=grading)
    (course / "autograde.stderr").write_text(nbgrader(course, "autograde", "attention", grading=grading))
    nbgrader(course, "generate_feedback", "attention", "--student=bo", grading=grading)  # the pages read below
    return course


def test_only_the_stock_path_says_it_grades_unconfined(course):
    """KIT_GRADING=in-kernel is a choice made for comparison, not a fallback: it says so as it starts."""
    said = (course / "autograde.stderr").read_text()
    assert ("[kit] GRADING UNCONFINED (KIT_GRADING=in-kernel)" in said) == (course.name.startswith("in-kernel")), said


@pytest.mark.parametrize("student", STUDENTS)
def test_nbgrader_autograde_gives_the_scores_the_kit_predicts(course, student):
    predicted = grade_submission(course / "submitted" / student / "attention").cells
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        submission = gb.find_submission("attention", student)
        awarded = {g.name: g.score for nb in submission.notebooks for g in nb.grades if g.cell_type == "code"}
    assert awarded == {k: v.earned for k, v in predicted.items()}


@pytest.mark.parametrize("course", ["out-of-process"], indirect=True)
@pytest.mark.parametrize("student", METADATA_EDITS)
def test_nbgrader_autograde_on_the_kits_path_ignores_edited_cell_metadata(course, student):
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        submission = gb.find_submission("attention", student)
        # every autograded point; the written answers wait for a grader
        assert submission.code_score == submission.max_code_score == sum(course_points().values())
        assert gb.find_grade_cell("hidden_softmax", "03_softmax_and_mix", "attention").max_score == 3


def test_the_mistaken_student_loses_softmax_and_keeps_what_is_built_on_it(course):
    predicted = grade_submission(course / "submitted" / "bo" / "attention").cells
    lost = {k for k, v in predicted.items() if v.earned < v.possible}
    assert lost == {"check_softmax", "hidden_softmax"}
    assert "softmax over the wrong axis" in predicted["hidden_softmax"].message


def test_feedback_shows_hidden_verdicts_but_no_hidden_code(course):
    html = (course / "feedback" / "bo" / "attention" / "03_softmax_and_mix.html").read_text()
    assert "hidden_softmax" in html and "softmax over the wrong axis" in html
    for secret in ("hidden_check(", "autograder", "BEGIN HIDDEN TESTS", "most recent call last"):
        assert secret not in html


@pytest.mark.parametrize("student", STUDENTS)
def test_nbgrader_autograde_leaves_every_written_answer_to_a_grader(course, student):
    """On either path, a written question (a task cell) gets no autograded score and waits for a grader."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        written = {cell.name for nb in gb.find_assignment("attention").notebooks for cell in nb.task_cells}
        grades = [g for nb in gb.find_submission("attention", student).notebooks for g in nb.grades
                  if g.name in written]
        assert len(grades) == len(written) == 3
        assert all(g.auto_score is None and g.manual_score is None and g.needs_manual_grade for g in grades)
