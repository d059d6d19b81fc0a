"""Written answers (kit/written.py), end to end: released without their rubric, answered by a student through
nbgrader's exchange, left to a grader by autograde, graded through the real formgrader's HTTP API (which shows
the grader the rubric above the answer), and shown in the feedback with the grader's points and comment, never
the rubric; the class report counts graded and ungraded answers. Also the pieces: the rubric, the restore
steps, the stand-in teaching assistant and the late penalty after grading by hand."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbgrader.api import Gradebook

from autograder.handed_in import ANSWER_STUB, answer_cell_id, restore_locked_cells, tampering
from examples.written_answers import FULL, PARTIAL
from kit.course import ASSIGNMENT, COURSE_ID, db_url
from kit.notebooks import ROOT, build_notebook
from kit.teaching_assistant import mark
from kit.written import as_text, as_written, rubric, written_cells
from tests.shared import formgrader
from tests.shared.course_copy import run_nbgrader

NOTEBOOK = "05_masks_and_cross_attention"
QUESTION = "written_one_pass"
STUDENT = "ann"
COMMENT = "Clear on the mask and the next token; say what goes wrong without the mask."
SOURCE = ROOT / "source" / ASSIGNMENT
RELEASE = ROOT / "assignments" / ASSIGNMENT


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _task_source(question: str = QUESTION) -> str:
    return next(_source(c) for c in _cells(SOURCE / f"{NOTEBOOK}.ipynb") if c["id"] == question)


def _rubric_phrases(question: str = QUESTION) -> list[str]:
    """A phrase of every rubric point, and the model answer's opening: none may reach a student."""
    text = _task_source(question)
    return [" ".join(p.text.split()[:8]) for p in rubric(text)] + ["Model answer", "BEGIN MARK SCHEME", "Look for:"]


def _flat(html: str) -> str:
    return re.sub(r"\s+", " ", html)


# ---------------------------------------------------------------- the pieces


def test_a_rubric_gives_the_question_its_points_and_each_point_its_cues():
    points = rubric(_task_source())
    assert [p.points for p in points] == [1, 1, 1]
    assert "next token" in points[0].cues and "copy" in points[2].cues
    assert all(p.text and "Look for" not in p.text for p in points)


def test_the_adapting_guides_written_question_builds_a_task_cell_worth_its_rubric_and_an_answer_cell(tmp_path):
    from tests.shared.guide import blocks

    (language, block), = blocks("Add a written question")
    script = tmp_path / "01_x.py"
    script.write_text(block)
    task, answer = build_notebook(script, {}).cells
    assert language == "python" and task.metadata.nbgrader["task"] and task.metadata.nbgrader["points"] == 2
    assert [p.cues for p in rubric(task.source)] == [("square root", "sum of squares"), ("direction", "angle")]
    assert answer.id == "written_token_lengths-answer" and answer.source == ANSWER_STUB


def test_a_written_question_without_a_rubric_is_refused(tmp_path):
    script = tmp_path / "01_x.py"
    script.write_text("# %% [markdown] written id=written_x\n# ### Written question 1.a: why?\n#\n# Explain.\n")
    with pytest.raises(ValueError, match="MARK SCHEME"):
        build_notebook(script, {})


def test_the_stand_in_assistant_gives_a_point_for_each_rubric_point_an_answer_meets():
    points = rubric(_task_source())
    assert mark(points, FULL[QUESTION]) == (3.0, "3 of 3 points. Rubric points met: 1, 2, 3.")
    assert mark(points, PARTIAL[QUESTION])[0] == 2.0
    assert mark(points, ANSWER_STUB) == (0.0, "No answer written: 0 of 3 points.")
    assert mark(points, "The weights sum to one.")[0] == 0.0


# What a student may type, weighted towards what markdown and HTML give meaning to.
MARKDOWN_AND_HTML = st.sampled_from(["<", ">", "`", "```", "````", "~~~", "\n", "\r", "\r\n", " ", "\t", "    ", "&", "&lt;",
                                     "<script>alert(1)</script>", "</code></pre>", "<!--", "-->", "<iframe>", "\x00",
                                     "[a](javascript:x)", "$x$", "*", "_", "\\", "\u2028", "<img src=x onerror=y>"])
