"""An exchange that is not there yet, said in the instructor's words.

nbgrader's exchange commands check their root first and, where there is none,
say "Unwritable directory, please contact your instructor": to the
instructor who runs collect or release_feedback before anything was released
into the course's exchange (after `make demo`, whose exchange is its own), that
names no cause and no fix. `ExchangeRootNamed` says what makes the exchange.
"""

from __future__ import annotations

import os


class ExchangeRootNamed:
    """Mixed into an nbgrader exchange command of the instructor's (collect, release_feedback)."""

    def ensure_root(self):
        if not os.path.lexists(self.root):
            self.fail(f"No exchange at {self.root} yet, so nothing was handed in or released there: releasing the "
                      f"assignment makes it (`nbgrader release_assignment {self.coursedir.assignment_id}`); on a "
                      "JupyterHub, `python -m kit.hub setup` makes the shared one that course.toml's [exchange] root "
                      "names")
        super().ensure_root()
