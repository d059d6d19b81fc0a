"""README's first command: the whole instructor loop on the example class."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grade import grade_submission
from examples.make_class import STUDENTS
from kit.late import late_penalty
from kit.notebooks import ROOT
from tests.conftest import dump


@pytest.fixture(scope="module")
def course(graded_class):
    """(course folder, first table, second table, first gradebook): the session's graded class."""
    return graded_class


def test_a_second_run_gives_the_same_table_and_the_same_gradebook(course):
    folder, first, second, first_db = course
    assert first == second
    assert repr(dump(folder / "gradebook.db")) == first_db


def test_the_second_run_reuses_the_release_the_first_built(course):
    from kit.release import STAMP, build_hash

    assert (course[0] / STAMP).read_text() == build_hash(course[0])


def table_scores(stdout: str) -> dict[str, float]:
    lines = stdout.splitlines()
    header = lines[0].split()
    score = next(line.split() for line in lines if line.startswith("score "))
    return dict(zip(header[2:], map(float, score[1:])))


def predicted_total(course: Path, student: str) -> float:
    report = grade_submission(ROOT / "examples" / "class" / "submitted" / student / "attention",
                              course / "source" / "attention")
    return sum(cell.earned for cell in report.cells.values())


def predicted_penalty(course: Path, student: str) -> float:
    late_seconds = 30 * 3600 if student == "fay" else 0
    return late_penalty(predicted_total(course, student), late_seconds, per_hour=0.01, max_fraction=1.0)


def test_the_table_gives_every_student_the_score_the_graders_predict(course):
    scores = table_scores(course[1])
    for student, *_ in STUDENTS:
        expected = predicted_total(course[0], student) - predicted_penalty(course[0], student)
        assert scores[student] == pytest.approx(expected), student
    assert scores["ada"] == scores["hal"] > 0 and scores["dee"] == 0 and scores["fay"] < scores["ada"]


def test_the_table_says_what_happened_to_the_broken_and_the_tampered_student(course):
    stdout = course[1]
    assert "gus: 03_softmax_and_mix.ipynb: notebook unreadable: not valid JSON at line" in stdout
    assert "hal: changed read-only cells (restored, graded as if untouched)" in stdout
    assert "check_softmax edited" in stdout and "hidden_attention deleted" in stdout


def test_grades_csv_has_one_row_per_student_and_the_late_penalty(course):
    with open(course[0] / "grades.csv") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert sorted(rows) == sorted(s[0] for s in STUDENTS)
    assert float(rows["fay"]["late_submission_penalty"]) == pytest.approx(predicted_penalty(course[0], "fay"))
    assert float(rows["fay"]["late_submission_penalty"]) > 0
    assert float(rows["ada"]["late_submission_penalty"]) == 0


def test_every_graded_student_has_feedback_without_hidden_code_or_values(course):
    folder = course[0]
    for student, *_ in STUDENTS:
        pages = sorted((folder / "feedback" / student / "attention").glob("*.html"))
        notebooks = len(list((folder / "source" / "attention").glob("*.ipynb")))
        expected = notebooks - 1 if student == "gus" else notebooks  # gus's unreadable notebook is missing
        assert len(pages) == expected, student
        for page in pages:
            html = page.read_text()
            for secret in ("hidden_check(", "BEGIN HIDDEN TESTS", "autograder", "most recent call last"):
                assert secret not in html, (page, secret)


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_formgrader_reports_the_grades_in_the_gradebook(course):
    import json
    import secrets
    import time
    import urllib.request

    from nbgrader.api import Gradebook

    folder = course[0]
    port, token = free_port(), secrets.token_hex(16)
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "server", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False", f"--ServerApp.root_dir={folder}",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=open(folder / "server.log", "w"),
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(folder)})

    def get(path: str):
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    try:
        for _ in range(600):  # a loaded machine can take a minute or two to start it
            try:
                get("/api/status")
                break
            except OSError:
                assert server.poll() is None, (folder / "server.log").read_text()[-3000:]
                time.sleep(0.5)
        assignment = get("/formgrader/api/assignment/attention")
        submissions = {s["student"]: s for s in get("/formgrader/api/submissions/attention")}
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert assignment["name"] == "attention" and assignment["num_submissions"] == len(STUDENTS)
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
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
    for page in (course[0] / "feedback").rglob("*.html"):
        shown = set(re.findall(r"-?\d+\.\d{3,}(?:e-?\d+)?", page.read_text()))
        leaked = {n for n in shown if f"{float(n):.6g}" in secrets}
        assert not leaked, (page.name, sorted(leaked)[:5])
