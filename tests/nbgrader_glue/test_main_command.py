"""README's first command: the whole instructor loop on the example class, on
the embedded SQLite gradebook and on a PostgreSQL server (the same table, the
same grades)."""

from __future__ import annotations

import csv
import functools
import html
import json
import re
from pathlib import Path
from typing import NamedTuple

import pytest

from autograder.grade import grade_submission
from autograder.source_assignment import SourceAssignment
from examples.make_class import STUDENTS
from kit.course import DB_URL_VARIABLE, db_url
from tests.shared.course_copy import copy_course, run_demo
from kit.nbgrader_glue.late import late_penalty
from kit.notebooks import ROOT
from tests.nbgrader_glue.databases import DATABASES, gradebook_environment
from tests.shared.gradebooks import by_name, dump


class Loop(NamedTuple):
    folder: Path
    first: str        # the demo's table, first run
    second: str | None  # and second run (on SQLite only: PostgreSQL must match SQLite's first)
    first_db: str     # the gradebook after the first run (repr of tests.shared.gradebooks.dump)
    url: str
    env: dict


@pytest.fixture(scope="module")
def loops() -> dict:
    """database → its Loop, made when a test first asks (`loop_on`)."""
    return {}


def loop_on(database: str, request, loops: dict, tmp_path_factory) -> Loop:
    """The demo run on a course whose gradebook is `database` (twice on SQLite, to check that a second
    run changes nothing; once on PostgreSQL, which must give what SQLite gives). SQLite's loop is the
    session's graded class; PostgreSQL's is run here, once per module (on the worker of its tests)."""
    if database == "sqlite" and database not in loops:
        graded = request.getfixturevalue("graded_class")
        loops[database] = Loop(graded.course, graded.first, graded.second, graded.first_db, db_url(graded.course), {})
    if database not in loops:
        env = gradebook_environment(request, database, "main_command")
        folder = copy_course(tmp_path_factory.mktemp(database))
        url = env.get(DB_URL_VARIABLE) or db_url(folder)
        first = run_demo(folder, env)
        first_db = repr(dump(url))
        second = None
        loops[database] = Loop(folder, first, second, first_db, url, env)
    return loops[database]


@pytest.fixture(params=DATABASES)  # the PostgreSQL tests run on a worker of their own (tests/conftest.py SPLIT)
def course(request, loops, tmp_path_factory) -> Loop:
    return loop_on(request.param, request, loops, tmp_path_factory)


@pytest.mark.parametrize("course", ["sqlite"], indirect=True)
def test_a_second_run_gives_the_same_table_and_the_same_gradebook(course):
    assert course.first == course.second
    assert repr(dump(course.url)) == course.first_db


def test_the_second_run_reuses_the_release_the_first_built(course):
    from kit.release import STAMP, build_hash

    assert (course.folder / STAMP).read_text() == build_hash(course.folder)


def test_postgresql_gives_the_same_table_and_grades_as_sqlite(request, loops, tmp_path_factory):
    postgresql, sqlite = (loop_on(database, request, loops, tmp_path_factory) for database in reversed(DATABASES))
    assert postgresql.url.startswith("postgresql+psycopg://") and not (postgresql.folder / "gradebook.db").exists()
    assert postgresql.first == sqlite.first
    assert by_name(postgresql.url) == by_name(sqlite.url)
    assert (postgresql.folder / "grades.csv").read_text() == (sqlite.folder / "grades.csv").read_text()


def table_scores(stdout: str) -> dict[str, float]:
    lines = stdout.splitlines()
    header = lines[0].split()
    score = next(line.split() for line in lines if line.startswith("score "))
    return dict(zip(header[2:], map(float, score[1:])))


def written_questions(course: Path) -> dict[str, tuple[str, str]]:
    """Written question → (its notebook, its task cell's source with the rubric)."""
    from kit.written import written_cells

    return {q.grade_id: (path.name, q.question) for path in sorted((course / "source" / "attention").glob("*.ipynb"))
            for q in written_cells(json.loads(path.read_text()))}


