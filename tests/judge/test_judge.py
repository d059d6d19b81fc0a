"""The one comparison policy (autograder/judge/), as students meet it."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.cases import hidden_cases
from autograder.exercises import REGISTRY
from autograder.judge import KINDS, NotStarted, Outcome, call, check_verdicts, diagnose, plain, tolerance, verdict
from autograder.judge.naming import SECOND_SLIP, value_verdict


def judge(label, got, expected, variants=(), reveal=True):
    """The policy's message on one value, None when it passes."""
    found = value_verdict(label, got, expected, variants, reveal)
    return found and found.message


EXPECTED = np.array([[0.25, 0.75], [0.5, 0.5]])


class Sneaky(np.ndarray):
    def __eq__(self, other):
        return True


def test_a_right_answer_passes():
    assert judge("f", EXPECTED.copy(), EXPECTED) is None


def test_an_ndarray_subclass_is_rejected_with_its_type():
    message = judge("f", EXPECTED.view(Sneaky), EXPECTED)
    assert "numpy.ndarray" in message and "Sneaky" in message


@pytest.mark.parametrize("got, named, advice", [
    (EXPECTED.astype(object), "an array of shape (2, 2) and dtype object", "return an array of numbers"),
    (EXPECTED.astype(str), "an array of shape (2, 2) and dtype <U", "return an array of numbers"),
    (EXPECTED.view(Sneaky), "an ndarray subclass (tests.judge.test_judge.Sneaky)", "return a plain array (np.asarray)"),
    ((row for row in EXPECTED), "a generator", "a function with `yield` in it gives a generator when called: `return`")])
def test_a_return_that_is_no_array_of_numbers_is_named_for_what_it_is_and_told_what_to_return_instead(got, named, advice):
    """What crosses from the grading child: an array of Python objects or text is no ndarray subclass; a generator
    (an answer that yields) is not to be made an array with np.asarray, which gives an array of one object."""
    from autograder.judge import frame_of, from_frame, outcome_from_wire, outcome_to_wire

    back = outcome_from_wire(from_frame(frame_of({"outcome": outcome_to_wire(Outcome.returned(got))}))["outcome"])
    message = judge("f", back.value, EXPECTED)
    assert f"expected a numpy.ndarray, got {named}" in message and advice in message, message


def test_a_complex_answer_is_the_wrong_dtype_without_a_warning_of_its_imaginary_part_cast_away():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        message = judge("f", EXPECTED.astype(complex), EXPECTED, [("a slip", 4, "Why.", EXPECTED[::-1])])
    assert message == "f: expected dtype float64, got dtype complex128."  # weighed against a known mistake too


def test_a_list_is_rejected_even_with_the_right_numbers():
    assert "numpy.ndarray" in judge("f", EXPECTED.tolist(), EXPECTED)


def test_a_shape_that_would_broadcast_is_rejected_with_both_shapes():
    message = judge("f", np.array([0.25, 0.75]), EXPECTED)
    assert "expected shape (2, 2), got shape (2,)" in message


def test_float64_where_float32_was_due_is_a_dtype_error():
    message = judge("f", EXPECTED, EXPECTED.astype(np.float32))
    assert "expected dtype float32, got dtype float64" in message


def test_nan_is_reported_before_closeness():
    got = EXPECTED.copy()
    got[1, 0] = np.nan
    assert "not finite" in judge("f", got, EXPECTED) and "(1, 0)" in judge("f", got, EXPECTED)


def test_the_worst_element_is_named():
    got = EXPECTED + np.array([[0, 1e-3], [5e-2, 0]])
    message = judge("f", got, EXPECTED)
    assert "index (1, 0)" in message and "expected 0.5, got 0.55" in message


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_tolerance_is_the_square_root_of_the_dtype_epsilon(dtype):
    tol = tolerance(dtype)
    assert tol == pytest.approx(np.sqrt(np.finfo(dtype).eps))
    base = EXPECTED.astype(dtype)
    assert judge("f", (base + dtype(tol / 4)).astype(dtype), base) is None
    assert judge("f", (base + dtype(tol * 4)).astype(dtype), base) is not None


def test_a_hidden_check_never_shows_the_expected_value():
    got = EXPECTED + 0.125
    message = judge("f", got, EXPECTED, reveal=False)
    assert "0.25" not in message.replace("0.375", "") and "off by 0.125" in message


def test_a_known_mistake_is_named_with_its_chapter_section():
    wrong = EXPECTED.T.copy()
    message = judge("f", wrong, EXPECTED, [("softmax over the wrong axis", 4, "Normalise rows.", EXPECTED.T)])
    assert "Likely mistake: softmax over the wrong axis" in message and "section 4" in message


def test_a_mistake_that_gives_nan_is_still_named():
    nan_variant = np.array([[np.nan, 0.0], [0.5, 0.5]])
    message = judge("f", nan_variant.copy(), EXPECTED, [("no max subtraction", 4, "Subtract the max.", nan_variant)])
    assert "not finite" in message and "no max subtraction" in message


def test_an_answer_wrong_only_in_dtype_is_given_no_value_based_name():
    # The issue's example: float64 weights for float32 scores, close in value to a mistake's float32 output.
    expected = EXPECTED.astype(np.float32)
    no_max = (expected + np.float32(1e-4)).astype(np.float32)
    message = judge("softmax", EXPECTED.copy(), expected, [("no max subtraction", 4, "Subtract the max.", no_max)])
    assert "expected dtype float32, got dtype float64" in message and "Likely mistake" not in message


def test_an_answer_of_another_shape_is_given_no_name():
    message = judge("f", EXPECTED[:1].copy(), EXPECTED, [("wrong axis", 4, "Rows.", EXPECTED.T.copy())])
    assert "expected shape" in message and "Likely mistake" not in message


