"""`nbgrader autograde` on every core: the kit's converter, one `GradingRun` for the students it grades.

nbgrader's Autograde converter works through the students one after another
in one process. `ParallelAutograde` makes one GradingRun for the students of
the command and hands it to nbgrader's preprocessors in each notebook's
resources (grading_run.py). With `workers` above 1 it hands each student's
folder to a worker process forked from nbgrader's own (worker_pool.py), where
nbgrader's unchanged loop autogrades that one student with a run of that
student: sanitizing, the kit's confined grading (GradeOutOfProcess), the
scores (SaveScoresFromReport, save_scores.py), late penalties, the
autograded notebooks. With a Dask
scheduler configured (`scheduler`), the grading proper runs on the cluster's
workers instead (autograder.cluster): each student's report comes back as
data and is given to that student's run in a worker process here. This
machine alone writes the gradebook, and then runs no student's code.

- Before any student's code runs, the converter checks which confined world
  the machine allows and stops with the refusal where there is none
  (GradingRun.check_confinement; with a scheduler each worker checks its own
  machine, per student), and takes the course's grading lock (lock.py): a
  second autograde on the same gradebook waits for the first.
- Gradebook writes take turns on SQLite (gradebook_turns.py).
- A student nbgrader cannot grade is logged as nbgrader logs it, the others go
  on, and the command ends with nbgrader's error as a serial run does. A
  worker process that dies takes only the students it had with it: they are
  tried again in a fresh pool, with the cluster's report if there was one
  (never graded here instead). A student the cluster could not grade is
  logged and failed the same way.
- Each notebook's grades are committed once its scores are saved, and a
  student's autograded folder is whole or marked unfinished
  (whole_or_absent.py): a run killed part-way loses no grade already
  recorded, and the next plain run finishes every student it had not
  finished, saying so.
- nbgrader's own work per notebook costs less: every Gradebook it opens during
  the run borrows one engine per process (engines.py: never a parent's in a
  forked worker), and the hidden cases are built once here before the workers
  fork (each would otherwise build them again).
"""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.converters import Autograde, NbGraderException
from traitlets import Integer, Unicode

from autograder.cases import hidden_cases, keep_hidden_cases
from autograder.grade import Report
from autograder.handed_in import set_aside_unreadable, under_their_names
from autograder.source_assignment import GradeId, SourceAssignment
from kit.nbgrader_glue.autograde_exporter import AutogradeExporter
from kit.nbgrader_glue.engines import shared_engines
from kit.nbgrader_glue.gradebook_turns import gradebook_writes
from kit.nbgrader_glue.grading_run import RUN, GradingRun
from kit.nbgrader_glue.late import due_date_problem
from kit.nbgrader_glue.lock import grading_lock
from kit.nbgrader_glue.one_student_per_worker import OneStudentPerWorker
from kit.nbgrader_glue.per_student import one_read_per_run, one_read_per_student
from kit.nbgrader_glue.plain_files import not_plain_problem
from kit.nbgrader_glue.reachable import WHERE_SET, shown_url
from kit.nbgrader_glue.timestamp import timestamp_problem
from kit.nbgrader_glue.whole_or_absent import WholeOrAbsent


class LockedAutograde(WholeOrAbsent, Autograde):
    """nbgrader's Autograde holding the course's grading lock while it runs (lock.py), each student's
    autograded folder whole or finished by the next run (whole_or_absent.py)."""

    def start(self) -> None:
        with grading_lock(Path(self.coursedir.root)):
            super().start()


class StockAutograde(LockedAutograde):
    """nbgrader's stock path (KIT_GRADING=in-kernel), saying as it starts that it runs students' code unconfined."""

    def start(self) -> None:
        sys.stderr.write("[kit] GRADING UNCONFINED (KIT_GRADING=in-kernel): nbgrader's stock path runs each notebook "
                         "in a kernel with your rights (it can read the reference, rewrite the course); unset "
                         "KIT_GRADING to confine it\n")
        super().start()


