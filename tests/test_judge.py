"""The one comparison policy (autograder/judge.py), as students meet it."""

import re

import numpy as np
import pytest

from autograder.judge import KINDS, NotStarted, call, diagnose, judge, plain, tolerance, verdict

EXPECTED = np.array([[0.25, 0.75], [0.5, 0.5]])


class Sneaky(np.ndarray):
    def __eq__(self, other):
        return True


def test_a_right_answer_passes():
    assert judge("f", EXPECTED.copy(), EXPECTED) is None


def test_an_ndarray_subclass_is_rejected_with_its_type():
    message = judge("f", EXPECTED.view(Sneaky), EXPECTED)
    assert "numpy.ndarray" in message and "Sneaky" in message


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


def test_counts_must_be_integers_and_exact():
    assert judge("f", 6 * 2**20, 6 * 2**20) is None
    assert "expected an integer" in judge("f", 6.0 * 2**20, 6 * 2**20)
    assert "expected 6,291,456, got 6,291,457" in judge("f", 6 * 2**20 + 1, 6 * 2**20)


def test_a_tuple_answer_is_checked_part_by_part():
    assert "part 1 of the tuple" in judge("f", (EXPECTED, EXPECTED.T.copy()), (EXPECTED, EXPECTED))
    assert "a tuple of 2" in judge("f", EXPECTED, (EXPECTED, EXPECTED))


def test_a_stub_reports_not_started_and_names_the_function():
    def softmax(S):
        raise NotStarted()
    outcome = call(softmax, (EXPECTED,))
    assert outcome[0] == "not started" and "softmax" in outcome[1]
    assert "not started" in verdict("softmax", outcome, {"expected": EXPECTED})


def test_a_warning_does_not_fail_a_correct_answer(recwarn):
    def noisy(S):
        return np.exp(np.array([1000.0])) * 0 + S
    assert call(noisy, (EXPECTED,))[0] == "value"
    assert len(recwarn) == 0


def test_a_crash_is_reported_with_its_line():
    def broken(S):
        return S @ np.ones(3)
    outcome = call(broken, (EXPECTED,))
    assert outcome[0] == "raised" and outcome[1] == "ValueError" and "S @ np.ones(3)" in outcome[2]


def test_bad_input_must_raise_the_named_error():
    assert verdict("f", ("raised", "ValueError", "bad"), {"raises": "ValueError"}) is None
    assert "expected a ValueError" in verdict("f", ("value", EXPECTED), {"raises": "ValueError"})


def test_a_non_number_where_a_count_was_due_is_named_once():
    message = judge("score_flops", plain(object()), 12)
    assert message == "score_flops: expected an integer, got object."


def test_a_time_limit_counts_cpu_time_and_stops_a_spinning_loop():
    from autograder.judge import time_limit
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
    ({}, "abcd", "skip_sqrt is not answered yet"),
    ({"SKIP_SQRT": "B"}, "abcd", "must be one of 'a', 'b', 'c', 'd' (a lower-case string), got 'B'"),
    ({"SKIP_SQRT": "ab"}, "abcd", "got 'ab'"),
    ({"SKIP_SQRT": 2.0}, None, "must be a positive int (use //), got 2.0"),
    ({"SKIP_SQRT": True}, None, "got True"),
])
def test_a_check_yourself_answer_of_the_wrong_form_is_refused_with_what_is_due(namespace, letters, problem):
    from autograder.judge import CheckFailed, check_answer_form
    with pytest.raises(CheckFailed, match=re.escape(problem)):
        check_answer_form("SKIP_SQRT", namespace, letters=letters, hint="use //")


@pytest.mark.parametrize("answer, letters", [("b", "abcd"), (128, None), (np.int64(3), None)])
def test_a_check_yourself_answer_of_the_right_form_passes(answer, letters, capsys):
    from autograder.judge import check_answer_form
    check_answer_form("SKIP_SQRT", {"SKIP_SQRT": answer}, letters=letters)
    assert capsys.readouterr().out.startswith("✓ SKIP_SQRT")


@pytest.mark.parametrize("outcome, case, kind", [
    (("not started", "softmax is not implemented yet"), {"expected": EXPECTED}, "not started"),
    (("raised", "ValueError", "bad"), {"expected": EXPECTED}, "error raised"),
    (("raised", "TimeoutError", "used more than 10 s of CPU time"), {"expected": EXPECTED}, "timed out"),
    (("value", EXPECTED), {"raises": "ValueError"}, "bad input accepted"),
    (("value", EXPECTED.tolist()), {"expected": EXPECTED}, "wrong type"),
    (("value", EXPECTED[0]), {"expected": EXPECTED}, "wrong shape"),
    (("value", EXPECTED.astype(np.float32)), {"expected": EXPECTED}, "wrong dtype"),
    (("value", EXPECTED + 1), {"expected": EXPECTED}, "wrong values"),
    (("value", (EXPECTED, EXPECTED[0])), {"expected": (EXPECTED, EXPECTED)}, "wrong shape"),
    (("value", 7), {"expected": 6}, "wrong values"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_a_failure_says_its_kind_for_the_class_report(outcome, case, kind):
    found = diagnose("f", outcome, case)
    assert found.kind == kind and found.kind in KINDS
    assert found.message == verdict("f", outcome, case) and found.mistake is None


def test_a_known_mistake_is_named_in_the_verdict_as_well_as_the_message():
    variants = [("softmax over the wrong axis", 4, "Normalise rows.", EXPECTED.T.copy())]
    found = diagnose("f", ("value", EXPECTED.T.copy()), {"expected": EXPECTED, "variants": variants})
    assert found.mistake == "softmax over the wrong axis" and found.kind == "wrong values"
    assert "Likely mistake: softmax over the wrong axis" in found.message
