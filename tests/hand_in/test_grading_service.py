"""Does grading on hand-in stay fair under a burst, lose nothing and grade nothing twice when it is killed,
and give the grades the instructor's own loop gives? (issue 39)

As root, on an exchange laid out by `kit.hub`'s set-up: an instructor who is not root, their course in
their home (mode 700, course.toml `[service] on`, no limit), and students who are system accounts, each
handing in with nbgrader's own `submit`: four honest ones (the example class's work), mal (whose code looks
through the machine for another student's notebooks,
tests/shared/adversarial/fixtures/reads_another_students_work.py), flo, who hands in FLOOD times as fast as
nbgrader lets him while the others hand in once each, and una, none of whose notebooks can be read. The
grading service runs as the instructor, as the hub starts it (`python -m kit.grading_service` in the
course). While a round is grading a student (its unfinished mark written), the service is killed with
SIGKILL, then started again, and runs until every hand-in has its outcome.

Then: every hand-in is graded or replaced by its student's newer one, none graded twice, but una's, done,
ungraded and not charged; the honest students were graded in order of arrival, and no hand-in of flo's went
ahead of one that arrived before it (while one waited, flo had at most the grading under way and his one
waiting hand-in before it); mal lost only his own points; each student fetches their own feedback and reads
their score (una: why each notebook could not be read), and no one else's; and a fresh copy of the course,
collected and autograded by the instructor's own loop, gives every grade the service gave. Root only (it makes
the accounts); about three minutes on two cores.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID
from kit.grading_service.outcome import GRADED, REPLACED, UNREADABLE
from kit.hand_in import acl
from kit.hub.exchange import make_exchange
from kit.notebooks import ROOT
from tests.shared.accounts import give, make_account, run_as
from tests.shared.adversarial.build import FIXTURES, make_submission
from tests.shared.course_copy import gradebook_snapshot
from tests.hand_in.grading_service import RunningService, with_service_policy

pytestmark = pytest.mark.skipif(__import__("os").geteuid() != 0,
                                reason="makes system accounts for the instructor and students: run as root (CI does)")

INSTRUCTOR = "gs-teach"
HONEST = {"gs-ann": "ada", "gs-bo": "bo", "gs-cy": "cy", "gs-dee": "dee"}  # account → the example class's work
MAL, FLO, UNA = "gs-mal", "gs-flo", "gs-una"
FLOOD = 8
NBGRADER = ("python", *nbgrader_cli.command()[1:])
WORK = ROOT / "examples" / "class" / "submitted"


def _course(home: Path, released: Path, exchange: Path, students: list[str]) -> Path:
    """A copy of the released course in the instructor's home, on the shared exchange, with the class on its
    roster (and, with `release`, the assignment released)."""
    course = home / "course"
    shutil.copytree(released, course, symlinks=True)
    (course / "course.toml").write_text(with_service_policy((course / "course.toml").read_text(), exchange, on=True,
                                                            per_day=0, min_gap_minutes=0, stop_at_deadline=False))
    give(INSTRUCTOR, course)
    course.chmod(0o700)
    for student in students:
        run_as(INSTRUCTOR, *NBGRADER, "db", "student", "add", student, cwd=course)
    return course


def _hand_out(student: str, home: Path, exchange: Path, work: Path) -> None:
    """The student fetches the assignment and puts `work`'s notebooks in it."""
    (home / ".jupyter").mkdir()
    (home / ".jupyter" / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\nc.Exchange.root = {str(exchange)!r}\n")
    give(student, home / ".jupyter")
    run_as(student, *NBGRADER, "fetch_assignment", ASSIGNMENT, cwd=home)
    for notebook in work.glob("*.ipynb"):
        shutil.copyfile(notebook, home / ASSIGNMENT / notebook.name)
    give(student, home / ASSIGNMENT)


@pytest.fixture(scope="module")
def burst(released_course):
    shared = Path(tempfile.mkdtemp(prefix="attention-kit-service-", dir="/tmp"))
    shared.chmod(0o755)
    students = [*HONEST, MAL, FLO, UNA]
    homes = {name: make_account(name) for name in (INSTRUCTOR, *students)}
    exchange = shared / "exchange"
    make_exchange(exchange, COURSE_ID, INSTRUCTOR)
    course = _course(homes[INSTRUCTOR], released_course, exchange, students)
    run_as(INSTRUCTOR, *NBGRADER, "release_assignment", ASSIGNMENT, cwd=course)
    hostile = shared / "mal"
    make_submission(FIXTURES / "reads_another_students_work.py", hostile)
    unreadable = shared / "una"
    unreadable.mkdir()
    for notebook in (WORK / "ada" / ASSIGNMENT).glob("*.ipynb"):  # each cut short, as by a full disk
        (unreadable / notebook.name).write_bytes(notebook.read_bytes()[:200])
    for student in students:
        _hand_out(student, homes[student], exchange, {MAL: hostile, FLO: WORK / "ada" / ASSIGNMENT,
                                                      UNA: unreadable}.get(
            student, WORK / HONEST.get(student, "ada") / ASSIGNMENT))
    service = RunningService(course, INSTRUCTOR)
    service.start()
    flooding = threading.Thread(target=lambda: [run_as(FLO, *NBGRADER, "submit", ASSIGNMENT, cwd=homes[FLO])
                                                for _ in range(FLOOD)])
    flooding.start()
    for student in (*HONEST, MAL, UNA):  # one after another while flo floods
        run_as(student, *NBGRADER, "submit", ASSIGNMENT, cwd=homes[student])
    deadline = time.monotonic() + 600
    while not (marks := list((course / "autograded").glob(f"*/.{ASSIGNMENT}.unfinished"))):  # a student graded
        assert time.monotonic() < deadline, service.log()[-3000:]
        time.sleep(0.05)
    service.kill()
    killed_at = len(service.log())
    flooding.join()
    service.start()
    inbound = exchange / COURSE_ID / "inbound"
    service.wait_until(lambda rows: len(rows) == len(list(inbound.iterdir())) and rows
                       and all(row["state"] == "done" for row in rows), "every hand-in done")
    service.stop()
    yield {"course": course, "exchange": exchange, "homes": homes, "service": service, "hand_ins": service.hand_ins(),
           "log": service.log(), "killed_at": killed_at, "shared": shared, "cut": marks[0].parent.name}
    shutil.rmtree(shared)


def _graded_rows(burst) -> list[dict]:
    return [row for row in burst["hand_ins"] if row["outcome"] == GRADED]


def test_every_hand_in_is_graded_or_replaced_by_a_newer_one_of_its_student(burst):
    inbound = burst["exchange"] / COURSE_ID / "inbound"
    rows = burst["hand_ins"]
    assert {row["name"] for row in rows} == {p.name for p in inbound.iterdir()}  # none lost
    assert len(rows) == len(HONEST) + 2 + FLOOD
    assert {row["outcome"] for row in rows} <= {GRADED, REPLACED, UNREADABLE}, rows
    for student in (*HONEST, MAL):
        assert [row["outcome"] for row in rows if row["student"] == student] == [GRADED]
    [una] = [row for row in rows if row["student"] == UNA]
    assert una["outcome"] == UNREADABLE and una["state"] == "done" and "none of its notebooks" in una["detail"]
    flo = [row for row in rows if row["student"] == FLO]
    assert flo[-1]["outcome"] == GRADED  # his newest
    for row in flo:
        if row["outcome"] == REPLACED:
            assert row["detail"] in {later["name"] for later in flo if later["seq"] > row["seq"]}


def test_the_service_was_killed_mid_round_and_graded_nothing_twice(burst):
    log, course = burst["log"], burst["course"]
    after_kill = log[burst["killed_at"]:]
    assert "was under way when the service stopped" in after_kill, after_kill[:3000]
    retaken = re.search(r"round \d+ was under way when the service stopped \(\d+ of its processes ended now\): "
                        r"its hand-ins wait again in their places: (.*)", after_kill)[1].split(", ")
    assert retaken, after_kill[:3000]
    for row in burst["hand_ins"]:  # one outcome line per graded hand-in: graded once
        graded_lines = [line for line in log.splitlines() if f"hand-in {row['name']} of" in line and ": graded," in line]
        assert len(graded_lines) == (row["outcome"] == GRADED), (row["name"], graded_lines)
    # The student the kill cut short: their hand-in of the killed round, if graded since, was finished from the
    # start by a later round, or skipped there if a worker process of the killed round had finished it before it
    # was ended: whole or absent, never graded twice. If a newer hand-in replaced it, that one was graded instead.
    cut, killed = burst["cut"], int(re.search(r"round (\d+) was under way", after_kill)[1])
    later = "".join(path.read_text() for path in (course / "service" / "rounds").glob("*.log") if int(path.stem) > killed)
    [taken] = [name for name in retaken if name.startswith(f"{cut}+")]
    outcome = next(row["outcome"] for row in burst["hand_ins"] if row["name"] == taken)
    graded_again = {GRADED: ("Finishing", "Skipping existing assignment"),
                    REPLACED: ("Finishing", "Updating existing assignment")}[outcome]
    assert any(f"{how} {cut}'s" in later or f"{how}: {course}/autograded/{cut}/{ASSIGNMENT}" in later
               for how in graded_again), later[-3000:]


def test_honest_students_are_graded_in_order_of_arrival_and_the_flooder_goes_ahead_of_none(burst):
    graded = _graded_rows(burst)
    honest = [row for row in graded if row["student"] in (*HONEST, MAL)]
    assert [row["seq"] for row in sorted(honest, key=lambda r: (r["updated"], r["seq"]))] == \
        sorted(row["seq"] for row in honest)
    flo = [row for row in graded if row["student"] == FLO]
    for row in honest:
        # No hand-in of flo's that arrived after this one was graded before it; while it waited, flo had at most
        # the grading under way when it arrived and his one hand-in waiting then.
        assert [f["name"] for f in flo if f["seq"] > row["seq"] and f["updated"] < row["updated"]] == []
        meanwhile = [f["name"] for f in flo if row["arrived"] < f["updated"] < row["updated"]]
        assert len(meanwhile) <= 2, (row["student"], meanwhile)


def test_the_hostile_hand_in_loses_only_its_own_points(burst):
    course = burst["course"]
    snapshot = gradebook_snapshot(course, [*HONEST, MAL])
    lost = {grade for (student, _, grade), (score, _, _) in snapshot.items()
            if student == MAL and score is not None and score == 0}
    assert {"check_token_movement", "hidden_token_movement", "hidden_skip_formula"} <= lost
    ann = {grade: score for (student, _, grade), (score, _, _) in snapshot.items() if student == "gs-ann"}
    mals = {grade: score for (student, _, grade), (score, _, _) in snapshot.items() if student == MAL}
    assert {g for g in ann if mals[g] != ann[g]} <= {"check_token_movement", "hidden_token_movement",
                                                      "check_skip_formula", "hidden_skip_formula"}


def test_each_student_fetches_their_own_feedback_with_their_score_and_no_one_elses(burst):
    homes, exchange = burst["homes"], burst["exchange"]
    pages = sorted((exchange / COURSE_ID / "feedback").glob("*.html"))
    readers = {page: acl.readers(page) for page in pages}
    assert all(len(who) == 1 for who in readers.values())  # each page its student's alone
    for student in (*HONEST, MAL):
        run_as(student, *NBGRADER, "fetch_feedback", ASSIGNMENT, cwd=homes[student])
        [fetched] = (homes[student] / ASSIGNMENT / "feedback").iterdir()  # their one hand-in's pages
        page = (fetched / "03_softmax_and_mix.html").read_text()
        assert re.search(r"<h1>03_softmax_and_mix: [\d.]+ of\s+[\d.]+ points</h1>", page)
        uid = homes[student].stat().st_uid
        others = [p for p, who in readers.items() if who != {uid}]
        tried = run_as(student, "python", "-c", f"open({str(others[0])!r}).read()", cwd=homes[student], check=False)
        assert tried.returncode and "Permission denied" in tried.stderr
    run_as(UNA, *NBGRADER, "fetch_feedback", ASSIGNMENT, cwd=homes[UNA])
    [fetched] = (homes[UNA] / ASSIGNMENT / "feedback").iterdir()
    handed_in = (WORK / "ada" / ASSIGNMENT).glob("*.ipynb")
    assert sorted(p.name for p in fetched.iterdir()) == sorted(f"{p.stem}.html" for p in handed_in)
    page = (fetched / "03_softmax_and_mix.html").read_text()
    assert "03_softmax_and_mix: could not be read, not graded" in page and "not valid JSON" in page


def test_the_status_command_says_what_became_of_the_last_hand_ins(burst):
    status = run_as(INSTRUCTOR, "python", "-m", "kit.grading_service", "status", cwd=burst["course"]).stdout
    assert "Grading on hand-in: on (course.toml [service]: no limit; goes on at the due date" in status
    assert "Service: not running" in status and "Waiting: 0 hand-ins of 0 students" in status
    newest = burst["hand_ins"][-1]
    assert f"{newest['name']} ({newest['student']}): done, {newest['outcome']}" in status


def test_the_instructors_own_loop_after_the_deadline_gives_the_grades_the_service_gave(burst, released_course):
    """A fresh copy of the course, on the same exchange: `nbgrader collect` and `nbgrader autograde`, as README's
    loop runs them, take each student's newest hand-in and give it the grades the service gave it."""
    shared, students = burst["shared"], [*HONEST, MAL, FLO]
    home = shared / "instructor-again"
    home.mkdir()
    again = _course(home, released_course, burst["exchange"], [*students, UNA])
    run_as(INSTRUCTOR, *NBGRADER, "collect", ASSIGNMENT, cwd=again)
    graded = run_as(INSTRUCTOR, *NBGRADER, "autograde", ASSIGNMENT, cwd=again, check=False)
    assert graded.returncode and f"{UNA}'s {ASSIGNMENT} is left out: none of its notebooks can be read" in graded.stderr
    assert gradebook_snapshot(again, students) == gradebook_snapshot(burst["course"], students)
