"""Does a grader killed part-way leave copies of a student's notebooks behind? Only until the next grader starts:
its first scratch folder removes those of graders that have ended (autograder/scratch.py), and nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import scratch
from autograder.sandbox import start_ticks
from kit.notebooks import ROOT

ADA = ROOT / "examples" / "class" / "submitted" / "ada" / "attention"
# A grader that prepares ada's scratch folder, says where, and waits to be killed (or finishes at once).
GRADER = """
import sys, time
from autograder.submission import Submission
submission = Submission(sys.argv[1])
print(submission._scratch, flush=True)
if sys.argv[2] == "killed":
    time.sleep(600)
submission.close()
"""


def start_grader(temporary: Path, how: str) -> tuple[subprocess.Popen, Path]:
    """A grader process whose temporary folder is `temporary`, and the scratch folder it made for ada."""
    grader = subprocess.Popen([sys.executable, "-c", GRADER, str(ADA), how], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "TMPDIR": str(temporary)}, start_new_session=True)
    return grader, Path(grader.stdout.readline().strip())


def test_a_killed_graders_scratch_folder_is_removed_by_the_next_grader_and_a_running_ones_is_kept(tmp_path):
    killed, left = start_grader(tmp_path, "killed")
    running, kept = start_grader(tmp_path, "killed")
    try:
        assert (left / "prepared" / "03_softmax_and_mix.ipynb").exists()
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait()
        assert left.exists()  # nobody could remove it
        later, own = start_grader(tmp_path, "finishes")
        assert later.wait(timeout=120) == 0
        assert not left.exists() and not own.exists()
        assert (kept / "prepared" / "03_softmax_and_mix.ipynb").exists()  # its grader still runs
    finally:
        os.killpg(running.pid, signal.SIGKILL)
        running.wait()


def _named(folder: Path, namespace: str, pid: int, started: int, kind: str = scratch.GRADING) -> Path:
    path = folder / f"{kind}{namespace}-{pid}-{started}-abc_123"
    path.mkdir()
    (path / "prepared").mkdir()
    (path / "prepared" / "01_worked_example.ipynb").write_text("{}")
    return path


def test_a_folder_whose_process_id_now_names_another_process_is_removed(tmp_path):
    namespace, pid = scratch.pid_namespace(), os.getpid()
    ours = _named(tmp_path, namespace, pid, start_ticks(pid))
    earlier = start_ticks(pid) - 1  # this pid, an earlier process's
    kinds = (scratch.GRADING, scratch.CLUSTER, scratch.PROBE)
    reused = [_named(tmp_path, namespace, pid, earlier, kind) for kind in kinds]
    assert [scratch.sweep(tmp_path, kind) for kind in kinds] == [[path] for path in reused]
    assert ours.exists() and not any(path.exists() for path in reused)


def test_what_cannot_be_judged_from_here_is_left_as_it_is(tmp_path):
    namespace, gone = scratch.pid_namespace(), 2 ** 22 + 1  # above any pid_max: no such process
    other_namespace = _named(tmp_path, str(int(namespace) + 1), gone, 1)  # a container's, sharing the folder
    older_kit = tmp_path / f"{scratch.GRADING}k2j4_x9z"
    older_kit.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = _named(elsewhere, namespace, gone, 2)
    link = tmp_path / f"{scratch.CLUSTER}{namespace}-{gone}-3-lnk"
    link.symlink_to(target)
    assert scratch.sweep(tmp_path, scratch.GRADING) == scratch.sweep(tmp_path, scratch.CLUSTER) == []
    assert other_namespace.exists() and older_kit.exists() and link.is_symlink()
    assert (target / "prepared" / "01_worked_example.ipynb").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a folder another account owns")
def test_a_folder_of_another_account_is_never_removed(tmp_path):
    gone = 2 ** 22 + 1
    path = _named(tmp_path, scratch.pid_namespace(), gone, 1)
    os.chown(path, 65534, 65534)
    assert scratch.sweep(tmp_path) == [] and path.exists()


def test_a_confinement_probe_killed_part_way_leaves_its_folder_until_the_next_grader_starts(tmp_path):
    killed = _named(tmp_path, scratch.pid_namespace(), 2 ** 22 + 1, 1, scratch.PROBE)
    grader = "from autograder import sandbox, scratch; print(sandbox._trial(sandbox.NAMESPACES)); scratch.make()"
    done = subprocess.run([sys.executable, "-c", grader], cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp_path)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    left = os.listdir(tmp_path)  # the grader's own folder (never removed by this one-liner), nothing else
    assert not killed.exists() and len(left) == 1 and left[0].startswith(scratch.GRADING + scratch.pid_namespace())
