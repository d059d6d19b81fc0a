"""`nbgrader generate_feedback` on every core: several students' pages at once.

Each page is an HTML export of a notebook, seconds of single-threaded work,
and the gradebook is only read: `ParallelGenerateFeedback` hands each
student's folder to a worker process forked from nbgrader's
(one_student_per_worker.py), where nbgrader's own loop writes that student's
pages, on either grading path. Each student's pages are whole or finished by
the next plain run, and a student whose autograde was interrupted gets no
pages until it is finished (whole_or_absent.py).
"""

from __future__ import annotations

from nbgrader.converters import GenerateFeedback
from traitlets import Integer

from kit.nbgrader_glue.engines import shared_engines
from kit.nbgrader_glue.one_student_per_worker import OneStudentPerWorker
from kit.nbgrader_glue.per_student import one_read_per_student
from kit.nbgrader_glue.whole_or_absent import WholeOrAbsent


class ParallelGenerateFeedback(OneStudentPerWorker, WholeOrAbsent, GenerateFeedback):
    needs_whole_input = "autograde"
    workers = Integer(0, help="Students whose feedback is written at once, each in a worker process of its own; "
                              "0: one per core, 1: nbgrader's own serial loop.").tag(config=True)

    def convert_here(self) -> None:
        with one_read_per_student():  # a student's grades read by their first page (get_grades.py)
            GenerateFeedback.convert_notebooks(self)

    def convert_notebooks(self) -> None:
        workers = self.worker_count()
        with shared_engines():
            if workers <= 1 or len(self.assignments) <= 1:
                return self.convert_one_by_one()
            self.convert_in_workers(workers, lambda failed: ((folder, None) for folder in sorted(self.assignments)))
