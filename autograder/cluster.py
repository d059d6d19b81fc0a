"""Grading across machines, on Dask distributed.

With a scheduler configured (course.toml `[grading] scheduler`, or
KIT_GRADING_SCHEDULER), `nbgrader autograde` sends each submission's
notebooks, as bytes, to the cluster's workers; each worker writes them into a
scratch folder of its own, runs `grade_submission` there (the same confined
child per student as on the grading machine) and returns the plain report
(`Report.plain`). Workers need no shared filesystem and no database: the
machine that runs `nbgrader autograde` alone writes the gradebook, from the
reports (autograder.parallel).

A worker runs the kit from a clone of it, as the grading machine does
(`pip install -e`, or the same image): its grading process holds the
reference, which computes the hidden cases' expected values and answers the
stand-ins' calls (judge.BUILT_ON) beside the child, and the confinement hides
that clone from the child. The course's own folders (source/, the
gradebook, other students) are not needed there: the source notebooks travel
as data, once per run, to every worker.

A worker that dies mid-student loses nothing: the scheduler gives its tasks
to another worker (up to `distributed.scheduler.allowed-failures` deaths per
task, 3 by default); a task that fails for good is reported for that student
and the others go on.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Iterator

from autograder.grade import grade_submission

CONNECT_SECONDS = 10


def folder_files(folder: Path, pattern: str = "*") -> dict[str, bytes]:
    """name → bytes of the files directly in `folder` (no caches, no subfolders)."""
    return {p.name: p.read_bytes() for p in sorted(folder.glob(pattern)) if p.is_file()}


def grade_notebooks(notebooks: dict[str, bytes], source: dict[str, bytes]) -> dict:
    """On a worker: grade one submission given as data; returns its plain report."""
    with tempfile.TemporaryDirectory(prefix="attention-cluster-") as scratch:
        folders = {"submission": notebooks, "course/source/assignment": source}
        for name, files in folders.items():
            (Path(scratch) / name).mkdir(parents=True)
            for filename, data in files.items():
                (Path(scratch) / name / Path(filename).name).write_bytes(data)
        return grade_submission(Path(scratch) / "submission", Path(scratch) / "course/source/assignment").plain()


class ClusterGrading:
    """The grading machine's side: one Dask client for one autograde run."""

    def __init__(self, scheduler: str, log):
        from distributed import Client
        from nbgrader.converters import NbGraderException

        self.log = log
        try:
            self.client = Client(scheduler, timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            message = f"Cannot reach the Dask scheduler {scheduler!r}: {e}".splitlines()[0]
            log.error(message)
            raise NbGraderException(message) from None
        self.futures = {}

    def start(self, students: dict[str, str], source: Path) -> None:
        """Send every submitted folder (folder → student) to the cluster, the source once to every worker."""
        [shared] = self.client.scatter([folder_files(source)], broadcast=True, hash=False)
        for folder, student in students.items():
            if folder not in self.futures:
                self.futures[folder] = self.client.submit(
                    grade_notebooks, folder_files(Path(folder), "*.ipynb"), shared, pure=False,
                    key=f"grade-{student}-{len(self.futures)}")
        self.log.info("Sent %d submissions to the Dask scheduler %s", len(students), self.client.scheduler.address)

    def reports(self, folders: list[str]) -> Iterator[tuple[str, dict | Exception]]:
        """(folder, plain report, or the error that stopped it), as the cluster finishes them."""
        from distributed import as_completed

        by_future = {self.futures[f]: f for f in folders}
        for future in as_completed(list(by_future), loop=self.client.loop):
            folder = by_future[future]
            try:
                yield folder, future.result()
            except Exception as e:
                yield folder, e

    def close(self) -> None:
        self.client.close()
