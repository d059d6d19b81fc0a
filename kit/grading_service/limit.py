"""How many graded feedbacks a student gets: course.toml `[service] per_day` and `min_gap_minutes`.

A graded feedback is charged to its student at the time its grading was taken
up (the hand-in's arrival, or later if it waited for the limit). Times are
Unix seconds.
"""

from __future__ import annotations

from collections.abc import Sequence

from kit.course import ServicePolicy

DAY = 24 * 3600.0


def next_graded_at(charged: Sequence[float], policy: ServicePolicy) -> float:
    """The earliest time a student whose graded feedbacks were charged at `charged` may have another
    (0.0: whenever they like)."""
    at = 0.0
    if charged and policy.min_gap_minutes > 0:
        at = max(charged) + policy.min_gap_minutes * 60
    if policy.per_day > 0 and len(charged) >= policy.per_day:
        at = max(at, sorted(charged)[-policy.per_day] + DAY)
    return at


def why_waiting(charged: Sequence[float], policy: ServicePolicy, now: float) -> str:
    """Why a student who hands in at `now` waits for their next graded feedback, in a sentence."""
    today = sum(1 for at in charged if at > now - DAY)
    rules = ([f"at most {policy.per_day} a day"] if policy.per_day > 0 else []) + \
            ([f"one every {policy.min_gap_minutes:g} minutes"] if policy.min_gap_minutes > 0 else [])
    had = f"{today} graded feedback{'s' if today != 1 else ''}"
    return f"You have had {had} in the last 24 hours; the course gives {' and '.join(rules)}."
