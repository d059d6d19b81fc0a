"""What a round did with one hand-in: what crosses from the round's process to the service (as JSON)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

GRADED = "graded"        # collected, graded, its feedback released
NOTICED = "noticed"      # over the limit: collected, a notice released saying when the next graded feedback comes
UNREADABLE = "unreadable"  # collected, none of its notebooks could be read: a page for each saying why, released
REFUSED = "refused"      # collect's checks refused it (or the service's, before collect: not the claimed account's)
FAILED = "failed"        # something of this machine's failed (a full disk, a locked gradebook): tried again
REPLACED = "replaced"    # a newer hand-in of the student took its place while it waited
LATE = "after the deadline"  # left to the instructor's own collect (course.toml [service] stop_at_deadline)


@dataclass(frozen=True)
class Outcome:
    name: str                  # the hand-in's folder in inbound/
    kind: str                  # one of the above
    detail: str = ""           # GRADED: the score; NOTICED: the next graded feedback's time; else why
    passed: dict[str, bool] = field(default_factory=dict)  # GRADED: exercise → passed every one of its checks
    score: float | None = None  # GRADED: after the late penalty

    def plain(self) -> dict:
        return asdict(self)

    @classmethod
    def from_plain(cls, data: dict) -> Outcome:
        return cls(**data)
