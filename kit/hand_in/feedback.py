"""`nbgrader release_feedback` with each page readable by its own student alone.

nbgrader names a released page after a secret of the student's submission, in
a folder no one can list, but the page itself is readable by every account:
whoever learns the name (a shared submission folder, a copied nbgrader cache)
reads the page. On a shared exchange (course.toml [exchange] root),
`OwnerOnlyReleaseFeedback` makes each page mode 0600 with an access list
granting read to the student's account only (acl.py), before it appears under
its name. A student with no account here gets no page (logged); a file system
without access lists stops the command before any page is released.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from pathlib import Path

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.utils import notebook_hash

from kit.course import course
from kit.hand_in import acl
from kit.hand_in.accounts import account_map, owners_of
from kit.hand_in.tree import Refused

CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class OwnerOnlyReleaseFeedback(ExchangeReleaseFeedback):

    def copy_files(self):
        settings = course(Path(self.coursedir.root))
        if not settings.shared_exchange:
            return super().copy_files()
        why = acl.why_unsupported(self.dest_path)
        if why:
            self.fail(f"Feedback not released: each page must be readable by its student alone, and {why}")
        accounts = account_map(settings, Path(self.coursedir.root))
        excluded = set(filter(None, self.coursedir.student_id_exclude.split(",")))
        pattern = re.escape(os.path.sep).join([
            self.coursedir.format_path(self.coursedir.feedback_directory, "(?P<student_id>.*)",
                                       self.coursedir.assignment_id, escape=True),
            "(?P<notebook_id>.*).html"])
        for page in sorted(glob.glob(os.path.join(self.src_path, "*.html"))):
            found = re.match(pattern, page)
            if found is None:
                self.log.error("Could not match '%s' with regexp '%s'", page, pattern)
                continue
            student, notebook = found["student_id"], found["notebook_id"]
            if student in excluded:
                continue
            try:
                (reader,) = owners_of(student, settings, accounts)
            except Refused as why:
                self.log.error("Feedback for '%s' not released: %s", student, why)
                continue
            secret = Path(os.path.dirname(page), "submission_secret.txt").read_text()
            name = notebook_hash(secret=secret, notebook_id=notebook)
            staged = os.path.join(self.dest_path, f"{name}-tmp.html")
            if os.path.lexists(staged):
                os.unlink(staged)  # an earlier run's, stopped half-way
            with open(page, "rb") as source, os.fdopen(os.open(staged, CREATE, 0o600), "wb") as copy:
                shutil.copyfileobj(source, copy)  # 0600 from the start: never readable by all, even briefly
            acl.owner_and(staged, reader)
            os.replace(staged, os.path.join(self.dest_path, f"{name}.html"))
            self.log.info("Released feedback for '%s' on '%s/%s', readable by their account alone",
                          student, self.coursedir.assignment_id, notebook)
