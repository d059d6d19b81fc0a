"""A Dask worker's grading process (autograder/cluster_task.py), driven as the worker drives it: does it
grade student after student in processes of their own, fail only the student whose grading process dies,
and end, with the grading under way, when the worker's end of its pipe closes?"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.cluster import folder_archive
from autograder.cluster_task import receive, send
from autograder.grade import grade_submission
from autograder.sandbox import IF_AVAILABLE
from kit.notebooks import ROOT

SUBMITTED = ROOT / "examples" / "class" / "submitted"
SOURCE = ROOT / "source" / "attention"


def started() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "autograder.cluster_task"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


@pytest.fixture(scope="module")
def server():
    """One grading process for the tests that leave it running, as a worker keeps it."""
    process = started()
    yield process
    process.kill()
    process.wait()


def request(student: str) -> bytes:
    return pickle.dumps((folder_archive(SUBMITTED / student / "attention", "*.ipynb"),
                         folder_archive(SOURCE, subfolders=True), IF_AVAILABLE))


def children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_each_student_is_graded_as_on_one_machine_in_a_process_of_their_own(server):
    pids = []
    for student in ("ada", "bo"):
        send(server.stdin, request(student))
        while not (found := children(server.pid)):  # the student's process, forked for this one
            time.sleep(0.01)
        pids += found
        kind, plain = json.loads(receive(server.stdout))
        assert kind == "graded"
        expected = grade_submission(SUBMITTED / student / "attention", SOURCE, IF_AVAILABLE).plain()
        assert plain == json.loads(json.dumps(expected))
    assert len(set(pids)) == 2 and server.pid not in pids


def test_a_grading_process_that_dies_fails_its_student_alone(server):
    send(server.stdin, request("ada"))
    while not (found := children(server.pid)):
        time.sleep(0.01)
    os.kill(found[0], signal.SIGKILL)
    kind, why = json.loads(receive(server.stdout))
    assert kind == "failed" and "exited with code -9" in why
    send(server.stdin, request("ada"))  # the next student is graded
    assert json.loads(receive(server.stdout))[0] == "graded"


def test_the_worker_going_away_ends_the_grading_under_way():
    server = started()
    send(server.stdin, request("ada"))
    while not (found := children(server.pid)):
        time.sleep(0.01)
    server.stdin.close()  # what the worker's death does to the pipe
    assert server.wait(timeout=60) == 0
    assert not Path(f"/proc/{found[0]}").exists() or "Z" in Path(f"/proc/{found[0]}/stat").read_text().split()[2]
