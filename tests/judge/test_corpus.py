"""Does the grader accept every correct variant, and name a mistake only when it fits?

Each corpus submission is graded out of process on every visible and hidden
case of every exercise it touches: those whose answer cells it fills, and
those built on them (judge.BUILT_ON, complete by tests/judge/test_built_on.py). The
rest run the solved notebooks' code unchanged, which passes every check
(tests/notebooks/test_release.py). Correct variants must get everything. A mistaken one
must fail its own exercise and lose nothing else: the exercises built on the
one it got wrong are graded with the reference's in its place. An exercise's cells name a known mistake only
when all its cases agree on it (autograder/grade.py: exercise_problems; judge/policy.py: Naming), so, read as
a confusion matrix (the mistake a submission makes against the names its
cells are given), nothing lies off the diagonal: no submission is given another
mistake's name, and one wrong only in type, shape or dtype, or wrong in a way
no known mistake is (tests/shared/corpus/unnamed/), gets no name at all.
"""

from __future__ import annotations

import re
import tempfile
from functools import cache
from pathlib import Path

import pytest

from typing import NamedTuple

from autograder.cases import EXERCISES, hidden_cases, visible_cases
from autograder.grade import exercise_problems
from autograder.judge import BUILT_ON, verdict
from autograder.mistakes import MISTAKES
from autograder.submission import Submission
from tests.shared.corpus_submissions import CORPUS, cells_of, make_submission, mistake_name

CORRECT = sorted((CORPUS / "correct").glob("*.py"))
MISTAKEN = sorted((CORPUS / "mistakes").glob("*.py"))
# Answers wrong only in type, shape or dtype: they fail, and no value-based mistake may be named.
FORM_ONLY = sorted((CORPUS / "dtype_shape").glob("*.py"))
# Answers wrong in their values as no known mistake is (a sign, an axis, an off-by-one, a mirror image of one).
UNNAMED = sorted((CORPUS / "unnamed").glob("*.py"))
# Answers right in their values on the text's main cases but breaking one stated requirement (an edge, a tie rule,
# an error, a dtype, the caller's input unchanged): tests/judge/test_requirements_held_out.py; they fail, and get no name.
BREAKS = sorted((CORPUS / "breaks_a_requirement").glob("*.py"))
KNOWN = MISTAKES  # every exercise's, notebook 09's too (autograder/exercises/)


def touched(corpus_file: Path) -> list[str]:
    """The exercises whose answer cells the file fills, and those built on them."""
    filled = set(cells_of(corpus_file))
    return [name for name in EXERCISES if name in filled or filled & set(BUILT_ON.get(name, ()))]


class Graded(NamedTuple):
    failures: list[str]  # the messages of its failed cases, visible and hidden, each read alone
    named: set[str]      # the known mistakes its cells name, as the grader names them (from all its cases)


@cache
def graded(corpus_file: Path) -> dict[str, Graded]:
    """Exercise → how it was graded (every exercise the file touches run once, each case once)."""
    with tempfile.TemporaryDirectory() as folder:
        make_submission(corpus_file, Path(folder))
        with Submission(folder) as submission:
            result = {name: Graded([], set()) for name in EXERCISES}
            for name in touched(corpus_file):
                visible = [c for c in visible_cases() if c["func"] == name]
                cases = visible + list(hidden_cases(name))
                outcomes = {id(case): submission.outcome(name, case) for case in cases}
                messages = [verdict(name, outcomes[id(case)], case) for case in cases]
                cells = exercise_problems(name, [f"check_{name}", f"hidden_{name}"], visible,
                                          lambda case: outcomes[id(case)])
                result[name] = Graded([m for m in messages if m], {v.mistake for v in cells.values() if v and v.mistake})
    return result


def failed(result: dict[str, Graded]) -> set[str]:
    return {name for name, graded_as in result.items() if graded_as.failures}


def names_given(result: dict[str, Graded]) -> set[tuple[str, str]]:
    """(exercise, mistake name) of every name its cells are given."""
    return {(exercise, name) for exercise, graded_as in result.items() for name in graded_as.named}


def exercise_of(corpus_file: Path) -> str:
    return corpus_file.name.split("__")[0]


def test_the_corpus_holds_one_submission_per_known_mistake():
    named = {(exercise_of(f), mistake_name(f)) for f in MISTAKEN}
    known = {(exercise, m.name) for exercise, ms in KNOWN.items() for m in ms}
    assert named == known
    assert len(CORRECT) >= 5 and len(FORM_ONLY) >= 5
    assert not {exercise_of(f) for f in UNNAMED} - set(EXERCISES)


