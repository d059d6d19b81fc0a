"""`nbgrader collect` (and the formgrader's Collect button) taking only what it can trust.

`TrustedCollect` replaces nbgrader's ExchangeCollect (nbgrader_config.py:
c.ExchangeFactory.collect). For each student on the gradebook's roster it
takes the newest hand-in (or, with --before-duedate, the newest before the due
date) that passes every check of kit/hand_in/tree.py, belongs to the
student's account (accounts.py) and holds nbgrader's files as nbgrader's
submit writes them (timestamp.txt, if any, a file; a submission secret that
is no other student's, secret.py); a hand-in that fails is refused, logged
with its reason, and the next older one is tried, so a forged later hand-in
never replaces a genuine earlier one. Any error reading a hand-in (a file its
owner made unreadable, a link swapped in while it is copied) is that
hand-in's refusal: every other student is collected, and a rerun never stops
at it either. Nothing already in submitted/ is replaced until its successor
is copied whole (a copy beside it, then two renames); a copy this machine
cannot write (the course's disk full) is named and the others go on, the
command then ending with an error. A submission secret is compared with every
hand-in's in inbound/, whoever is collected, so a copy of a classmate's is
refused also when one student is. `--TrustedCollect.hand_ins=<name>` (given
once per hand-in) collects those hand-ins only: the grading service's way
(kit/grading_service/), with nothing else changed.

The time of a hand-in is the one its name claims, unless the bytes copied
were last changed later than that (the latest inode change time in the
hand-in, which no account can set back, checked after the copy: tree.py)
by more than course.toml's `[exchange] clock_slack_seconds`: then that time,
with a warning. The command ends with a summary of what it refused and why,
also written to refused/<assignment>.json in the course for the class report.
"""

from __future__ import annotations

import datetime
import fnmatch
import json
import os
import shutil
from collections import defaultdict
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import check_mode, parse_utc
from traitlets import List, Unicode

from autograder import scratch
from kit.course import course
from kit.hand_in.accounts import account_map, owners_of
from kit.hand_in.exchange_root import ExchangeRootNamed
from kit.hand_in.secret import read_secret, secrets_in
from kit.hand_in.tree import Copied, Limits, Refused, copy_hand_in, shown
from kit.nbgrader_glue.timestamp import UnreadableTimestamp, handed_in_at

REFUSALS = Path("refused")  # refused/<assignment>.json in the course folder (not an outcome: a folder)


def refused_path(root: Path, assignment: str) -> Path:
    return Path(root) / REFUSALS / f"{assignment}.json"


def read_refused(root: Path, assignment: str) -> list[dict]:
    """The hand-ins the last collect of each student refused: [{"hand_in": name, "student": claimed id,
    "why": reason}]."""
    try:
        return json.loads(refused_path(root, assignment).read_text())
    except (OSError, ValueError):
        return []


def parse_name(name: str, assignment: str) -> tuple[str, datetime.datetime] | None:
    """(claimed student id, claimed time) of a hand-in folder's name, None if it is not
    <id>+<assignment>+<time>[+<random>]."""
    parts = name.rsplit("+", 3)
    if len(parts) == 4 and parts[1] != assignment:
        parts = [f"{parts[0]}+{parts[1]}", *parts[2:]]  # an id holding "+", no random part
    if len(parts) < 3 or parts[1] != assignment or not parts[0]:
        return None
    try:
        return parts[0], parse_utc(parts[2])
    except (ValueError, OverflowError):
        return None


