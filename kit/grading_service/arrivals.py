"""Hand-ins arriving in the exchange's inbound/: which are new, whole, whose, and on time.

`Arrivals.new()` lists inbound/ (the instructor may list it; students may not)
and returns the hand-ins of the assignment not recorded yet that have arrived
whole: nothing in them changed for SETTLE_SECONDS (nbgrader's submit writes a
hand-in file by file, and ends by changing its folder's mode), in the order they
arrived (the latest inode change in each, which no account can set back). A
hand-in the service turns away at once comes with its outcome:

- a name that is not <student>+<assignment>+<time>[+<random>], or a folder that
  does not belong to the account of the student it names (a classmate's forgery
  would otherwise take that student's place in line and replace their waiting
  hand-in): refused, as collect would refuse it;
- with course.toml `[service] stop_at_deadline`, a hand-in whose time, as
  collect stamps it (its claim, or its last change if later by more than the
  clock slack), is past the due date: left to the instructor's own collect.
"""

from __future__ import annotations

import datetime
import os
import time
from dataclasses import dataclass
from pathlib import Path

from kit.course import Course
from kit.grading_service.outcome import LATE, REFUSED, Outcome
from kit.hand_in.accounts import account_map, owners_of
from kit.hand_in.collect import parse_name
from kit.hand_in.tree import Limits, Refused, last_changed, require_owner

SETTLE_SECONDS = 2.0


@dataclass(frozen=True)
class Arrival:
    name: str
    student: str                      # the id its name claims ("?" if it claims none)
    arrived: float                    # its last change (Unix seconds)
    outcome: Outcome | None = None    # turned away at once (see the module)


class Arrivals:
    def __init__(self, inbound: Path, course: Course, root: Path, known: set[str]):
        self.inbound, self.course, self.known = inbound, course, known
        self.accounts = account_map(course, root)
        self.limits = Limits(course.max_file_bytes, course.max_submission_bytes)
        self.due = datetime.datetime.fromisoformat(course.duedate).timestamp()

    def new(self, now: float | None = None) -> list[Arrival]:
        """The hand-ins arrived whole since the last call (each once), in order of arrival."""
        now = time.time() if now is None else now
        assignment = self.course.assignment
        try:
            names = os.listdir(self.inbound)
        except OSError:
            return []  # the exchange unmounted a moment: the next call sees them
        found = []
        for name in sorted(set(names) - self.known):
            if f"+{assignment}+" not in name:
                continue  # another assignment's
            arrival = self._arrival(name, now)
            if arrival is not None:
                found.append(arrival)
        found.sort(key=lambda arrival: arrival.arrived)
        self.known.update(arrival.name for arrival in found)
        return found

    def _arrival(self, name: str, now: float) -> Arrival | None:
        """The hand-in `name` if it has arrived whole (or is turned away), None while it is still being written."""
        claim = parse_name(name, self.course.assignment)
        if claim is None:
            return Arrival(name, "?", now, Outcome(name, REFUSED,
                                                   f"its name is not <student>+{self.course.assignment}+<time>"))
        student, claimed = claim
        try:
            top = os.stat(self.inbound / name, follow_symlinks=False)
            if top.st_ctime > now - SETTLE_SECONDS:
                return None  # submit changes the folder's mode last: until then it may still be unreadable
            require_owner(top, owners_of(student, self.course, self.accounts))
            changed = last_changed(self.inbound, name, self.limits)
        except FileNotFoundError:
            return None  # removed again (its owner may): nothing arrived
        except (Refused, OSError) as why:
            return Arrival(name, student, now, Outcome(name, REFUSED, str(why)))
        if changed > now - SETTLE_SECONDS:
            return None
        stamped = claimed.replace(tzinfo=datetime.timezone.utc).timestamp()
        if changed > stamped + self.course.clock_slack_seconds:
            stamped = changed  # as collect stamps it (kit/hand_in/collect.py)
        if self.course.service.stop_at_deadline and stamped > self.due:
            return Arrival(name, student, changed, Outcome(name, LATE, "left to the instructor's own collect "
                                                                       "(course.toml [service] stop_at_deadline)"))
        return Arrival(name, student, changed)
