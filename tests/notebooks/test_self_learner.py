"""A self-learner runs the hidden graders on a working copy and reads one line per exercise."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.cases import EXERCISES, hidden_cases
from kit.notebooks import ROOT
from tests.shared.corpus_submissions import CORPUS, make_submission

RELEASE = ROOT / "assignments" / "attention"
SOURCE = ROOT / "source" / "attention"


def run_graders(submission, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "autograder", f"--submission={submission}",
                           "-p", "no:cacheprovider", *options], cwd=ROOT, capture_output=True, text=True, timeout=600)


def summary(stdout: str) -> dict[str, str]:
    """exercise → its line in the closing table."""
    section = stdout.split("exercises of", 1)[1].split("\n", 1)[1]
    lines = {}
    for line in section.splitlines():
        name, _, status = line.partition(" ")
        if name in EXERCISES:
            lines[name] = status.strip()
    return lines


@pytest.fixture(scope="module")
def untouched() -> subprocess.CompletedProcess:
    """The graders on the untouched release, run once for the tests that read it."""
    return run_graders(RELEASE)


def test_an_untouched_release_gets_the_table_alone_and_pytests_failure_code(untouched):
    lines = summary(untouched.stdout)
    assert sorted(lines) == sorted(EXERCISES)
    assert all(status.startswith("not started") for status in lines.values()), lines
    assert "FAILED" not in untouched.stdout and "_____" not in untouched.stdout, untouched.stdout[:3000]
    assert len(untouched.stdout.splitlines()) < len(EXERCISES) + 15, untouched.stdout[:3000]
    assert untouched.returncode == pytest.ExitCode.TESTS_FAILED


def test_the_solved_notebooks_pass_every_exercise():
    result = run_graders(SOURCE)
    lines = summary(result.stdout)
    assert sorted(lines) == sorted(EXERCISES)
    assert all(status.startswith("passed") for status in lines.values()), lines
    assert result.returncode == pytest.ExitCode.OK


def test_a_mistake_is_reported_with_its_diagnosis_and_unconfined_grading_is_said_once(tmp_path):
    make_submission(CORPUS / "mistakes" / "causal_mask__diagonal_forbidden.py", tmp_path)
    output = run_graders(tmp_path).stdout
    lines = summary(output)
    assert lines["causal_mask"].startswith("failed") and "diagonal forbidden" in lines["causal_mask"]
    assert lines["softmax"].startswith("passed")
    # A self-learner's own code runs unconfined, and the output says so once.
    assert output.count("grading unconfined: the code of --submission runs") == 1


@pytest.mark.parametrize("options", [("-v", "-k", "causal_mask"), ("-m", "causal_mask")], ids=["verbose", "marker"])
def test_every_failed_case_is_detailed_on_request(options):
    result = run_graders(RELEASE, *options)
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED ")]
    assert len(failed) == len(hidden_cases("causal_mask")), result.stdout[-3000:]
    assert all("causal_mask" in line for line in failed), failed
    details = result.stdout.split(" FAILURES ", 1)[1]  # pytest's block per failed case
    assert details.count("not started") >= len(failed), details[:3000]
    assert list(summary(result.stdout)) == ["causal_mask"]
    assert result.returncode == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("given", ["missing", "a notebook", "no notebook"])
def test_a_submission_that_is_no_folder_of_notebooks_is_named_before_any_case_runs(tmp_path, given):
    # A mistyped path failed each of 724 cases at its set-up, and with the table only the run said nothing else.
    folder = {"missing": tmp_path / "atention", "a notebook": SOURCE / "03_softmax_and_mix.ipynb",
              "no notebook": tmp_path}[given]
    result = run_graders(folder)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    said = {"missing": "no such folder", "a notebook": f"not a file: --submission {SOURCE}",
            "no notebook": "holds no notebook"}[given]
    assert f"ERROR: --submission {folder}: " in result.stderr and said in result.stderr


def test_the_graders_under_xdist_run_in_one_process_and_still_print_the_table():
    # With -n the table was lost (each worker kept its own results) and nothing said which exercise failed.
    result = run_graders(ROOT / "examples" / "class" / "submitted" / "bo" / "attention", "-n", "2")
    assert summary(result.stdout)["softmax"].startswith("failed") and "-n is ignored" in result.stdout
