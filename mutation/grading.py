"""A mutant graded as a student's answer, in process, by the kit's own grading engine.

The cells of its exercise (the visible check ``check_<name>`` where there is
one, the hidden cell ``hidden_<name>``) are graded by
`autograder.grade.exercise_problems` on the registry's cases, as
`grade_submission` grades them: each call on fresh inputs under the case's
time limit, the exercises it is built on the reference's (judge.BUILT_ON).
Only the confined child is left out: a mutant is trusted code.

One exception, for time: an exercise whose hidden cases measure memory
(blockwise attention: 4,096 tokens under tracemalloc, seconds a call) has its
hidden cell decided case by case, the cheap cases first, stopping at the
first that fails (`judge.diagnose` on it): the cell fails exactly when some
case fails, so a mutant is killed or not as the whole cell would have it.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from autograder.answer_key import reference_of
from autograder.cases import hidden_cases, visible_cases_of
from autograder.exercises import REGISTRY
from autograder.grade import exercise_problems
from autograder.judge import Verdict, case_label, diagnose, outcome_of, standing_in, time_limit

SECONDS = 10.0  # a call's CPU time limit where its case names none (autograder.submission's default)


class Grades(NamedTuple):
    visible: Verdict | None  # the visible check's verdict (None: passed, or the exercise has no check)
    hidden: Verdict | None   # the hidden cell's

    @property
    def survived(self) -> bool:
        """Does the answer keep the exercise's hidden points?"""
        return self.hidden is None


def grade(exercise: str, answer: Callable) -> Grades:
    """The verdicts of `exercise`'s cells on `answer`."""
    check, hidden = f"check_{exercise}", f"hidden_{exercise}"

    def outcome_for(case):
        with standing_in(exercise, answer, reference_of), time_limit(case.get("seconds", SECONDS)):
            return outcome_of(answer, case)
    cases = hidden_cases(exercise)
    if not any("memory_limit_bytes" in case for case in cases):
        ids = ([check] if REGISTRY[exercise].points.check is not None else []) + [hidden]
        verdicts = exercise_problems(exercise, ids, list(visible_cases_of(exercise)), outcome_for)
        return Grades(verdicts.get(check), verdicts[hidden])
    visible = exercise_problems(exercise, [check], list(visible_cases_of(exercise)), outcome_for)[check] \
        if REGISTRY[exercise].points.check is not None else None
    for case in sorted(cases, key=lambda case: ("memory_limit_bytes" in case, case.get("seconds", 0))):
        found = diagnose(case_label(exercise, case), outcome_for(case), case, reveal=False)
        if found is not None:
            return Grades(visible, found)
    return Grades(visible, None)
