"""What is left of a grading child, and what of it does the grader touch? (autograder/grading_child.py)

Confined, a child writes only in a tmpfs of its own (tests/confinement/test_sandbox.py);
graded unconfined (a course that opted out, a self-learner), it writes in a
folder of its own on the disk, which the grader removes whatever modes the
student's code left, never following a link out of it. A child that measures a
notebook's memory has its highest mark set back between two measured cases.
"""

from __future__ import annotations

import os

import numpy as np

from autograder import sandbox
from autograder.grade import grade_submission
from autograder.grading_child import remove_tree
from autograder.submission import Submission
from tests.shared.adversarial.build import fixtures
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
