"""Grade one submission cell by cell, the student's code running in its own process.

For every graded cell of the source notebooks: a hidden cell `hidden_<f>`
earns its points when every hidden case of <f> passes; a visible check
`check_<f>` when every worked-example case of <f> passes and the hidden cases
accept the answer too (values replayed from the release's worked example earn
nothing: `VISIBLE_NEEDS_HIDDEN`); a failing cell's message is its first
failing case's, and names a known mistake only when the cases of both cells
agree on one (`exercise_problems`). The comparison runs here, in the parent,
on plain data the child sent back. Whatever the answer does, and even a
failure of the grader's own code while it judges one exercise, is that
exercise's verdict (`GRADER_FAILED`, named), never the student's whole grading.
The exercises of a notebook whose memory is measured are graded first
(`measured_first`); the report lists the cells in the notebooks' order.

`save_report` writes a submission's `Report` as ``grading_report.json`` beside
its autograded notebooks (what class reports read: kit/report).
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

from autograder.budget import BUDGET_SPENT, GraderBudget
from autograder.cases import REGISTRY, hidden_cases, shipped_visible_cases
from autograder.judge import Case, Outcome, Verdict, check_verdicts, labelled
from autograder.sandbox import REQUIRED, UNCONFINED
from autograder.source_assignment import GradedCell, SourceAssignment
from autograder.submission import SOURCE, Submission


log = logging.getLogger(__name__)
REPORT_FILE = "grading_report.json"
NOT_GRADED = "notebook not graded"  # the kind of every cell of a notebook missing, unreadable or not this one
GRADER_FAILED = "grader failed"     # the kind of the cells of an exercise the grader's own code failed to judge
HIDDEN_FAILED = "hidden cases failed"  # a visible check that passed, its exercise's hidden cases not
MAX_MESSAGE_CHARS = 2000  # of a cell's message (a student's exception text can be megabytes)
MAX_TAMPERING_LINES = 100


class CellGrade(NamedTuple):
    notebook: str
    grade_id: str
    earned: float
    possible: float
    message: str
    kind: str = "passed"        # or a judge.KINDS entry, or NOT_GRADED
    mistake: str | None = None  # the known mistake the answer matches (autograder/mistakes.py), if any


class Report(NamedTuple):
    cells: dict[str, CellGrade]
    problems: dict[str, str]  # notebook → why it could not be graded
    tampering: list[str]      # read-only cells the student changed (restored before grading)
    confinement: str = UNCONFINED  # how the student's code was confined (autograder.sandbox)

    def plain(self) -> dict:
        """JSON-ready: what crosses a process or a machine (see from_plain)."""
        return {"problems": self.problems, "tampering": self.tampering, "confinement": self.confinement,
                "cells": {k: v._asdict() for k, v in self.cells.items()}}

    @classmethod
    def from_plain(cls, data: dict) -> Report:
        return cls({k: CellGrade(**v) for k, v in data["cells"].items()}, dict(data["problems"]),
                   list(data["tampering"]), data.get("confinement", UNCONFINED))


def exercise_problems(name: str, grade_ids: list[str], visible: Sequence[Case],
                      outcome_for: Callable[[Case], Outcome]) -> dict[str, Verdict | None]:
    """grade id → the verdict of each graded cell of exercise `name` (its visible check ``check_<name>`` on
    the `visible` cases of `name`, its hidden cell ``hidden_<name>`` on the hidden cases), the answer's
    outcomes given by `outcome_for`. A failing cell's message is its first failing case's; it names a known
    mistake only when the cases of all the exercise's cells agree on one (judge.check_verdicts). A cell with
    no cases fails."""
    checks = cases_of_cells(name, grade_ids, visible)
    graded = [grade_id for grade_id, cases in checks.items() if cases]
    verdicts = check_verdicts([(checks[g], labelled(name, checks[g]), not g.startswith("hidden_")) for g in graded],
                              outcome_for)
    no_cases = {g: Verdict("error raised", f"{g}: no cases to grade this cell with") for g in grade_ids}
    return no_cases | dict(zip(graded, verdicts))


def cases_of_cells(name: str, grade_ids: list[str], visible: Sequence[Case]) -> dict[str, list[Case]]:
    """grade id → the cases of that cell of exercise `name`, in the order `exercise_problems` runs them."""
    return {grade_id: list(hidden_cases(name)) if grade_id.startswith("hidden_") else _visible_of(name, visible)
            for grade_id in grade_ids}


def grade_submission(folder: Path, source: Path = SOURCE, confine: str = REQUIRED,
                     budget: GraderBudget = GraderBudget()) -> Report:
    """confine: what to accept where the machine allows no confinement (autograder.sandbox.confinement);
    budget: what grading this student may cost the grader (course.toml [grading], kit.course)."""
    visible = shipped_visible_cases(source)
    graded = SourceAssignment.of(source).graded_cells
    cells, problems = {}, {}
    with Submission(folder, source, confine=confine, budget=budget) as submission:
        for name in measured_first(graded, visible):  # an exercise's cells at once: they name a mistake together
            ids = [cell.grade_id for cell in graded if cell.exercise == name]
            planned = [case for cases in cases_of_cells(name, ids, visible).values() for case in cases]
            problems |= _judged(name, ids, visible, submission.in_turn(name, planned))
        for cell in graded:
            notebook, grade_id, points = cell
            problem = problems[grade_id]
            if problem is None:
                cells[grade_id] = CellGrade(notebook, grade_id, points, points, "passed")
            else:
                why = NOT_GRADED if notebook in submission.problems else problem.kind
                cells[grade_id] = CellGrade(notebook, grade_id, 0.0, points, bounded(problem.message), why,
                                            problem.mistake)
        tampering = [bounded(line, 300) for line in submission.tampering[:MAX_TAMPERING_LINES]]
        if len(submission.tampering) > MAX_TAMPERING_LINES:
            tampering.append(f"… and {len(submission.tampering) - MAX_TAMPERING_LINES:,} more changes")
        return Report(cells, {notebook: bounded(why) for notebook, why in submission.problems.items()}, tampering,
                      submission.confinement)


def _visible_of(name: str, visible: Sequence[Case]) -> list[Case]:
    return [case for case in visible if case["func"] == name]


def measured_first(graded: Sequence[GradedCell], visible: Sequence[Case]) -> list[str]:
    """The exercises of the `graded` cells in the order to grade them: every exercise of a notebook with a
    case whose memory is measured first, then the others, each group in the notebooks' order. The grading
    child that serves every notebook then measures those cases before any other notebook's code has run in
    it, and no child of their own is started for them (autograder/submission.py)."""
    notebook = {cell.exercise: cell.notebook for cell in graded}  # in the notebooks' order
    measured = {notebook[name] for name in notebook if name in REGISTRY and any(
        "memory_limit_bytes" in case for case in (*hidden_cases(name), *_visible_of(name, visible)))}
    return sorted(notebook, key=lambda name: notebook[name] not in measured)


def _judged(name: str, grade_ids: list[str], visible: Sequence[Case],
            outcome_for: Callable[[Case], Outcome]) -> dict[str, Verdict | None]:
    """`exercise_problems`, with a visible check's points only for an answer the hidden cases accept too
    (`VISIBLE_NEEDS_HIDDEN`), and a failure of the grader's own code as this exercise's verdict."""
    try:
        verdicts = exercise_problems(name, grade_ids, visible, outcome_for)
    except Exception as e:  # the grader's failure on this answer, not the student's: named, and the rest graded
        log.exception("the grader failed on %s", name)
        failed = Verdict(GRADER_FAILED, f"not graded: the grader failed while judging {name} "
                                        f"({type(e).__name__}: {bounded(str(e), 300)}); tell your instructor")
        return dict.fromkeys(grade_ids, failed)
    hidden = verdicts.get(f"hidden_{name}")
    if hidden is not None and verdicts.get(f"check_{name}", hidden) is None:
        # The grader's budget spent on the hidden cases: the check is not graded either, and says why.
        verdicts[f"check_{name}"] = hidden if BUDGET_SPENT in hidden.message else \
            Verdict(HIDDEN_FAILED, f"check_{name}: {VISIBLE_NEEDS_HIDDEN}")
    return verdicts


VISIBLE_NEEDS_HIDDEN = ("passed on the worked example, but a visible check's points count only once the hidden "
                        "cases accept the answer too (notebook 01, how grading works): see the hidden cell below it")


def bounded(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` cut to `limit` characters, saying how much was cut; `writable`."""
    text = writable(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters cut)"


def writable(text: str) -> str:
    """`text` with each surrogate in it written as U+FFFD: what no UTF-8 notebook or page can hold, from a
    student's `raise ValueError('\\ud800')` or a file name in bytes that are not UTF-8 (b'notes\\xff.py')."""
    return SURROGATES.sub("\ufffd", text)


SURROGATES = re.compile("[\ud800-\udfff]")


def save_report(report: Report, folder: Path) -> Path:
    """Write `report` as folder/grading_report.json: problems, tampering, every cell's verdict."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / REPORT_FILE
    path.write_text(json.dumps(report.plain(), indent=1))
    return path

