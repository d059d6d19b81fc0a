"""Hidden checks run inside the student's kernel, for plain `nbgrader autograde`.

The source notebooks' hidden test cells call `hidden_check`. The kit's own
grading path does not use this module: it runs the student's code in a
separate process and compares in the parent (see autograder/sandbox.py).
Messages never show the expected values. As in every grading path, the
exercises an answer is built on are the reference's while it is checked
(judge.BUILT_ON).
"""

from autograder.answer_key import reference_of
from autograder.cases import hidden_cases, visible_cases_of
from autograder.judge import CheckFailed, check_verdicts, labelled, outcome_of, standing_in


def hidden_check(name: str, answer) -> None:
    """Raise CheckFailed with the first hidden case `answer` gets wrong, naming a known mistake only when
    the exercise's visible and hidden cases agree on it (as the kit's grader does, judge.check_verdicts)."""
    cases, visible = hidden_cases(name), visible_cases_of(name)

    def outcome_for(case):
        with standing_in(name, answer, reference_of):
            return outcome_of(answer, case)
    _, problem = check_verdicts([(visible, labelled(name, visible), True), (cases, labelled(name, cases), False)],
                                outcome_for)
    if problem:
        raise CheckFailed(problem.message)
    print(f"✓ passed: {name}, all {len(cases)} hidden checks")
