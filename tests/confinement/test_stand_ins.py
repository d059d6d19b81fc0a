"""Does a mistake cost the points of its own exercise only? While an exercise
is graded, the exercises it is built on are the reference's (judge.BUILT_ON),
in every grading path; outside grading, a visible check names the student's
failing function that the exercise calls."""

from __future__ import annotations

import resource
import time

import numpy as np
import pytest

import autograder.judge.checks as visible_checks
import solutions.attention as reference
from autograder.judge import CheckFailed, check, standing_in
from autograder.judge.checks import ANSWER_KEY
from autograder import call_frames, stand_in_server, submission
from autograder.budget import GraderBudget
from autograder.judge import frame_of, from_frame
from autograder.judge.frames import framed, payload_start
from kit.notebooks import ROOT

STUDENT = '''
import numpy as np

def softmax(S, axis=-1):
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)  # wrong axis

def attention(Q, K, V, mask=None):
    if min(np.ndim(Q), np.ndim(K), np.ndim(V)) < 2:
        raise ValueError(f"Q, K and V need 2 dimensions or more, got {np.shape(Q)}, {np.shape(K)}, {np.shape(V)}")
    S = Q @ np.swapaxes(K, -1, -2) / Q.shape[-1] ** 0.5  # a Python float keeps float32
    if mask is not None:
        S = S + np.asarray(mask, dtype=S.dtype)
    weights = softmax(S, axis=-1)
    return weights @ V, weights
'''


@pytest.fixture
def student(monkeypatch):
    monkeypatch.setattr(visible_checks, "VISIBLE_CASES", ROOT / "source" / "attention" / "worked_example.npz")
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    namespace = {}
    exec(STUDENT, namespace)
    return namespace


def test_the_reference_stands_in_only_while_the_answer_runs(student):
    own = student["softmax"]
    with standing_in("attention", student["attention"], lambda dep: getattr(reference, dep)):
        assert student["softmax"] is reference.softmax
    assert student["softmax"] is own


def test_the_students_own_function_is_back_even_when_the_answer_raises(student):
    own = student["softmax"]
    with pytest.raises(ZeroDivisionError):
        with standing_in("attention", student["attention"], lambda dep: getattr(reference, dep)):
            1 / 0
    assert student["softmax"] is own


def test_an_exercise_built_on_nothing_swaps_nothing(student):
    with standing_in("softmax", student["softmax"], lambda dep: pytest.fail(f"asked for {dep}")):
        pass


def test_a_visible_check_names_the_failing_function_the_exercise_calls(student):
    with pytest.raises(CheckFailed) as failed:
        check("attention", student["attention"])
    assert "attention calls your softmax, which fails its own check: fix softmax first" in str(failed.value)


def test_the_note_appears_only_when_the_answer_did_call_the_failing_function(student):
    """An answer that calls nothing it is built on, or is not started, is never told it calls it."""
    exec('''
def attention(Q, K, V, mask=None):
    return V + 1.0, np.zeros((Q.shape[0], K.shape[0]))  # wrong, and calls no softmax
''', student)
    with pytest.raises(CheckFailed) as failed:
        check("attention", student["attention"])
    assert "Note:" not in str(failed.value) and "calls your" not in str(failed.value)
    stub = {**student, "NotStarted": NotImplementedError}
    exec("def attention(Q, K, V, mask=None):\n    raise NotStarted()\n", stub)
    with pytest.raises(CheckFailed) as failed:
        check("attention", stub["attention"])
    assert "not started" in str(failed.value) and "calls your" not in str(failed.value)


def test_the_functions_an_answer_calls_are_its_own_again_after_the_check(student):
    own = student["softmax"]
    with pytest.raises(CheckFailed):
        check("attention", student["attention"])
    assert student["softmax"] is own


