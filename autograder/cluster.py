"""Grading across machines, on Dask distributed.

With a scheduler configured (course.toml `[grading] scheduler`, or the
environment variable KIT_GRADING_SCHEDULER), `nbgrader autograde` sends each
submission to the cluster as data: a zip archive of the student's notebooks
(and the modules handed in beside them, autograder/student_modules.py) and
one of the assignment's source folder, with the task itself (nothing is
scattered ahead, so a worker that dies takes no shared data with it). On the
worker, `grade_on_worker` grades it in a process forked for that student from
a grading process the worker keeps (`python -m autograder.cluster_task`, which
loads the grader and builds the hidden cases once; `grade_submission`, the
same confined child per student as on one machine) and returns the plain report
(`Report.plain`). Workers need no shared filesystem and no database: the
machine that runs `nbgrader autograde` alone writes the gradebook, from the
reports, as they come back (kit/nbgrader_glue/autograde.py).

- Confinement is decided on the worker, for each student: where the worker's
  machine allows none, that student fails with the refusal (never graded
  unconfined unless the course says `unconfined = true`).
- A worker that dies mid-student loses nothing: the scheduler gives its
  student to another worker, up to `distributed.scheduler.allowed-failures`
  (3 by default) deaths per student; after that the student fails with
  KilledWorker. A student that fails for good is reported for that student,
  and the others go on.
- A scheduler nobody answers at is one line (`SchedulerUnreachable`) before
  any student's work is touched.
- At most IN_FLIGHT_PER_THREAD submissions per worker thread are sent ahead:
  the scheduler holds each one's data (about 1 MB) until it is graded, so a
  class of 1,500 never sits in its memory at once.

Workers run the kit from a clone of it with its environment (the same image,
or `pip install -e '.[cluster]'`): the grading process holds the reference
(hidden cases' expected values, the stand-ins of judge.BUILT_ON), and the
confinement hides that clone from the student's child.
"""

from __future__ import annotations

import json
import pickle
import queue
import socket
import subprocess
import sys
import time
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import astuple
from io import BytesIO
from itertools import islice
from pathlib import Path

from autograder.bounded_pipe import BoundedReader, PastDeadline, TooLong
from autograder.budget import GraderBudget
from autograder.student_modules import student_modules

IN_FLIGHT_PER_THREAD = 2
CONNECT_SECONDS = 60
START_SECONDS = 600  # a grading process's start (imports, the hidden cases) on a loaded machine
# Dask's defaults (30 s to connect, 30 s of TCP silence, 5 minutes without a worker's heartbeat) assume
# idle machines. Grading machines are loaded by design, and a process starved of CPU for tens of
# seconds on a shared node must not be taken for dead: a dropped client ends the run, a dropped worker
# costs its student a second grading. Set here for the grading machine's client; DASK_ENVIRONMENT gives
# the same to `dask scheduler` and `dask worker` (README: Running a large course). The price: a machine
# that vanishes without closing its connections is noticed after worker-ttl, not 5 minutes.
DASK_SETTINGS = {
    "distributed.comm.timeouts.connect": f"{CONNECT_SECONDS}s",
    "distributed.comm.timeouts.tcp": "120s",
    "distributed.scheduler.worker-ttl": "10 minutes",
}
DASK_ENVIRONMENT = {"DASK_" + key.upper().replace(".", "__").replace("-", "_"): value
                    for key, value in DASK_SETTINGS.items()}
WHERE = "course.toml [grading] scheduler, or KIT_GRADING_SCHEDULER"


class SchedulerUnreachable(RuntimeError):
    """No Dask scheduler answers at the configured address (one line)."""


class GradingFailed(RuntimeError):
    """A worker could not grade a submission (its machine allows no confinement, or the grading failed)."""


def folder_archive(folder: Path, pattern: str = "*", subfolders: bool = False, extra: dict[str, bytes] = {}) -> bytes:
    """The files in `folder` matching `pattern` (with `subfolders`, those below it too, such as the
    source's judge/ package), no caches, and the `extra` files (name → bytes), as a zip archive of paths
    relative to `folder`."""
    archive = BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as files:
        for path in sorted(folder.rglob(pattern) if subfolders else folder.glob(pattern)):
            if path.is_file() and "__pycache__" not in path.parts:
                files.write(path, path.relative_to(folder).as_posix())
        for name, data in extra.items():
            files.writestr(name, data)
    return archive.getvalue()


_idle_graders: queue.SimpleQueue[subprocess.Popen] = queue.SimpleQueue()  # this worker's grading processes at rest


