"""`nbgrader release_feedback`, each page readable by its own student alone, and no student stopping the rest.

nbgrader names a released page after a secret of the student's submission
(`notebook_hash(secret, notebook)`, what the student's fetch_feedback looks
for), in a folder no one can list, but the page itself is readable by every
account: whoever learns the name (a shared submission folder, a copied
nbgrader cache) reads the page. `OwnerOnlyReleaseFeedback` releases every page
itself:

- on a shared exchange (course.toml [exchange] root), each page mode 0600 with
  an access list granting read to the student's account only (acl.py), before
  it appears under its name; a file system without access lists stops the
  command before any page is released;
- a student is left out, named in the summary at the end, when their pages
  cannot be released safely: no account here, no submission secret (missing,
  empty, not a file), pages left part-way by an interrupted generate_feedback,
  or a secret that gives a page another student's page also gets (copied from a
  classmate's cache: neither is released, so no student's page replaces
  another's; collect refuses such a copy first, collect.py);
- a page that cannot be written (the exchange's disk full) is named, the others
  are still released, and the command then ends with an error.

Every page is written beside its name and renamed into place, so a run killed
part-way leaves no half page, and running the command again releases them all.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from collections import defaultdict
from pathlib import Path

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.utils import notebook_hash

from autograder.whole_file import write_whole
from kit.course import course
from kit.hand_in import acl
from kit.hand_in.accounts import account_map, owners_of
from kit.hand_in.exchange_root import ExchangeRootNamed
from kit.hand_in.secret import read_secret
from kit.hand_in.tree import Refused
from kit.nbgrader_glue.excluded import excluded_students
from kit.nbgrader_glue.whole_or_absent import is_unfinished


class OwnerOnlyReleaseFeedback(ExchangeRootNamed, ExchangeReleaseFeedback):

    def copy_files(self):
        settings = course(Path(self.coursedir.root))
        if settings.shared_exchange:
            why = acl.why_unsupported(self.dest_path)
            if why:
                self.fail(f"Feedback not released: each page must be readable by its student alone, and {why}")
        accounts = account_map(settings, Path(self.coursedir.root))
        self.left_out: dict[str, str] = {}
        readers = {}  # student → the account that may read their pages (None: any, on a course's own exchange)
        if not (pages := self._pages()):
            self.log.warning("No feedback page of '%s' to release (none in %s): make them first with `nbgrader "
                             "generate_feedback %s`", self.coursedir.assignment_id, self.src_path,
                             self.coursedir.assignment_id)
        for student in pages:
            try:
                (readers[student],) = owners_of(student, settings, accounts) if settings.shared_exchange else [None]
            except Refused as why:
                self.left_out[student] = str(why)
        failed, released = [], 0
        for (student, notebook), (page, name) in sorted(self._names(pages).items()):
            reader = readers[student]
            try:
                self._release(page, name, reader)
            except OSError as e:
                failed.append(f"{student}/{notebook}: {e.strerror or e}")
                self.log.error("Feedback for '%s' on '%s/%s' not released: %s", student,
                               self.coursedir.assignment_id, notebook, e.strerror or e)
                continue
            released += 1
            self.log.info("Released feedback for '%s' on '%s/%s'%s", student, self.coursedir.assignment_id,
                          notebook, ", readable by their account alone" if reader is not None else "")
        self._summarise(released, failed)

    def _pages(self) -> dict[str, dict[str, str]]:
        """student → notebook → page, for every student not excluded on the command line."""
        excluded = excluded_students(self.coursedir)
        pattern = re.escape(os.path.sep).join([
            self.coursedir.format_path(self.coursedir.feedback_directory, "(?P<student_id>.*)",
                                       self.coursedir.assignment_id, escape=True),
            "(?P<notebook_id>.*).html"])
        pages = defaultdict(dict)
        for page in sorted(glob.glob(os.path.join(self.src_path, "*.html"))):
            found = re.match(pattern, page)
            if found is None:
                self.log.error("Could not match '%s' with regexp '%s'", page, pattern)
            elif found["student_id"] not in excluded:
                pages[found["student_id"]][found["notebook_id"]] = page
        return pages

    def _names(self, pages: dict[str, dict[str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
        """(student, notebook) → (page, released name) of every page that can be released; the students left
        out, and why, in self.left_out."""
        named, owner = {}, defaultdict(set)
        for student, notebooks in pages.items():
            if student in self.left_out:
                continue
            folder = Path(next(iter(notebooks.values()))).parent
            try:
                if is_unfinished(folder):
                    raise Refused(f"its pages were left part-way by an interrupted generate_feedback: run "
                                  f"`nbgrader generate_feedback {self.coursedir.assignment_id}` first")
                secret = read_secret(folder)
            except Refused as why:
                self.left_out[student] = str(why)
                continue
            for notebook, page in notebooks.items():
                name = notebook_hash(secret=secret, notebook_id=notebook)
                named[(student, notebook)] = page, name
                owner[name].add(student)
        for name, students in owner.items():
            if len(students) > 1:  # a secret copied from a classmate: nobody can tell whose page is whose
                for student in students:
                    self.left_out[student] = (f"its submission secret is also {', '.join(sorted(students - {student}))}'s"
                                              f" (one copied the other's): resubmit, collect and release again")
        return {key: value for key, value in named.items() if key[0] not in self.left_out}

    def _release(self, page: str, name: str, reader: int | None) -> None:
        """Copy `page` to <name>.html in the exchange, readable by `reader` alone (None: by all, as nbgrader's)."""
        with open(page, "rb") as source:  # 0600 from the start: never readable by all, even briefly
            write_whole(os.path.join(self.dest_path, f"{name}.html"), lambda copy: shutil.copyfileobj(source, copy),
                        0o600 if reader is not None else 0o644,
                        (lambda staged: acl.owner_and(staged, reader)) if reader is not None else None)

    def _summarise(self, released: int, failed: list[str]) -> None:
        self.log.info("Released %d feedback pages of '%s'; left out %d students%s", released,
                      self.coursedir.assignment_id, len(self.left_out), ":" if self.left_out else ".")
        for student, why in sorted(self.left_out.items()):
            self.log.info("  no feedback released for %s: %s", student, why)
        if failed:
            self.fail(f"{len(failed)} feedback pages could not be written into the exchange (the others were "
                      f"released; run the command again once it has room): {'; '.join(failed)}")
