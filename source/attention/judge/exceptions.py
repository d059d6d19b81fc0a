"""The two exceptions a student meets: a stub's `NotStarted` and a check's `CheckFailed`."""

from __future__ import annotations

import os
import sys
import traceback
import types

# A failed check shows none of this package's frames (every file of the judge folder).
PACKAGE_FOLDER = os.path.dirname(os.path.abspath(__file__))


class CheckFailed(AssertionError):
    """A check found a wrong answer; the message says what and where."""

    def _render_traceback_(self) -> list[str]:
        """How IPython shows this failure in a notebook: the student's cell and the
        message, never the checker's own frames (a cell still fails: the kernel
        sends an error output, which validate and autograde read)."""
        from IPython import get_ipython  # only a kernel calls this method

        shell = get_ipython()
        if shell is None:
            return traceback.format_exception_only(type(self), self)
        frames, tb = [], self.__traceback__
        while tb is not None:
            if os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) != PACKAGE_FOLDER:
                frames.append(tb)
            tb = tb.tb_next
        students = None
        for tb in reversed(frames):  # the same frames, relinked without the judge's
            students = types.TracebackType(students, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
        return shell.InteractiveTB.structured_traceback(type(self), self, students)


class NotStarted(NotImplementedError):
    """Raised by an exercise's stub: names the function still to write."""

    def __init__(self, message: str | None = None):
        if message is None:
            name = sys._getframe(1).f_code.co_name
            message = (f"{name} is not implemented yet: replace `raise NotStarted()` "
                       f"in the cell that defines {name} with your code." if name != "<module>" else
                       "this answer is not given yet: replace `raise NotStarted()` with your answer.")
        super().__init__(message)
