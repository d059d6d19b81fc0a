"""One round: README's own loop, run for the hand-ins the round took, and what became of each.

`run_round` runs in a process of its own (processes.py), in the course
folder, each command in that process as `nbgrader <command>` would run it
(kit/nbgrader_cli.py run_here), for the round's students only:

1. `nbgrader collect --update`, given exactly the round's hand-ins
   (`--TrustedCollect.hand_ins`): the kit's collect and every one of its checks;
2. for the students to grade, `nbgrader autograde`, `generate_feedback` and
   `release_feedback`, every other student excluded (nbgrader's
   `--CourseDirectory.student_id_exclude`): the confined grader with each
   student's budget, the kit's feedback pages, each released to its student
   alone; each student's output whole or finished by the next run
   (kit/nbgrader_glue/whole_or_absent.py), so a round run again after a crash
   grades again only what was not graded whole;
3. for the students over the limit, their notice pages (notice.py), released
   by the same `release_feedback` from the notices' folder.

Then each hand-in's outcome is read from what the commands left, never from
their logs: which hand-in submitted/ holds (its submission secret), whether its
autograded and feedback folders are whole and of that hand-in, whether its
pages are in the exchange under the names its student's Fetch Feedback looks
for, its score in the gradebook and each exercise's verdict in its grading
report; for a hand-in none of whose notebooks can be read, its pages saying why
(kit/nbgrader_glue/unreadable_hand_in.py: not graded, not charged against the
student's limit). The commands' own logs go to the round's log file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.utils import notebook_hash

from autograder.grade import REPORT_FILE, Report
from autograder.source_assignment import GradeId
from kit import nbgrader_cli
from kit.course import Course, course, db_url
from kit.grading_service.notice import NOTICES, shown_time, write_notices
from kit.grading_service.outcome import FAILED, GRADED, NOTICED, REFUSED, UNREADABLE, Outcome
from kit.grading_service.turns import GRADE, NOTICE, Turn
from kit.hand_in.collect import read_refused
from kit.hand_in.secret import read_secret, secrets_in
from kit.hand_in.tree import Refused, shown
from kit.nbgrader_glue.unreadable_hand_in import unreadable_hand_in
from kit.nbgrader_glue.whole_or_absent import is_unfinished

STEPS = ("submitted", "autograded", "feedback", NOTICES)  # the folders nbgrader's commands read students from


class RoundFolders:
    """The course's folders of one student's assignment, and the exchange's."""

    def __init__(self, root: Path, settings: Course):
        self.root, self.assignment = root, settings.assignment
        self.exchange = Path(settings.exchange_root or root / "exchange") / settings.course_id

    def of(self, step: str, student: str) -> Path:
        return self.root / step / student / self.assignment

    def everyone_but(self, students: set[str]) -> str:
        """nbgrader's --CourseDirectory.student_id_exclude for every student with a folder in any step but these."""
        found = {p.name for step in STEPS if (self.root / step).is_dir() for p in (self.root / step).iterdir()}
        return ",".join(sorted(found - students))


def run_round(root: Path, turns: list[Turn], log: Callable[[str], None]) -> list[Outcome]:
    """Collect, grade or notice, and release the feedback of each turn's hand-in; what became of each."""
    settings = course(root)
    folders, assignment = RoundFolders(root, settings), settings.assignment

    def step(*args: str) -> None:
        log(f"{time.strftime('%H:%M:%S', time.gmtime())} UTC $ nbgrader {' '.join(args[:3])}"
            f"{' ...' if len(args) > 3 else ''}")
        try:
            nbgrader_cli.run_here(*args, cwd=root, on_line=log)
        except nbgrader_cli.NbgraderFailed as failed:  # some students: each one's outcome says which
            log(str(failed).splitlines()[0])

    step("collect", assignment, "--update", *(f"--TrustedCollect.hand_ins={turn.hand_in.name}" for turn in turns))
    outcomes = _collected(folders, turns)
    taken = [turn for turn in turns if turn.hand_in.name not in outcomes]
    graded = {turn.hand_in.student for turn in taken if turn.role == GRADE}
    if graded:
        exclude = f"--CourseDirectory.student_id_exclude={folders.everyone_but(graded)}"
        for command in ("autograde", "generate_feedback", "release_feedback"):
            step(command, assignment, exclude)
    noticed = {turn.hand_in.student for turn in taken if turn.role == NOTICE}
    for turn in (turn for turn in taken if turn.role == NOTICE):
        write_notices(folders.of(NOTICES, turn.hand_in.student), folders.of("submitted", turn.hand_in.student),
                      assignment, turn.next_graded_at, turn.why_waiting)
    if noticed:
        step("release_feedback", assignment, f"--CourseDirectory.feedback_directory={NOTICES}",
             f"--CourseDirectory.student_id_exclude={folders.everyone_but(noticed)}")
    with Gradebook(db_url(root), settings.course_id) as gradebook:
        for turn in taken:
            outcomes[turn.hand_in.name] = (_graded(folders, turn, gradebook) if turn.role == GRADE
                                           else _noticed(folders, turn))
    return [outcomes[turn.hand_in.name] for turn in turns]


