"""`nbgrader generate_feedback` on every core: several students' pages at once.

Each page is an HTML export of a notebook, seconds of single-threaded work,
and the gradebook is only read: `ParallelGenerateFeedback` hands each
student's folder to a worker process forked from nbgrader's
(one_student_per_worker.py), where nbgrader's own loop writes that student's
pages, on either grading path. Each student's pages are whole or finished by
the next plain run, and a student whose autograde was interrupted gets no
pages until it is finished (whole_or_absent.py). A hand-in none of whose
notebooks can be read gets a page per notebook saying why (unreadable_hand_in.py).
"""

from __future__ import annotations

from nbgrader.converters import GenerateFeedback, NbGraderException
from traitlets import Integer

from kit.nbgrader_glue.engines import shared_engines
from kit.nbgrader_glue.one_student_per_worker import OneStudentPerWorker
from kit.nbgrader_glue.per_student import one_read_per_student
from kit.nbgrader_glue.unreadable_hand_in import UnreadableHandInPages
from kit.nbgrader_glue.whole_or_absent import WholeOrAbsent


class ParallelGenerateFeedback(UnreadableHandInPages, OneStudentPerWorker, WholeOrAbsent, GenerateFeedback):
    needs_whole_input = "autograde"
    workers = Integer(0, help="Students whose feedback is written at once, each in a worker process of its own; "
                              "0: one per core, 1: nbgrader's own serial loop.").tag(config=True)

    def init_notebooks(self) -> None:
        """nbgrader's, but for the students whose hand-in is unreadable whole: their pages are the kit's (and a
        command with no other student to convert has nothing to fail on)."""
        self._unreadable = self.unreadable_hand_ins()
        try:
            super().init_notebooks()
        except NbGraderException:
            if not self._unreadable:
                raise
            self.assignments, self.left_out = {}, {}
        self.assignments = {folder: notebooks for folder, notebooks in self.assignments.items()
                            if self.student_of(folder) not in self._unreadable}

    def convert_here(self) -> None:
        with one_read_per_student():  # a student's grades read by their first page (get_grades.py)
            GenerateFeedback.convert_notebooks(self)

    def convert_notebooks(self) -> None:
        self.write_unreadable_pages(self._unreadable)
        workers = self.worker_count()
        with shared_engines():
            if workers <= 1 or len(self.assignments) <= 1:
                return self.convert_one_by_one()
            self.convert_in_workers(workers, lambda failed: ((folder, None) for folder in sorted(self.assignments)))