def test_two_mistakes_the_case_cannot_tell_apart_are_neither_named():
    same = EXPECTED.T.copy()
    message = judge("f", same.copy(), EXPECTED, [("one", 4, "A.", same), ("other", 4, "B.", same.copy())])
    assert "Likely mistake" not in message


def test_a_mistake_that_is_right_on_this_case_is_not_named():
    got = EXPECTED + 0.125
    message = judge("f", got, EXPECTED, [("harmless here", 4, "A.", EXPECTED.copy()), ("off", 4, "B.", got.copy())])
    assert "Likely mistake: off." in message and "harmless" not in message


def test_a_wrong_answer_that_matches_no_mistake_says_what_differs_and_suggests_nothing():
    message = judge("f", EXPECTED + 0.5, EXPECTED, [("wrong axis", 4, "Rows.", EXPECTED.T.copy())])
    assert message == "f: worst mismatch at index (0, 0): expected 0.25, got 0.75 (tolerance 1.5e-08)."


def test_two_values_that_differ_are_shown_with_the_digits_that_tell_them_apart():
    """Six significant digits showed "expected 0.906212, got 0.906212" for a float64 answer computed through
    float32: the message now shows as many digits as differ, and by how much; an integer is shown whole
    ("2.24746e+06" hid which integer was expected); one number alone is no "worst mismatch the value"."""
    through_float32 = np.array([[0.906212189]]).astype(np.float32).astype(np.float64)
    assert judge("f", through_float32, np.array([[0.906212189]])) == \
        "f: worst mismatch at index (0, 0): expected 0.906212189, got 0.906212211, off by 2.2e-08 (tolerance 1.5e-08)."
    assert judge("f", np.array([17101]), np.array([2247461])) == \
        "f: worst mismatch at index (0,): expected 2247461, got 17101."
    assert judge("f", 0.0, 0.4385964912) == "f: expected 0.438596, got 0 (tolerance 1.5e-08)."


def _case(expected, **outputs):
    """A case whose known mistakes give `outputs` (name → output)."""
    return {"label": "c", "expected": expected, "variants": [(name, 4, "Why.", out) for name, out in outputs.items()]}


def _names(cases_and_answers, checks=None):
    """The mistake the checks name: [(case, answer's value or an Outcome)], one check (or `checks` of them)."""
    given = {id(case): a if isinstance(a, Outcome) else Outcome.returned(a) for case, a in cases_and_answers}
    cases = [case for case, _ in cases_and_answers]
    groups = checks or [cases]
    return [v and v.mistake for v in check_verdicts([(g, [c["label"] for c in g], True) for g in groups],
                                                    lambda case: given[id(case)])]


ROW = np.array([1.0, 2.0, 3.0])


def test_an_answer_that_meets_a_mistake_on_one_case_only_is_given_no_name():
    # On the first case the answer is what "doubled" gives (a degenerate case for it); on the second it is not.
    first, second = _case(ROW, doubled=2 * ROW), _case(ROW + 1, doubled=2 * (ROW + 1))
    assert _names([(first, 2 * ROW), (second, 5 * ROW)]) == [None]
    assert _names([(first, 2 * ROW)]) == ["doubled"]  # one case alone cannot tell


def test_a_mistake_is_named_from_the_case_that_tells_it_apart_when_the_first_failure_cannot():
    # The first failing case gives one output for both mistakes; the second tells them apart.
    degenerate = _case(np.zeros(3), doubled=np.ones(3), plus_one=np.ones(3))
    telling = _case(ROW, doubled=2 * ROW, plus_one=ROW + 1)
    assert _names([(degenerate, np.ones(3)), (telling, ROW + 1)]) == ["plus_one"]


def test_a_mistake_the_telling_cases_show_is_named_beside_a_second_slip_elsewhere():
    # Wrong where the mistake is right (a case that does not tell it apart): a second slip, said as such.
    right_here = _case(ROW, doubled=ROW.copy())
    telling = _case(ROW + 1, doubled=2 * (ROW + 1))
    assert _names([(telling, 2 * (ROW + 1)), (right_here, ROW * 3)]) == ["doubled"]
    (both,) = check_verdicts([([telling, right_here], ["c", "c"], True)],
                             lambda case: Outcome.returned(2 * (ROW + 1) if case is telling else ROW * 3))
    assert both.message.endswith(f"{SECOND_SLIP} (chapter section 4)")
    assert _names([(telling, 2 * (ROW + 1)), (right_here, ROW.copy())]) == ["doubled"]
    (alone,) = check_verdicts([([telling, right_here], ["c", "c"], True)],
                              lambda case: Outcome.returned(2 * (ROW + 1) if case is telling else ROW.copy()))
    assert SECOND_SLIP not in alone.message


def test_a_mistake_the_other_cases_show_is_named_beside_a_slip_on_a_case_of_integers():
    # An answer that computes 8-bit integers in their own dtype (they wrap round) departs from every mistake on a
    # case of notebook 01's rule on integers: that case is a second slip, not evidence against the mistake.
    telling = _case(ROW + 1, doubled=2 * (ROW + 1))
    on_integers = _case(ROW, doubled=2 * ROW) | {"checks": ["integers"]}
    wrapped = np.array([2.0, 4.0, 250.0])  # 2 · 3 computed as 8-bit integers that wrapped round, say
    (both,) = check_verdicts([([telling, on_integers], ["c", "c"], True)],
                             lambda case: Outcome.returned(2 * (ROW + 1) if case is telling else wrapped))
    assert both.mistake == "doubled" and both.message.endswith(f"{SECOND_SLIP} (chapter section 4)")
    assert _names([(telling, 2 * (ROW + 1)), (_case(ROW, doubled=2 * ROW), wrapped)]) == [None]  # untagged: ruled out


