"""The page a hand-in over the limit gets in place of graded feedback: collected, and when the next comes.

`write_notices` writes one page per notebook of a collected hand-in into the
student's folder of notices (service/notices/<student>/<assignment>), beside
the hand-in's submission secret and time, laid out as nbgrader's feedback
folder is, so that the kit's own `release_feedback`, pointed at it, releases
them to that student alone under the names their Fetch Feedback looks for
(kit/hand_in/feedback.py). When the hand-in is graded later, its graded pages
take the same names. The page says nothing but the hand-in's time, the limit
and when the next graded feedback comes; its notebook's name is the student's
own file name, escaped.
"""

from __future__ import annotations

import html
import math
import time
from pathlib import Path

from kit.hand_in.page import handed_in_at, page_folder, plain_page, write_page_folder

NOTICES = "service/notices"  # nbgrader's feedback_directory for the notices (CourseDirectory.format_path)


def shown_time(at: float) -> str:
    """A time to the minute, rounded up (so that the feedback is there at the minute shown), in UTC."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(math.ceil(at / 60) * 60))


def write_notices(folder: Path, submitted: Path, assignment: str, next_at: float, why: str) -> list[Path]:
    """Notice pages for the notebooks of the collected hand-in `submitted`, written anew into `folder`."""
    at, next_at = handed_in_at(submitted), shown_time(next_at)
    collected = f"Your hand-in of {html.escape(assignment)} at {at} is collected, as every hand-in is, and counts as " \
                f"your work."
    next_one = (f"<strong>Next graded feedback at {next_at}</strong>, on your newest hand-in at that time: you need "
                f"not hand in again. Press Fetch Feedback after that time to see it here.")
    pages = {}
    for notebook in sorted(submitted.glob("*.ipynb")):
        pages[notebook.stem] = plain_page(f"Feedback on {notebook.stem}: collected; next graded feedback at {next_at}",
                                          f"{notebook.stem}: collected, graded later", collected, html.escape(why),
                                          next_one)
    write_page_folder(folder, page_folder(submitted, pages))
    return [folder / f"{notebook}.html" for notebook in pages]
