"""A student's output is whole, or marked unfinished and finished by the next plain run.

nbgrader converts a student into their output folder (autograded/<student>/<assignment>,
feedback/<student>/<assignment>) notebook by notebook, and skips a student whose
folder exists ("Skipping existing assignment"). A run killed part-way (SIGKILL, the
OOM killer, a culled hub server, Ctrl-C twice) left a student with the first
notebooks only, and every later plain run skipped them: grades missing, silently.

`WholeOrAbsent`, a mixin of the kit's autograde and generate_feedback converters,
writes a mark beside the student's output folder before anything of the student is
converted (`.<assignment>.unfinished` in the student's folder, outside the copy
nbgrader makes of the student's own files, so no hand-in can forge or remove it)
and removes it once every notebook is converted and recorded in the gradebook. A
run that finds a mark converts that student again from the start, whatever nbgrader
would have skipped, and says so. A converter whose input was left unfinished
(generate_feedback from an interrupted autograde) fails that student, naming the
command to run first; the others go on. `nbgrader export` warns of every
student so marked (`unfinished_students`): their rows hold what was recorded.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from nbgrader.converters import NbGraderException
from nbgrader.utils import rmtree

from kit.nbgrader_glue.excluded import excluded_students


def unfinished_mark(output: str | Path) -> Path:
    """The mark beside a student's output folder <step>/<student>/<assignment> while it is being made."""
    output = Path(output)
    return output.parent / f".{output.name}.unfinished"


def is_unfinished(output: str | Path) -> bool:
    return unfinished_mark(output).exists()


class WholeOrAbsent:
    """For nbgrader's BaseConverter: each student's output folder written whole, or finished by the next run."""

    needs_whole_input = ""  # the command that makes this converter's input, if that input may be left unfinished

    def init_destination(self, assignment_id: str, student_id: str) -> bool:
        if self.needs_whole_input and is_unfinished(self._format_source(assignment_id, student_id)):
            raise NbGraderException(f"{student_id}'s {assignment_id} was left part-way by an interrupted "
                                    f"`nbgrader {self.needs_whole_input}`: run `nbgrader {self.needs_whole_input} "
                                    f"{assignment_id}` first, then this again")
        output = Path(self._format_dest(assignment_id, student_id))
        mark = unfinished_mark(output)
        excluded = student_id in excluded_students(self.coursedir)
        if mark.exists() and not excluded:
            self.log.warning("Finishing %s's %s: an earlier run stopped part-way through it (%s); "
                             "converting it again from the start", student_id, assignment_id, mark)
            if output.exists():
                rmtree(str(output))
            go = True
        else:
            go = super().init_destination(assignment_id, student_id)
        if go:
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.touch()
        return go

    def set_permissions(self, assignment_id: str, student_id: str) -> None:
        """nbgrader's last step for a student once every notebook is converted: the output is whole."""
        super().set_permissions(assignment_id, student_id)
        unfinished_mark(self._format_dest(assignment_id, student_id)).unlink(missing_ok=True)


def unfinished_students(coursedir, assignments) -> list[str]:
    """The students whose autograde of one of `assignments` an interrupted run left part-way (nbgrader's
    CourseDirectory `coursedir` says where their autograded folders are)."""
    marks = [unfinished_mark(coursedir.format_path(coursedir.autograded_directory, "*", assignment))
             for assignment in assignments]
    return sorted({Path(found).parent.name for mark in marks for found in glob.glob(str(mark))})


def students_who_handed_in(coursedir, assignment: str) -> set[str]:
    """The students with a folder of `assignment` in submitted/ holding a notebook (at its top or one folder down,
    where autograde looks; set aside as unreadable or not), graded or not."""
    folders = glob.glob(coursedir.format_path(coursedir.submitted_directory, "*", assignment))
    return {Path(folder).parent.name for folder in folders
            if any(glob.glob(os.path.join(glob.escape(folder), pattern)) for pattern in ("*.ipynb*", "*/*.ipynb"))}