class TrustedCollect(ExchangeRootNamed, ExchangeCollect):
    hand_ins = List(Unicode(), help="Only these hand-ins (their folders' names in inbound/), each for the student "
                                    "its name claims: the grading service's (kit/grading_service/). Empty: every "
                                    "student's newest, as nbgrader's collect takes them.").tag(config=True)

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        assignment, only = self.coursedir.assignment_id, self.coursedir.student_id
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            roster = {student.id for student in gb.students}
            try:
                self.duedate = gb.find_assignment(assignment).duedate
            except MissingEntry:
                self.duedate = None
        self.refused: list[dict] = []
        hand_ins = defaultdict(list)
        everyone = sorted(name for name in os.listdir(self.inbound_path) if f"+{assignment}+" in name)
        for name in everyone if not self.hand_ins else sorted(set(self.hand_ins) & set(everyone)):
            claim = parse_name(name, assignment)
            if claim is None:
                self._refuse(name, "?", f"its name is not <student>+{assignment}+<time>")
            elif only not in ("", "*") and claim[0] != only:
                continue
            elif claim[0] not in roster:
                self._refuse(name, claim[0], f"{shown(claim[0])!r} is not on the course's roster "
                                             "(nbgrader db student add)")
            else:
                hand_ins[claim[0]].append({"username": claim[0], "filename": name, "timestamp": claim[1]})
        self.src_records = {student: self._in_order(records) for student, records in sorted(hand_ins.items())}
        self.secrets = secrets_in(Path(self.inbound_path), everyone)  # a copy of any classmate's, whoever is collected
        self.handed_in_with: dict[str, list[tuple[str, int]]] = defaultdict(list)  # secret → (student, changed)
        for name, (secret, changed) in self.secrets.items():
            claim = parse_name(name, assignment)
            if claim:
                self.handed_in_with[secret].append((claim[0], changed))

    def _in_order(self, records: list[dict]) -> list[dict]:
        """The order to try a student's hand-ins in: newest first (with --before-duedate, those before it first)."""
        records = self._sort_by_timestamp(records)
        if self.before_duedate and self.duedate is not None:
            records = ([r for r in records if r["timestamp"] <= self.duedate]
                       + [r for r in records if r["timestamp"] > self.duedate])
        return records

    def _refuse(self, name: str, student: str, why: str) -> None:
        self.refused.append({"hand_in": shown(name), "student": shown(student), "why": why})
        self.log.warning("Refused hand-in %s: %s", shown(name), why)

    def _wanted(self, record: dict, dest: Path) -> bool:
        """Would nbgrader's own rules copy `record` over what `dest` holds?"""
        if not dest.is_dir():
            return True
        try:
            existing = handed_in_at(dest)
        except UnreadableTimestamp:  # a copy of no known time (edited by hand): any hand-in replaces it
            existing = None
        if self.update and (existing is None or record["timestamp"] > existing):
            return True
        return self.before_duedate and existing != record["timestamp"]

    def copy_files(self):
        settings = course(Path(self.coursedir.root))
        accounts = account_map(settings, Path(self.coursedir.root))
        limits = Limits(settings.max_file_bytes, settings.max_submission_bytes)
        self.slack = datetime.timedelta(seconds=settings.clock_slack_seconds)
        collected, self.failed = 0, []
        self.log.info("Processing hand-ins of %d students for '%s' in course '%s'", len(self.src_records),
                      self.coursedir.assignment_id, self.coursedir.course_id)
        for student, records in self.src_records.items():
            dest = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student,
                                                   self.coursedir.assignment_id))
            for record in records:
                if not self._wanted(record, dest):
                    self.log.info("No newer submission to collect: %s %s", student, self.coursedir.assignment_id)
                    break
                try:
                    self._take(record, dest, owners_of(student, settings, accounts), limits)
                except Refused as why:
                    self._refuse(record["filename"], student, str(why))
                    continue
                except OSError as e:  # writing the copy into the course: this machine's failure, not the hand-in's
                    self.failed.append(f"{shown(record['filename'])}: {e.strerror or e}")
                    self.log.error("Hand-in %s not collected: %s", shown(record["filename"]), e)
                    break
                collected += 1
                break
        self._summarise(collected)

    def _take(self, record: dict, dest: Path, owners: set[int], limits: Limits) -> None:
        """Copy one hand-in into `dest`, replacing what is there only once the copy is whole."""
        dest.parent.parent.mkdir(parents=True, exist_ok=True)  # submitted/: the copy is made beside the students
        # Named for this process: what a collect killed part-way leaves, the next one removes (autograder/scratch.py).
        working = scratch.make(scratch.COLLECTING, dest.parent.parent)
        try:
            copied = copy_hand_in(Path(self.inbound_path), record["filename"], owners, limits, working / "copy",
                                  ignored=self._ignored)
            self._check_nbgraders_files(record, working / "copy")
            (working / "copy" / "timestamp.txt").write_text(self._time_of(record, copied))
            dest.parent.mkdir(exist_ok=True)
            replacing = dest.is_dir()
            if replacing:
                dest.rename(working / "replaced")
            (working / "copy").rename(dest)
            self.log.info("%s submission: %s %s (%d files, %d bytes)", "Updating" if replacing else "Collecting",
                          record["username"], self.coursedir.assignment_id, copied.files, copied.bytes)
        finally:
            shutil.rmtree(working)

    def _check_nbgraders_files(self, record: dict, copy: Path) -> None:
        """Refuse a copied hand-in whose timestamp.txt is not a file, or whose secret is missing, empty, or
        another student's, handed in before (a copy from their cache: its feedback would replace theirs)."""
        if (copy / "timestamp.txt").is_dir():
            raise Refused("its timestamp.txt is a folder, not the file nbgrader's submit writes")
        secret = read_secret(copy)
        _, changed = self.secrets.get(record["filename"], (secret, float("inf")))
        for student, other_changed in self.handed_in_with.get(secret, ()):
            if student != record["username"] and other_changed <= changed:
                raise Refused(f"its submission secret is {shown(student)}'s, handed in earlier (copied from their "
                              f"files: its feedback would replace theirs)")

    def _ignored(self, name: str) -> bool:
        """Left out of the copy, as nbgrader's own copy leaves them (CourseDirectory.ignore: caches)."""
        return any(fnmatch.fnmatch(name, pattern) for pattern in self.coursedir.ignore)

    def _time_of(self, record: dict, copied: Copied) -> str:
        claimed = record["timestamp"]
        changed = datetime.datetime.fromtimestamp(copied.changed_at, datetime.timezone.utc).replace(tzinfo=None)
        if changed > claimed + self.slack:
            self.log.warning("Hand-in %s claims %s but was last changed at %s UTC: that time is used",
                             shown(record["filename"]), claimed, changed)
            claimed = changed
        return claimed.strftime("%Y-%m-%d %H:%M:%S.%f UTC")

    def _summarise(self, collected: int) -> None:
        root, assignment, only = Path(self.coursedir.root), self.coursedir.assignment_id, self.coursedir.student_id
        path = refused_path(root, assignment)
        path.parent.mkdir(exist_ok=True)
        if self.hand_ins:  # some hand-ins: every other refusal kept
            kept = [r for r in read_refused(root, assignment) if r["hand_in"] not in set(map(shown, self.hand_ins))]
        elif only not in ("", "*"):  # one student: the rest of the class's kept
            kept = [r for r in read_refused(root, assignment) if r["student"] != shown(only)]
        else:
            kept = []
        path.write_text(json.dumps(kept + self.refused, indent=1) + "\n")
        self.log.info("Collected %d hand-ins of '%s'; refused %d%s", collected, self.coursedir.assignment_id,
                      len(self.refused), " (kept in the exchange, never graded):" if self.refused else ".")
        for refusal in self.refused:
            self.log.info("  refused %s (for %s): %s", refusal["hand_in"], refusal["student"], refusal["why"])
        if self.failed:
            self.fail(f"{len(self.failed)} hand-ins could not be copied into the course (the others were collected; "
                      f"run the command again once it has room): {'; '.join(self.failed)}")
