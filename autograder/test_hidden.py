"""The hidden graders: every exercise's answer against the reference on hidden cases."""

import pytest

from autograder.cases import EXERCISES, hidden_cases
from autograder.judge import check_verdicts, labelled

PARAMS = [pytest.param(name, number, marks=getattr(pytest.mark, name), id=f"{name}-{number}")
          for name in EXERCISES for number in range(len(hidden_cases(name)))]


@pytest.mark.parametrize("name, number", PARAMS)
def test_answer_matches_the_reference_on_a_hidden_case(name, number, submission, record):
    case = hidden_cases(name)[number]
    outcome = submission.outcome(name, case)
    # This case alone names no mistake: the closing summary names the one the exercise's cases agree on.
    (problem,) = check_verdicts([([case], labelled(name, [case]), True)], lambda _: outcome)
    record(name, "passed" if problem is None else "not started" if outcome.not_started else "failed",
           problem.message if problem else "", case, outcome)
    if problem:
        pytest.fail(problem.message, pytrace=False)
