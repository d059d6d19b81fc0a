"""A class of N students handed in to a course's own exchange, as nbgrader's submit leaves it, for the benchmarks.

    composition = hand_in_class(course, 1500)   # roster.csv in the course, every hand-in in exchange/.../inbound

Every student hands in once: a folder `<id>+attention+<time>+<random>` holding
the nine notebooks, `timestamp.txt` and a submission secret of their own. What
they hand in, drawn with a seed:

- most start from the example class's perfect student (ada) with the plan of
  tests/shared/synthetic_class.py spliced in: known mistakes of the corpus
  (tests/shared/corpus/mistakes/, at most one per exercise) and exercises left as the
  release's stub;
- some hand in the release untouched (dee), half done (eli), or with read-only
  cells edited and deleted (hal);
- one hands in a notebook that is not valid JSON (gus's);
- a tenth are late by 1 to 60 hours (the time their hand-in's name claims).

The first students are one of each kind, so a class of ten holds them all.
"""

from __future__ import annotations

import csv
import random
import secrets
import shutil
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

from kit.course import ASSIGNMENT, COURSE_ID, course as course_of
from tests.shared.corpus_submissions import splice
from tests.shared.course_copy import EXAMPLE
from tests.shared.synthetic_class import plan

AS_IS = {"untouched": "dee", "half done": "eli", "read-only cells changed": "hal", "unreadable notebook": "gus"}
SHARES = {"untouched": 0.04, "half done": 0.05, "read-only cells changed": 0.02}  # the rest: ada with the plan
FIRST = ("untouched", "half done", "read-only cells changed", "unreadable notebook")


def _kind(i: int, rng: random.Random) -> str:
    if i < len(FIRST):
        return FIRST[i]
    draw = rng.random()
    for kind, share in SHARES.items():
        if draw < share:
            return kind
        draw -= share
    return "spliced"


def _stamp(time: datetime) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def hand_in_class(course: Path, n_students: int, seed: int = 38) -> Counter:
    """Write `roster.csv` and every student's hand-in into `course`'s own exchange; returns how many of each
    kind (and "late")."""
    rng = random.Random(seed)
    injected, answers = plan(n_students, seed)
    due = datetime.fromisoformat(course_of(course).duedate).astimezone(timezone.utc).replace(tzinfo=None)
    inbound = course / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True, exist_ok=True)
    composition = Counter()
    with open(course / "roster.csv", "w", newline="") as f:
        roster = csv.writer(f)
        roster.writerow(["id", "first_name", "last_name", "email"])
        for i, student in enumerate(injected.students):
            roster.writerow([student, "Student", f"Number {i}", f"{student}@example.edu"])
            kind = _kind(i, rng)
            late = injected.hours_late.get(student)
            claimed = _stamp(due + (timedelta(hours=late, minutes=-30) if late else timedelta(hours=-12)))
            folder = inbound / f"{student}+{ASSIGNMENT}+{claimed}+{secrets.token_urlsafe(6)}"
            base = EXAMPLE / AS_IS.get(kind, "ada") / ASSIGNMENT
            if kind == "spliced":
                splice(answers[student], folder, base)
            else:
                shutil.copytree(base, folder)
            (folder / "timestamp.txt").write_text(claimed)
            (folder / "submission_secret.txt").write_text(secrets.token_hex(64))
            composition[kind] += 1
            composition["late"] += bool(late)
    return composition
