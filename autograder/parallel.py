"""`nbgrader autograde` on every core: several students at once, each in a worker process.

nbgrader's Autograde converter works through the students one after another
in one process. `ParallelAutograde` hands each student's folder to a pool of
worker processes forked from nbgrader's own (each inherits its configuration
and opens gradebook sessions of its own). In a worker, nbgrader's unchanged
loop autogrades that one student: sanitizing, the kit's confined grading
(GradeOutOfProcess: one child process per student), SaveAutoGrades, late
penalties, the autograded notebooks. With a Dask scheduler configured
(`scheduler`), the grading proper runs on the cluster's workers instead
(autograder.cluster): each student's report comes back as data, and a worker
process here runs nbgrader's loop with it (`_convert_one`; GradeOutOfProcess
then uses the report instead of grading). This machine alone writes the
gradebook, and runs no student's code.

- Gradebook writes: SQLite takes one writer at a time, so there the steps that
  write (registering the student and submission, SaveAutoGrades,
  AssignLatePenalties) take turns under a file lock beside the database; on a
  database server they run at once.
- A student nbgrader cannot grade is logged as nbgrader logs it, the others go
  on, and the command ends with nbgrader's error as a serial run does. A worker
  process that dies takes only the students it had with it: they are tried
  again in a fresh pool (MAX_TRIES in all), with the cluster's report if there
  was one (never graded here instead). A student the cluster could not grade
  is logged and failed the same way.
- Each student's grades are committed as nbgrader commits them, so an
  interrupted run loses no grade already recorded.
- nbgrader's own work per notebook costs less: every Gradebook it opens during
  the run borrows one engine per process (autograder/gradebook_engines.py:
  never a parent's in a forked worker), and the hidden cases are built once
  here before the workers fork (each would otherwise build them again).

`nbgrader generate_feedback` writes several students' pages at once the same
way (`ParallelGenerateFeedback`: an HTML export per notebook, the gradebook
only read), on either grading path.

nbgrader's apps name their converter classes in code, not in configuration:
`install()` (called by nbgrader_config.py) puts the kit's in their place, so
the plain `nbgrader autograde` and `nbgrader generate_feedback` get them.
"""

from __future__ import annotations

import fcntl
import glob
import multiprocessing
import os
import re
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path

from nbgrader.converters import Autograde, GenerateFeedback, NbGraderException
from nbgrader.preprocessors import AssignLatePenalties, SaveAutoGrades
from nbgrader.utils import rmtree
from sqlalchemy.engine import make_url
from traitlets import Integer, Unicode

from autograder.cases import hidden_cases
from autograder.grade import Report, graded_cells
from autograder.handed_in import set_aside_unreadable
from autograder.gradebook_engines import shared_engines
from autograder.nbgrader_plugin import GradeOutOfProcess, graded_elsewhere
from autograder.sandbox import IF_AVAILABLE, REQUIRED

MAX_TRIES = 3  # a student whose worker process died is tried again, up to this many times in all

_converter: ParallelAutograde | None = None  # set in nbgrader's process before the workers fork from it