def predicted_marks(course: Path, student: str) -> dict[str, tuple[float, str]]:
    """Written question → (points, comment) the stand-in teaching assistant gives what the example class wrote
    there (examples/make_class.py: full or partial answers, the stub where the notebook was left untouched)."""
    from autograder.handed_in import ANSWER_STUB
    from examples.written_answers import ANSWERS
    from kit.teaching_assistant import mark
    from kit.written import rubric

    how = next(how for sid, *_, how in STUDENTS if sid == student)
    marks = {}
    for question, (notebook, text) in written_questions(course).items():
        done = not how.get("untouched") and ("done_up_to" not in how or notebook[:2] <= how["done_up_to"])
        marks[question] = mark(rubric(text), ANSWERS[how.get("written", "full")][question] if done else ANSWER_STUB)
    return marks


def predicted_written(course: Path, student: str) -> dict[str, float]:
    return {question: points for question, (points, _) in predicted_marks(course, student).items()}


@functools.cache  # the tests below ask for the same student's prediction again and again
def predicted_total(course: Path, student: str) -> float:
    """What the kit's grader awards, and the stand-in teaching assistant for the written answers."""
    report = grade_submission(ROOT / "examples" / "class" / "submitted" / student / "attention",
                              course / "source" / "attention")
    return sum(cell.earned for cell in report.cells.values()) + sum(predicted_written(course, student).values())


def predicted_penalty(course: Path, student: str) -> float:
    late_seconds = 30 * 3600 if student == "fay" else 0
    return late_penalty(predicted_total(course, student), late_seconds, per_hour=0.01, max_fraction=1.0)


@pytest.mark.parametrize("course", ["sqlite"], indirect=True)  # PostgreSQL's table must equal SQLite's (below)
def test_the_table_gives_every_student_the_score_the_graders_predict(course):
    scores = table_scores(course.first)
    for student, *_ in STUDENTS:
        expected = predicted_total(course.folder, student) - predicted_penalty(course.folder, student)
        assert scores[student] == pytest.approx(expected), student
    assert scores["ada"] == scores["hal"] > 0 and scores["dee"] == 0 and scores["fay"] < scores["ada"]


@pytest.mark.parametrize("course", ["sqlite"], indirect=True)
def test_the_table_has_a_row_per_written_question_with_the_assistants_points(course):
    rows = {line.split()[0]: line.split()[1:] for line in course.first.splitlines()[2:] if line.startswith("written_")}
    header = course.first.splitlines()[0].split()[2:]
    full = sum(float(rows[q][0]) for q in written_questions(course.folder))
    assert sorted(rows) == sorted(written_questions(course.folder)) and full == 9
    for student, *_ in STUDENTS:
        given = {q: float(values[1 + header.index(student)]) for q, values in rows.items()}
        assert given == predicted_written(course.folder, student), student
    assert sum(predicted_written(course.folder, "ada").values()) == full
    assert 0 < sum(predicted_written(course.folder, "bo").values()) < full  # partial answers: some points


def test_the_table_says_what_happened_to_the_broken_and_the_tampered_student(course):
    stdout = course.first
    assert "gus: 03_softmax_and_mix.ipynb: notebook unreadable: not valid JSON at line" in stdout
    assert "hal: changed read-only cells (restored, graded as if untouched)" in stdout
    assert "check_softmax edited" in stdout and "hidden_attention deleted" in stdout


def test_every_feedback_page_of_the_broken_and_the_tampered_student_tells_them_what_became_of_their_hand_in(course):
    """Under "Your hand-in" (kit/nbgrader_glue/hand_in_notes.py): gus's unreadable notebook, on each of his eight
    pages; hal's changed read-only cells, put back before grading, on each of his nine; nobody else's."""
    told = {"gus": "03_softmax_and_mix.ipynb: notebook unreadable: not valid JSON at line",
            "hal": "03_softmax_and_mix.ipynb: check_softmax edited, hidden_attention deleted: read-only cells are "
                   "put back as released before grading, so changes to them do not count"}
    for student, *_ in STUDENTS:
        for page in (course.folder / "feedback" / student / "attention").glob("0*.html"):
            shown = html.unescape(page.read_text())
            assert ("Your hand-in" in shown) == (student in told) and told.get(student, "") in shown, page