def _a_grading_process() -> subprocess.Popen:
    """An idle grading process of this worker (autograder.cluster_task), or a new one."""
    while True:
        try:
            process = _idle_graders.get_nowait()
        except queue.Empty:
            return subprocess.Popen([sys.executable, "-m", "autograder.cluster_task"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # stderr: the worker's log
        if process.poll() is None:
            return process


def grade_on_worker(submission: bytes, source: bytes, confine: str,
                    budget: tuple = astuple(GraderBudget())) -> dict:
    """On a Dask worker: the plain report of one submission (archives from folder_archive), graded by
    one of this worker's grading processes (autograder.cluster_task: a fresh process forked for each
    student), so that this worker's event loop and heartbeats never wait for a student. A grading
    process that has not replied within the student's budget on the clock (and time to start) is ended.
    budget: GraderBudget's fields, as plain numbers (the scheduler unpickles a task's arguments, and
    need not have the kit)."""
    from autograder.cluster_task import MAX_REPORT_BYTES, SLACK_SECONDS, receive, send

    budget = GraderBudget(*budget)
    process = _a_grading_process()
    waited = budget.wall_seconds + SLACK_SECONDS + START_SECONDS
    deadline = time.monotonic() + waited
    try:
        send(process.stdin.fileno(), pickle.dumps((submission, source, confine, budget)), deadline)
        reply = receive(BoundedReader(process.stdout.fileno(), MAX_REPORT_BYTES), deadline)
    except OSError:  # its pipe broke: it died
        reply = None
    except (PastDeadline, TooLong):
        process.kill()
        process.wait()
        raise GradingFailed(f"{_here()}: the grading process sent no report within {waited:g} s") from None
    if reply is None:
        process.kill()
        raise GradingFailed(f"{_here()}: the grading process ended (exit code {process.wait()})")
    _idle_graders.put(process)
    kind, value = json.loads(reply)
    if kind == "graded":
        return value
    raise GradingFailed(f"{_here()}: {value}" if kind == "refused" else f"{_here()}: grading failed: {value}")


def _here() -> str:
    from distributed import get_worker

    return f"on the Dask worker {get_worker().address} ({socket.gethostname()})"


def connect(address: str):
    """A Dask client of the scheduler at `address`, with DASK_SETTINGS; SchedulerUnreachable if none answers."""
    try:
        import dask
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        raise SchedulerUnreachable(f"Grading on the Dask scheduler {address} ({WHERE}) needs the package "
                                   "`distributed` on this machine: pip install -e '.[cluster]'") from None
    dask.config.set(DASK_SETTINGS)  # for this process's whole run: comms are opened (and reopened) throughout
    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):  # nobody listening is known at once, not after CONNECT_SECONDS of retries
            socket.create_connection(parse_host_port(location, 8786), timeout=CONNECT_SECONDS).close()
        return Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise SchedulerUnreachable(f"Cannot reach the Dask scheduler {address} ({WHERE}): {why}. "
                                   "No student's work was touched.") from None


class ClusterGrading:
    """The grading machine's side of one autograde run: submissions out, plain reports back."""

    def __init__(self, address: str, log):
        self.client = connect(address)
        self.log = log

    def __enter__(self) -> ClusterGrading:
        return self

    def __exit__(self, *exc) -> None:
        self.client.close()

    def _room(self, running) -> int:
        """How many more submissions to send now: IN_FLIGHT_PER_THREAD per worker thread, as workers come and go."""
        threads = sum(self.client.nthreads().values())
        return IN_FLIGHT_PER_THREAD * max(1, threads) - running.count()

    def graded(self, submissions: dict[str, tuple[str, Path]], confine: str,
               budget: GraderBudget = GraderBudget()) -> Iterator[tuple[str, dict | str]]:
        """(folder, plain report), or (folder, why it could not be graded), for every submitted folder of
        `submissions` (folder → (student id, the assignment's source folder)), as the workers finish them,
        each graded within `budget`."""
        from distributed import as_completed

        threads = self.client.nthreads()
        self.log.info("Grading %d submissions on the Dask scheduler %s: %d workers, %d threads",
                      len(submissions), self.client.scheduler.address, len(threads), sum(threads.values()))
        if not threads:
            self.log.warning("The Dask scheduler has no workers yet: the students wait until one joins")
        sources = {source: folder_archive(source, subfolders=True) for _, source in submissions.values()}  # made once, sent with each
        waiting = iter(sorted(submissions.items()))
        folder_of = {}
        running = as_completed(loop=self.client.loop)

        def send_more() -> None:
            for folder, (student, source) in islice(waiting, max(0, self._room(running))):
                handed_in = folder_archive(Path(folder), "*.ipynb", extra=student_modules(Path(folder), source))
                future = self.client.submit(grade_on_worker, handed_in, sources[source],
                                            confine, astuple(budget), key=f"grade-{student}-{uuid.uuid4().hex[:8]}")
                folder_of[future] = folder
                running.add(future)

        send_more()
        for future in running:
            folder = folder_of.pop(future)
            try:
                result = future.result()
            except Exception as e:
                result = _why(e)
            future.release()
            send_more()
            yield folder, result


def _why(error: Exception) -> str:
    """A failed student's reason, in words."""
    from distributed import KilledWorker

    if isinstance(error, GradingFailed):
        return str(error)
    if isinstance(error, KilledWorker):
        return ("every Dask worker that took this student died while grading it "
                f"(distributed.scheduler.allowed-failures): {error}")
    return f"{type(error).__name__}: {error}"