ANY_ANSWER = st.lists(st.one_of(MARKDOWN_AND_HTML, st.text(max_size=6)), max_size=40).map("".join)


class _Rendered(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], ""
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text += data


@settings(max_examples=400, deadline=None)
@given(ANY_ANSWER)
def test_whatever_a_student_writes_renders_as_that_text_in_one_block_and_nothing_else(words):
    """With nbconvert's markdown renderer, the one nbgrader's formgrader and feedback use, which passes HTML through."""
    from nbconvert.exporters import HTMLExporter

    shown = as_text(words)
    rendered = _Rendered(HTMLExporter().markdown2html({}, shown))
    assert rendered.tags == [("pre", []), ("code", [])], rendered.tags
    lines = words.replace("\r\n", "\n").replace("\r", "\n")
    assert rendered.text.rstrip("\n") == lines.rstrip("\n")
    assert as_written(shown) == lines and as_text(shown) == shown  # its words back; shown twice, the same


def _answered(text: str, notebook: str = NOTEBOOK) -> dict:
    nb = json.loads((RELEASE / f"{notebook}.ipynb").read_text())
    for cell in nb["cells"]:
        if cell["id"] == answer_cell_id(QUESTION):
            cell["source"] = text
    return nb


def _restored_answer(student: dict) -> str:
    source = json.loads((SOURCE / f"{NOTEBOOK}.ipynb").read_text())
    restored = restore_locked_cells(student, source)
    return next(c.answer for c in written_cells(restored) if c.grade_id == QUESTION)


def test_the_students_written_answer_survives_the_restore_and_the_rubric_comes_back_above_it():
    student = _answered(FULL[QUESTION])
    source = json.loads((SOURCE / f"{NOTEBOOK}.ipynb").read_text())
    restored = restore_locked_cells(student, source)
    question = next(c for c in written_cells(restored) if c.grade_id == QUESTION)
    assert question.answer == FULL[QUESTION] and "BEGIN MARK SCHEME" in question.question
    assert tampering(student, source) == []  # the released question lacks its rubric: that is no change
    assert _restored_answer(json.loads((RELEASE / f"{NOTEBOOK}.ipynb").read_text())) == ANSWER_STUB


def test_an_answer_continued_in_a_new_cell_or_written_after_a_deleted_answer_cell_is_kept():
    student = _answered("First part.")
    at = next(i for i, c in enumerate(student["cells"]) if c["id"] == answer_cell_id(QUESTION))
    student["cells"].insert(at + 1, {"cell_type": "markdown", "id": "mine", "metadata": {}, "source": "Second part."})
    assert _restored_answer(student) == "First part.\n\nSecond part."
    del student["cells"][at]  # the answer cell deleted: the cell of their own after the question is the answer
    assert _restored_answer(student) == "Second part."


def test_an_edited_question_is_reported_and_restored():
    student = _answered(FULL[QUESTION])
    question = next(c for c in student["cells"] if c["id"] == QUESTION)
    question["source"] = "### Written question 5.a: say anything"
    source = json.loads((SOURCE / f"{NOTEBOOK}.ipynb").read_text())
    assert f"{QUESTION} edited" in tampering(student, source)
    restored = next(c for c in restore_locked_cells(student, source)["cells"] if c["id"] == QUESTION)
    assert _source(restored) == _task_source()


