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
import shutil
import time
from pathlib import Path

from kit.hand_in.secret import SECRET

NOTICES = "service/notices"  # nbgrader's feedback_directory for the notices (CourseDirectory.format_path)

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Feedback on {notebook}: collected; next graded feedback at {next_at}</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem;
color: #111; background: #fff; line-height: 1.5; overflow-wrap: anywhere; }}</style>
</head>
<body>
<main>
<h1>{notebook}: collected, graded later</h1>
<p>Your hand-in of {assignment} at {handed_in} is collected, as every hand-in is, and counts as your work.</p>
<p>{why}</p>
<p><strong>Next graded feedback at {next_at}</strong>, on your newest hand-in at that time: you need not hand
in again. Press Fetch Feedback after that time to see it here.</p>
</main>
</body>
</html>
"""


def shown_time(at: float) -> str:
    """A time to the minute, rounded up (so that the feedback is there at the minute shown), in UTC."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(math.ceil(at / 60) * 60))


def write_notices(folder: Path, submitted: Path, assignment: str, next_at: float, why: str) -> list[Path]:
    """Notice pages for the notebooks of the collected hand-in `submitted`, written anew into `folder`."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name in (SECRET, "timestamp.txt"):
        shutil.copyfile(submitted / name, folder / name)
    handed_in = (submitted / "timestamp.txt").read_text().strip()
    pages = []
    for notebook in sorted(submitted.glob("*.ipynb")):
        page = folder / f"{notebook.stem}.html"
        page.write_text(PAGE.format(assignment=html.escape(assignment), notebook=html.escape(notebook.stem),
                                    handed_in=html.escape(handed_in), why=html.escape(why),
                                    next_at=shown_time(next_at)), encoding="utf-8")
        pages.append(page)
    return pages
