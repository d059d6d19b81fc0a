"""pytest plumbing for the hidden graders: `pytest autograder --submission FOLDER`.

One marker per exercise (`pytest autograder -m softmax`), one test per hidden
case, and a closing summary with one line per exercise: passed, failed with
the diagnosis, or not started. A failed case's own message names no mistake;
the summary's names the known mistake the exercise's cases agree on, if any.
By default that summary is all it prints (an untouched release fails every
case: a line each would bury it); `-v`, or one exercise with `-m`, adds
pytest's usual report of every case. Exit codes are
pytest's own either way.

A self-learner grades their own code on their own machine: it runs unconfined
(limits only) unless `--confined` asks for the grading world of
autograder/sandbox.py; the summary says which, once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import sandbox
from autograder.cases import EXERCISES
from autograder.judge import check_verdict, labelled
from autograder.submission import Submission

ROOT = Path(__file__).resolve().parent.parent
RESULTS = pytest.StashKey[dict]()


def pytest_addoption(parser):
    parser.addoption("--submission", default=str(ROOT / "assignments" / "attention"),
                     help="folder of the notebooks to grade (default: your working copy, assignments/attention)")
    parser.addoption("--confined", action="store_true",
                     help="run the code in the confined world the instructor's grading uses (default: unconfined)")


def _confine(config) -> str:
    return sandbox.REQUIRED if config.getoption("--confined") else sandbox.NEVER


def _confinement_line(config) -> str:
    if _confine(config) == sandbox.NEVER:
        return ("grading unconfined: the code of --submission runs with your own access to this machine "
                "(your own code; --confined runs it as the instructor's grading does)")
    return f"grading confined ({sandbox.confinement(sandbox.REQUIRED)})"


def _table_only(config) -> bool:
    return config.get_verbosity() <= 0 and not config.option.markexpr


def _submission_problem(folder: Path) -> str | None:
    """Why `folder` cannot be graded, with what to do, or None: said before any case runs (each case would
    otherwise fail at its set-up, and with the table only, say nothing)."""
    if folder.is_file():
        return (f"--submission {folder}: give the folder that holds your notebooks, not a file: "
                f"--submission {folder.parent}")
    if not folder.is_dir():
        return f"--submission {folder}: no such folder (the folder that holds your notebooks, e.g. assignments/attention)"
    if not any(folder.glob("*.ipynb")) and not any(folder.glob("*/*.ipynb")):  # or one level down (a zip unpacked)
        return f"--submission {folder}: this folder holds no notebook (.ipynb): give the one that holds your notebooks"
    return None


@pytest.hookimpl(tryfirst=True)  # before the terminal reporter reads the options below
def pytest_configure(config):
    if config.getoption("--submission", None) is not None and \
            (problem := _submission_problem(Path(config.getoption("--submission")))):
        raise pytest.UsageError(problem)
    if getattr(config.option, "dist", "no") != "no":  # pytest-xdist's -n: each worker would grade the submission
        config.option.dist, config.option.numprocesses = "no", None  # again and the table of results would be lost
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            "-n is ignored: the graders run every case in this one process (one grading of --submission, one table)"),
            stacklevel=2)
    for name in EXERCISES:
        config.addinivalue_line("markers", f"{name}: the hidden checks of {name}")
    config.stash[RESULTS] = {}
    if _table_only(config):
        config.option.tbstyle = "no"      # no block per failed case
        config.option.reportchars = "N"   # no FAILED line per case


@pytest.hookimpl(wrapper=True)
def pytest_report_teststatus(report, config):
    """With the table only, no letter per case either (the counts close the run)."""
    status = yield
    if _table_only(config) and status and status[2]:
        category, _, word = status
        return category, "", word
    return status


@pytest.fixture(scope="session")
def submission(pytestconfig):
    with Submission(pytestconfig.getoption("--submission"), confine=_confine(pytestconfig)) as graded:
        yield graded


@pytest.fixture
def record(pytestconfig):
    """record(exercise, status, message, case, outcome): feeds the closing summary."""
    results = pytestconfig.stash[RESULTS]

    def _record(exercise: str, status: str, message: str = "", case=None, outcome=None) -> None:
        results.setdefault(exercise, []).append((status, message, case, outcome))
    return _record


def _failure_line(exercise: str, statuses) -> str:
    """The first failed case's message, naming the known mistake the cases run agree on (judge.check_verdict)."""
    run = [(case, outcome) for _, _, case, outcome in statuses if case is not None]
    outcomes = {id(case): outcome for case, outcome in run}
    cases = [c for c, _ in run]
    found = check_verdict(cases, labelled(exercise, cases), lambda case: outcomes[id(case)])
    return found.message if found else next(m for s, m, _, _ in statuses if s != "passed")


def pytest_terminal_summary(terminalreporter, config):
    results = config.stash.get(RESULTS, {})
    if not results:
        return
    terminalreporter.section(f"exercises of {config.getoption('--submission')}")
    terminalreporter.write_line(_confinement_line(config))
    for exercise in EXERCISES:
        if exercise not in results:
            continue
        statuses = results[exercise]
        passed = sum(s == "passed" for s, *_ in statuses)
        if passed == len(statuses):
            line = f"passed ({passed} check{'s' if passed != 1 else ''})"
        elif any(s == "not started" for s, *_ in statuses) and passed == 0:
            line = "not started"
        else:
            line = f"failed {len(statuses) - passed} of {len(statuses)}: {_failure_line(exercise, statuses)}"
        terminalreporter.write_line(f"{exercise:22} {line}".replace("\n", " "))
    if _table_only(config) and any(s != "passed" for statuses in results.values() for s, *_ in statuses):
        terminalreporter.write_line("every case of every exercise: add -v; one exercise: -m <exercise>")
