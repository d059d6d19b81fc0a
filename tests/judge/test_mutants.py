"""Are the graders as strong as the text? Mutation testing of every exercise's grading (mutation/).

`make mutants` grades every mutant of every exercise's reference and writes
mutation/results.json and REPORT.md. The suite does not grade them all (a
whole run takes minutes): it grades the mutants of the exercises a change
touched (their fingerprint is not the recorded one), and checks that the
report is that of this tree, so a change that weakens a grader fails here
either way. Survivors are allowed only as reviewed equivalents
(mutation/equivalent.txt) or as gaps still open (mutation/open.txt), a list
that may only shrink.
"""

from __future__ import annotations

import pytest
from cosmic_ray.mutating import mutate_code

from mutation import record, reviewed
from mutation.grading import grade
from mutation.mutants import changed_functions, mutants_of
from mutation.operators import OWN, operators
from solutions import attention as ref

RESULTS = record.load()
# Every exercise is graded now (blockwise attention last, its 626 mutants in about 390 CPU s with the cheap first
# pass): none is left out.
NOT_YET_GRADED: set[str] = set()


@pytest.mark.parametrize("operator", OWN, ids=lambda op: op.__name__)
def test_each_of_the_kits_own_operators_makes_the_change_its_examples_show(operator):
    for example in operator.examples():
        assert mutate_code(example.pre_mutation_code, operator(), example.occurrence) == example.post_mutation_code


def test_the_operators_are_cosmic_rays_and_the_kits_own():
    names = set(operators())
    assert {"core/NumberReplacer", "core/ReplaceComparisonOperator_Lt_LtE", "core/AddNot"} <= names
    assert {f"kit/{op.__name__}" for op in OWN} <= names
    assert not {"core/VariableReplacer", "core/VariableInserter"} & names  # random: a run would not repeat


def test_an_exercises_mutants_change_its_reference_and_its_own_helpers_never_another_exercise():
    assert [f.__name__ for f in changed_functions("score_flops")] == ["score_flops", "_positive_int"]
    assert ref.raw_scores not in changed_functions("scaled_scores")  # the reference's own while graded
    assert {m.function.__name__ for m in mutants_of("score_flops")} == {"score_flops", "_positive_int"}


def test_no_mutant_changes_a_message_or_an_annotation():
    keys = [m.key for m in mutants_of("split_heads")]
    assert keys and not [k for k in keys if "raise ValueError(f" in k.split(" → ")[-1]]
    assert not [k for k in keys if "def split_heads(" in k]


def test_a_mutant_is_graded_as_an_answer_and_the_unchanged_reference_keeps_its_points():
    assert grade("scaled_scores", ref.scaled_scores) == (None, None)
    (times,) = [m for m in mutants_of("scaled_scores") if m.after == "return S * math.sqrt(np.shape(Q)[-1])"]
    grades = grade("scaled_scores", times.answer())
    assert grades.visible and grades.hidden and not grades.survived
    assert ref.scaled_scores(*[[[1.0, 2.0]]] * 2)[0, 0] == pytest.approx(5 / 2 ** 0.5)  # the reference is unchanged


def test_the_report_is_that_of_this_tree():
    assert RESULTS["engine"] == record.engine(), "the judge or the mutation package changed: run make mutants"
    touched = [name for name in record.touched(RESULTS) if name not in NOT_YET_GRADED]
    assert not touched, f"run make mutants: the mutants of {touched} were graded on other code or cases"


def test_every_survivor_in_the_report_is_reviewed_or_listed_as_still_open():
    new = {(name, key) for name, r in RESULTS["exercises"].items() for key in r["survivors"]} - reviewed.still_open()
    assert not new, f"mutants that keep their hidden points: {sorted(new)}"


def test_every_survivor_listed_as_open_still_survives_and_every_reviewed_line_is_used():
    survivors = {(name, key) for name, r in RESULTS["exercises"].items() for key in r["survivors"]}
    assert not reviewed.still_open() - survivors, "killed now: take them out of mutation/open.txt"
    used = {key for r in RESULTS["exercises"].values() for key in r["equivalent keys"]}
    unused = [r.line for r in reviewed.reviewed() if r.key not in used and not r.why.endswith(reviewed.MAY_BE_KILLED)]
    assert not unused, "lines of equivalent.txt no mutant needs"


@pytest.mark.parametrize("exercise", [name for name in record.touched(RESULTS) if name not in NOT_YET_GRADED])
def test_the_mutants_of_an_exercise_a_change_touched_lose_their_hidden_points(exercise):
    result = record.run(exercise)
    new = {(exercise, key) for key in result["survivors"]} - reviewed.still_open()
    assert not new, f"mutants that keep their hidden points: {sorted(new)}"
    assert not result["judge errors"], result["judge errors"]
