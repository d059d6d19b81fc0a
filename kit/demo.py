"""The kit's main job, `make demo`: a whole term's loop on the example class.

1. check that the gradebook (course.toml's, or KIT_DB_URL's) answers, and
   generate the student release from the instructor notebooks (only when its
   inputs changed since the last build): kit.release.release_if_changed;
2. put the roster into the gradebook (the release recorded the due date);
3. release it through nbgrader's local exchange (in .run/, owned by this
   command), submit every example student's work through it, collect;
4. autograde (the kit's out-of-process path, see nbgrader_config.py), with a
   progress bar; a student nbgrader cannot grade never stops the others;
5. the stand-in teaching assistant grades the written answers by their rubric
   (kit/teaching_assistant.py), as a grader in the formgrader would, and the
   late penalties are set again to count those points;
6. generate feedback, export grades.csv;
7. print one row per exercise and per written question, one column per
   student, with totals, the late penalty, and a note on whatever happened to a student;
8. write the class report (reports/attention/index.html, kit.report) and
   print its summary: what the class got wrong, and how many written answers are graded.

Run twice, it gives the same table and the same gradebook. nbgrader's
commands run in this process, one after another (kit.nbgrader_cli.run_here).
"""

from __future__ import annotations

import json
import sys

from nbgrader.api import Gradebook
from tqdm import tqdm

from autograder.grade import REPORT_FILE
from autograder.sandbox import UNCONFINED
from autograder.source_assignment import GradeId
from kit import classroom
from kit.course import ASSIGNMENT, COURSE_ID, ROOT, db_url
from kit.release import release_if_changed
from kit.report.build import course_directory, write_report

EXAMPLES = ROOT / "examples" / "class"
GRADES_CSV = ROOT / "grades.csv"


def run_loop(students: list[dict]) -> dict[str, list[str]]:
    """Steps 1-6; returns student → notes on what happened to their submission."""
    release_if_changed()
    classroom.enrol(students)
    classroom.release()
    notes: dict[str, list[str]] = {s["id"]: [] for s in students}
    for s in students:
        classroom.submit(s["id"], EXAMPLES / "submitted" / s["id"] / ASSIGNMENT)
    classroom.collect()
    for s in students:
        work = EXAMPLES / "submitted" / s["id"] / ASSIGNMENT
        classroom.replay_timestamp(s["id"], (work / "timestamp.txt").read_text())
        for notebook, why in classroom.set_aside_unreadable(s["id"]).items():
            notes[s["id"]].append(f"{notebook}: {why} (scored 0, file kept)")
        for notebook, what in classroom.under_their_names(s["id"]).items():
            notes[s["id"]].append(f"{notebook}: {what}")
    with tqdm(total=len(students), desc="grading", unit="student", file=sys.stderr) as bar:
        def on_student(student: str) -> None:  # a student starts: the one before is done
            if bar.postfix:
                bar.update()
            bar.set_postfix_str(student)
        errors = classroom.autograde(on_student)
        bar.update(bar.total - bar.n)
        bar.set_postfix_str("done")
    for student, why in errors.items():
        notes[student].append(why)
    classroom.grade_written_answers([s["id"] for s in students if s["id"] not in errors])
    classroom.generate_feedback()
    classroom.export_grades(GRADES_CSV)
    return notes


def _report_notes(student: str) -> list[str]:
    path = ROOT / "autograded" / student / ASSIGNMENT / REPORT_FILE
    if not path.exists():
        return []
    report = json.loads(path.read_text())
    notes = [f"{nb}: {why}" for nb, why in report["problems"].items() if "missing" not in why]
    if report["tampering"]:
        notes.append("changed read-only cells (restored, graded as if untouched): " + "; ".join(report["tampering"]))
    if report.get("confinement") == UNCONFINED:
        notes.append("graded UNCONFINED (course.toml: [grading] unconfined = true; this machine allows no confinement)")
    return notes


def confinements(students: list[dict]) -> set[str]:
    """How the students' code was confined (autograder/sandbox.py), from the grading reports."""
    found = set()
    for s in students:
        path = ROOT / "autograded" / s["id"] / ASSIGNMENT / REPORT_FILE
        if path.exists():
            found.add(json.loads(path.read_text()).get("confinement", "?"))
    return found


def score_table(students: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Rows: one per exercise (visible + hidden checks) and per written question (by its id), then totals.
    Columns: students."""
    ids = [s["id"] for s in students]
    scores: dict[str, dict[str, float]] = {}
    possible: dict[str, float] = {}
    footer = {"total": {}, "late penalty": {}, "score": {}, "out of": {}}
    with Gradebook(db_url(), COURSE_ID) as gb:
        assignment = gb.find_assignment(ASSIGNMENT)
        written = {cell.name for notebook in assignment.notebooks for cell in notebook.task_cells}

        def row(cell: str) -> str:  # a written question is a row of its own; checks share their exercise's
            return cell if cell in written else GradeId.parse(cell).exercise

        for notebook in assignment.notebooks:
            for cell in notebook.grade_cells + notebook.task_cells:
                possible[row(cell.name)] = possible.get(row(cell.name), 0) + cell.max_score
        for student in ids:
            submission = gb.find_submission(ASSIGNMENT, student)
            for nb in submission.notebooks:
                for grade in nb.grades:
                    scores.setdefault(row(grade.name), {}).setdefault(student, 0.0)
                    scores[row(grade.name)][student] += grade.score or 0.0
            footer["total"][student] = submission.score
            footer["late penalty"][student] = -submission.late_submission_penalty
            footer["score"][student] = submission.score - submission.late_submission_penalty
            footer["out of"][student] = submission.max_score
    rows = [[exercise, f"{possible[exercise]:g}", *[f"{scores.get(exercise, {}).get(s, 0):g}" for s in ids]]
            for exercise in possible]
    rows += [[name, "", *[f"{values[s]:g}" for s in ids]] for name, values in footer.items()]
    return ["exercise", "max", *ids], rows


def print_table(header: list[str], rows: list[list[str]], notes: dict[str, list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(r, widths)))  # noqa: E731
    print(line(header))
    print(line(["-" * w for w in widths]))
    for row in rows:
        if row[0] == "total":
            print(line(["-" * w for w in widths]))
        print(line(row))
    print()
    for student, lines in notes.items():
        for text in lines:
            print(f"{student}: {text}")


def main() -> int:
    students = classroom.roster(EXAMPLES / "roster.csv")
    notes = run_loop(students)
    for s in students:
        notes[s["id"]] += _report_notes(s["id"])
    header, rows = score_table(students)
    how = confinements(students)
    if UNCONFINED in how:
        print("GRADED UNCONFINED: this machine allows no confinement and course.toml says "
              "[grading] unconfined = true; every student's code ran with the grader's access to the course.\n")
    print_table(header, rows, notes)
    print(f"\nconfinement of the students' code: {', '.join(sorted(how)) or 'none graded'}")
    page, summary = write_report(course_directory(ROOT), ASSIGNMENT)
    print(f"\n{summary}")
    print(f"\ngrades: {GRADES_CSV.relative_to(ROOT)}   feedback: feedback/<student>/{ASSIGNMENT}/*.html   "
          f"class report: {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
