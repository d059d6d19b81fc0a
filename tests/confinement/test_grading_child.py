"""What is left of a grading child, and what of it does the grader touch? (autograder/grading_child.py)

Confined, a child writes only in a tmpfs of its own (tests/confinement/test_sandbox.py);
graded unconfined (a course that opted out, a self-learner), it writes in a
folder of its own on the disk, which the grader removes whatever modes the
student's code left, never following a link out of it. A child that measures a
notebook's memory has its highest mark set back between two measured cases; one
child serves a student's whole grading, measuring notebook 06 before any other
notebook's code ran in it, and a measured case after such code gets a child of
its own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np

from autograder import sandbox
from autograder.cases import hidden_cases, shipped_visible_cases
from autograder.grade import grade_submission, measured_first
from autograder.grading_child import remove_tree
from autograder.source_assignment import SourceAssignment
from autograder.submission import SHARED, SOURCE, Submission
from tests.shared.adversarial.build import fixtures, make_submission
from tests.shared.course_copy import EXAMPLE

FIXTURES = fixtures()


def test_folders_their_owner_made_read_only_or_unreadable_are_removed_whole(tmp_path):
    deep = tmp_path / "work" / "kept" / "kept" / "kept"
    deep.mkdir(parents=True)
    for folder in (deep, deep.parent, deep.parent.parent):
        (folder / "data.bin").write_bytes(b"1" * 1000)
    deep.chmod(0o000)
    deep.parent.chmod(0o500)
    deep.parent.parent.chmod(0o500)
    remove_tree(tmp_path / "work")
    assert list(tmp_path.iterdir()) == []


def test_removing_a_folder_never_follows_a_link_out_of_it(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o700)
    (outside / "keep.txt").write_text("the grader's")
    work = tmp_path / "work"
    work.mkdir()
    (work / "to_outside").symlink_to(outside)
    (work / "to_file").symlink_to(outside / "keep.txt")
    remove_tree(work)
    assert not work.exists()
    assert (outside / "keep.txt").read_text() == "the grader's" and oct(outside.stat().st_mode & 0o777) == "0o700"


def test_an_unconfined_grading_leaves_nothing_behind(tmp_path, monkeypatch):
    submission = tmp_path / "attention"
    FIXTURES["leaves_a_read_only_folder"].build(submission)  # folders made read-only and unreadable as it loads
    grader_tmp = tmp_path / "tmp"
    grader_tmp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(grader_tmp))
    report = grade_submission(submission, confine=sandbox.NEVER)
    assert report.confinement == sandbox.UNCONFINED
    assert all(cell.earned == cell.possible for cell in report.cells.values())
    assert [name for name in os.listdir(grader_tmp) if name.startswith("attention-grading")] == []


def test_an_earlier_cases_peak_is_forgotten_when_a_later_case_is_measured():
    """A measured child's count keeps its highest mark: an honest answer that held 16 MiB on one case must not be
    judged by that on a later case whose cap is 20 MiB, where it needs 4. The grader sets the mark back to what
    the child holds (or, where it may not, starts a fresh child past half the cap)."""
    rng = np.random.default_rng(0)
    large = [rng.standard_normal((4096, 8)) for _ in "QKV"]
    small = [rng.standard_normal((4096, 8)).astype(np.float32) for _ in "QKV"]
    cases = [{"func": "blockwise_attention", "label": label, "args": [*inputs, block], "kwargs": {"causal": causal},
              "memory_limit_bytes": cap << 20, "grid_bytes": 4096 ** 2 * 8, "seconds": 60}
             for label, inputs, block, causal, cap in (("blocks of 64", large, 64, False, 64),
                                                       ("blocks of 16, causal", small, 16, True, 20))]
    with Submission(EXAMPLE / "ada" / "attention") as submission:
        first = submission.outcome("blockwise_attention", cases[0])
        (child_then,) = submission._children.values()
        second = submission.outcome("blockwise_attention", cases[1])
        (child_now,) = submission._children.values()
    assert first.has_value and second.has_value
    assert first.peak > 10 << 20  # past half of the second cap
    assert second.peak < 10 << 20
    assert child_now is child_then  # the mark set back: no child started again for it


def test_a_students_whole_grading_runs_in_one_child_measured_notebook_first(monkeypatch):
    """grade.py grades notebook 06's exercises first, so the child that serves every notebook measures
    blockwise_attention's cases before any other notebook's code has run in it; what earlier cases left in
    it (freed arrays, cycles) is given back when the grader asks (`tidy`), and no other child is started."""
    graded = []

    class Recorded(Submission):
        def __enter__(self):
            graded.append(self)
            return super().__enter__()

    monkeypatch.setattr("autograder.grade.Submission", Recorded)
    report = grade_submission(EXAMPLE / "ada" / "attention")
    assert report.cells["hidden_blockwise_attention"].earned > 0  # its memory cases passed
    assert graded[0].started == [SHARED]


def test_a_measured_case_after_another_notebooks_code_ran_gets_a_child_of_its_own():
    """Code of another notebook may hold memory a measured answer uses (a buffer kept in a module both
    notebooks import): once the shared child has run it, a measured case goes to a child that has not."""
    measured = next(case for case in hidden_cases("blockwise_attention") if "memory_limit_bytes" in case)
    with Submission(EXAMPLE / "ada" / "attention") as submission:
        assert submission.outcome("raw_scores", hidden_cases("raw_scores")[0]).has_value
        outcome = submission.outcome("blockwise_attention", measured)
        started = submission.started
    assert outcome.has_value and outcome.peak < measured["memory_limit_bytes"]
    assert started == [SHARED, "06_blockwise.ipynb"]


def test_exercises_of_the_measured_notebook_are_graded_first_and_the_report_keeps_the_notebooks_order():
    graded = SourceAssignment.of(SOURCE).graded_cells
    order = measured_first(graded, shipped_visible_cases(SOURCE))
    blockwise = [cell.exercise for cell in graded if cell.notebook == "06_blockwise.ipynb"]
    assert order[:len(set(blockwise))] == list(dict.fromkeys(blockwise))
    assert order[len(set(blockwise)):] == [name for name in dict.fromkeys(cell.exercise for cell in graded)
                                            if name not in blockwise]
    report = grade_submission(EXAMPLE / "dee" / "attention")
    assert list(report.cells) == [cell.grade_id for cell in graded]


def test_a_reply_garbled_by_an_earlier_answers_trap_is_asked_again_in_a_fresh_child(tmp_path):
    """garbles_the_next_answers_reply rewires the child's own writer (judge.frame_of) as copy_score runs:
    the next answer's reply is no message. That answer is asked again in a fresh child and keeps its value;
    the trap fired (a second child started), so the adversarial suite's score for it is not a vacuous pass."""
    FIXTURES["garbles_the_next_answers_reply"].build(tmp_path / "attention")
    with Submission(tmp_path / "attention") as submission:
        submission.outcome("copy_score", hidden_cases("copy_score")[0])
        outcome = submission.outcome("raw_scores", hidden_cases("raw_scores")[0])
        started = submission.started
    assert outcome.has_value, outcome
    assert started == [SHARED, SHARED]