def test_a_late_penalty_is_set_again_on_the_points_a_grader_gave_after_autograde(tmp_path, monkeypatch):
    from kit.nbgrader_glue.late import late_penalty, reassign_late_penalties

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # nbgrader's alembic
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url, COURSE_ID) as gb:
        gb.add_assignment(ASSIGNMENT, duedate="2026-12-01 00:00:00 UTC")
        gb.add_notebook(NOTEBOOK, ASSIGNMENT)
        gb.add_grade_cell("check_a", NOTEBOOK, ASSIGNMENT, max_score=2, cell_type="code")
        gb.add_task_cell(QUESTION, NOTEBOOK, ASSIGNMENT, max_score=3, cell_type="markdown")
        for student, handed_in in (("late", "2026-12-01 10:30:00 UTC"), ("early", "2026-11-30 00:00:00 UTC")):
            gb.add_student(student)
            submission = gb.add_submission(ASSIGNMENT, student, timestamp=handed_in)
            for grade in submission.notebooks[0].grades:
                grade.auto_score = 2.0 if grade.name == "check_a" else None
                grade.manual_score = 3.0 if grade.name == QUESTION else None
        gb.db.commit()
    reassign_late_penalties(url, COURSE_ID, ASSIGNMENT, per_hour=0.05, max_fraction=1.0)
    with Gradebook(url, COURSE_ID) as gb:
        late, early = (gb.find_submission(ASSIGNMENT, s).notebooks[0] for s in ("late", "early"))
        assert late.score == 5.0 and late.late_submission_penalty == pytest.approx(late_penalty(5.0, 10.5 * 3600, 0.05, 1))
        assert late.late_submission_penalty == pytest.approx(5.0 * 0.55) and early.late_submission_penalty is None


# ---------------------------------------------------------------- end to end, through the formgrader


@pytest.fixture(scope="module")
def autograded(tmp_path_factory, copy_released) -> Path:
    """A course whose release went through nbgrader's exchange to a student who answered one written question
    (the others left as released), handed in, collected and autograded."""
    course = copy_released(tmp_path_factory.mktemp("written") / "course")
    exchange = ["--Exchange.root=" + str(course / "exchange"), f"--CourseDirectory.course_id={COURSE_ID}"]
    run_nbgrader(course, "release_assignment", ASSIGNMENT, "--force", *exchange)
    run_nbgrader(course, "db", "student", "add", STUDENT, "--first-name=Ann")
    home = course / "students" / STUDENT
    home.mkdir(parents=True)
    student_side = [*exchange, f"--CourseDirectory.root={home}"]
    run_nbgrader(home, "fetch_assignment", ASSIGNMENT, *student_side, env={"HOME": str(home)})
    fetched = home / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    nb = json.loads(fetched.read_text())
    assert not any(phrase in fetched.read_text() for phrase in _rubric_phrases())  # what the student got
    for cell in nb["cells"]:
        if cell["id"] == answer_cell_id(QUESTION):
            cell["source"] = FULL[QUESTION]  # typed into the answer cell, as in JupyterLab
    fetched.write_text(json.dumps(nb))
    run_nbgrader(home, "submit", ASSIGNMENT, f"--student={STUDENT}", *student_side, env={"HOME": str(home)})
    run_nbgrader(course, "collect", ASSIGNMENT, *exchange)
    run_nbgrader(course, "autograde", ASSIGNMENT)
    return course


def _written_grades(course: Path) -> dict[str, object]:
    with Gradebook(db_url(course), COURSE_ID) as gb:
        written = {c.name for nb in gb.find_assignment(ASSIGNMENT).notebooks for c in nb.task_cells}
        return {g.name: (g.auto_score, g.manual_score, g.needs_manual_grade) for nb in
                gb.find_submission(ASSIGNMENT, STUDENT).notebooks for g in nb.grades if g.name in written}


