"""Grade every adversarial fixture with plain nbgrader and with the kit, and print what each got.

    .venv/bin/python tests/shared/adversarial/compare_plain_nbgrader.py [--shards N] [--keep] [fixture ...]

Not a test: a report for the lead (half an hour or more; run it in the background).
The fixtures that stop or kill every process in sight, or write into the course they
find, are left out: on the stock path they run unconfined, with the grader's rights.
It builds small nbgrader courses in a temporary folder, each with
nbgrader_config.py, course.toml and source/ copied from this repository,
`nbgrader generate_assignment attention --force`, one student per fixture
(submitted/<fixture>/attention with a timestamp.txt, `nbgrader db student
import`), and runs `nbgrader autograde attention` on them, the kit's packages on
PYTHONPATH and the venv's bin on PATH:

- KIT_GRADING=out-of-process, the kit's path: one run for the whole class, as
  the main command does;
- KIT_GRADING=in-kernel, nbgrader's stock path (every notebook executed in a
  kernel, the hidden checks in it): one run per student (`--student`), since
  a student that breaks nbgrader ends the run for everyone after them, and
  the students split over --shards courses graded at once.

Each path has courses of its own, so a fixture that poisons a gradebook
cannot touch the other path's; stalls_the_grader_with_a_fifo gets a course of
its own, with a time limit, so that a grader it stalls stalls nobody else.
Scores are read back with nbgrader.api.Gradebook and printed as a markdown
table: fixture, the outcome it must get, what each path gave (✓ when exactly
the cells of its `Loses:` line scored zero, else what was kept or lost), or
why nbgrader gave nothing.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from nbgrader.api import Gradebook, MissingEntry  # noqa: E402
from autograder.source_assignment import GradeId  # noqa: E402
from kit import nbgrader_cli  # noqa: E402

from tests.shared.adversarial.build import Fixture, fixtures  # noqa: E402
from tests.shared.adversarial.processes import kill_tree  # noqa: E402

ASSIGNMENT = "attention"
KIT, PLAIN = "out-of-process", "in-kernel"
ON_ITS_OWN = {"stalls_the_grader_with_a_fifo"}  # may stall a grader: graded in a course of its own
SECONDS = {KIT: 1800, PLAIN: 1800}  # per autograde run (the kit: the class; plain: one student)
SECONDS_ON_ITS_OWN = 300
TIMESTAMP = "2026-12-01 10:00:00.000000 UTC"  # before the due date of course.toml: no late penalty

# (graded cell → (score, max score), or None when nbgrader wrote no row; what went wrong in nbgrader, or "")
Result = tuple[dict[str, tuple[float, float]] | None, str]


def nbgrader(course: Path, mode: str, *args: str, log: str, timeout: float | None = None) -> str | None:
    """Run one nbgrader command in `course`, its output in `log`; None when it succeeded, else why not."""
    # PYTHONPATH: this checkout's packages (autograder, solutions, model, ...), whether pip installed them or not.
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(course), "KIT_GRADING": mode,
           "LANG": "C.UTF-8", "PYTHONPATH": str(ROOT)}
    with open(course / log, "a") as out:
        process = subprocess.Popen(nbgrader_cli.command(*args), cwd=course, env=env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            process.wait()
            return f"still running after {timeout:g} s, stopped"
    return None if code == 0 else f"exit code {code}"


def make_course(folder: Path, mode: str, students: list[Fixture]) -> Path:
    folder.mkdir(parents=True)
    for name in ("nbgrader_config.py", "course.toml"):
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "source", folder / "source", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "students.csv").write_text("id\n" + "".join(f"{f.name}\n" for f in students))
    for args in (("generate_assignment", ASSIGNMENT, "--force"), ("db", "student", "import", "students.csv")):
        problem = nbgrader(folder, mode, *args, log="nbgrader-setup.log")
        if problem:
            raise RuntimeError(f"nbgrader {' '.join(args[:3])} in {folder}: {problem}")
    for fixture in students:
        submission = folder / "submitted" / fixture.name / ASSIGNMENT
        fixture.build(submission)
        (submission / "timestamp.txt").write_text(TIMESTAMP)
    return folder


EXCEPTION = re.compile(r"^\s*([\w.]+(?:Error|Entry|Exception|Exit): .+)$", re.MULTILINE)


def _first_error(log: Path) -> str:
    """The first thing nbgrader's log says went wrong, in one line."""
    text = log.read_text(errors="replace") if log.exists() else ""
    found = EXCEPTION.search(text) or re.search(r"\[AutogradeApp \| ERROR\] (.+)$", text, re.MULTILINE)
    return found.group(1).strip()[:120] if found else "no error in its log"


def _errors_by_student(log: Path) -> dict[str, str]:
    """Student → the exception nbgrader's log of a whole-class run shows for them."""
    text = log.read_text(errors="replace") if log.exists() else ""
    found: dict[str, str] = {}
    for failed in re.finditer(r"There was an error processing assignment: \S*/submitted/([^/\s]+)/", text):
        exception = EXCEPTION.search(text, failed.end())
        found.setdefault(failed.group(1), exception.group(1).strip()[:120] if exception else "an error")
    return found


def scores(course: Path, students: list[Fixture], problems: dict[str, str]) -> dict[str, Result]:
    results: dict[str, Result] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for fixture in students:
            try:
                submission = gb.find_submission(ASSIGNMENT, fixture.name)
                cells = {g.name: (g.score, g.max_score) for nb in submission.notebooks for g in nb.grades
                         if g.cell_type == "code"}
            except MissingEntry:
                cells = None
            results[fixture.name] = (cells, problems.get(fixture.name, ""))
    return results