@contextmanager
def gradebook_writes(db_url: str):
    """Hold the gradebook's writer lock while the block writes (SQLite only: a server takes writers at once)."""
    url = make_url(db_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        yield
        return
    with open(f"{url.database}.writer", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the block ends, or when the process dies
        yield


class SaveAutoGradesInTurn(SaveAutoGrades):
    """nbgrader's SaveAutoGrades, one writer at a time on SQLite."""

    def preprocess(self, nb, resources):
        with gradebook_writes(resources["nbgrader"]["db_url"]):
            return super().preprocess(nb, resources)


class AssignLatePenaltiesInTurn(AssignLatePenalties):
    """nbgrader's AssignLatePenalties, one writer at a time on SQLite."""

    def preprocess(self, nb, resources):
        with gradebook_writes(resources["nbgrader"]["db_url"]):
            return super().preprocess(nb, resources)


class OneStudentPerWorker:
    """What the kit's two parallel converters share: students' folders handed to worker processes
    forked from nbgrader's, one student at a time each (`convert_here`: nbgrader's own loop)."""

    def convert_here(self) -> None:
        raise NotImplementedError

    def worker_count(self) -> int:
        """The `workers` setting, 0 meaning one per core this process may use."""
        return self.workers or len(os.sched_getaffinity(0))

    def student_of(self, folder: str) -> tuple[str, str]:
        """(student, assignment) of a submitted folder."""
        regexp = self._format_source("(?P<assignment_id>.*)", "(?P<student_id>.*)", escape=True)
        found = re.match(regexp, folder)
        return found["student_id"], found["assignment_id"]

    def _in_workers(self, workers: int, pending: list[str], reports: dict[str, dict], failed: list[str],
                    tries: dict[str, int]) -> None:
        """Convert every folder of `pending` in pools of `workers` processes, a pool again for those
        whose process died; adds those that could not be converted to `failed`."""
        global _converter
        _converter = self
        while pending:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                pending = self._convert_in(pool, ((f, reports.get(f)) for f in pending), failed, tries)
            if pending:
                self.log.warning("A worker process ended; converting again: %s", ", ".join(pending))

    def _convert_in(self, pool, ready, failed: list[str], tries: dict[str, int]) -> list[str]:
        """Convert every (folder, report or None) of `ready` in the pool as it comes; adds the folders
        that could not be converted to `failed`; returns those to try again (their worker process died)."""
        futures, again = {}, []
        for folder, report in ready:
            try:
                futures[pool.submit(_convert_one, folder, self.assignments[folder], report)] = folder
            except BrokenProcessPool:  # a worker process died while reports were still coming in
                again.append(folder)
        for future in as_completed(futures):
            folder = futures[future]
            try:
                if not future.result():
                    failed.append(folder)
            except BrokenProcessPool:
                tries[folder] = tries.get(folder, 1) + 1
                (again if tries[folder] <= MAX_TRIES else failed).append(folder)
        return sorted(again)

    def _fail_for(self, failed: list[str]) -> None:
        """End as nbgrader's serial loop ends when students could not be converted."""
        if not failed:
            return
        for folder in sorted(failed):
            student, assignment = self.student_of(folder)
            self.log.error("There was an error processing assignment '%s' for student '%s'", assignment, student)
        self.log.error("Please see the errors logged above for each of them.")
        raise NbGraderException("some students could not be converted")


class ParallelAutograde(OneStudentPerWorker, Autograde):
    workers = Integer(0, help="Students autograded at once, each in a worker process of its own; "
                              "0: one per core, 1: nbgrader's own serial loop.").tag(config=True)
    scheduler = Unicode("", help="Address of a Dask scheduler (tcp://host:8786) whose workers do the grading "
                                 "proper (autograder.cluster); empty: this machine grades.").tag(config=True)

    def init_notebooks(self) -> None:
        """nbgrader's, once each handed-in notebook it could not read is set aside beside itself: such a
        notebook scores as missing, and the student's other notebooks are graded (nbgrader's own loop would
        fail the student and delete their autograded folder, grading report included)."""
        for folder in sorted(glob.glob(self._format_source(self.coursedir.assignment_id, self.coursedir.student_id))):
            for notebook, why in set_aside_unreadable(Path(folder)).items():
                self.log.warning("%s/%s set aside (%s.unreadable, kept) and scored as missing: %s",
                                 folder, notebook, notebook, why)
        super().init_notebooks()

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        with gradebook_writes(self.coursedir.db_url):
            super().init_assignment(assignment_id, student_id)

    def convert_here(self) -> None:
        Autograde.convert_notebooks(self)

    def convert_notebooks(self) -> None:
        with shared_engines():  # one gradebook engine per process for the whole run (autograder/gradebook_engines.py)
            self._convert_notebooks()

    def _convert_notebooks(self) -> None:
        global _converter
        workers = self.worker_count()
        if not self.scheduler and (workers <= 1 or len(self.assignments) <= 1):
            return super().convert_notebooks()
        _converter = self
        if not self.scheduler:
            self._build_hidden_cases()  # once here, not again in every worker forked from this process
        pending, failed, tries, reports = sorted(self.assignments), [], {}, {}
        if self.scheduler:
            pending = self._autograde_on_cluster(workers, reports, failed, tries)
        self._in_workers(workers, pending, reports, failed, tries)
        self._fail_for(failed)

    def _build_hidden_cases(self) -> None:
        """Build (and cache in this process) the hidden cases of every cell this run grades."""
        assignments = {self.student_of(folder)[1] for folder in self.assignments}
        for assignment in assignments:
            source = Path(self.coursedir.format_path(self.coursedir.source_directory, ".", assignment))
            for _, grade_id, _ in graded_cells(source):
                kind, name = grade_id.split("_", 1)
                if kind == "hidden":
                    try:
                        hidden_cases(name)
                    except Exception:  # left to each student's grading, which reports it as today
                        self.log.debug("hidden cases of %s not built ahead", name, exc_info=True)

    def _autograde_on_cluster(self, workers: int, reports: dict[str, dict], failed: list[str],
                              tries: dict[str, int]) -> list[str]:
        """Grade every student on the Dask cluster, each one's report autograded here as it comes back (and
        kept in `reports`); adds those that could not be graded to `failed`; returns those to write again."""
        from autograder.cluster import ClusterGrading, SchedulerUnreachable

        grading = GradeOutOfProcess(config=self.config)
        confine = IF_AVAILABLE if grading.unconfined else REQUIRED
        submissions = {}
        for folder in self.assignments:
            student, assignment = self.student_of(folder)
            submissions[folder] = student, Path(self.coursedir.format_path(self.coursedir.source_directory, ".",
                                                                           assignment))
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            pool.submit(os.getpid).result()  # its processes fork now, before the Dask client starts threads
            try:
                cluster = ClusterGrading(self.scheduler, self.log)
            except SchedulerUnreachable as e:
                self.log.error("%s", e)
                raise NbGraderException(str(e)) from None
            with cluster:
                def ready():
                    for folder, report in cluster.graded(submissions, confine, grading.budget):
                        if isinstance(report, str):
                            self.log.error("There was an error processing assignment: %s (on the Dask cluster: %s)",
                                           folder, report)
                            failed.append(folder)
                        else:
                            reports[folder] = report
                            yield folder, report
                return self._convert_in(pool, ready(), failed, tries)


def _convert_one(folder: str, notebooks: list[str], report: dict | None) -> bool:
    """In a worker process: nbgrader's own loop on one student's folder (with the cluster's grading
    `report`, if any); True if it was converted."""
    converter = _converter  # this process's own copy, forked from nbgrader's
    converter.assignments = {folder: notebooks}
    if report is not None:
        graded_elsewhere(*converter.student_of(folder), Report.from_plain(report))
    try:
        converter.convert_here()
    except NbGraderException:
        return False  # nbgrader has logged why
    except (Exception, SystemExit):  # nbgrader's loop lets these out (a bad timestamp exits): this student only
        converter.log.error("There was an error processing assignment: %s\n%s", folder, traceback.format_exc())
        student, assignment = converter.student_of(folder)
        if os.path.exists(converter._format_dest(assignment, student)):  # as nbgrader does for a failed student
            rmtree(converter._format_dest(assignment, student))
        return False
    return True


class ParallelGenerateFeedback(OneStudentPerWorker, GenerateFeedback):
    """nbgrader's GenerateFeedback, several students' pages at once (each page is an HTML export of a
    notebook, seconds of single-threaded work; the gradebook is only read)."""
    workers = Integer(0, help="Students whose feedback is written at once, each in a worker process of its own; "
                              "0: one per core, 1: nbgrader's own serial loop.").tag(config=True)

    def convert_here(self) -> None:
        GenerateFeedback.convert_notebooks(self)

    def convert_notebooks(self) -> None:
        workers = self.worker_count()
        with shared_engines():
            if workers <= 1 or len(self.assignments) <= 1:
                return super().convert_notebooks()
            failed: list[str] = []
            self._in_workers(workers, sorted(self.assignments), {}, failed, {})
            self._fail_for(failed)


def install(autograde: bool = True) -> None:
    """Make `nbgrader generate_feedback` use ParallelGenerateFeedback, and `nbgrader autograde`
    ParallelAutograde (not with `autograde=False`: nbgrader's stock grading path)."""
    import nbgrader.apps.autogradeapp as autograde_app
    import nbgrader.apps.generatefeedbackapp as feedback_app

    if autograde:
        autograde_app.Autograde = ParallelAutograde
    feedback_app.GenerateFeedback = ParallelGenerateFeedback