class ParallelAutograde(OneStudentPerWorker, LockedAutograde):
    workers = Integer(0, help="Students autograded at once, each in a worker process of its own; "
                              "0: one per core, 1: nbgrader's own serial loop.").tag(config=True)
    scheduler = Unicode("", help="Address of a Dask scheduler (tcp://host:8786) whose workers do the grading "
                                 "proper (autograder.cluster); empty: this machine grades.").tag(config=True)

    def start(self) -> None:
        self._stop_unless_released()
        why = due_date_problem(Path(self.coursedir.root), self.coursedir.db_url, self.coursedir.course_id,
                               self.coursedir.assignment_id)
        if why:
            self.log.warning("%s", why)
        self._class_run = GradingRun(self.coursedir, parent=self, config=self.config)
        if not self.scheduler:  # with a scheduler no student's code runs here: each worker checks its own machine
            self._class_run.check_confinement()
        super().start()

    def _stop_unless_released(self) -> None:
        """Stop, touching no folder, where the gradebook holds no such assignment (KIT_DB_URL naming a new, empty
        gradebook, say): nbgrader says so only for each student, once their autograded folder is removed."""
        assignment = self.coursedir.assignment_id
        if not assignment or glob.has_magic(assignment):
            return
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                gradebook.find_assignment(assignment)
                return
            except MissingEntry:
                pass
        why = (f"No assignment {assignment!r} in the gradebook {shown_url(self.coursedir.db_url)}, so nothing was "
               f"graded and no folder touched: release it into this gradebook first (`python -m kit.release`), or "
               f"name the gradebook it was released into ({WHERE_SET})")
        self.log.error("%s", why)
        raise NbGraderException(why)

    def ready_folder(self, folder: str) -> str | None:
        """Each handed-in notebook nbgrader could not read set aside beside itself: such a notebook scores as
        missing, and the student's other notebooks are graded (nbgrader's own loop would fail the student and
        delete their autograded folder, grading report included); and a notebook handed in under another name
        copied to its own (`under_their_names`: nbgrader would score it as missing and never say why). Where every
        notebook was set aside, why nothing is graded (nbgrader would say only that it matched no notebook)."""
        unreadable = set_aside_unreadable(Path(folder))
        for notebook, why in unreadable.items():
            self.log.warning("%s/%s set aside (%s.unreadable, kept) and scored as missing: %s",
                             folder, notebook, notebook, why)
        source = SourceAssignment.of(self._class_run.source(Path(folder).name))
        for notebook, what in under_their_names(Path(folder), source).items():
            self.log.warning("%s/%s %s", folder, notebook, what)
        if unreadable and not any(Path(folder).glob("*.ipynb")):
            return ("none of its notebooks can be read, so none is graded (each is kept as <name>.ipynb.unreadable): "
                    + "; ".join(f"{notebook}: {why}" for notebook, why in unreadable.items()))
        return None

    def cannot_convert(self, folder: str) -> str | None:
        """A hand-in that holds links, pipes or devices (plain_files.py: nbgrader would copy and grade what a link
        points to), or whose timestamp.txt nbgrader cannot read (timestamp.py: nbgrader's error is a traceback)."""
        return not_plain_problem(folder) or timestamp_problem(folder)

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        with gradebook_writes(self.coursedir.db_url):
            super().init_assignment(assignment_id, student_id)

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        resources = super().init_single_notebook_resources(notebook_filename)
        resources[RUN] = self.grading_run
        return resources

    def convert_here(self) -> None:
        with one_read_per_student():  # the student's rows' ids read by their first notebook (save_scores.py)
            Autograde.convert_notebooks(self)

    def _init_preprocessors(self) -> None:
        """nbgrader's, which makes every step of a pass anew for each notebook: each made once here, and
        used again for every notebook, as nbconvert uses an exporter's steps (each step takes what it needs
        of a notebook from the notebook and its resources as it starts)."""
        made = self.__dict__.setdefault("_steps", {})
        if self._sanitizing not in made:
            super()._init_preprocessors()
            made[self._sanitizing] = list(self.exporter._preprocessors)
        self.exporter._preprocessors = list(made[self._sanitizing])

    def convert_single_notebook(self, notebook_filename: str) -> None:
        """nbgrader's two passes over a notebook, sanitizing then autograding, the second given the text the
        first wrote (AutogradeExporter.from_written) instead of reading that file back."""
        if not isinstance(self.exporter, AutogradeExporter):
            return super().convert_single_notebook(notebook_filename)
        self.log.info("Sanitizing %s", notebook_filename)
        self._sanitizing = True
        self._init_preprocessors()
        self.log.info("Converting notebook %s", notebook_filename)
        resources = self.init_single_notebook_resources(notebook_filename)
        output, resources = self.exporter.from_filename(notebook_filename, resources=resources)
        self.write_single_notebook(output, resources)

        notebook_filename = os.path.join(self.writer.build_directory, os.path.basename(notebook_filename))
        self.log.info("Autograding %s", notebook_filename)
        self._sanitizing = False
        self._init_preprocessors()
        try:
            with utils.setenv(NBGRADER_EXECUTION="autograde"):
                self.log.info("Converting notebook %s", notebook_filename)
                resources = self.init_single_notebook_resources(notebook_filename)
                output, resources = self.exporter.from_written(output, notebook_filename, resources)
                self.write_single_notebook(output, resources)
        finally:
            self._sanitizing = True

    def convert_notebooks(self) -> None:
        self._class_run.enrol(map(self.student_of, self.assignments))
        self.grading_run = self._class_run
        # one gradebook engine per process for the whole run (engines.py), the released cells read once
        with shared_engines(), one_read_per_run():
            workers = self.worker_count()
            if not self.scheduler and (workers <= 1 or len(self.assignments) <= 1):
                return self.convert_one_by_one()
            if not self.scheduler:
                self._build_hidden_cases()  # once here, not again in every worker forked from this process
            self.convert_in_workers(workers, self._graded_on_cluster if self.scheduler else
                                    lambda failed: ((folder, None) for folder in sorted(self.assignments)))

    def _build_hidden_cases(self) -> None:
        """Build (and cache in this process) the hidden cases of every cell this run grades."""
        for assignment in {assignment for _, assignment in self.grading_run.students}:
            for cell in SourceAssignment.of(self.grading_run.source(assignment)).graded_cells:
                kind, name = GradeId.parse(cell.grade_id)
                if kind == "hidden":
                    try:
                        hidden_cases(name)
                    except Exception:  # left to each student's grading, which reports it as today
                        self.log.debug("hidden cases of %s not built ahead", name, exc_info=True)
        try:
            keep_hidden_cases()  # for the next commands (autograder/case_store.py)
        except Exception:
            self.log.debug("hidden cases not kept", exc_info=True)

    def _graded_on_cluster(self, failed: list[str]):
        """(folder, plain report) of every student, graded on the Dask cluster, as each comes back; adds
        those the cluster could not grade to `failed`."""
        from autograder.cluster import ClusterGrading, SchedulerUnreachable

        run = self.grading_run
        submissions = {folder: (student, run.source(assignment))
                       for folder in self.assignments for student, assignment in [self.student_of(folder)]}
        try:
            cluster = ClusterGrading(self.scheduler, self.log)
        except SchedulerUnreachable as e:
            self.log.error("%s", e)
            raise NbGraderException(str(e)) from None
        with cluster:
            for folder, report in cluster.graded(submissions, run.confine, run.budget):
                if isinstance(report, str):
                    self.log.error("There was an error processing assignment: %s (on the Dask cluster: %s)",
                                   folder, report)
                    failed.append(folder)
                else:
                    yield folder, report

    def prepare_one(self, folder: str, report: dict | None) -> None:
        """In a worker process: the run of this one student, with the cluster's report if there is one."""
        self.grading_run = self._class_run.for_one(self.student_of(folder),
                                                   Report.from_plain(report) if report else None)