def test_the_autograded_notebook_holds_a_written_answer_as_text_and_its_words_read_back(autograded):
    notebook = json.loads((autograded / "autograded" / STUDENT / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
    [answer] = [c for c in notebook["cells"] if c["id"] == answer_cell_id(QUESTION)]
    assert _source(answer) == as_text(FULL[QUESTION])  # what the formgrader and the feedback render
    submitted = json.loads((autograded / "submitted" / STUDENT / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
    assert next(_source(c) for c in submitted["cells"] if c["id"] == answer_cell_id(QUESTION)) == FULL[QUESTION]


def test_autograde_leaves_the_written_answers_to_a_grader_and_keeps_the_students_answer(autograded):
    assert _written_grades(autograded) == {q: (None, None, True) for q in
                                           ("written_one_pass", "written_injection", "written_convex")}
    notebook = json.loads((autograded / "autograded" / STUDENT / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
    answers = {c.grade_id: c for c in written_cells(notebook)}
    assert answers[QUESTION].answer == FULL[QUESTION]
    assert answers["written_injection"].answer == ANSWER_STUB
    assert "BEGIN MARK SCHEME" in answers[QUESTION].question  # what the formgrader shows the grader


@pytest.fixture(scope="module")
def graded_in_the_formgrader(autograded) -> dict:
    """The grader's session: the submission's page, then a score and a comment PUT through the API."""
    pytest.importorskip("nbgrader.server_extensions.formgrader", reason="nbgrader's formgrader extension is missing")
    with formgrader.running(autograded) as server:
        submitted = server.api(f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOK}")
        submission_id = next(s["id"] for s in submitted if s["student"] == STUDENT)
        page = server.page(f"/formgrader/submissions/{submission_id}/")
        grade = next(g for g in server.api(f"/formgrader/api/grades?submission_id={submission_id}")
                     if g["name"] == QUESTION)
        comment = next(c for c in server.api(f"/formgrader/api/comments?submission_id={submission_id}")
                       if c["name"] == QUESTION)
        graded = server.api(f"/formgrader/api/grade/{grade['id']}", "PUT", {"manual_score": 2, "extra_credit": None})
        commented = server.api(f"/formgrader/api/comment/{comment['id']}", "PUT", {"manual_comment": COMMENT})
    shutil.rmtree(autograded / "feedback", ignore_errors=True)
    run_nbgrader(autograded, "generate_feedback", ASSIGNMENT)
    return {"page": page, "grade": graded, "comment": commented}


def test_the_formgrader_shows_the_grader_the_rubric_above_the_students_answer(graded_in_the_formgrader):
    html = graded_in_the_formgrader["page"]
    text = _flat(re.sub(r"<[^>]+>", "", html))
    assert "Student's task" in html and "BEGIN MARK SCHEME" in text
    first_point = " ".join(rubric(_task_source())[0].text.replace("`", "").split()[:6])
    assert text.index("Written question 5.a") < text.index(first_point) < text.index(FULL[QUESTION][:60])


def test_a_grade_and_a_comment_put_through_the_formgraders_api_reach_the_gradebook(graded_in_the_formgrader,
                                                                                    autograded):
    assert graded_in_the_formgrader["grade"]["manual_score"] == 2
    assert graded_in_the_formgrader["comment"]["manual_comment"] == COMMENT
    grades = _written_grades(autograded)
    assert grades[QUESTION] == (None, 2.0, False)
    assert grades["written_injection"] == grades["written_convex"] == (None, None, True)


def test_the_feedback_shows_the_graders_points_and_comment_under_the_answer_and_no_rubric(graded_in_the_formgrader,
                                                                                         autograded):
    html = _flat((autograded / "feedback" / STUDENT / ASSIGNMENT / f"{NOTEBOOK}.html").read_text())
    assert f'<a href="#{QUESTION}">Task {QUESTION}</a>: 2.0 of 3.0' in html
    label, graded = "Your answer to Written question 5.a: one pass, every position", \
        f"<b>Score:</b> 2.0 of 3.0. <b>Comments:</b> <p>{COMMENT}</p>"
    assert html.index(label) < html.index(FULL[QUESTION][:60]) < html.index(graded), "the answer, then the points"
    for question in ("written_one_pass", "written_injection"):
        for phrase in _rubric_phrases(question):
            assert phrase not in html, phrase


def test_the_class_report_counts_the_graded_and_the_ungraded_written_answers(graded_in_the_formgrader, autograded):
    from kit.report.build import course_directory, write_report
    from kit.report.collect import collect

    results = collect(course_directory(autograded), ASSIGNMENT)
    assert results.written_counts() == (1, 2)
    assert {q.name: (q.graded, q.ungraded) for q in results.written} == {
        "written_one_pass": ({STUDENT: 2.0}, []), "written_injection": ({}, [STUDENT]),
        "written_convex": ({}, [STUDENT])}
    page, summary = write_report(course_directory(autograded), ASSIGNMENT)
    assert "Written answers: 1 graded, 2 not yet graded" in summary
    assert "as the formgrader writes it): 1 graded, 2 not yet graded." in _flat(re.sub(r"<[^>]+>", " ", page.read_text()))


# ---------------------------------------------------------------- a hostile student, opened as the grader and the student do

HOSTILE_NOTEBOOKS = ("05_masks_and_cross_attention", "08_check_yourself")  # the notebooks with written questions


def _opened(browser, url: str) -> dict:
    """Open `url` in a fresh page of Chromium: what acted (tests/shared/hostile_student.py ACTED), the dialogs that
    opened, the frames the page holds, and whether the student's markup is shown as text."""
    from tests.shared.hostile_student import ACTED

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        page.goto(url, wait_until="load")
        page.wait_for_load_state("networkidle")
        return {**page.evaluate(ACTED), "dialogs": dialogs, "frames": len(page.frames) - 1 + page.evaluate(
            "() => document.querySelectorAll('iframe, frame, object, embed').length"),
                "shown as text": "<script>window.__pwned" in page.inner_text("body"), "url": page.url}
    finally:
        page.close()


@pytest.fixture(scope="module")
def hostile_pages(hostile_class, tmp_path_factory) -> dict[tuple[str, str], dict]:
    """The hostile student's written answers in the formgrader (a real Jupyter server, the submission's page opened
    as the grader opens it), every page of their feedback, and the class report, each opened in Chromium."""
    from tests.shared.browser import chromium, require_browser
    from tests.shared.hostile_student import STUDENT as HOSTILE

    require_browser()
    course = tmp_path_factory.mktemp("hostile") / "course"
    shutil.copytree(hostile_class, course, symlinks=True)  # the server writes beside the course: a copy of our own
    seen = {}
    with formgrader.running(course) as server, chromium() as browser:
        for notebook in HOSTILE_NOTEBOOKS:
            submitted = server.api(f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{notebook}")
            submission = next(s["id"] for s in submitted if s["student"] == HOSTILE)
            url = f"http://127.0.0.1:{server.port}/formgrader/submissions/{submission}/?token={server.token}"
            seen["formgrader", notebook] = _opened(browser, url)
        for page in sorted((course / "feedback" / HOSTILE / ASSIGNMENT).glob("0*.html")):
            seen["feedback", page.stem] = _opened(browser, page.as_uri())
        for page in sorted((course / "reports" / ASSIGNMENT).glob("*.html")):
            seen["class report", page.stem] = _opened(browser, page.as_uri())
    return seen


def _acted(seen: dict) -> dict:
    return {what: seen[what] for what in ("pwned", "dialogs", "frames", "handlers", "links", "hidden") if seen[what]}


def test_a_hostile_written_answer_runs_nothing_in_the_formgrader_and_is_shown_as_text(hostile_pages):
    for notebook in HOSTILE_NOTEBOOKS:
        seen = hostile_pages["formgrader", notebook]
        assert _acted(seen) == {}, (notebook, seen)
        assert seen["shown as text"] and "/formgrader/submissions/" in seen["url"], (notebook, seen)


def test_no_hostile_answer_or_message_runs_anything_in_the_students_feedback(hostile_pages):
    pages = {notebook: seen for (where, notebook), seen in hostile_pages.items() if where == "feedback"}
    assert len(pages) == 9
    assert {notebook: _acted(seen) for notebook, seen in pages.items() if _acted(seen)} == {}
    assert all(pages[notebook]["shown as text"] for notebook in HOSTILE_NOTEBOOKS)


def test_no_hostile_answer_or_message_runs_anything_in_the_class_report(hostile_pages):
    pages = {name: seen for (where, name), seen in hostile_pages.items() if where == "class report"}
    assert sorted(pages) == ["anonymous", "index"]
    assert {name: _acted(seen) for name, seen in pages.items() if _acted(seen)} == {}
