"""A proportional late penalty (nbgrader's own plugin offers only none or zero).

A submission loses `per_hour` of its score for every started hour past the
deadline, up to `max_fraction`; both come from course.toml's [late] table
through nbgrader_config.py.
"""

from __future__ import annotations

import math

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float


def late_penalty(score: float, seconds_late: float, per_hour: float, max_fraction: float) -> float:
    """Points lost: per_hour × started hours late, as a fraction of `score`, capped."""
    if seconds_late <= 0 or score <= 0:
        return 0.0
    fraction = min(max_fraction, per_hour * math.ceil(seconds_late / 3600))
    return round(score * fraction, 6)


class ProportionalLatePenalty(LateSubmissionPlugin):
    per_hour = Float(0.01, help="Fraction of the score lost per started hour late.").tag(config=True)
    max_fraction = Float(1.0, help="The largest fraction of the score a late submission can lose.").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        return late_penalty(score, total_seconds_late, self.per_hour, self.max_fraction)
