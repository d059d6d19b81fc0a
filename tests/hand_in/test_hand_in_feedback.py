"""Does `nbgrader release_feedback` release every page it safely can, whatever one student's feedback holds?

kit/hand_in/feedback.py through nbgrader's own command, on a course's own exchange (one account: any account
can run these; tests/hand_in/test_hand_in.py releases to real accounts on a hub's exchange, each page readable by its
student alone). The feedback folders are made here as generate_feedback leaves them, pages and secret.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest
from nbgrader.utils import notebook_hash

from kit.course import ASSIGNMENT, COURSE_ID
from kit.nbgrader_cli import command, environment
from kit.nbgrader_glue.whole_or_absent import unfinished_mark

NOTEBOOKS = ("01_worked_example", "03_softmax_and_mix")
SHARED = secrets.token_hex(64)
SECRETS = {"ok": secrets.token_hex(64), "no_secret": None, "empty_secret": "", "dup_a": SHARED, "dup_b": SHARED,
           "unfinished": secrets.token_hex(64)}


def feedback(course: Path, student: str, secret: str | None, page_bytes: int = 1000) -> None:
    folder = course / "feedback" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    for notebook in NOTEBOOKS:
        (folder / f"{notebook}.html").write_text(f"<p>{student}, {notebook}</p>".ljust(page_bytes))
    if secret is not None:
        (folder / "submission_secret.txt").write_text(secret)


def release(course: Path, *around: str) -> subprocess.CompletedProcess:
    """`nbgrader release_feedback`, run by the command line `around` if given (which ends by running it)."""
    return subprocess.run([*around, *command("release_feedback", ASSIGNMENT)], cwd=course, env=environment(),
                          capture_output=True, text=True)


def released(course: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in (course / "exchange" / COURSE_ID / "feedback").glob("*.html")}


@pytest.fixture
def course(copy_released, tmp_path) -> Path:
    course = copy_released(tmp_path / "course")
    (course / "exchange").mkdir()
    return course


def test_a_student_whose_pages_cannot_be_released_safely_is_named_and_the_rest_released(course):
    for student, secret in SECRETS.items():
        feedback(course, student, secret)
    unfinished_mark(course / "feedback" / "unfinished" / ASSIGNMENT).touch()
    result = release(course)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    assert released(course) == {f"{notebook_hash(secret=SECRETS['ok'], notebook_id=nb)}.html":
                                f"<p>ok, {nb}</p>".ljust(1000) for nb in NOTEBOOKS}
    for student, why in {"no_secret": "holds no submission_secret.txt", "empty_secret": "is empty",
                         "dup_a": "is also dup_b's", "dup_b": "is also dup_a's",
                         "unfinished": "run `nbgrader generate_feedback attention` first"}.items():
        assert any(f"no feedback released for {student}: " in line and why in line for line in log.splitlines())
    assert "Released 2 feedback pages of 'attention'; left out 5 students" in log


@pytest.mark.skipif(os.geteuid() != 0, reason="fills a file system of its own, mounted in a namespace: root only")
def test_pages_the_exchange_has_no_room_for_are_named_and_a_rerun_releases_them(course):
    for student in ("ann", "bo", "cy"):
        feedback(course, student, secrets.token_hex(64), page_bytes=100_000)
    target = course / "exchange" / COURSE_ID / "feedback"
    target.mkdir(parents=True)
    room = "mount -t tmpfs -o size=300k tmpfs \"$0\" && \"$@\"; echo \"exit $?\"; ls -a \"$0\""  # for 3 of the 6
    result = release(course, "unshare", "--mount", "--propagation", "private", "sh", "-c", room, str(target))
    log = result.stdout + result.stderr
    assert "exit 1" in log and "could not be written into the exchange" in log, log[-3000:]
    assert ".partial" not in result.stdout  # no half page left behind
    there = result.stdout.count(".html")  # the pages there was room for
    assert 0 < there < 6 and log.count("not released: No space left on device") == 6 - there
    assert release(course).returncode == 0 and len(released(course)) == 6  # room again: every page


def test_releasing_before_any_page_was_made_says_so_and_what_to_run(course):
    """release_feedback before generate_feedback released nothing and said only that it left out no student."""
    result = release(course)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"No feedback page of '{ASSIGNMENT}' to release" in result.stderr, result.stderr[-3000:]
    assert f"`nbgrader generate_feedback {ASSIGNMENT}`" in result.stderr
    assert released(course) == {}


def test_collect_or_release_before_the_course_has_an_exchange_says_what_makes_it(copy_released, tmp_path):
    """After `make demo` (whose exchange is its own) a course has no exchange/: collect and release_feedback said
    "Unwritable directory, please contact your instructor" to the instructor. Each now says there is no exchange
    yet and what makes one."""
    course = copy_released(tmp_path / "course")
    for step in ("collect", "release_feedback"):
        result = subprocess.run(command(step, ASSIGNMENT), cwd=course, env=environment(), capture_output=True,
                                text=True)
        assert result.returncode != 0
        assert f"No exchange at {course / 'exchange'} yet" in result.stderr, result.stderr[-3000:]
        assert f"`nbgrader release_assignment {ASSIGNMENT}`" in result.stderr
