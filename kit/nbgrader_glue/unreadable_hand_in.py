"""The feedback of a hand-in none of whose notebooks can be read: a page per notebook saying why.

Autograde leaves such a hand-in out, naming it in its log, each notebook set
aside as `<name>.ipynb.unreadable` (autograder/handed_in.py), so nbgrader had
no notebook to write its student a page from: on a hub the student pressed
Submit and Fetch Feedback never found anything, while the grading service tried
the hand-in again and gave up. `generate_feedback` now writes such a student's
feedback folder itself (`UnreadableHandInPages`): one page per notebook they
handed in, under their own file name, saying why it could not be read and what
to do, beside the hand-in's secret and time, so that release_feedback releases
it as it releases graded pages (kit/hand_in/page.py).

The folder is written whole (beside itself, then renamed into place), again
when it does not hold the pages of the student's present hand-in (a newer
hand-in, an older hand-in's graded pages, a run killed part-way) or with
--force, and left alone otherwise. Once a readable hand-in is autograded,
nbgrader's own rule (an autograded folder newer than the feedback is converted
again) puts graded pages in its place.
"""

from __future__ import annotations

import glob
import html
from pathlib import Path

from autograder.handed_in import set_aside
from kit.hand_in.page import handed_in_at, holds, page_folder, plain_page, write_page_folder
from kit.hand_in.tree import shown
from kit.nbgrader_glue.excluded import excluded_students
from kit.nbgrader_glue.one_student_per_worker import id_problem
from kit.nbgrader_glue.plain_files import not_plain_problem
from kit.nbgrader_glue.whole_or_absent import is_unfinished, unfinished_mark

AGAIN = ("Your file is kept as you handed it in. Open the notebook you worked in (if JupyterLab cannot open this "
         "one either, the one you handed in may not be the file you worked in), mend what is named above, save it, "
         "and hand in again: that hand-in is graded.")


def unreadable_hand_in(submitted: Path) -> dict[str, str]:
    """Notebook → why it cannot be read, for a handed-in folder autograde found no notebook to grade in (each set
    aside: autograder/handed_in.py `set_aside_unreadable`); {} for any other folder, one not autograded yet among
    them."""
    if any(Path(submitted).glob("*.ipynb")):
        return {}
    return set_aside(Path(submitted))


def pages_of(submitted: Path, assignment: str, unreadable: dict[str, str]) -> dict[str, str]:
    """Notebook name (the student's own, without .ipynb) → its page."""
    at = handed_in_at(submitted)
    collected = (f"Your hand-in of {html.escape(assignment)}{f' at {at}' if at else ''} was collected, but none of "
                 f"its {len(unreadable)} notebook{'s' if len(unreadable) != 1 else ''} could be read, so nothing in "
                 f"it was graded.")
    pages = {}
    for notebook, why in unreadable.items():
        name = notebook.removesuffix(".ipynb")
        pages[name] = plain_page(f"Feedback on {name}: not graded, it could not be read",
                                 f"{name}: could not be read, not graded",
                                 collected, f"<strong>{html.escape(why)}</strong>", html.escape(AGAIN))
    return pages


class UnreadableHandInPages:
    """For the kit's generate_feedback: each unreadable hand-in's pages, its student left out of nbgrader's loop."""

    def unreadable_hand_ins(self) -> dict[tuple[str, str], tuple[Path, dict[str, str]]]:
        """(student, assignment) → (their submitted folder, notebook → why), for every student of the command whose
        hand-in is unreadable whole (not one excluded, nor one autograde leaves out for another reason: it names
        them)."""
        excluded = excluded_students(self.coursedir)
        found = {}
        pattern = self.coursedir.format_path(self.coursedir.submitted_directory, self.coursedir.student_id,
                                             self.coursedir.assignment_id)
        for folder in sorted(glob.glob(pattern)):
            student, assignment = Path(folder).parent.name, Path(folder).name
            if student in excluded or id_problem(student) or not_plain_problem(folder):
                continue
            if unreadable := unreadable_hand_in(Path(folder)):
                found[student, assignment] = Path(folder), unreadable
        return found

    def write_unreadable_pages(self, hand_ins: dict[tuple[str, str], tuple[Path, dict[str, str]]]) -> None:
        for (student, assignment), (folder, unreadable) in hand_ins.items():
            output = Path(self.coursedir.format_path(self.coursedir.feedback_directory, student, assignment))
            made = page_folder(folder, pages_of(folder, assignment, unreadable))
            if holds(output, made) and not is_unfinished(output) and not self.force:
                self.log.info("Skipping existing assignment: %s (the pages of %s's unreadable hand-in)", output,
                              student)
                continue
            write_page_folder(output, made)
            unfinished_mark(output).unlink(missing_ok=True)
            self.log.warning("%s's %s: none of its notebooks could be read, so nothing was graded; %s says why, a "
                             "page for each (%s)", student, assignment, output, ", ".join(map(shown, unreadable)))
