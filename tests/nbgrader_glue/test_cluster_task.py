"""A Dask worker's grading process (autograder/cluster_task.py), driven as the worker drives it: does it
grade student after student in processes of their own, fail only the student whose grading process dies,
and end, with the grading under way, when the worker's end of its pipe closes?"""

from __future__ import annotations

import json
import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from autograder.bounded_pipe import BoundedReader
from autograder.budget import GraderBudget
from autograder.cluster import folder_archive
from autograder.cluster_task import MAX_REPORT_BYTES, receive, send
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
                         folder_archive(SOURCE, subfolders=True), IF_AVAILABLE, GraderBudget()))


def reply(server: subprocess.Popen):
    """The server's next reply, read as the worker reads it."""
    return json.loads(receive(BoundedReader(server.stdout.fileno(), MAX_REPORT_BYTES)))


def grading_child(server: subprocess.Popen) -> int:
    """The process the server forked for the submission just sent (while it grades: about a second)."""
    while True:
        found = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        if found:
            return int(found[0])
        assert not select.select([server.stdout], [], [], 0.01)[0], "the reply came before a grading process was seen"


def test_each_student_is_graded_as_on_one_machine_in_a_process_of_their_own(server):
    pids = []
    for student in ("ada", "bo"):
        send(server.stdin.fileno(), request(student))
        pids.append(grading_child(server))  # the student's process, forked for this one
        kind, plain = reply(server)
        assert kind == "graded"
        expected = grade_submission(SUBMITTED / student / "attention", SOURCE, IF_AVAILABLE).plain()
        assert plain == json.loads(json.dumps(expected))
    assert len(set(pids)) == 2 and server.pid not in pids


def test_a_grading_process_that_dies_fails_its_student_alone(server):
    send(server.stdin.fileno(), request("ada"))
    os.kill(grading_child(server), signal.SIGKILL)
    kind, why = reply(server)
    assert kind == "failed" and "exited with code -9" in why
    send(server.stdin.fileno(), request("ada"))  # the next student is graded
    assert reply(server)[0] == "graded"


def test_the_worker_going_away_ends_the_grading_under_way():
    server = started()
    send(server.stdin.fileno(), request("ada"))
    grading = grading_child(server)
    server.stdin.close()  # what the worker's death does to the pipe
    assert server.wait(timeout=60) == 0
    assert not Path(f"/proc/{grading}").exists()  # killed, and reaped by the server


def test_what_a_killed_grading_process_leaves_is_removed_by_the_next_one():
    # Its own temporary folder, open to the confined children (as pytest's own, under a private folder, is not).
    temporary = Path(tempfile.mkdtemp(prefix="cluster-task-tmp-"))
    temporary.chmod(0o755)
    server = subprocess.Popen([sys.executable, "-m", "autograder.cluster_task"], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, env={**os.environ, "TMPDIR": str(temporary)})
    try:
        send(server.stdin.fileno(), request("ada"))
        killed, give_up = grading_child(server), time.monotonic() + 120
        while not (left := sorted(temporary.glob(f"attention-cluster-*-{killed}-*"))):  # named for its process
            assert time.monotonic() < give_up, f"no folder named for the grading process: {list(temporary.iterdir())}"
        os.kill(killed, signal.SIGKILL)
        assert reply(server)[0] == "failed" and all(path.exists() for path in left)
        send(server.stdin.fileno(), request("bo"))
        assert reply(server)[0] == "graded"
        scratch = [*temporary.glob("attention-cluster-*"), *temporary.glob("attention-grading-*")]
        assert scratch == []  # the killed one's, then bo's own, removed
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(temporary, ignore_errors=True)