def test_an_answer_wrong_otherwise_on_a_case_that_tells_the_mistake_apart_is_not_that_mistake():
    telling = _case(ROW + 1, doubled=2 * (ROW + 1))
    also_telling = _case(ROW, doubled=2 * ROW)
    assert _names([(telling, 2 * (ROW + 1)), (also_telling, ROW * 3)]) == [None]


def test_an_answer_right_where_a_mistakes_own_output_is_wrong_is_never_given_its_name():
    # Right on the fully masked row where the catalogued writing gives NaN: whatever it does, not that writing
    # (a hard-coded division by 2 is right at d_k = 4, where dividing by d_k is not).
    masked = _case(np.array([0.0, 0.0, 1.0]), unshifted=np.array([np.nan, np.nan, 1.0]))
    telling = _case(ROW, unshifted=np.array([np.nan, 2.0, 3.0]))
    assert _names([(telling, np.array([np.nan, 2.0, 3.0])), (masked, np.array([0.0, 0.0, np.nan]))]) == [None]
    assert _names([(telling, np.array([np.nan, 2.0, 3.0])), (masked, np.array([0.0, 0.0, 1.0]))]) == [None]
    assert _names([(telling, np.array([np.nan, 2.0, 3.0])), (masked, np.array([np.nan, np.nan, 1.0]))]) == \
        ["unshifted"]


def test_an_error_where_the_mistake_gives_a_value_rules_it_out():
    telling = _case(ROW, doubled=2 * ROW)
    assert _names([(telling, 2 * ROW), (_case(ROW, doubled=2 * ROW), Outcome.raising("ValueError", "no"))]) == [None]


def test_the_visible_and_hidden_checks_of_an_exercise_name_a_mistake_together():
    visible = _case(ROW, doubled=2 * ROW)
    hidden = _case(ROW + 1, doubled=2 * (ROW + 1))
    coincides_on_the_visible_case_only = [(visible, 2 * ROW), (hidden, 4 * ROW)]
    assert _names(coincides_on_the_visible_case_only, [[visible], [hidden]]) == [None, None]
    assert _names([(visible, 2 * ROW), (hidden, 2 * (ROW + 1))], [[visible], [hidden]]) == ["doubled", "doubled"]


def test_a_mistake_whose_writing_raised_on_the_first_failing_case_is_named_from_a_later_one():
    # Its own writing raised on the first case (no output there), where the answer raised too.
    without_it = _case(ROW, other=ROW + 1)
    telling = _case(ROW, other=ROW + 1, transposed=2 * ROW)
    assert _names([(without_it, Outcome.raising("ValueError", "shapes")), (telling, 2 * ROW)]) == ["transposed"]


def test_a_check_of_an_answer_not_started_stops_at_its_first_case():
    ran = []

    def outcome_for(case):
        ran.append(case)
        return Outcome.unstarted("not yet")
    assert check_verdicts([([_case(ROW), _case(ROW)], ["a", "b"], True)], outcome_for)[0].kind == "not started"
    assert len(ran) == 1


def test_counts_must_be_integers_and_exact():
    assert judge("f", 6 * 2**20, 6 * 2**20) is None
    assert "expected an integer" in judge("f", 6.0 * 2**20, 6 * 2**20)
    assert "expected 6,291,456, got 6,291,457" in judge("f", 6 * 2**20 + 1, 6 * 2**20)


def test_a_tuple_answer_is_checked_part_by_part():
    assert "f: the second of the tuple: worst mismatch" in judge("f", (EXPECTED, EXPECTED.T.copy()), (EXPECTED, EXPECTED))
    assert "a tuple of 2" in judge("f", EXPECTED, (EXPECTED, EXPECTED))


def test_a_tuple_answers_failing_part_is_named_and_the_part_the_others_come_from_is_checked_first():
    weights, wrong_weights = np.full((2, 2), 0.5), np.full((2, 2), 0.6)  # rows adding up to 1.2
    output, wrong_output = weights @ EXPECTED, wrong_weights @ EXPECTED
    case = {"expected": (output, weights), "parts": ["the output", "the weights"]}
    message = diagnose("f", Outcome.returned((wrong_output, weights)), case).message
    assert message.startswith("f: the output (the first of the tuple): worst mismatch")
    case["computed_from"] = "the weights"
    message = diagnose("f", Outcome.returned((wrong_output, wrong_weights)), case).message
    assert message.startswith("f: the weights (the second of the tuple): worst mismatch")


@pytest.mark.parametrize("weights", [np.full((2, 2), 0.5), np.full((2, 3), 0.5)])  # shapes alike and unlike
def test_a_tuple_answer_with_its_parts_in_another_order_is_told_the_order(weights):
    output = np.ones((2, 2))
    case = {"expected": (output, weights), "parts": ["the output", "the weights"]}
    message = diagnose("f", Outcome.returned((weights, output)), case).message
    assert "in another order, (the weights, the output): return (the output, the weights)" in message, message
    message = diagnose("f", Outcome.returned((weights + 1, output)), case).message  # one part wrong too: no note
    assert "another order" not in message, message


def test_a_stub_reports_not_started_and_names_the_function():
    def softmax(S):
        raise NotStarted()
    outcome = call(softmax, (EXPECTED,))
    assert outcome.not_started and "softmax" in outcome.message
    assert "not started" in verdict("softmax", outcome, {"expected": EXPECTED})


@pytest.mark.parametrize("case", [{"expected": EXPECTED}, {"raises": "ValueError"}])
def test_an_answer_whose_cell_failed_first_is_an_error_named_by_it_even_where_the_case_expects_that_error(case):
    outcome = Outcome.cell_failed("softmax", "ValueError: a check at the top of the cell")
    found = diagnose("softmax", outcome, case)
    assert found.kind == "error raised"
    assert found.message == "softmax: its cell failed before softmax was defined: ValueError: a check at the top of " \
                            "the cell"


