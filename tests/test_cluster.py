"""Grading across machines (autograder/cluster.py): `nbgrader autograde` through a Dask scheduler and
two workers, separate processes on 127.0.0.1, gives the gradebook local grading gives, even when a
worker is killed part-way; a worker whose machine cannot confine refuses each student it takes; a
scheduler nobody answers at is one line and touches no student's work."""

from __future__ import annotations

import hashlib
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from autograder.grade import REPORT_FILE
from autograder.sandbox import REFUSAL, UNCONFINED
from kit import nbgrader_cli
from tests.course_copy import autograde, class_course, gradebook_snapshot
from tests import dask_cluster

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
