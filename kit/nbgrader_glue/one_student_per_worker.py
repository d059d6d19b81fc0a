"""What the kit's two parallel converters share: each student's folder converted in a worker process.

`convert_here` is nbgrader's own loop (over `self.assignments`), given one
student's folder at a time: in a worker process (worker_pool.py), or in this
one, student after student (`convert_one_by_one`, with one worker). A student
nbgrader cannot convert is logged as nbgrader logs it, the others go on (also
where nbgrader's loop would stop the whole class: the gradebook locked past its
wait), and the command ends with nbgrader's error. Students excluded on the
command line (`--CourseDirectory.student_id_exclude`, as the grading service
excludes every student but a round's) are left out from the start, their
folders not even read: nbgrader would skip each in its loop, but the grading
run would grade them all first, and each round would read the whole class.
"""

from __future__ import annotations

import glob
import os
import re
import traceback
from collections.abc import Callable, Iterable

from nbgrader.converters import NbGraderException
from nbgrader.utils import rmtree

from kit.nbgrader_glue.excluded import excluded_students
from kit.nbgrader_glue.worker_pool import WorkerPool

Folders = Callable[[list[str]], Iterable[tuple[str, object]]]  # failed list → (folder, payload) as each is ready


def _utf8(path: str) -> bool:
    """Whether `path` is UTF-8 on disk. A file named in other bytes (Python's name for it holds surrogates) is no
    notebook of an assignment, and nbgrader, looking it up in the gradebook, would fail the student's whole
    hand-in on it; a student's folder so named, whose id the gradebook cannot hold, is left out (`id_problem`)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def id_problem(student: str) -> str | None:
    """Why the folder of `student` cannot be graded under that id, with what to do; None when it can. An id in
    bytes that are not UTF-8 the gradebook cannot hold; one with a character of glob's patterns (`[ab]o`, `a*`)
    nbgrader finds its folders by, so it would read and write other students' folders as this one's."""
    if not _utf8(student):
        return ("the name of its student's folder is not UTF-8 text (an archive unpacked under another encoding?), "
                "which the gradebook cannot hold as a student id: rename that folder to the student's id")
    if glob.has_magic(student):
        return (f"its student id {student!r} holds *, ? or [, which nbgrader reads as a pattern of file names, so it "
                "would grade other students' folders under it: rename that folder (and the student in the gradebook)")
    return None


class OneStudentPerWorker:
    left_out: dict[str, str] = {}  # folder → why no work on it could begin (`cannot_convert`), set by init_notebooks

    def convert_here(self) -> None:
        raise NotImplementedError

    def init_notebooks(self) -> None:
        """nbgrader's, on the students not excluded on the command line: each folder readied first
        (`ready_folder`), unless no work on it can begin (`cannot_convert`: logged now, named among the failed at
        the end, its folder untouched). An excluded student's folder is not read at all."""
        # nbgrader converts from the course root (it changes into it): a relative root given on the command line
        # (`--CourseDirectory.root=..` from source/) would name another folder to whatever reads it again then
        self.config.CourseDirectory.root = self.coursedir.root
        excluded = excluded_students(self.coursedir)
        cannot, nothing_left = {}, {}
        for folder in sorted(glob.glob(self._format_source(self.coursedir.assignment_id, self.coursedir.student_id))):
            if self.student_of(folder)[0] in excluded:
                continue
            why = id_problem(self.student_of(folder)[0]) or self.cannot_convert(folder)
            if why:
                cannot[folder] = why
            elif why := self.ready_folder(folder):  # said now: nbgrader finds no notebook there and says only that
                nothing_left[folder] = why
                self._log_left_out(folder, why)
        super().init_notebooks()
        self.assignments = {folder: [notebook for notebook in notebooks if _utf8(notebook)]
                            for folder, notebooks in self.assignments.items() if self.student_of(folder)[0] not in excluded}
        self.left_out = {folder: cannot[folder] for folder in sorted(self.assignments) if folder in cannot}
        for folder, why in self.left_out.items():
            self._log_left_out(folder, why)
            self.assignments.pop(folder)
        self.left_out |= nothing_left

    def _log_left_out(self, folder: str, why: str) -> None:
        self.log.error("There was an error processing assignment: %s\n%s's %s is left out: %s", folder,
                       *self.student_of(folder), why)

    def cannot_convert(self, folder: str) -> str | None:
        """Why no work on `folder` can begin, with what to do; None when it can."""
        return None

    def ready_folder(self, folder: str) -> str | None:
        """Before nbgrader looks for a student's notebooks in `folder` (one that can be converted); why nothing
        of it can be converted after all, or None."""
        return None

    def prepare_one(self, folder: str, payload: object) -> None:
        """In a worker process, before nbgrader's loop converts `folder` (with its payload)."""

    def worker_count(self) -> int:
        """The `workers` setting, 0 meaning one per core this process may use."""
        return self.workers or len(os.sched_getaffinity(0))

    def student_of(self, folder: str) -> tuple[str, str]:
        """(student, assignment) of a submitted folder."""
        regexp = self._format_source("(?P<assignment_id>.*)", "(?P<student_id>.*)", escape=True)
        found = re.match(regexp, folder)
        return found["student_id"], found["assignment_id"]

    def convert_one_by_one(self) -> None:
        """nbgrader's own loop on each student in turn, in this process."""
        everyone = dict(self.assignments)
        failed = []
        for folder in sorted(everyone):
            self.assignments = {folder: everyone[folder]}
            if not self._converted(folder):
                failed.append(folder)
        self.assignments = everyone
        self._fail_for(failed)

    def convert_in_workers(self, workers: int, folders: Folders) -> None:
        """Convert every folder `folders` yields, each in one of `workers` processes forked now (no more processes
        than folders)."""
        self._class_folders = dict(self.assignments)  # folder → notebooks, for the worker processes
        workers = max(1, min(workers, len(self._class_folders)))
        self.log.info("Converting %d students' folders in %d worker processes", len(self._class_folders), workers)
        with WorkerPool(workers, self._convert_one, self.log) as pool:
            pool.convert_all(folders(pool.failed))
        self._fail_for(pool.failed)

    def _convert_one(self, folder: str, payload: object) -> bool:
        """In a worker process: nbgrader's own loop on one student's folder; True if it was converted."""
        self.assignments = {folder: self._class_folders[folder]}
        self.prepare_one(folder, payload)
        return self._converted(folder)

    def _converted(self, folder: str) -> bool:
        """nbgrader's own loop on `self.assignments`, `folder` alone; True if it was converted."""
        try:
            self.convert_here()
        except NbGraderException:
            return False  # nbgrader has logged why
        except (Exception, SystemExit):  # nbgrader's loop lets these out (a bad timestamp exits): this student only
            self.log.error("There was an error processing assignment: %s\n%s", folder, traceback.format_exc())
            student, assignment = self.student_of(folder)
            if os.path.exists(self._format_dest(assignment, student)):  # as nbgrader does for a failed student
                rmtree(self._format_dest(assignment, student))
            return False
        return True

    def _fail_for(self, failed: list[str]) -> None:
        """End as nbgrader's serial loop ends when students could not be converted."""
        failed = sorted({*failed, *self.left_out})
        if not failed:
            return
        for folder in failed:
            student, assignment = self.student_of(folder)
            self.log.error("There was an error processing assignment '%s' for student '%s'", assignment, student)
        self.log.error("Please see the errors logged above for each of them.")
        raise NbGraderException("some students could not be converted")