def test_a_warning_does_not_fail_a_correct_answer(recwarn):
    def noisy(S):
        return np.exp(np.array([1000.0])) * 0 + S
    assert call(noisy, (EXPECTED,)).has_value
    assert len(recwarn) == 0


def test_a_crash_is_reported_with_its_line():
    def broken(S):
        return S @ np.ones(3)
    outcome = call(broken, (EXPECTED,))
    assert outcome.raised and outcome.error == "ValueError" and "S @ np.ones(3)" in outcome.message


def test_bad_input_must_raise_the_named_error():
    assert verdict("f", Outcome.raising("ValueError", "bad"), {"raises": "ValueError"}) is None
    assert "expected a ValueError" in verdict("f", Outcome.returned(EXPECTED), {"raises": "ValueError"})


def test_a_non_number_where_a_count_was_due_is_named_once():
    message = judge("score_flops", plain(object()), 12)
    assert message == "score_flops: expected an integer, got object."


def test_a_time_limit_counts_cpu_time_and_stops_a_spinning_loop(monkeypatch):
    from autograder.judge import time_limit
    # The clock's bound far off: on a busy machine 0.2 s of CPU can take longer than WALL_FACTOR x 0.2 s.
    monkeypatch.setattr("autograder.judge.calling.WALL_FACTOR", 1000)
    with pytest.raises(TimeoutError, match="of CPU time"):
        with time_limit(0.2):
            while True:
                pass


def test_a_time_limit_also_stops_code_that_waits_on_the_clock():
    import time

    from autograder.judge import WALL_FACTOR, time_limit
    with pytest.raises(TimeoutError, match=f"within {0.1 * WALL_FACTOR:g} s"):
        with time_limit(0.1):
            time.sleep(0.1 * WALL_FACTOR + 5)


@pytest.mark.parametrize("namespace, letters, problem", [
    ({}, "abcd", "skip_heads is not answered yet"),
    ({"SKIP_HEADS": "e"}, "abcd", "must be one of 'a', 'b', 'c', 'd' (a string), got 'e'"),
    ({"SKIP_HEADS": "ab"}, "abcd", "got 'ab'"),
    ({"SKIP_HEADS": 2.5}, None, "must be an exact whole number, an integer, got the float 2.5"),
    ({"SKIP_HEADS": 128.0}, None, "got the float 128.0: a count is exact: compute it with integer arithmetic"),
    ({"SKIP_HEADS": 67.1e6}, None, "got the float 67100000.0"),
    ({"SKIP_HEADS": np.float64(128.0)}, None, "got the float"),
    ({"SKIP_HEADS": -3}, None, "must be a positive whole number (an integer), got -3"),
    ({"SKIP_HEADS": True}, None, "got True"),
    ({"SKIP_HEADS": "128"}, None, "got '128'"),
])
def test_a_check_yourself_answer_of_the_wrong_form_is_refused_with_what_is_due(namespace, letters, problem):
    from autograder.judge import CheckFailed, check_answer_form
    with pytest.raises(CheckFailed, match=re.escape(problem)):
        check_answer_form("SKIP_HEADS", namespace, letters=letters)


@pytest.mark.parametrize("answer, letters", [("b", "abcd"), ("B", "abcd"), (" c ", "abcd"), (128, None),
                                             (np.int64(3), None), (np.array(128), None)])
def test_a_check_yourself_answer_of_the_right_form_passes(answer, letters, capsys):
    from autograder.judge import check_answer_form
    check_answer_form("SKIP_HEADS", {"SKIP_HEADS": answer}, letters=letters)
    assert capsys.readouterr().out.startswith("✓ passed: SKIP_HEADS")


@pytest.mark.parametrize("answer, accepted", [
    ("c", True), ("C", True), (" c", True), ("b", False),
    (128, True), (np.int32(128), True), (np.array(128), True), (np.uint16(128), True),
    (128.0, False), (np.float64(128.0), False), (np.array(128.0), False),
    (128.5, False), ("128", False), (True, False), (np.array([128]), False),
])
def test_is_a_check_yourself_answer_graded_as_the_chapter_would_accept_it(answer, accepted):
    """Upper or lower case for a letter; a count as an exact integer in any form, never a float."""
    from autograder.judge import verdict
    expected, form = ("c", "letter") if isinstance(answer, str) and answer.strip().lower() in "bc" else (128, "count")
    case = {"expected": expected, "form": form, "variants": []}
    assert (verdict("q", Outcome.returned(answer), case) is None) == accepted


def test_is_a_rounded_count_refused_where_the_exact_count_is_asked():
    from autograder.judge import verdict
    case = {"expected": 4 * 4096**2, "form": "count", "variants": []}
    assert "a count is exact" in verdict("params", Outcome.returned(67.1e6), case)
    assert "expected an integer" in verdict("params", Outcome.returned(float(4 * 4096**2)), case)
    assert verdict("params", Outcome.returned(4 * 4096**2), case) is None


