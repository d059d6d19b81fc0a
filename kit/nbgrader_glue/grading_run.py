"""The students of one `nbgrader autograde`, and their grading reports.

A `GradingRun` is made by the kit's autograde converter (autograde.py) when it
starts (it checks the confinement the course asks for before anything is read),
given the students of the command once the converter knows them (`enrol`), and
handed to nbgrader's preprocessors in each notebook's resources (`RUN`). `GradeOutOfProcess` asks it for a student's
report; the run grades on the first ask (autograder.grade: one confined child
process per student, the comparison in this process), `threads` students at a
time, the next ones of the run begun as each is asked for (nbgrader goes through
them in order), and writes each report once beside the student's autograded
notebooks; it keeps the last few reports asked for, never the class's. A report made elsewhere (on a Dask cluster) is
given to the run instead (`given`), and then nobody is graded here for it.

In a worker process of autograde.py a run holds one student (`for_one`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from traitlets import Bool, Float, Integer
from traitlets.config import LoggingConfigurable

from autograder import sandbox
from autograder.budget import GraderBudget
from autograder.grade import REPORT_FILE, Report, grade_submission, save_report

RUN = "kit_grading_run"  # the key of the run in a notebook's resources
KEPT_ASKED = 4  # the reports asked for last, kept in memory

Student = tuple[str, str]  # (student id, assignment id)


def check_confinement(unconfined: bool) -> str:
    """The confinement grading will use; exits with the refusal where there is none and the course did not opt out."""
    try:
        how = sandbox.confinement(sandbox.accepting(unconfined))
    except sandbox.NoConfinement as refusal:
        sys.stderr.write(f"{refusal}\n")
        raise SystemExit(2) from None
    if how == sandbox.UNCONFINED:
        sys.stderr.write(f"[kit] GRADING UNCONFINED (course.toml: [grading] unconfined = true): "
                         f"{sandbox.probe()[1]}\n")
    return how


class GradingRun(LoggingConfigurable):
    threads = Integer(os.cpu_count() or 1, help="Students graded at the same time in this process.").tag(config=True)
    unconfined = Bool(False, help="Grade unconfined where the machine allows no confinement "
                                  "(course.toml: [grading] unconfined).").tag(config=True)
    grader_cpu_seconds = Float(GraderBudget.cpu_seconds, help="The grader's CPU seconds per student "
                                                              "(course.toml: [grading] grader_cpu_seconds).").tag(config=True)
    grader_wall_seconds = Float(GraderBudget.wall_seconds, help="The grader's seconds on the clock per student "
                                                                "(course.toml: [grading] grader_wall_seconds).").tag(config=True)
    grader_memory_bytes = Integer(GraderBudget.memory_bytes, help="The grader's memory per student "
                                                                  "(course.toml: [grading] grader_memory_mib).").tag(config=True)
    student_disk_bytes = Integer(GraderBudget.disk_bytes, help="What a student's code may write while it is graded "
                                                               "(course.toml: [grading] student_disk_mib).").tag(config=True)

    def __init__(self, coursedir: CourseDirectory, students: Iterable[Student] = (),
                 given: dict[Student, Report] | None = None, **kwargs):
        super().__init__(**kwargs)
        self.coursedir = coursedir
        self.students = sorted(set(students))
        self._reports: dict[Student, Future] = {}
        for student, report in (given or {}).items():
            self._reports[student] = done = Future()
            done.set_result(report)
        self._saved: set[Student] = set()  # the students whose report this run wrote beside their notebooks
        self._asked: dict[Student, None] = {}  # the students whose reports were asked for, the latest last
        self._pool: ThreadPoolExecutor | None = None

    def check_confinement(self) -> str:
        """The confinement this run will use (check_confinement)."""
        return check_confinement(self.unconfined)

    def __deepcopy__(self, memo) -> GradingRun:
        return self  # nbconvert copies a notebook's resources for each step: every step asks this one run

    @property
    def budget(self) -> GraderBudget:
        return GraderBudget(self.grader_cpu_seconds, self.grader_wall_seconds, self.grader_memory_bytes,
                            self.student_disk_bytes)

    @property
    def confine(self) -> str:
        return sandbox.accepting(self.unconfined)

    def enrol(self, students: Iterable[Student]) -> None:
        """The students of the command, once the converter knows them."""
        self.students = sorted(set(students))

    def source(self, assignment: str) -> Path:
        return Path(self.coursedir.format_path(self.coursedir.source_directory, ".", assignment))

    def for_one(self, student: Student, given: Report | None = None) -> GradingRun:
        """A run of this one student (with the report made elsewhere, if any), for a worker process."""
        return GradingRun(self.coursedir, [student], {student: given} if given else None,
                          parent=self.parent, config=self.config)

    def report(self, student: str, assignment: str) -> Report:
        """The student's report, unless given: graded now, and the next `threads` students of the run begun
        (nbgrader asks for them in order). The last reports asked for are kept (every notebook of a student
        asks); one asked for again later is read back from beside the student's autograded notebooks, where
        it was written once. So the run holds a few students' reports, never the class's."""
        key = (student, assignment)
        autograded = Path(self.coursedir.format_path(self.coursedir.autograded_directory, student, assignment))
        if key not in self._reports:
            if key in self._saved and (autograded / REPORT_FILE).exists():
                return Report.from_plain(json.loads((autograded / REPORT_FILE).read_text()))
            self._begin(key)
            for other in [other for other in self.students if other > key][:self.threads]:
                if other not in self._reports and other not in self._saved:
                    self._begin(other)
        report = self._reports[key].result()
        if key not in self._saved or not (autograded / REPORT_FILE).exists():
            save_report(report, autograded)  # once per student, not again for each of its notebooks
            self._saved.add(key)
        self._asked.pop(key, None)
        self._asked[key] = None
        while len(self._asked) > KEPT_ASKED:  # the oldest asked for: on disk, not kept here
            self._reports.pop(next(iter(self._asked)), None)
            del self._asked[next(iter(self._asked))]
        return report

    def _begin(self, student: Student) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads)
        folder = Path(self.coursedir.format_path(self.coursedir.submitted_directory, *student))
        self._reports[student] = self._pool.submit(grade_submission, folder, self.source(student[1]), self.confine,
                                                   self.budget)
