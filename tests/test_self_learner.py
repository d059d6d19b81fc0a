"""A self-learner runs the hidden graders on a working copy and reads one line per exercise."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.cases import EXERCISES
from kit.notebooks import ROOT
from tests.corpus_submissions import CORPUS, make_submission


def summary(submission) -> dict[str, str]:
    """Exercise → its closing line; the whole output under the key "output"."""
    result = subprocess.run([sys.executable, "-m", "pytest", "autograder", f"--submission={submission}", "-q",
                             "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    section = result.stdout.split("exercises of", 1)[1].split("\n", 1)[1]
    lines = {}
    for line in section.splitlines():
        name, _, status = line.partition(" ")
        if name in EXERCISES:
            lines[name] = status.strip()
    return {**lines, "output": result.stdout}


@pytest.mark.parametrize("folder, expected", [(ROOT / "assignments" / "attention", "not started"),
                                              (ROOT / "source" / "attention", "passed")])
def test_every_exercise_is_reported(folder, expected):
    lines = summary(folder)
    lines.pop("output")
    assert sorted(lines) == sorted(EXERCISES)
    assert all(status.startswith(expected) for status in lines.values()), lines


def test_a_mistake_is_reported_with_its_diagnosis_and_unconfined_grading_is_said_once(tmp_path):
    make_submission(CORPUS / "mistakes" / "causal_mask__diagonal_forbidden.py", tmp_path)
    lines = summary(tmp_path)
    assert lines["causal_mask"].startswith("failed") and "diagonal forbidden" in lines["causal_mask"]
    assert lines["softmax"].startswith("passed")
    # A self-learner's own code runs unconfined, and the output says so once.
    assert lines["output"].count("grading unconfined: the code of --submission runs") == 1
