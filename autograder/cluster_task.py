"""One submission graded on a Dask worker, in a process of its own: `python -m autograder.cluster_task`.

A Dask worker (autograder.cluster.grade_on_worker) starts this process for each
student, so that grading (seconds of CPU in the reference and the comparison)
never holds the worker's own process: its event loop keeps answering the
scheduler's heartbeats however long a student takes.

stdin:  a pickle of (submission, source, confine) from the worker (never from a
        student): the submission's notebooks and the assignment's source folder,
        each a zip archive (autograder.cluster.folder_archive); confine as
        grade_submission takes it.
stdout: the plain report (Report.plain) as JSON, nothing else.
exit 3: the machine allows no confinement and the course did not opt out;
        stderr holds the refusal (autograder.sandbox.refusal).
"""

from __future__ import annotations

import ctypes
import json
import os
import pickle
import signal
import sys
import tempfile
import zipfile
from io import BytesIO
from pathlib import Path

from autograder.grade import grade_submission
from autograder.sandbox import PR_SET_PDEATHSIG, NoConfinement

REFUSED = 3


def unpack(archive: bytes, folder: Path) -> Path:
    """Write a zip archive's files into `folder` (made here); returns it."""
    folder.mkdir(parents=True)
    with zipfile.ZipFile(BytesIO(archive)) as files:
        files.extractall(folder)  # names made by folder_archive: paths relative to the folder it read
    return folder


def main() -> int:
    worker = int(sys.argv[1])
    # A worker that dies (killed, out of memory) takes this grading with it: the scheduler gives the student
    # to another worker, and this machine's core is not spent on a report nobody will read.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != worker:
        return 1  # the worker died before the line above
    submission, source, confine = pickle.load(sys.stdin.buffer)
    report_out, sys.stdout = sys.stdout, sys.stderr  # stdout carries the report alone
    with tempfile.TemporaryDirectory(prefix="attention-cluster-") as scratch:
        folder = unpack(submission, Path(scratch) / "submission")
        # A course's layout (course/source/<assignment>): the grader hides the course folder from the child.
        assignment = unpack(source, Path(scratch) / "course" / "source" / "assignment")
        try:
            report = grade_submission(folder, assignment, confine)
        except NoConfinement as refusal:
            sys.stderr.write(f"{refusal}\n")
            return REFUSED
    report_out.write(json.dumps(report.plain()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