def grade_with_the_kit(course: Path, students: list[Fixture]) -> dict[str, Result]:
    started = time.monotonic()
    seconds = SECONDS_ON_ITS_OWN if any(f.name in ON_ITS_OWN for f in students) else SECONDS[KIT]
    problem = nbgrader(course, KIT, "autograde", ASSIGNMENT, log="nbgrader-autograde.log", timeout=seconds)
    print(f"  kit, {course.name}: {len(students)} students in {time.monotonic() - started:.0f} s"
          + (f" ({problem})" if problem else ""), file=sys.stderr, flush=True)
    problems = _errors_by_student(course / "nbgrader-autograde.log")
    if problem and problem.startswith("still running"):
        problems.update(dict.fromkeys((f.name for f in students), problem))
    return scores(course, students, problems)


def grade_plainly(course: Path, students: list[Fixture]) -> dict[str, Result]:
    problems = {}
    for fixture in students:
        started, log = time.monotonic(), f"nbgrader-autograde-{fixture.name}.log"
        problem = nbgrader(course, PLAIN, "autograde", ASSIGNMENT, "--student", fixture.name, log=log,
                           timeout=SECONDS[PLAIN])
        print(f"  plain nbgrader, {fixture.name}: {time.monotonic() - started:.0f} s"
              + (f" ({problem})" if problem else ""), file=sys.stderr, flush=True)
        if problem:
            problems[fixture.name] = f"{problem}: {_first_error(course / log)}"
    return scores(course, students, problems)


def grade_path(mode: str, chosen: list[Fixture], shards: int, workdir: Path) -> dict[str, Result]:
    together = [f for f in chosen if f.name not in ON_ITS_OWN]
    groups = [together[i::shards] for i in range(shards)] if mode == PLAIN else [together]
    groups = [g for g in groups if g] + [[f] for f in chosen if f.name in ON_ITS_OWN]
    courses = [make_course(workdir / f"{mode}-{i}", mode, group) for i, group in enumerate(groups)]
    grade = grade_with_the_kit if mode == KIT else grade_plainly
    results: dict[str, Result] = {}
    with ThreadPoolExecutor(max_workers=len(courses)) as pool:
        for found in pool.map(grade, courses, groups):
            results.update(found)
    return results


def _short(cells: set[str], graded: set[str]) -> str:
    """Graded cells, named by their exercise where all of its graded cells are there; long lists cut."""
    names = set()
    for cell in cells:
        exercise = GradeId.parse(cell).exercise
        whole = {c for c in graded if GradeId.parse(c).exercise == exercise} <= cells
        names.add(exercise if whole else cell)
    names = sorted(names)
    return ", ".join(names) if len(names) <= 4 else f"{len(names)} exercises ({', '.join(names[:3])}, ...)"


def verdict(fixture: Fixture, result: Result) -> str:
    cells, problem = result
    note = f" [nbgrader {problem}]" if problem else ""
    if cells is None:
        return f"✗ no grades{note}"
    zero = {cell for cell, (score, top) in cells.items() if score < top}
    must = fixture.lost_cells(set(cells))
    total = f"{sum(s for s, _ in cells.values()):g}/{sum(t for _, t in cells.values()):g}"
    if zero == must:
        return f"✓ {total}{note}"
    wrong = [f"{what} {_short(group, set(cells))}" for what, group in (("kept", must - zero), ("lost", zero - must))
             if group]
    return f"✗ {total}: {'; '.join(wrong)}{note}"


def outcome(fixture: Fixture) -> str:
    text = " ".join(fixture.outcome.split())
    said = text.split("Outcome:", 1)[1].split("Loses:", 1)[0].strip() if "Outcome:" in text else text
    return said if len(said) <= 110 else said[:107] + "..."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="fixtures to run (default: all)")
    parser.add_argument("--shards", type=int, default=2, help="courses graded at once on the in-kernel path")
    parser.add_argument("--keep", action="store_true", help="keep the temporary courses (their path is printed)")
    parser.add_argument("--kit-only", action="store_true", help="grade with the kit only (plain nbgrader is slow)")
    args = parser.parse_args()
    every = fixtures()
    # Never on the stock path, unconfined: they stop or kill every process they see, or write into what they find.
    unsafe = {"signals_other_processes", "outlives_grading", "writes_through_a_symlink"}
    chosen = [every[n] for n in args.names if n not in unsafe] if args.names else \
        [f for n, f in every.items() if n not in unsafe]
    workdir = Path(tempfile.mkdtemp(prefix="kit-vs-nbgrader-"))
    print(f"courses in {workdir}", file=sys.stderr, flush=True)
    try:
        # One path after the other: the kit's time limits are wall-clock, and plain nbgrader keeps both cores busy.
        kit = grade_path(KIT, chosen, args.shards, workdir)
        plain = {} if args.kit_only else grade_path(PLAIN, chosen, args.shards, workdir)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print("| fixture | must get | plain nbgrader (in-kernel) | kit (out-of-process) |")
    print("|---|---|---|---|")
    for fixture in chosen:
        plainly = verdict(fixture, plain[fixture.name]) if plain else "(not run)"
        print(f"| {fixture.name} | {outcome(fixture)} | {plainly} | {verdict(fixture, kit[fixture.name])} |")


if __name__ == "__main__":
    main()