def test_grades_csv_has_one_row_per_student_and_the_late_penalty(course):
    with open(course.folder / "grades.csv") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert sorted(rows) == sorted(s[0] for s in STUDENTS)
    assert float(rows["fay"]["late_submission_penalty"]) == pytest.approx(predicted_penalty(course.folder, "fay"))
    assert float(rows["fay"]["late_submission_penalty"]) > 0
    assert float(rows["ada"]["late_submission_penalty"]) == 0


def test_every_graded_student_has_feedback_without_hidden_code_or_values(course):
    folder = course.folder
    for student, *_ in STUDENTS:
        notebooks = {p.stem for p in (folder / "source" / "attention").glob("*.ipynb")}
        # Only notebooks' pages: the release also ships the explorer's own page (explorer.html).
        pages = sorted(p for p in (folder / "feedback" / student / "attention").glob("*.html") if p.stem in notebooks)
        expected = len(notebooks) - 1 if student == "gus" else len(notebooks)  # gus's unreadable notebook is missing
        assert len(pages) == expected, student
        for page in pages:
            html = page.read_text()
            for secret in ("hidden_check(", "BEGIN HIDDEN TESTS", "autograder", "most recent call last",
                           "MARK SCHEME", "Look for:", "Model answer"):
                assert secret not in html, (page, secret)


def test_every_feedback_page_shows_each_written_answers_points_and_comment_and_none_of_its_rubric(course):
    from kit.written import rubric

    for student, *_ in STUDENTS:
        for question, (notebook, text) in written_questions(course.folder).items():
            page = course.folder / "feedback" / student / "attention" / notebook.replace(".ipynb", ".html")
            if not page.exists():
                continue  # a notebook nbgrader could not grade (gus's 03) has no page
            html = re.sub(r"\s+", " ", page.read_text())
            points, comment = predicted_marks(course.folder, student)[question]
            assert f'<a href="#{question}">Task {question}</a>: {points:.1f} of 3.0' in html, (student, question)
            assert f"<b>Score:</b> {points:.1f} of 3.0. <b>Comments:</b> <p>{comment}</p>" in html, (student, question)
            for point in rubric(text):
                assert " ".join(point.text.split()[:8]) not in html, (student, question)


def test_the_formgrader_reports_the_grades_in_the_gradebook(course):
    from nbgrader.api import Gradebook

    from tests.shared import formgrader

    with formgrader.running(course.folder, course.env) as server:
        assignment = server.api("/formgrader/api/assignment/attention")
        submissions = {s["student"]: s for s in server.api("/formgrader/api/submissions/attention")}
    assert assignment["name"] == "attention" and assignment["num_submissions"] == len(STUDENTS)
    with Gradebook(course.url) as gb:
        for student, *_ in STUDENTS:
            expected = gb.find_submission("attention", student)
            assert submissions[student]["score"] == pytest.approx(expected.score), student
            assert submissions[student]["max_score"] == pytest.approx(expected.max_score)


def test_no_feedback_page_holds_a_hidden_reference_value(course):
    import re

    import numpy as np

    from autograder.cases import EXERCISES, hidden_cases

    def numbers(x):
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            yield from x[np.isfinite(x)].ravel().tolist()
        elif isinstance(x, (tuple, list)):
            for part in x:
                yield from numbers(part)
        elif isinstance(x, float):
            yield x
    secrets = {f"{v:.6g}" for name in EXERCISES for case in hidden_cases(name)
               for v in numbers(case.get("expected")) if len(f"{abs(v):.6g}".strip("0.")) >= 4}
    for page in (course.folder / "feedback").rglob("*.html"):
        shown = set(re.findall(r"-?\d+\.\d{3,}(?:e-?\d+)?", page.read_text()))
        leaked = {n for n in shown if f"{float(n):.6g}" in secrets}
        assert not leaked, (page.name, sorted(leaked)[:5])


