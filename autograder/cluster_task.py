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
  request: a pickle of (submission, source, confine), written by the worker
           (never by a student): zip archives of the student's notebooks and of
           the assignment's source folder (autograder.cluster.folder_archive),
           and confine as grade_submission takes it;
  reply:   JSON ["graded", plain report (Report.plain)], ["refused", why: the
           machine allows no confinement and the course did not opt out], or
           ["failed", why]. JSON, not a pickle: a reply is made in a process
           that handles a student's work, so it must not be able to run code
           in the worker.
The worker's end of stdin closing (it ended, or was killed) ends this process
and the grading under way.
"""

from __future__ import annotations

import ctypes
import json
import os
import pickle
import select
import signal
import struct
import sys
import tempfile
import traceback
import zipfile
from io import BytesIO
from pathlib import Path
from typing import BinaryIO

from autograder.cases import build_every_hidden_case
from autograder.grade import grade_submission
from autograder.sandbox import PR_SET_PDEATHSIG, NoConfinement

LENGTH = struct.Struct("!Q")


def send(stream: BinaryIO, data: bytes) -> None:
    stream.write(LENGTH.pack(len(data)) + data)
    stream.flush()


def receive(stream: BinaryIO) -> bytes | None:
    """The next frame's bytes; None when the stream ends (before or inside a frame)."""
    head = stream.read(LENGTH.size)
    if len(head) < LENGTH.size:
        return None
    (size,) = LENGTH.unpack(head)
    data = stream.read(size)
    return data if len(data) == size else None


def unpack(archive: bytes, folder: Path) -> Path:
    """Write a zip archive's files into `folder` (made here); returns it."""
    folder.mkdir(parents=True)
    with zipfile.ZipFile(BytesIO(archive)) as files:
        files.extractall(folder)  # names made by folder_archive: paths relative to the folder it read
    return folder


def grade(submission: bytes, source: bytes, confine: str) -> list:
    """The reply for one submission (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="attention-cluster-") as scratch:
        folder = unpack(submission, Path(scratch) / "submission")
        # A course's layout (course/source/<assignment>): the grader hides the course folder from the child.
        assignment = unpack(source, Path(scratch) / "course" / "source" / "assignment")
        try:
            return ["graded", grade_submission(folder, assignment, confine).plain()]
        except NoConfinement as refusal:
            return ["refused", str(refusal)]


def _grade_here(request: bytes, server: int, out: int) -> None:
    """In the forked process: grade, write the reply to the pipe `out`, and exit (never return)."""
    code = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the server dies: so does this
        if os.getppid() == server:  # else the server died before the line above
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)  # the worker's requests and replies are the server's alone
            os.dup2(2, 1)
            try:
                reply = grade(*pickle.loads(request))
            except Exception:
                reply = ["failed", traceback.format_exc()[-2000:]]
            with os.fdopen(out, "wb") as pipe:
                pipe.write(json.dumps(reply).encode())
            code = 0
    finally:
        os._exit(code)


def graded_in_a_fork(request: bytes, requests: BinaryIO) -> bytes | None:
    """The reply to `request`, graded in a process forked for it; None if the worker's end of
    `requests` closed meanwhile (the grading is then killed)."""
    read_end, write_end = os.pipe()
    server = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _grade_here(request, server, write_end)
    os.close(write_end)
    reply = b""
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while True:
            ready, _, _ = select.select([pipe, requests], [], [])
            if requests in ready:  # the worker never writes before it has its reply: its end closed
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            chunk = pipe.read(1 << 20)
            if not chunk:
                break
            reply += chunk
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0 and reply:
        return reply
    return json.dumps(["failed", f"the student's grading process exited with code {code}"]).encode()


def main() -> int:
    build_every_hidden_case()  # shared by every forked grading process
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries the replies alone
    while (request := receive(requests)) is not None:
        reply = graded_in_a_fork(request, requests)
        if reply is None:
            break
        send(replies, reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