def test_an_answer_that_runs_past_its_time_is_run_on_no_later_case_of_its_request(tmp_path):
    """A student's cases go to the child in one request (Submission.outcomes); once one runs past its time,
    the child runs none after it, and the rest fail as "not called again" without being run."""
    code = tmp_path / "stalls_on_its_second_call.py"
    code.write_text(
        "import numpy as np\n"
        "calls = []\n\n\n"
        "def raw_scores(Q, K):\n"
        "    calls.append(len(calls))\n"
        "    while len(calls) == 2:\n"
        "        pass\n"
        "    return np.asarray(Q) @ np.asarray(K).T\n\n\n"
        "def scaled_scores(Q, K):\n"
        "    return float(len(calls))\n")
    make_submission(code, tmp_path / "attention")
    cases = hidden_cases("raw_scores")[:4]
    with Submission(tmp_path / "attention", seconds_per_call=1) as submission:
        outcomes = submission.outcomes("raw_scores", cases)
        count = submission.outcome("scaled_scores", hidden_cases("scaled_scores")[0])
    assert [o.has_value for o in outcomes] == [True, False, False, False]
    assert outcomes[1].timed_out and all("not called again" in o.message for o in outcomes[2:])
    assert count.value == 2.0  # raw_scores ran twice: its later cases never reached the student's code


