"""Hidden checks run inside the student's kernel, for plain `nbgrader autograde`.

The source notebooks' hidden test cells call `hidden_check`. The kit's own
grading path does not use this module: it runs the student's code in a
separate process and compares in the parent (see autograder/sandbox.py).
Messages never show the expected values. As in every grading path, the
exercises an answer is built on are the reference's while it is checked
(judge.BUILT_ON).
"""

from autograder.answer_key import reference_of
from autograder.cases import hidden_cases
from autograder.judge import CheckFailed, outcome_of, standing_in, verdict


def hidden_check(name: str, answer) -> None:
    """Raise CheckFailed at the first hidden case `answer` gets wrong."""
    cases = hidden_cases(name)
    for number, case in enumerate(cases, 1):
        label = f"{name}, hidden check {number} of {len(cases)} ({case['label']})"
        with standing_in(name, answer, reference_of):
            problem = verdict(label, outcome_of(answer, case), case, reveal=False)
        if problem:
            raise CheckFailed(problem)
    print(f"✓ {name}: all {len(cases)} hidden checks passed")