def test_a_submission_is_graded_on_what_it_touches():
    assert touched(CORPUS / "mistakes" / "previous_score__one_token_ahead.py") == ["previous_score", "classify_head"]
    assert "multi_head_attention" in touched(CORPUS / "mistakes" / "softmax__wrong_axis.py")


@pytest.mark.parametrize("corpus_file", CORRECT, ids=lambda p: p.stem)
def test_a_correct_variant_gets_full_marks(corpus_file):
    failures = {name: graded_as.failures[0] for name, graded_as in graded(corpus_file).items() if graded_as.failures}
    assert failures == {}


@pytest.mark.parametrize("corpus_file", MISTAKEN, ids=lambda p: p.stem)
def test_a_mistake_loses_its_own_exercise_only_and_is_never_given_another_name(corpus_file):
    exercise, mistake = exercise_of(corpus_file), mistake_name(corpus_file)
    result = graded(corpus_file)
    assert result[exercise].failures, f"{corpus_file.name} was accepted"
    assert failed(result) == {exercise}
    assert names_given(result) <= {(exercise, mistake)}, result[exercise].failures


@pytest.mark.parametrize("corpus_file", FORM_ONLY, ids=lambda p: p.stem)
def test_an_answer_wrong_only_in_type_shape_or_dtype_fails_and_is_given_no_name(corpus_file):
    result = graded(corpus_file)
    failures = result[exercise_of(corpus_file)].failures
    assert failures, f"{corpus_file.name} was accepted"
    assert failed(result) == {exercise_of(corpus_file)}
    assert names_given(result) == set(), failures
    assert all(re.search(r"expected (shape|dtype|a numpy.ndarray|an integer)", m) for m in failures)


@pytest.mark.parametrize("corpus_file", UNNAMED, ids=lambda p: p.stem)
def test_an_answer_wrong_as_no_known_mistake_is_fails_and_is_given_no_name(corpus_file):
    result = graded(corpus_file)
    failures = result[exercise_of(corpus_file)].failures
    assert failures, f"{corpus_file.name} was accepted"
    assert failed(result) == {exercise_of(corpus_file)}
    assert names_given(result) == set(), failures


def test_the_corpus_of_answers_wrong_as_no_known_mistake_is_spans_several_exercises():
    assert len(UNNAMED) >= 12 and len({exercise_of(f) for f in UNNAMED}) >= 6


def made_by(corpus_file: Path) -> set[tuple[str, str]]:
    """(exercise, mistake) of each catalogued mistake a file's docstring says its answer also makes
    ("Also makes: <name> (why)."): one that breaks a requirement may do so by making a known mistake."""
    return {(exercise_of(corpus_file), name)
            for name in re.findall(r"^Also makes: (.+?) \(", corpus_file.read_text(), re.M)}


KINDS = {"a catalogued mistake": MISTAKEN, "wrong only in type, shape or dtype": FORM_ONLY,
         "wrong as no known mistake is": UNNAMED, "breaks one stated requirement": BREAKS, "correct": CORRECT}


def test_the_confusion_matrix_is_diagonal_and_names_the_mistakes(capsys):
    """The whole corpus at once: rows are the kinds of answer (for a catalogued mistake, the mistake made),
    columns the names given. Only a catalogued mistake is named, and only by its own name."""
    rows, wrongly, named = [], [], []
    for kind, files in KINDS.items():
        counts = {"failed": 0, "named": 0, "named wrongly": 0}
        for corpus_file in files:
            made = made_by(corpus_file) if kind != "a catalogued mistake" else \
                {(exercise_of(corpus_file), mistake_name(corpus_file))}
            result = graded(corpus_file)
            given = names_given(result)
            wrong = [(corpus_file.stem, name) for name in given if name not in made]
            wrongly += wrong
            named += [corpus_file.stem] if made & given else []
            counts["failed"] += bool(failed(result))
            counts["named"] += bool(made & given)
            counts["named wrongly"] += bool(wrong)
        rows.append(f"  {kind:<36} {len(files):>4} {counts['failed']:>7} {counts['named']:>6} "
                    f"{counts['named wrongly']:>14}")
    with capsys.disabled():
        print("\ncorpus confusion matrix:\n  answers                              many  failed  named  named wrongly")
        print("\n".join(rows))
    assert wrongly == []
    unnamed = sorted({f.stem for f in MISTAKEN} - set(named))
    assert unnamed == [], f"named by no case: {unnamed}"
    assert not [f.stem for f in FORM_ONLY + UNNAMED + BREAKS if not failed(graded(f))]