def _first_cases_of_two_answers(tmp_path: Path, code: str) -> list:
    """The outcomes of raw_scores' and scaled_scores' first hidden cases, answered by the module `code`."""
    (tmp_path / "answers.py").write_text(code)
    make_submission(tmp_path / "answers.py", tmp_path / "attention")
    with Submission(tmp_path / "attention", seconds_per_call=30) as submission:
        return [submission.outcome(name, hidden_cases(name)[0]) for name in ("raw_scores", "scaled_scores")]


def test_an_answer_that_reads_its_input_meets_its_end_at_once_and_input_says_why(tmp_path):
    """The child's standard input is /dev/null, its requests coming on a copy of the pipe: a stray input()
    fails at once, saying why, and a read of sys.stdin or of descriptor 0 gets nothing, where each waited out
    its time on the grader's pipe; the answers after them are graded."""
    asked, read = _first_cases_of_two_answers(tmp_path, (
        "import os\nimport sys\n\nimport numpy as np\n\n\n"
        "def raw_scores(Q, K):\n"
        "    input('go on? ')\n"
        "    return np.asarray(Q) @ np.asarray(K).T\n\n\n"
        "def scaled_scores(Q, K):\n"
        "    return float(len(sys.stdin.read()) + len(sys.stdin.buffer.read(10)) + len(os.read(0, 10)))\n"))
    assert asked.error == "EOFError" and asked.message.startswith("input() waits for someone to type"), asked
    assert read.value == 0.0, read


def test_a_debugger_left_in_an_answer_is_named_not_left_as_a_bare_bdbquit(tmp_path):
    """breakpoint() or pdb.set_trace() left in an answer after debugging: the debugger meets the end of its input at
    once, which pdb reports as a BdbQuit with no words; the message says what happened and what to do."""
    outcomes = _first_cases_of_two_answers(tmp_path, (
        "import numpy as np\n\n\n"
        "def raw_scores(Q, K):\n"
        "    breakpoint()\n"
        "    return np.asarray(Q) @ np.asarray(K).T\n\n\n"
        "def scaled_scores(Q, K):\n"
        "    import pdb; pdb.set_trace()\n"
        "    return np.asarray(Q) @ np.asarray(K).T\n"))
    for outcome, call in zip(outcomes, ("breakpoint()", "pdb.set_trace()")):
        assert outcome.message.startswith(f"{call}: the debugger waits for someone to type"), outcome


def test_sys_exit_in_an_answer_keeps_its_words_and_the_child_goes_on(tmp_path):
    """A student who ends their function with sys.exit("...") on a bad input read "ProcessEnded: your code ended
    the grading process (exit code 1)": their own words lost, and a fresh child started for the next answer.
    The exit is the answer's outcome, its words and line kept, and the same child goes on."""
    (tmp_path / "answers.py").write_text(
        "import sys\n\nimport numpy as np\n\n\n"
        "def raw_scores(Q, K):\n"
        "    sys.exit('the widths of Q and K differ')\n\n\n"
        "def scaled_scores(Q, K):\n"
        "    return np.asarray(Q) @ np.asarray(K).T / np.sqrt(np.shape(Q)[-1])\n")
    make_submission(tmp_path / "answers.py", tmp_path / "attention")
    with Submission(tmp_path / "attention", seconds_per_call=30) as submission:
        exited, scaled = (submission.outcome(name, hidden_cases(name)[0]) for name in ("raw_scores", "scaled_scores"))
        started = submission.started
    assert exited.error == "SystemExit", exited
    assert re.match(r"sys.exit\('the widths of Q and K differ'\) ends the whole program \(line \d+: sys.exit",
                    exited.message), exited
    assert scaled.has_value and started == [SHARED]


