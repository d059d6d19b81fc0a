"""Grading across machines (autograder/cluster.py): `nbgrader autograde` through a Dask scheduler and
two workers, separate processes on 127.0.0.1, gives the gradebook local grading gives, even when a
worker is killed part-way; a worker whose machine cannot confine refuses each student it takes; a
scheduler nobody answers at is one line and touches no student's work; a student whose code attacks the
grader's reading and writing (issue 22) loses only their own points, with workers and on the cluster."""

from __future__ import annotations

import hashlib
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from autograder.grade import REPORT_FILE
from autograder.sandbox import REFUSAL, UNCONFINED
from autograder.source_assignment import SourceAssignment
from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID, db_url
from tests.shared.adversarial.build import (FIXTURES as FIXTURE_FILES, SOLVED, cells_of, fixtures,
                                            keeps_an_answer_in_a_module_of_its_own, splice)
from tests.shared.course_copy import EXAMPLE, autograde, class_course, gradebook_snapshot
from tests.nbgrader_glue import dask_cluster

FIXTURES = fixtures()
GRADED = {grade_id for _, grade_id, _ in SourceAssignment.of(SOLVED).graded_cells}

pytestmark = pytest.mark.skipif(bool(dask_cluster.why_unavailable()),
                                reason=f"no Dask cluster for the tests: {dask_cluster.why_unavailable()}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two workers ("first", "second"), for the whole module."""
    with dask_cluster.running_cluster(tmp_path_factory.mktemp("dask")) as running:
        running.start_worker("first")
        running.start_worker("second")
        running.wait_for(["first", "second"])
        yield running


def graded_where(stream: list[dict]) -> dict[str, set[str]]:
    """student → addresses of the workers that finished grading them (from the scheduler's task stream)."""
    where: dict[str, set[str]] = {}
    for task in stream:
        key = str(task["key"])
        if key.startswith("grade-") and task.get("status") == "OK":
            where.setdefault(key.split("-")[1], set()).add(task["worker"])
    return where


def confinements(course: Path, students: list[str]) -> set[str]:
    import json

    return {json.loads((course / "autograded" / s / "attention" / REPORT_FILE).read_text())["confinement"]
            for s in students}


def test_a_scheduler_and_two_workers_give_the_gradebook_local_grading_gives(
        graded_one_at_a_time, released_course, cluster, tmp_path):
    from distributed import get_task_stream

    students, local = graded_one_at_a_time
    course = tmp_path / "course"
    class_course(course, len(students), released=released_course)
    with get_task_stream(client=cluster.client) as stream:
        result = autograde(course, KIT_GRADING_SCHEDULER=cluster.address)
    assert result.returncode == 0, result.stderr[-3000:]
    assert gradebook_snapshot(course, students) == local
    # The workers graded every student (this machine only wrote the gradebook), confined.
    where = graded_where(stream.data)
    assert set(where) == set(students)
    assert set.union(*where.values()) <= set(cluster.workers().values())
    assert UNCONFINED not in confinements(course, students)


def test_a_worker_killed_mid_student_loses_nothing(graded_one_at_a_time, released_course, cluster, tmp_path):
    from distributed import get_task_stream

    students, local = graded_one_at_a_time
    course = tmp_path / "course"
    class_course(course, len(students), released=released_course)
    doomed = cluster.start_worker("doomed")  # a third, fresh worker: the module's two stay for the other tests
    cluster.wait_for(["doomed"])
    doomed_address = cluster.workers()["doomed"]
    with get_task_stream(client=cluster.client) as stream, open(tmp_path / "autograde.log", "w") as log:
        run = subprocess.Popen(nbgrader_cli.command("autograde", "attention", "--force"), cwd=course,
                               env={**nbgrader_cli.environment("out-of-process"),
                                    "KIT_GRADING_SCHEDULER": cluster.address},
                               stdout=log, stderr=subprocess.STDOUT, text=True)
        held = []
        while not held and run.poll() is None:  # until the doomed worker has a student in hand
            held = [str(k) for k in cluster.client.processing([doomed_address]).get(doomed_address, [])
                    if str(k).startswith("grade-")]
            time.sleep(0.1)
        doomed.send_signal(signal.SIGKILL)
        run.wait()
    assert held, "the doomed worker was never given a student to grade"
    assert doomed.wait() == -signal.SIGKILL
    assert run.returncode == 0, (tmp_path / "autograde.log").read_text()[-3000:]
    assert gradebook_snapshot(course, students) == local
    where = graded_where(stream.data)
    lost = held[0].split("-")[1]
    assert where[lost] and doomed_address not in where[lost]  # graded again, by a worker that lived
    assert set(where) == set(students)


def test_a_worker_whose_machine_cannot_confine_refuses_each_student_by_name(released_course, tmp_path):
    course = tmp_path / "course"
    students = class_course(course, 2, released=released_course)
    with dask_cluster.running_cluster(tmp_path / "dask") as refusing:  # its only worker cannot confine
        refusing.start_worker("unconfinable", KIT_CONFINEMENT="none")  # forces autograder.sandbox's refusal
        refusing.wait_for(["unconfinable"])
        result = autograde(course, KIT_GRADING_SCHEDULER=refusing.address)  # this machine could confine
    assert result.returncode != 0
    assert result.stderr.count(REFUSAL) == len(students), result.stderr[-3000:]
    for student in students:
        assert f"for student '{student}'" in result.stderr
        assert not (course / "autograded" / student).exists()  # never graded unconfined


# The fixtures of issue 22 that a bounded grader ends at once; those that wait out a case's deadline (70 s each
# with the kit's limits) are graded with short limits by tests/confinement/test_adversarial.py.
ATTACKS = ("floods_the_reply_pipe", "sends_frames_just_under_the_limit", "leaves_a_process_that_replies")


def with_an_attacker(course: Path) -> set[str]:
    """Add the student "mallory", whose notebooks carry every one of ATTACKS, and whose softmax is imported from
    a module handed in beside them (keeps_an_answer_in_a_module_of_its_own: shipped to the cluster too); returns
    the cells it must lose."""
    fixtures = {name: FIXTURES[name] for name in ATTACKS}
    folder = course / "submitted" / "mallory" / ASSIGNMENT
    splice({cell: source for f in fixtures.values() for cell, source in cells_of(FIXTURE_FILES / f"{f.name}.py").items()},
           folder)
    keeps_an_answer_in_a_module_of_its_own(folder)
    shutil.copy(EXAMPLE / "ada" / ASSIGNMENT / "timestamp.txt", folder)
    return set.union(*(f.lost_cells(GRADED) for f in fixtures.values()))


def scores_of(course: Path, student: str) -> dict[str, tuple[float, float]]:
    """grade id → (auto score, max score) of one student's code cells in the course's gradebook (none yet: {})."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url(course), COURSE_ID) as gb:
        try:
            submission = gb.find_submission(ASSIGNMENT, student)
        except MissingEntry:
            return {}
        return {g.name: (g.auto_score, g.max_score) for nb in submission.notebooks for g in nb.grades
                if g.cell_type == "code"}


@pytest.mark.parametrize("where", ["workers", "cluster"])
def test_a_student_who_attacks_the_grader_loses_only_their_own_points_with_workers_and_on_the_cluster(
        where, graded_one_at_a_time, released_course, request, tmp_path):
    _, local = graded_one_at_a_time
    course = tmp_path / "course"
    students = class_course(course, 2, released=released_course)
    lost = with_an_attacker(course)
    result = autograde(course, **({"KIT_GRADING_WORKERS": "2"} if where == "workers" else
                                  {"KIT_GRADING_SCHEDULER": request.getfixturevalue("cluster").address}))
    assert result.returncode == 0, result.stderr[-3000:]
    assert gradebook_snapshot(course, students) == {key: v for key, v in local.items() if key[0] in students}
    scores = scores_of(course, "mallory")
    assert set(scores) == GRADED
    assert {cell: score for cell, (score, _) in scores.items() if cell in lost} == dict.fromkeys(lost, 0)
    assert {cell: score for cell, (score, most) in scores.items() if cell not in lost and score != most} == {}


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_a_scheduler_nobody_answers_at_is_one_line_and_touches_no_student(released_course, tmp_path):
    from nbgrader.api import Gradebook

    with socket.socket() as probe:  # a port that was free a moment ago, and that nobody listens on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    course = tmp_path / "course"
    students = class_course(course, 2, released=released_course)
    before = tree_digest(course / "submitted")
    result = autograde(course, KIT_GRADING_SCHEDULER=address)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1 and address in errors[0] and "Cannot reach the Dask scheduler" in errors[0], result.stderr
    assert tree_digest(course / "submitted") == before
    assert not (course / "autograded").exists()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert not gb.find_assignment("attention").submissions
        assert not {s.id for s in gb.students} & set(students)