def test_while_nbgrader_grades_the_visible_check_counts_the_exercise_alone(student, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv(ANSWER_KEY, "autograder.answer_key")  # as the kit's nbgrader configuration sets it
    check("attention", student["attention"])  # passes: the reference's softmax stands in
    with pytest.raises(CheckFailed):
        check("softmax", student["softmax"])


def stand_in_reply(call: str, *args, budget: GraderBudget = GraderBudget(), **kwargs) -> tuple[dict, float]:
    """What the grader sends back to a grading child's stand-in call, and the CPU seconds it cost."""
    frame = frame_of({"call": call, "args": list(args), "kwargs": kwargs, "nonce": "n"})
    reply, cpu = stand_in_server.answer(frame, budget.memory_bytes, budget.reply_bytes, time.monotonic() + 60)
    return from_frame(reply), cpu


def test_the_grader_answers_a_stand_in_with_the_reference_value():
    S = np.random.default_rng(0).normal(size=(3, 5))
    reply, cpu = stand_in_reply("softmax", S, axis=-1)
    np.testing.assert_array_equal(reply["value"], reference.softmax(S))
    assert cpu >= 0


def test_the_grader_passes_the_references_error_on_to_the_students_code():
    reply, _ = stand_in_reply("raw_scores", np.ones((2, 3)), np.ones((2, 4)))
    assert reply["error"][0] == "ValueError"


def test_a_stand_in_called_with_arguments_only_the_students_own_takes_says_the_reference_answers_it():
    """Their softmax took a `mask` and their attention passed one: "softmax() got an unexpected keyword argument
    'mask'" sent them after an answer that is right in JupyterLab, where their own softmax answers."""
    reply, _ = stand_in_reply("softmax", np.ones((2, 3)), axis=-1, mask=None)
    kind, text = reply["error"]
    assert kind == "TypeError" and text.startswith("softmax() got an unexpected keyword argument 'mask' (while your "
                                                   "answer is graded, softmax is the reference's softmax(S, axis=-1)")
    reply, _ = stand_in_reply("raw_scores", np.ones((2, 3)), np.ones((2, 4)))  # a right call: the reference's own
    assert "standing in" not in reply["error"][1]


@pytest.mark.parametrize("args", [
    (np.ones(1 << 14),),             # a 2 GiB answer from 128 kB: softmax's gradient grid is quadratic
    ([np.ones(1 << 12)] * 32,),      # the same hidden in a list
], ids=["quadratic", "in_a_list"])
def test_a_stand_in_answer_past_the_graders_memory_per_student_is_a_memory_error_and_costs_the_grader_nothing(args):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    reply, _ = stand_in_reply("softmax_jacobian", *args, budget=GraderBudget(memory_bytes=256 << 20))
    assert reply["error"][0] == "MemoryError" and "256 MiB" in reply["error"][1]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 << 10  # KiB: this process grew little
    reply, _ = stand_in_reply("softmax", np.zeros(3))  # the next call is answered as usual
    np.testing.assert_allclose(reply["value"], [1 / 3] * 3)


def test_a_stand_in_answer_too_long_to_send_back_is_refused():
    budget = GraderBudget(memory_bytes=1 << 30)  # replies of at most 128 MiB: a 2,048 × 8,192 grid is 171 MiB
    reply, _ = stand_in_reply("raw_scores", np.ones((2048, 4)), np.ones((8192, 4)), budget=budget)
    assert reply["error"][0] == "MemoryError" and "too large to send back" in reply["error"][1]


def test_a_function_the_student_never_defined_is_stood_in_and_removed_again(student):
    del student["softmax"]
    with standing_in("attention", student["attention"], lambda dep: getattr(reference, dep)):
        assert student["softmax"] is reference.softmax
    assert "softmax" not in student and "raw_scores" not in student


# Notebook 09: classify_head is built on the four measures (its reference is model/heads.py).
MEASURES = '''
import numpy as np

def self_score(A):
    return float(np.diagonal(np.asarray(A))[1:].mean())

def previous_score(A):
    return float(np.diagonal(np.asarray(A), offset=1).mean())  # one token ahead: always 0 on a causal grid

def start_score(A):
    return float(np.asarray(A)[1:, 0].mean())

def induction_score(A, tokens):
    A, tokens = np.asarray(A), np.asarray(tokens)
    n = len(tokens)
    targets = np.zeros((n, n), dtype=bool)
    targets[:, 1:] = tokens[:, None] == tokens[None, :-1]
    targets &= np.tril(np.ones((n, n), dtype=bool), k=-1)
    rows = targets.any(axis=1)
    return float((A * targets).sum(axis=1)[rows].mean()) if rows.any() else 0.0

def classify_head(A, tokens):
    scores = [self_score(A), previous_score(A), start_score(A), induction_score(A, tokens)]
    best = int(np.argmax(scores))
    return ("self", "previous", "start", "induction")[best] if scores[best] >= 0.5 else "spread"
'''


@pytest.fixture
def measures(student):
    namespace = {}
    exec(MEASURES, namespace)
    return namespace


def test_classify_head_is_graded_with_the_reference_measures_in_a_hidden_check(measures):
    from autograder.incell import hidden_check
    hidden_check("classify_head", measures["classify_head"])  # passes: the reference's previous_score stands in
    with pytest.raises(CheckFailed):
        hidden_check("previous_score", measures["previous_score"])


def test_classify_head_visible_check_counts_it_alone_while_nbgrader_grades(measures, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv(ANSWER_KEY, "autograder.answer_key")  # as the kit's nbgrader configuration sets it
    check("classify_head", measures["classify_head"])


def test_outside_grading_classify_head_runs_the_students_measures_and_names_the_failing_one(measures):
    with pytest.raises(CheckFailed) as failed:
        check("classify_head", measures["classify_head"])
    assert "classify_head calls your previous_score, which fails its own check" in str(failed.value)


ASKS_FOR_AN_AXIS_THE_SCORES_LACK = '''
import math

import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    weights = softmax(S, axis=7)
    return weights @ V, weights
'''


def test_a_hidden_message_quotes_the_students_line_when_the_reference_standing_in_refuses_its_input(tmp_path):
    """The grading child's stand-in raises the reference's error in the grader's own code (child.py); the
    message must quote the student's line that called it, never that one."""
    from autograder.cases import hidden_cases
    from autograder.judge import verdict
    from autograder.submission import Submission
    from tests.shared.corpus_submissions import make_submission

    answer = tmp_path / "attention.py"
    answer.write_text(ASKS_FOR_AN_AXIS_THE_SCORES_LACK)
    make_submission(answer, tmp_path / "attention")
    case = hidden_cases("attention")[0]
    with Submission(tmp_path / "attention") as submission:
        message = verdict("attention", submission.outcome("attention", case), case)
    assert "raised ValueError: axis 7 is out of range" in message
    assert message.endswith("(line 9: weights = softmax(S, axis=7))")


def _asks_counted(monkeypatch) -> list[bytes]:
    asked = []
    ask = stand_in_server.StandInServer.ask

    def counted(self, frame, deadline):
        asked.append(frame)
        return ask(self, frame, deadline)

    monkeypatch.setattr(stand_in_server.StandInServer, "ask", counted)
    monkeypatch.setattr(stand_in_server, "_kept", stand_in_server._Kept())
    return asked


def test_the_same_call_made_again_gets_the_kept_answer_whatever_its_nonce(monkeypatch):
    asked = _asks_counted(monkeypatch)
    S = np.random.default_rng(1).normal(size=(4, 6))
    budget = GraderBudget()
    frames = [frame_of({"call": "softmax", "args": [S], "kwargs": {}, "nonce": nonce}) for nonce in "ab"]
    first, second = (stand_in_server.answer(frame, budget.memory_bytes, budget.reply_bytes, time.monotonic() + 60)
                     for frame in frames)
    assert len(asked) == 1 and first == second  # the same reply, charged what it first cost
    np.testing.assert_array_equal(from_frame(second[0])["value"], reference.softmax(S))
    reply, _ = stand_in_reply("softmax", S + 1)  # another call: asked
    assert len(asked) == 2
    np.testing.assert_array_equal(reply["value"], reference.softmax(S + 1))


def test_an_answer_the_servers_memory_decided_is_never_kept(monkeypatch):
    asked = _asks_counted(monkeypatch)
    budget = GraderBudget(memory_bytes=256 << 20)
    for _ in range(2):
        reply, _ = stand_in_reply("softmax_jacobian", np.ones(1 << 14), budget=budget)
        assert reply["error"][0] == "MemoryError"
    assert len(asked) == 2


def test_a_second_student_graded_in_the_same_process_finds_every_stand_in_answer_kept(monkeypatch):
    # Answers are kept least recently used: were one student's calls more than KEPT_BYTES holds, the next
    # student, making them in the same order, would find none of them kept, and the server would compute
    # every one again (prefix_gaps' case of 260 tokens alone asks attention 261 times).
    from autograder.grade import grade_submission

    asked = _asks_counted(monkeypatch)
    reference_student = ROOT / "examples" / "class" / "submitted" / "ada" / "attention"
    grade_submission(reference_student)
    first = len(asked)
    grade_submission(reference_student)
    assert first > 500 and len(asked) == first, f"{len(asked) - first} of {first} calls asked the server again"


def test_a_kept_answer_is_always_the_answer_its_own_frame_gets(monkeypatch):
    # Answers are kept for every student graded in the process: a frame forged so that it shares a kept call's
    # key but means another call would hand later students a wrong stand-in. Each frame here, a call frame
    # changed at one place (its length, its header or its arrays), its nonce of another length, a space or a
    # stray byte put in (its length counted again, or not), is answered with the kept answers shared, and
    # again alone: the two replies agree.
    monkeypatch.setattr(stand_in_server, "_kept", stand_in_server._Kept())
    budget = GraderBudget()
    frames = _forged_call_frames(np.random.default_rng(7))

    def reply(frame: bytes) -> bytes:
        return stand_in_server.answer(frame, budget.memory_bytes, budget.reply_bytes, time.monotonic() + 60)[0]

    kept_shared = [reply(frame) for frame in frames]
    alone = []
    for frame in frames:
        monkeypatch.setattr(stand_in_server, "_kept", stand_in_server._Kept())
        alone.append(reply(frame))
    assert [i for i, (a, b) in enumerate(zip(kept_shared, alone)) if a != b] == []
    assert len({reply for reply in kept_shared}) > 2  # some frames were other calls, some not calls at all


def _forged_call_frames(rng) -> list[bytes]:
    """A call frame, the same with its nonce of other lengths, 40 copies changed at one place, and frames
    with a space or a byte put in (their length counted again, or not), cut short, and that are no call."""
    S = rng.normal(size=(40, 40))

    def frame_with(nonce: str) -> bytes:
        return frame_of({"call": "softmax", "args": [S], "kwargs": {"axis": -1}, "nonce": nonce})

    honest = frame_with("a" * 16)
    frames = [honest, frame_with("b" * 16), frame_with("c"), frame_with("d" * 40)]
    for _ in range(40):
        at = int(rng.integers(len(honest)))
        frames.append(honest[:at] + bytes([rng.choice(list(b'09 ,:"{}[]a\n'))]) + honest[at + 1:])
    payload = honest[payload_start(honest):]
    header_end = payload.index(b"\n")
    return frames + [framed([payload[:1], b" ", payload[1:]]),
                     framed([payload[:header_end], b" ", payload[header_end:]]),
                     framed([payload, b"\x00"]), framed([payload[:-100]]), honest + b"AAAA", honest[:-100],
                     frame_of({"outcome": {"call": "softmax"}}), frame_of({"call": ["softmax"], "nonce": "a"}),
                     frame_of({"call": "softmax"})]


def _routed(frame: bytes) -> dict | None:
    """The call the grader reads from a frame's header (autograder/submission.py), or None: no call."""
    try:
        return call_frames.call_in(call_frames.header(frame)[0])
    except Exception:  # the grader ends the child: the frame is unreadable
        return None


def test_a_call_read_from_its_header_is_the_call_a_whole_read_gives():
    # The grader routes a stand-in's call by its header alone (autograder/call_frames.py) and passes its arrays
    # on unread: for every frame whose header reads as a call, a whole read (judge.from_frame, as the server
    # reads it) names the same call for the same request, or refuses the frame.
    frames = _forged_call_frames(np.random.default_rng(11))
    assert _routed(frames[0]) == {"call": "softmax", "nonce": "a" * 16}
    routed = 0
    for frame in frames:
        header_says = _routed(frame)
        try:
            whole = from_frame(frame)
        except ValueError:
            continue
        if header_says is not None:
            routed += 1
            assert (whole["call"], whole.get("nonce")) == (header_says["call"], header_says["nonce"]), frame[:80]
    assert routed > 10
    assert _routed(frame_of({"outcome": {"call": "softmax"}})) is None
    assert _routed(frame_of({"call": ["softmax"], "nonce": "a"})) is None


def test_a_call_whose_arrays_cannot_be_read_gets_the_servers_refusal():
    # Its header names an allowed call, its arrays are cut short (its length counts what is there): the server
    # reads it whole and refuses it. A frame whose length is not its own is refused without a server.
    budget = GraderBudget()
    frame = frame_of({"call": "softmax", "args": [np.ones((40, 40))], "kwargs": {}, "nonce": "a" * 16})
    payload = frame[payload_start(frame):-200]
    cut_short, miscounted = framed([payload]), frame[:-200]
    assert _routed(cut_short) is not None and _routed(miscounted) is None
    for cut in (cut_short, miscounted):
        reply, _ = stand_in_server.answer(cut, budget.memory_bytes, budget.reply_bytes, time.monotonic() + 60)
        assert "error" in from_frame(reply) and "value" not in from_frame(reply)


def test_the_grader_reads_no_calls_arrays(monkeypatch):
    # prefix_gaps' case of 260 tokens sends 261 calls and 47 MB of masks a student: only the server reads them.
    read_whole = []

    def counted(frame, read=None):
        message = from_frame(frame, read)
        read_whole.append("call" in message)
        return message
    monkeypatch.setattr(submission, "from_frame", counted)
    from autograder.grade import grade_submission
    report = grade_submission(ROOT / "examples" / "class" / "submitted" / "ada" / "attention")
    assert report.cells["hidden_prefix_gaps"].earned == report.cells["hidden_prefix_gaps"].possible
    assert len(read_whole) > 500 and not any(read_whole)