def test_a_notebooks_own_arrays_that_take_a_measured_case_past_its_cap_are_named_not_the_grid(tmp_path):
    """Inputs of a demonstration kept in blockwise_attention's answer cell (48 MiB) count while the function runs,
    and take the case past its cap; the message said "Likely mistake: builds the full n × n grid", which the
    function never did. It now says what the notebook still held after the call, and names no grid; an answer
    that builds the grid is still named so (tests/shared/corpus/mistakes)."""
    folder = tmp_path / "attention"
    shutil.copytree(EXAMPLE / "ada" / "attention", folder)
    _with_cell(folder / "06_blockwise.ipynb", "blockwise_attention", "_demo = np.ones(6 << 20)  # 48 MiB\n")
    report = grade_submission(folder)
    cell = report.cells["hidden_blockwise_attention"]
    assert cell.kind == "too much memory", cell
    held = re.search(r"your notebook still held ([\d.]+) MiB", cell.message)
    assert held and float(held[1]) >= 48 and "arrays your notebook's cells keep" in cell.message, cell
    assert "grid" not in cell.message, cell


def test_a_debugger_left_in_an_answer_cell_itself_is_named_too(tmp_path):
    """pdb.set_trace() on the cell's own lines (not in the function): the cell stops at once, and its message
    says why, where it said 'its cell failed before softmax was defined: BdbQuit: ' and nothing more."""
    folder = tmp_path / "attention"
    shutil.copytree(EXAMPLE / "ada" / "attention", folder)
    _with_cell(folder / "03_softmax_and_mix.ipynb", "softmax", "import pdb; pdb.set_trace()\n")
    with Submission(folder) as submission:
        outcome = submission.outcome("softmax", hidden_cases("softmax")[0])
    assert "BdbQuit: pdb.set_trace(): the debugger waits for someone to type" in outcome.message, outcome


def _with_cell(notebook: Path, grade_id: str | None, code: str) -> None:
    """Put `code` at the head of the answer cell `grade_id`, or in a cell of the student's own first (None)."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    if grade_id is None:
        nb["cells"].insert(1, {"cell_type": "code", "execution_count": None, "id": "own", "metadata": {},
                               "outputs": [], "source": code})
    else:
        cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
        cell["source"] = code + "".join(cell["source"])
    notebook.write_text(json.dumps(nb), encoding="utf-8")


def test_a_library_the_notebooks_import_is_no_answers_memory_and_the_students_own_module_still_is(tmp_path):
    """Notebook 06 loads the student's attention from notebook 03 (`my`), so a matplotlib imported there, or in
    a cell of 06's own, ran in the child that measures blockwise_attention: its 20 to 30 MiB of library failed an
    honest answer that JupyterLab's visible check passes. Installed libraries are imported before the memory
    mark; a module of the student's own is not, and what it holds still counts."""
    folder = tmp_path / "attention"
    shutil.copytree(EXAMPLE / "ada" / "attention", folder)
    _with_cell(folder / "03_softmax_and_mix.ipynb", "attention", "import matplotlib.pyplot as plt\n")
    _with_cell(folder / "06_blockwise.ipynb", None, "import matplotlib\nfrom matplotlib import colors\n")
    report = grade_submission(folder)
    for grade_id in ("check_blockwise_attention", "hidden_blockwise_attention"):
        assert report.cells[grade_id].earned == report.cells[grade_id].possible, report.cells[grade_id].message
    (folder / "holds_a_buffer.py").write_text("import numpy as np\nBUFFER = np.ones(6 << 20)\n")  # 48 MiB
    _with_cell(folder / "06_blockwise.ipynb", None, "import holds_a_buffer\n")
    report = grade_submission(folder)
    assert report.cells["hidden_blockwise_attention"].kind == "too much memory", report.cells["hidden_blockwise_attention"]