def _collected(folders: RoundFolders, turns: list[Turn]) -> dict[str, Outcome]:
    """The outcomes of the hand-ins collect did not take (refused, or not newer than the one it holds)."""
    refused = {r["hand_in"]: r["why"] for r in read_refused(folders.root, folders.assignment)}
    inbound = folders.exchange / "inbound"
    secrets = secrets_in(inbound, [turn.hand_in.name for turn in turns])
    outcomes = {}
    for turn in turns:
        name = turn.hand_in.name
        if shown(name) in refused:
            outcomes[name] = Outcome(name, REFUSED, refused[shown(name)])
            continue
        try:
            held = read_secret(folders.of("submitted", turn.hand_in.student))
        except Refused:
            held = None
        if name not in secrets or secrets[name][0] != held:
            outcomes[name] = Outcome(name, FAILED, "not collected: the course holds another hand-in of this student "
                                                   "(see the round's log)")
    return outcomes


def _released(folders: RoundFolders, pages: Path) -> str | None:
    """Why the pages of `pages` are not all in the exchange under their released names (None: they are)."""
    secret = read_secret(pages)
    for page in sorted(pages.glob("*.html")):
        released = folders.exchange / "feedback" / f"{notebook_hash(secret=secret, notebook_id=page.stem)}.html"
        if not released.exists() or released.read_bytes() != page.read_bytes():
            return f"{page.name} was not released (see the round's log)"
    return None


def _whole_and_of(folder: Path, submitted: Path) -> bool:
    """Is the output folder `folder` whole and made from the hand-in `submitted` holds?"""
    return (folder.is_dir() and not is_unfinished(folder) and (folder / "timestamp.txt").is_file()
            and (folder / "timestamp.txt").read_text() == (submitted / "timestamp.txt").read_text())


def _graded(folders: RoundFolders, turn: Turn, gradebook: Gradebook) -> Outcome:
    name, student = turn.hand_in.name, turn.hand_in.student
    submitted = folders.of("submitted", student)
    unreadable = unreadable_hand_in(submitted)  # nothing to grade: its pages say why (unreadable_hand_in.py)
    for step, command in (("autograded", "autograde"), ("feedback", "generate_feedback"))[bool(unreadable):]:
        if not _whole_and_of(folders.of(step, student), submitted):
            return Outcome(name, FAILED, f"{command} did not finish it (see the round's log)")
    why = _released(folders, folders.of("feedback", student))
    if why:
        return Outcome(name, FAILED, why)
    if unreadable:
        notebooks = ", ".join(map(shown, unreadable))
        return Outcome(name, UNREADABLE, f"none of its notebooks could be read ({notebooks}): a page for each saying "
                                         f"why released")
    report = Report.from_plain(json.loads((folders.of("autograded", student) / REPORT_FILE).read_text()))
    passed: dict[str, bool] = {}
    for cell in report.cells.values():
        exercise = GradeId.parse(cell.grade_id).exercise
        passed[exercise] = passed.get(exercise, True) and cell.earned >= cell.possible
    submission = gradebook.find_submission(folders.assignment, student)
    penalty = float(submission.late_submission_penalty or 0)
    score = float(submission.score) - penalty
    late = f" after a late penalty of {penalty:g}" if penalty else ""
    return Outcome(name, GRADED, f"{score:g} / {float(submission.max_score):g} points{late}", passed, score)


def _noticed(folders: RoundFolders, turn: Turn) -> Outcome:
    why = _released(folders, folders.of(NOTICES, turn.hand_in.student))
    if why:
        return Outcome(turn.hand_in.name, FAILED, why)
    return Outcome(turn.hand_in.name, NOTICED, f"next graded feedback at {shown_time(turn.next_graded_at)}")
