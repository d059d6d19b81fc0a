"""Does the grader accept every correct variant and name every known mistake?

Each corpus submission is graded out of process on every hidden case of every
exercise. Correct variants must get everything; a mistaken one must fail its
own exercise with a message naming its mistake, and lose nothing else: the
exercises built on the one it got wrong are graded with the reference's in its
place (judge.BUILT_ON).
"""

from __future__ import annotations

import pytest

from autograder.cases import EXERCISES, hidden_cases
from autograder.judge import verdict
from autograder.mistakes import MISTAKES
from autograder.model_cases import MODEL_MISTAKES
from autograder.submission import Submission
from tests.corpus_submissions import CORPUS, make_submission, mistake_name

CORRECT = sorted((CORPUS / "correct").glob("*.py"))
MISTAKEN = sorted((CORPUS / "mistakes").glob("*.py"))
# Notebook 09's first four measures have no corpus submissions yet: classify_head calls
# them without standing in for them (not in judge.BUILT_ON), so their mistakes would also
# cost classify_head's points (issue 12, part 4, fixes that).
WITHOUT_CORPUS = {"self_score", "previous_score", "start_score", "induction_score"}


def grade(folder) -> dict[str, list[str]]:
    """Exercise → the messages of its failed hidden cases."""
    failures = {}
    with Submission(folder) as submission:
        for name in EXERCISES:
            messages = [verdict(name, submission.outcome(name, case), case) for case in hidden_cases(name)]
            failures[name] = [m for m in messages if m]
    return failures


def test_the_corpus_holds_one_submission_per_known_mistake():
    named = {(f.name.split("__")[0], mistake_name(f)) for f in MISTAKEN}
    catalogue = {**MISTAKES, **{k: v for k, v in MODEL_MISTAKES.items() if k not in WITHOUT_CORPUS}}
    known = {(exercise, m.name) for exercise, ms in catalogue.items() for m in ms}
    assert named == known
    assert len(CORRECT) >= 5


@pytest.mark.parametrize("corpus_file", CORRECT, ids=lambda p: p.stem)
def test_a_correct_variant_gets_full_marks(corpus_file, tmp_path):
    make_submission(corpus_file, tmp_path)
    failures = {name: messages[0] for name, messages in grade(tmp_path).items() if messages}
    assert failures == {}


@pytest.mark.parametrize("corpus_file", MISTAKEN, ids=lambda p: p.stem)
def test_a_mistake_loses_its_exercise_and_is_named(corpus_file, tmp_path):
    exercise = corpus_file.name.split("__")[0]
    make_submission(corpus_file, tmp_path)
    failures = grade(tmp_path)
    assert failures[exercise], f"{corpus_file.name} was accepted"
    assert any(mistake_name(corpus_file) in m for m in failures[exercise]), failures[exercise][0]
    assert {name for name, messages in failures.items() if messages} == {exercise}