@pytest.mark.parametrize("outcome, case, kind", [
    (Outcome.unstarted("softmax is not implemented yet"), {"expected": EXPECTED}, "not started"),
    (Outcome.raising("ValueError", "bad"), {"expected": EXPECTED}, "error raised"),
    (Outcome.raising("TimeoutError", "used more than 10 s of CPU time"), {"expected": EXPECTED}, "timed out"),
    (Outcome.returned(EXPECTED), {"raises": "ValueError"}, "bad input accepted"),
    (Outcome.returned(EXPECTED.tolist()), {"expected": EXPECTED}, "wrong type"),
    (Outcome.returned(EXPECTED[0]), {"expected": EXPECTED}, "wrong shape"),
    (Outcome.returned(EXPECTED.astype(np.float32)), {"expected": EXPECTED}, "wrong dtype"),
    (Outcome.returned(EXPECTED + 1), {"expected": EXPECTED}, "wrong values"),
    (Outcome.returned((EXPECTED, EXPECTED[0])), {"expected": (EXPECTED, EXPECTED)}, "wrong shape"),
    (Outcome.returned(7), {"expected": 6}, "wrong values"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_a_failure_says_its_kind_for_the_class_report(outcome, case, kind):
    found = diagnose("f", outcome, case)
    assert found.kind == kind and found.kind in KINDS
    assert found.message == verdict("f", outcome, case) and found.mistake is None


def test_a_known_mistake_is_named_in_the_verdict_as_well_as_the_message():
    variants = [("softmax over the wrong axis", 4, "Normalise rows.", EXPECTED.T.copy())]
    found = diagnose("f", Outcome.returned(EXPECTED.T.copy()), {"expected": EXPECTED, "variants": variants})
    assert found.mistake == "softmax over the wrong axis" and found.kind == "wrong values"
    assert "Likely mistake: softmax over the wrong axis" in found.message


def test_does_everything_outside_the_judge_import_only_its_public_names():
    """The kit, the tests, the benchmarks, the notebooks (`from judge import`) and the grading
    child (`judge.<name>`) use only names in the judge package's __all__, none private."""
    import ast
    import types
    from pathlib import Path

    import autograder.judge as package

    root = Path(__file__).resolve().parents[2]
    used: dict[str, set[str]] = {}
    for folder in ("autograder", "kit", "tests", "benchmarks", "notebooks"):
        for path in (root / folder).rglob("*.py"):
            if path.is_relative_to(root / "autograder" / "judge"):
                continue  # the package itself
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module in ("autograder.judge", "judge"):
                    names = {alias.name for alias in node.names}
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                        node.value.id in ("judge", "shipped_judge") and path.name in ("child.py", "grading.py"):
                    names = {node.attr}
                else:
                    continue
                for name in names:
                    used.setdefault(name, set()).add(str(path.relative_to(root)))
    beyond = {name: sorted(where) for name, where in used.items() if name not in package.__all__}
    assert beyond == {}, f"used but not exported by autograder/judge/__init__.py: {beyond}"
    public = {name for name, value in vars(package).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert public == set(package.__all__)


def test_does_an_outcome_cross_the_wire_as_plain_data_and_come_back_the_same():
    from autograder.judge import frame_of, from_frame, outcome_from_wire, outcome_to_wire

    def crossed(outcome):
        return outcome_from_wire(from_frame(frame_of({"outcome": outcome_to_wire(outcome)}))["outcome"])

    back = crossed(Outcome.returned((EXPECTED, 3), peak=4096))
    assert back.has_value and back.peak == 4096 and back.value[1] == 3
    np.testing.assert_array_equal(back.value[0], EXPECTED)
    assert crossed(Outcome.raising("TimeoutError", "used more than 1 s")).timed_out
    assert crossed(Outcome.unstarted("softmax is not implemented yet")).not_started
    foreign = crossed(Outcome.returned(EXPECTED.view(Sneaky)))  # a student's object never crosses, its name does
    assert "ndarray subclass" in repr(foreign.value) and type(foreign.value) is not Sneaky


@pytest.mark.parametrize("number", [np.float32(0.68), np.float64(0.5), np.float16(1.5), np.uint64(3), np.int16(-2),
                                    np.uint8(255), np.bool_(True), np.longlong(7)], ids=repr)
def test_does_a_numpy_number_an_answer_returns_cross_the_wire_with_its_dtype(number):
    """The notebook's own check weighs a NumPy number's dtype (float32 for a float32 input) and takes any NumPy
    integer for a count: graded, a float32 had become a Python float (expected dtype float32, got float64) and a
    uint64 a foreign object (expected an integer, got numpy.uint64)."""
    from autograder.judge import frame_of, from_frame, outcome_from_wire, outcome_to_wire
    from autograder.judge.policy import mismatch

    back = outcome_from_wire(from_frame(frame_of({"outcome": outcome_to_wire(Outcome.returned((number, 1)))}))["outcome"])
    assert isinstance(back.value[0], np.generic) and back.value[0].dtype == number.dtype and back.value[0] == number
    assert back.value[1] == 1
    if number.dtype.kind == "f":
        expected = np.asarray(number, dtype=number.dtype)
        assert mismatch(back.value[0], expected, True) is None is mismatch(number, expected, True)
    elif number.dtype.kind in "iu":
        assert mismatch(back.value[0], int(number), True) is None is mismatch(number, int(number), True)


@pytest.mark.parametrize("forged", [
    ("value", EXPECTED),
    {"kind": "passed", "value": None, "error": "", "message": "", "peak": None},
    {"kind": "value", "value": 1, "error": "", "message": "", "peak": "12"},
    {"kind": "raised", "value": None, "error": None, "message": "", "peak": None},
    {"kind": "value", "value": 1},
], ids=["a tuple", "an unknown kind", "a peak not a number", "no error name", "missing fields"])
def test_is_a_reply_from_the_grading_child_that_is_not_an_outcome_refused(forged):
    from autograder.judge import outcome_from_wire
    with pytest.raises(ValueError):
        outcome_from_wire(forged)


def _frame(header, raw: bytes = b"") -> bytes:
    """A frame as a grading child could forge it: any header, any bytes after it, its length counted right."""
    import json
    from autograder.judge.frames import framed
    header = header if isinstance(header, bytes) else json.dumps(header).encode()
    return framed([header, b"\n", raw])


def _every_wire_dtype():
    from autograder.judge.frames import WIRE_DTYPES
    return [np.arange(6).astype(dtype).reshape(2, 3) for dtype in WIRE_DTYPES.values()]


def test_does_a_message_cross_the_wire_exactly_dtype_shape_bytes_and_structure():
    from autograder.judge import Seed, frame_of, from_frame
    from autograder.judge.policy import Foreign
    arrays = [*_every_wire_dtype(), np.array(2.5), np.empty((0, 3), np.float32),
              np.asfortranarray(EXPECTED), EXPECTED[:, ::-1], EXPECTED.astype(">f8"),
              np.array([np.nan, -0.0, np.inf, 1e-320])]
    message = {"args": [arrays, (1, 2.5, "a\nline", None, True), Seed(7)],
               "kwargs": {"causal": True, "block": np.int64(3), "n": 10 ** 30}, "value": Foreign("a Sneaky"),
               "nested": {"dict": {"tuple": [1]}}}
    back = from_frame(frame_of(message))
    assert list(back) == sorted(message)  # the header's keys are sorted, as save_cases's are
    for sent, got in zip(arrays, back["args"][0]):
        assert type(got) is np.ndarray and got.dtype == sent.dtype and got.dtype.str == sent.dtype.str
        assert got.shape == sent.shape and got.tobytes() == sent.tobytes() and got.flags.writeable
    assert back["args"][1] == (1, 2.5, "a\nline", None, True) and type(back["args"][1]) is tuple
    assert type(back["args"][2]) is Seed and back["args"][2] == 7
    assert back["kwargs"] == {"block": 3, "causal": True, "n": 10 ** 30}
    assert type(back["value"]) is Foreign and repr(back["value"]) == "a Sneaky"
    assert back["nested"] == {"dict": {"tuple": [1]}}


@pytest.mark.parametrize("array", [np.array([object()]), np.array(["a", "b"]), np.zeros(2, "datetime64[s]"),
                                   np.zeros(2, [("a", "<f8")])], ids=["objects", "text", "dates", "records"])
def test_is_an_array_of_anything_but_numbers_or_booleans_kept_off_the_wire(array):
    from autograder.judge import frame_of
    with pytest.raises(TypeError, match="only arrays of numbers or booleans"):
        frame_of({"args": [array]})


def _holding(value) -> dict:
    """A message's structure as `encode` writes it: {"v": value}."""
    return {"dict": {"v": value}}


_HONEST = b'{"arrays": [], "message": {"dict": {"v": 1}}}\n'
FORGED_FRAMES = {
    "no length": _HONEST,
    "a length that is not digits": b"+%d\n" % len(_HONEST) + _HONEST,
    "a length with spaces": b" %d\n" % len(_HONEST) + _HONEST,
    "a length past its digits' limit": b"0" * 30 + b"%d\n" % len(_HONEST) + _HONEST,
    "a length one short": b"%d\n" % (len(_HONEST) - 1) + _HONEST,
    "a length one long": b"%d\n" % (len(_HONEST) + 1) + _HONEST,
    "a length in other digits": "".join(chr(0x660 + int(c)) for c in str(len(_HONEST))).encode() + b"\n" + _HONEST,
    "nothing": b"",
    "no header": b"0\n",
    "a header that is not JSON": _frame(b"{'message': {}}"),
    "a header that is a list": _frame([{}, []]),
    "a header with more keys": _frame({"message": _holding(1), "arrays": [], "pickle": "cos\nsystem"}),
    "an object dtype": _frame({"message": _holding({"array": "a0"}), "arrays": [["|O", [1]]]}, bytes(8)),
    "a record dtype": _frame({"message": _holding({"array": "a0"}), "arrays": [[[["a", "<f8"]], [1]]]}, bytes(8)),
    "a text dtype": _frame({"message": _holding({"array": "a0"}), "arrays": [["<U2", [1]]]}, bytes(8)),
    "a dtype not spelt as numpy spells it": _frame({"message": _holding(1), "arrays": [["float64", [1]]]}, bytes(8)),
    "a shape its bytes do not fill": _frame({"message": _holding(1), "arrays": [["<f8", [2, 3]]]}, bytes(40)),
    "a shape too large to allocate": _frame({"message": _holding(1), "arrays": [["<f8", [1 << 40, 1 << 40]]]}, bytes(8)),
    "a negative dimension": _frame({"message": _holding(1), "arrays": [["<f8", [-1]]]}, bytes(8)),
    "a dimension that is not an integer": _frame({"message": _holding(1), "arrays": [["<f8", [1.0]]]}, bytes(8)),
    "a dimension that is a boolean": _frame({"message": _holding(1), "arrays": [["<f8", [True]]]}, bytes(8)),
    "a zero dimension with an impossible other": _frame({"message": _holding(1), "arrays": [["<f8", [0, 1 << 70]]]}),
    "too many dimensions": _frame({"message": _holding(1), "arrays": [["<f8", [1] * 40]]}, bytes(8)),
    "bytes left over": _frame({"message": _holding(1), "arrays": [["<f8", [1]]]}, bytes(9)),
    "an array never sent": _frame({"message": _holding({"array": "a3"}), "arrays": []}),
    "an array spec that is not a pair": _frame({"message": _holding(1), "arrays": [5]}),
    "a dict that is not one": _frame({"message": _holding({"dict": 5}), "arrays": []}),
    "a tuple that is not one": _frame({"message": _holding({"tuple": 5}), "arrays": []}),
    "a foreign object described by a number": _frame({"message": _holding({"foreign": 5}), "arrays": []}),
    "a seed that is not a number": _frame({"message": _holding({"rng": [1]}), "arrays": []}),
    "a message that is not a dict": _frame({"message": [1, 2], "arrays": []}),
    "nesting too deep to decode": _frame(b'{"arrays": [], "message": ' + b'{"tuple": [' * 5000 + b"1"
                                        + b"]}" * 5000 + b"}"),
}


@pytest.mark.parametrize("frame", FORGED_FRAMES.values(), ids=FORGED_FRAMES.keys())
def test_is_a_forged_or_malformed_frame_refused_with_a_value_error(frame):
    from autograder.judge import from_frame
    with pytest.raises(ValueError):
        from_frame(frame)


def test_is_a_pickle_sent_down_the_wire_refused_unread():
    import pickle
    from autograder.judge import from_frame
    forged = pickle.dumps({"outcome": np.ones(2)})
    for frame in (forged, b"%d\n" % len(forged) + forged):
        with pytest.raises(ValueError):
            from_frame(frame)


def test_does_every_corruption_of_a_frame_give_a_message_or_a_value_error_and_nothing_else():
    from autograder.judge import frame_of, from_frame
    from autograder.call_frames import header
    frame = frame_of({"outcome": {"value": (EXPECTED, np.arange(3)), "kind": "value"}})
    rng = np.random.default_rng(0)
    read = 0
    for _ in range(3000):
        corrupted = bytearray(frame)
        for position in rng.integers(0, len(frame), rng.integers(1, 4)):
            corrupted[position] = int(rng.integers(0, 256))
        corrupted = corrupted[:int(rng.integers(len(frame) // 2, len(frame) + 1))] if rng.random() < 0.2 \
            else corrupted
        try:
            message = from_frame(bytes(corrupted))
        except ValueError:
            continue
        assert type(message) is dict
        read += 1
        # The grader reads a frame's header first (to route a stand-in's call) and hands it on: the same message.
        again = from_frame(bytes(corrupted), header(bytes(corrupted)))
        assert repr(again) == repr(message)
    assert read > 100  # a change within the arrays' bytes is another message, not a refusal


def _named(got, expected, variants):
    found = diagnose("f", Outcome.returned(got), {"expected": expected, "variants": variants})
    return found and (found.kind, found.mistake)


def test_a_case_where_two_mistakes_give_one_output_names_neither():
    expected = np.array([1.0, 2.0])
    both = np.array([1.0, 3.0])
    variants = [("first", 3, "a.", both), ("second", 4, "b.", both.copy()), ("third", 4, "c.", np.array([0.0, 2.0]))]
    assert _named(both, expected, variants) == ("wrong values", None)
    assert _named(np.array([0.0, 2.0]), expected, variants) == ("wrong values", "third")


def test_a_named_mistake_is_shown_on_a_case_that_tells_it_apart_not_on_an_earlier_degenerate_one():
    # Case "degenerate": the two mistakes give one output there; case "telling": only "first" gives the answer's.
    answer = lambda x: x + 1.0  # noqa: E731
    cases = [{"label": "degenerate", "args": [np.zeros(2)], "expected": np.zeros(2),
              "variants": [("first", 3, "a.", np.ones(2)), ("second", 4, "b.", np.ones(2))]},
             {"label": "telling", "args": [np.full(2, 5.0)], "expected": np.full(2, 5.0),
              "variants": [("first", 3, "a.", np.full(2, 6.0)), ("second", 4, "b.", np.full(2, 10.0))]}]
    (found,) = check_verdicts([(cases, [c["label"] for c in cases], True)],
                              lambda case: Outcome.returned(answer(*case["args"])))
    assert found.mistake == "first"
    assert found.message.startswith("telling:"), found.message
    cases[1]["variants"][0] = ("first", 3, "a.", np.full(2, 7.0))  # now nothing tells a mistake: the first failure
    (found,) = check_verdicts([(cases, [c["label"] for c in cases], True)],
                              lambda case: Outcome.returned(answer(*case["args"])))
    assert found.mistake is None and found.message.startswith("degenerate:"), found.message


def test_an_answer_off_only_in_dtype_is_given_no_name_even_when_a_mistake_is_off_only_in_dtype():
    expected = np.array([1.0, 2.0], dtype=np.float32)
    in_float64 = expected.astype(np.float64)
    assert _named(in_float64, expected, [("upcast", 3, "keep float32.", in_float64.copy())]) == ("wrong dtype", None)


def test_an_answer_off_in_type_and_in_value_can_still_be_named():
    assert _named(0.5, 524_288, [("in MiB", 7, "count bytes.", 0.5)]) == ("wrong type", "in MiB")
    assert _named(524_288.0, 524_288, [("a float", 7, "x.", 524_288.0)]) == ("wrong type", None)


FORMS_OF_ONE_NUMBER = [2.5, np.float64(2.5), np.array(2.5)]


@pytest.mark.parametrize("answer", FORMS_OF_ONE_NUMBER, ids=["float", "numpy scalar", "0-d array"])
@pytest.mark.parametrize("expected", [2.5, np.array(2.5)], ids=["a number due", "a 0-d array due"])
def test_one_number_may_be_a_python_number_a_numpy_scalar_or_a_0d_array(answer, expected):
    assert judge("f", answer, expected) is None
    assert judge("f", answer + 1, expected) == "f: expected 2.5, got 3.5 (tolerance 1.5e-08)."


def test_one_number_from_an_array_function_keeps_the_dtype_rule():
    assert "expected dtype float64, got dtype float32" in judge("f", np.float32(2.5), np.array(2.5))
    assert "expected dtype float64, got dtype int64" in judge("f", 2, np.array(2.0))


@pytest.mark.parametrize("answer", [128, np.int64(128), np.int32(128), np.array(128)],
                         ids=["int", "numpy integer", "numpy int32", "0-d integer array"])
def test_a_count_is_an_exact_integer_in_any_of_its_forms(answer):
    assert judge("n", answer, 128) is None
    assert "not the right count" in judge("n", answer + 1, 128, reveal=False)


@pytest.mark.parametrize("answer", [128.0, np.float64(128.0), np.array(128.0), 67.1e6],
                         ids=["float", "numpy float", "0-d float array", "rounded"])
def test_a_count_given_as_a_float_is_refused_with_the_integer_arithmetic_it_needs(answer):
    message = judge("n", answer, 128)
    assert message.startswith("n: expected an integer, got") and "integer arithmetic" in message


def test_the_form_check_and_the_grader_apply_one_rule_to_a_count():
    """Whatever the form check passes, the grader reads as that count; whatever it refuses, the grader refuses."""
    from autograder.judge import CheckFailed, check_answer_form
    for answer in [128, np.int64(128), np.array(128), 128.0, np.float32(128), 67.1e6, 2.5, "128", True, None]:
        try:
            check_answer_form("Q", {"Q": answer})
            passed = True
        except CheckFailed:
            passed = False
        graded = verdict("q", Outcome.returned(answer), {"expected": 128, "form": "count", "variants": []}) is None
        assert passed == graded, answer


ODD_VALUES = st.recursive(
    st.one_of(st.integers(), st.sampled_from([10 ** 400, 512 ** 12, 2 ** 63, True, None]), st.builds(lambda k: -(10 ** k), st.just(5000)),
              st.floats(), st.text(max_size=50), st.builds(lambda n: "x" * n, st.integers(0, 10_000)),
              st.builds(np.asarray, st.sampled_from([10 ** 30, "text", None, 1.5]))),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=3), inner,
                                                                                          max_size=3),
    max_leaves=8)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_no_value_an_answer_returns_crashes_its_judging(name):
    # Whatever comes back (integers past any machine number, nested odd objects, long text) is a verdict.
    cases = hidden_cases(name)[:6]  # built here: some are drawn by hypothesis themselves

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(value=ODD_VALUES)
    def judged(value):
        for case in cases:
            problem = verdict(name, Outcome.returned(value), case)
            assert problem is None or isinstance(problem, str)
    judged()


def test_a_valueerror_of_the_students_own_class_is_a_valueerror_and_numpys_axiserror_is_not():
    """`class HeadsError(ValueError)` raised with a message naming the shape meets "Raises ValueError" as
    `except ValueError` would catch it (it was "expected a ValueError ..., but HeadsError"); NumPy's AxisError,
    raised by a reshape with no check of the student's, stays a failure of that requirement
    (heads.py's `_merge_unchecked`)."""
    cells = {"__name__": "__main__"}  # as the student's cells run, in JupyterLab and while graded
    exec("class HeadsError(ValueError):\n    pass\n\n\n"
         "def split_heads(M, n_heads):\n    raise HeadsError(f'cannot cut M of shape {M.shape} into {n_heads} heads')\n",
         cells)
    bad = {"label": "width 10 in 4 heads", "args": (np.zeros((3, 10)), 4), "kwargs": {}, "raises": "ValueError"}
    own = call(cells["split_heads"], bad["args"])
    assert own.error == "ValueError" and own.message.startswith("HeadsError: cannot cut M of shape (3, 10)")
    assert verdict(bad["label"], own, bad) is None
    numpys = call(lambda H: np.moveaxis(H, -3, -2), (np.zeros((5, 4)),))
    assert numpys.error == "AxisError" and diagnose(bad["label"], numpys, bad).kind == "bad input accepted"


def test_text_of_numpys_type_is_named_with_what_to_return_in_the_notebook_and_while_graded():
    """classify_head answered with np.array([...])[best], a numpy.str_ equal to 'self': "expected another answer"
    read as a wrong value; the type is what is wrong, and str(x) mends it."""
    from autograder.judge import frame_of, from_frame
    from autograder.judge.policy import mismatch

    numpys = np.array(["self", "previous"])[0]
    crossed = from_frame(frame_of({"value": plain(numpys)}))["value"]
    for got in (numpys, crossed):
        assert mismatch(got, "self", reveal=False) == ("wrong type", f"expected a str, got {got!r}: return str(x), "
                                                                     "a plain Python str")
    assert mismatch("selfish", "self", reveal=False) == ("wrong values", "expected another answer, got 'selfish'")


def test_a_wrong_value_on_8_bit_integers_says_they_wrap_round():
    """An answer that computes uint8 input in its own dtype gets "expected 2247461, got 17101" and nothing more;
    the message now says what 8-bit arithmetic does. The same wrong value on float input says nothing of it."""
    expected = np.array([2247461.0])
    for given, said in ((np.array([3, 5], dtype=np.uint8), True), (np.array([3.0, 5.0]), False)):
        case = {"label": "c", "expected": expected, "args": [given], "kwargs": {}}
        [verdict] = check_verdicts([([case], ["f on c"], True)], lambda case: Outcome.returned(np.array([17101.0])))
        assert ("which wrap round when computed in their own dtype: 3 − 5 is 254" in verdict.message) == said, \
            verdict.message


def test_a_count_accepted_at_its_edge_is_told_the_rule_every_exercise_shares():
    """"True as n_heads: expected a ValueError for this bad input" named no reason where the exercise's own text
    says nothing of counts: the message now gives notebook 01's rule. A bad shape accepted is not told it."""
    for checks, said in ((["bad size"], True), (["bad shape"], False)):
        case = {"label": "True as n_heads", "raises": "ValueError", "checks": checks, "args": [], "kwargs": {}}
        [verdict] = check_verdicts([([case], ["f on True as n_heads"], True)], lambda case: Outcome.returned(1.0))
        assert verdict.message.startswith("f on True as n_heads: expected a ValueError for this bad input, but it "
                                          "returned ")
        assert ("True and a float such as 2.0 raise a ValueError (notebook 01" in verdict.message) == said


def test_float32_widened_to_float64_names_the_usual_cause():
    message = judge("f", EXPECTED, EXPECTED.astype(np.float32))
    assert message.startswith("f: expected dtype float32, got dtype float64 (float32 meets a float64 NumPy value")
    assert "math.sqrt(d_k)" in message
    assert "NumPy value" not in judge("f", EXPECTED.astype(np.float32), EXPECTED)
