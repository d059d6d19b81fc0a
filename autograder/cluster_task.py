"""A Dask worker's grading process: `python -m autograder.cluster_task`.

A Dask worker (autograder.cluster.grade_on_worker) starts one of these per
thread the first time it grades, and keeps it. The process loads the grader
and builds every exercise's hidden cases once; then, for each submission it is
sent, it forks a process that grades that one student (`grade_submission`,
the same confined child per student as on one machine). No two students share
a grading process, and none pays again for the imports and the cases (about
3 s of CPU each). Grading never runs in the worker's own process, whose event
loop must keep answering the scheduler's heartbeats however long a student
takes.

The worker and this process talk in frames (an 8-byte length, then the bytes)
on this process's stdin and stdout, one submission at a time:
  request: a pickle of (submission, source, confine, budget), written by the
           worker (never by a student): zip archives of the student's notebooks
           and of the assignment's source folder (autograder.cluster.folder_archive),
           and confine and budget as grade_submission takes them;
  reply:   JSON ["graded", plain report (Report.plain)], ["refused", why: the
           machine allows no confinement and the course did not opt out], or
           ["failed", why]. JSON, not a pickle: a reply is made in a process
           that handles a student's work, so it must not be able to run code
           in the worker.
The worker's end of stdin closing (it ended, or was killed) ends this process
and the grading under way. The student's process is read as any process that
ran student code is (autograder/bounded_pipe.py): a report over
MAX_REPORT_BYTES, or one not there SLACK_SECONDS after its budget's time on
the clock, fails that student alone.
"""

from __future__ import annotations

import ctypes
import json
import os
import pickle
import signal
import struct
import sys
import time
import traceback
import zipfile
from io import BytesIO
from pathlib import Path

from autograder import scratch
from autograder.bounded_pipe import BoundedReader, Interrupted, PastDeadline, TooLong, write_all
from autograder.budget import GraderBudget
from autograder.cases import build_every_hidden_case
from autograder.grade import grade_submission
from autograder.grading_child import remove_tree
from autograder.sandbox import PR_SET_PDEATHSIG, NoConfinement

LENGTH = struct.Struct("!Q")
MAX_REQUEST_BYTES = 1 << 30  # a student's notebooks and the assignment's source, zipped (about 1 MB)
MAX_REPORT_BYTES = 64 << 20  # a student's plain report (some kB)
# Unpacking, the confinement's probe, the fork: what a student's grading takes besides its budget's clock.
SLACK_SECONDS = 120


def send(fd: int, data: bytes, deadline: float | None = None) -> None:
    write_all(fd, LENGTH.pack(len(data)) + data, deadline)


def receive(reader: BoundedReader, deadline: float | None = None) -> bytearray | None:
    """The next frame's bytes; None when the stream ends (before or inside a frame). A frame longer
    than the reader's limit is refused (TooLong) from its length alone; PastDeadline as the reader raises it."""
    head = reader.exactly(LENGTH.size, deadline)
    if head is None:
        return None
    (size,) = LENGTH.unpack(head)
    return reader.exactly(size, deadline)


def unpack(archive: bytes, folder: Path) -> Path:
    """Write a zip archive's files into `folder` (made here); returns it."""
    folder.mkdir(parents=True)
    with zipfile.ZipFile(BytesIO(archive)) as files:
        files.extractall(folder)  # names made by folder_archive: paths relative to the folder it read
    return folder


def grade(submission: bytes, source: bytes, confine: str, budget: GraderBudget) -> list:
    """The reply for one submission (see the module's docstring)."""
    folder = scratch.make(scratch.CLUSTER)  # what a killed worker leaves, the next grading removes
    try:
        submitted = unpack(submission, folder / "submission")
        # A course's layout (course/source/<assignment>): the grader hides the course folder from the child.
        assignment = unpack(source, folder / "course" / "source" / "assignment")
        try:
            return ["graded", grade_submission(submitted, assignment, confine, budget).plain()]
        except NoConfinement as refusal:
            return ["refused", str(refusal)]
    finally:
        remove_tree(folder)


def _grade_here(request: tuple, server: int, out: int) -> None:
    """In the forked process: grade, write the reply to the pipe `out`, and exit (never return)."""
    code = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the server dies: so does this
        if os.getppid() == server:  # else the server died before the line above
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)  # the worker's requests and replies are the server's alone
            os.dup2(2, 1)
            try:
                reply = grade(*request)
            except Exception:
                reply = ["failed", traceback.format_exc()[-2000:]]
            with os.fdopen(out, "wb") as pipe:
                pipe.write(json.dumps(reply).encode())
            code = 0
    finally:
        os._exit(code)


def graded_in_a_fork(request: tuple, requests: int) -> bytes | None:
    """The reply to `request` (grade's arguments), graded in a process forked for it; None if the worker's
    end of the pipe `requests` closed meanwhile (the grading is then killed). The process is killed, and
    its student failed, once it has taken its budget's time on the clock and SLACK_SECONDS more."""
    read_end, write_end = os.pipe()
    server = os.getpid()
    took = request[-1].wall_seconds + SLACK_SECONDS
    deadline = time.monotonic() + took
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _grade_here(request, server, write_end)
    os.close(write_end)
    try:
        # The worker never writes before it has its reply: `requests` readable means its end closed.
        reply = BoundedReader(read_end, MAX_REPORT_BYTES).to_end(deadline, watch=(requests,))
    except Interrupted:
        return _killed(pid, None)
    except PastDeadline:
        return _killed(pid, _failed(f"the student's grading process was still running after {took:g} s"))
    except TooLong:
        return _killed(pid, _failed(f"the student's grading process sent a report over {MAX_REPORT_BYTES >> 20} MiB"))
    finally:
        os.close(read_end)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code == 0 and reply:
        return bytes(reply)
    return _failed(f"the student's grading process exited with code {code}")


def _failed(why: str) -> bytes:
    return json.dumps(["failed", why]).encode()


def _killed(pid: int, reply: bytes | None) -> bytes | None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return reply


def main() -> int:
    build_every_hidden_case()  # shared by every forked grading process
    requests, replies = BoundedReader(sys.stdin.fileno(), MAX_REQUEST_BYTES), sys.stdout.fileno()
    sys.stdout = sys.stderr  # stdout carries the replies alone
    while (request := receive(requests)) is not None:
        reply = graded_in_a_fork(pickle.loads(request), requests.fd)  # a pickle from the worker, never a student
        if reply is None:
            break
        send(replies, reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
