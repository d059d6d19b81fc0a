"""What grading one student may cost the grader: its own CPU time, time on the clock, memory and disk.

The confined child has limits of its own (autograder/sandbox.py); these bound
the grader's side: reading the child's replies (each at most `reply_bytes`,
an eighth of the memory: a reply is held as text, bytes and arrays at once),
answering its stand-ins (computed in a process capped at `memory_bytes`,
autograder/stand_in_server.py), waiting for it; and the disk the student's
code may fill while it runs (its work folder, sandbox.Limits.disk_bytes).
`GraderBudget` is course policy (course.toml `[grading]`, read by
kit/course.py; the defaults are here). A `Spending` follows one student's
grading (autograder/submission.py): once its CPU or clock time is spent, every
remaining case fails with `Spending.message`, and the student's other
processes are ended; every other student is graded as usual.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

BUDGET_SPENT = "GradingBudgetSpent"  # the error a case fails with once its student's budget is spent


@dataclass(frozen=True)
class GraderBudget:
    # An honest student costs the grader about a second of CPU and well under a minute on the clock; one
    # whose every answer loops until its time limit, some 20 minutes on the clock and seconds of CPU.
    cpu_seconds: float = 120.0
    wall_seconds: float = 1800.0
    memory_bytes: int = 512 << 20
    disk_bytes: int = 64 << 20  # what the student's code may write while it is graded (sandbox.Limits)

    @property
    def reply_bytes(self) -> int:
        """The longest reply the grader reads from a child (or from a stand-in's server)."""
        return self.memory_bytes // 8


class Spending:
    """One student's grading so far: the clock from its start, and the CPU time of the thread that grades it."""

    def __init__(self, budget: GraderBudget):
        self.budget = budget
        self.cpu_seconds = 0.0
        self.wall_end = time.monotonic() + budget.wall_seconds
        self._thread, self._cpu_mark = threading.get_ident(), time.thread_time()

    def spent(self) -> bool:
        """Past either budget (the CPU time counted up to now)."""
        now = time.thread_time()
        if threading.get_ident() == self._thread:  # another thread's CPU clock is another clock: counted from now
            self.cpu_seconds += now - self._cpu_mark
        self._thread, self._cpu_mark = threading.get_ident(), now
        return self.cpu_seconds > self.budget.cpu_seconds or time.monotonic() >= self.wall_end

    def charge(self, cpu_seconds: float) -> None:
        """CPU time spent for this student outside its grading thread (by the stand-in server)."""
        self.cpu_seconds += cpu_seconds

    def deadline(self, case_deadline: float) -> float:
        """The earlier of a case's deadline and the end of the budget's time on the clock."""
        return min(case_deadline, self.wall_end)

    @property
    def message(self) -> str:
        return (f"not graded: grading this submission took more than the grader's budget per student "
                f"({self.budget.cpu_seconds:g} s of its CPU time, {self.budget.wall_seconds:g} s on the clock; "
                "course.toml [grading]), so this case and every one after it fail")