# ---------------------------------------------------------------- the class report, the demo's last step


def test_the_class_report_gives_every_example_student_what_they_are_known_to_have(course, monkeypatch):
    from kit.report.build import course_directory
    from kit.report.collect import collect

    for name, value in course.env.items():  # the gradebook this loop ran on (KIT_DB_URL on PostgreSQL)
        monkeypatch.setenv(name, value)
    results = collect(course_directory(course.folder), "attention")
    exercises = {e.name: e for e in results.exercises}
    students = {s.id: s for s in results.students}
    assert exercises["softmax"].mistakes == {"softmax over the wrong axis": ["bo"]}
    assert exercises["causal_mask"].mistakes == {"causal mask off by one: diagonal forbidden": ["cy"]}
    assert sum(len(e.mistakes) for e in results.exercises) == 2
    graded = SourceAssignment.of(course[0] / "source" / "attention").graded_cells
    notebook_of = {cell.exercise: cell.notebook for cell in graded}
    for name, exercise in exercises.items():
        notebook = notebook_of[name]
        not_started = {"dee"} | ({"eli"} if notebook[:2] > "04" else set())
        assert set(exercise.failures.get("not started", [])) == not_started, name
        unreadable = {"gus"} if notebook.startswith("03") else set()
        assert set(exercise.failures.get("notebook not graded", [])) == unreadable, name
        right = {s for s, *_ in STUDENTS} - not_started - unreadable - set().union(*exercise.mistakes.values())
        assert set(exercise.hidden_passed) == right, name
    assert {s for s, st in students.items() if st.seconds_late > 0} == {"fay"}
    assert students["fay"].late_penalty == pytest.approx(predicted_penalty(course[0], "fay"))
    assert {s: list(st.unreadable) for s, st in students.items() if st.unreadable} == {"gus": ["03_softmax_and_mix.ipynb"]}
    assert [s for s, st in students.items() if st.tampering] == ["hal"]
    # every written answer graded by the demo's stand-in teaching assistant, with its points
    assert results.written_counts() == (len(STUDENTS) * 3, 0)
    for question in results.written:
        assert question.graded == {s: predicted_written(course[0], s)[question.name] for s, *_ in STUDENTS}


@pytest.mark.parametrize("course", ["sqlite"], indirect=True)
def test_the_demos_students_keep_their_submit_records_in_the_demos_own_folder(course):
    """The demo's students submit through nbgrader, whose record of each hand-in went to the instructor's own
    ~/.local/share/jupyter/nbgrader_cache, there for good; it is kept in .run/ with the demo's exchange."""
    records = course.folder / ".run" / "nbgrader_cache"
    submitted = {record.name.split("+")[0] for record in records.glob("*/*")}
    assert submitted == {student[0] for student in STUDENTS}, sorted(records.glob("*/*"))


def test_the_demo_ends_with_the_class_report_and_its_summary(course):
    stdout = course[1]
    assert "Class report for attention: 8 students submitted" in stdout
    assert "softmax: softmax over the wrong axis: 1 (12%)" in stdout
    assert f"Written answers: {len(STUDENTS) * 3} graded, 0 not yet graded" in stdout
    assert "class report: reports/attention/index.html" in stdout


def test_the_class_report_page_loads_in_chromium_with_every_chart_and_its_alt_text(course):
    from tests.shared.browser import DOCS, chromium, require_browser

    require_browser()

    page_file = course[0] / "reports" / "attention" / "index.html"
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 1400})
        requests = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        charts = page.eval_on_selector_all("figure img", """imgs => imgs.map(i => ({
            alt: i.getAttribute('alt') || '', width: i.complete ? i.naturalWidth : 0}))""")
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / "class-report.png"))
    assert len(charts) == 3
    for chart in charts:
        assert chart["width"] > 200 and len(chart["alt"]) > 40, chart
    assert {url.split(":", 1)[0] for url in requests} <= {"file", "data"}  # nothing fetched from a network
