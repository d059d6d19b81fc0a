"""The course's facts, from course.toml: the one reader of that file.

`course(root)` holds what the kit needs to know about a course: the
assignment's name and due date, the course id, the late policy, the grading
settings (the grader's budget per student among them), the exchange and its hand-in limits, the Canvas id,
and the grading service's policy (`[service]`: grading on hand-in, kit/grading_service/).
The file is read once per process (again only if
it changes on disk, as a test's scratch copy may). `policy(root)` is the whole
file as a dict (the points: kit.notebooks.course_points).

`db_url(root)` is where the gradebook lives: the environment variable
KIT_DB_URL when set, else course.toml's ``[gradebook] url``, else SQLite in
``gradebook.db`` in the course folder (the embedded default: nothing to install
or start). A relative SQLite path is taken from the course folder, wherever a
command runs.

`python -m kit.course assignment` (or `course_id`) prints one fact, for the
Makefile.
"""

from __future__ import annotations

import os
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.budget import GraderBudget

ROOT = Path(__file__).resolve().parent.parent
DB_URL_VARIABLE = "KIT_DB_URL"
MIB = 1 << 20


@cache
def _read(path: Path, mtime_ns: int, size: int) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def policy(root: Path = ROOT) -> dict:
    """course.toml as a dict (read once while the file is unchanged)."""
    path = Path(root) / "course.toml"
    stat = path.stat()
    return _read(path, stat.st_mtime_ns, stat.st_size)


@dataclass(frozen=True)
class ServicePolicy:
    """Grading on hand-in (course.toml `[service]`, kit/grading_service/)."""
    on: bool = False              # the service grades hand-ins as they arrive (else it waits, doing nothing)
    per_day: int = 0              # graded feedbacks a student gets in any 24 hours (0: no such limit)
    min_gap_minutes: float = 0.0  # ... at least this long after the previous one (0: none)
    stop_at_deadline: bool = True  # hand-ins after the due date are left to the instructor's own loop


@dataclass(frozen=True)
class Course:
    assignment: str            # the assignment's name (its folders in source/, assignments/, submitted/...)
    course_id: str             # nbgrader's CourseDirectory.course_id (the exchange's and gradebook's course)
    duedate: str               # ISO 8601 with a time zone
    late_per_hour: float       # fraction of the points lost per started hour late
    late_max_fraction: float   # ... at most this fraction
    unconfined: bool           # grade where the machine allows no confinement (and say so)
    workers: int               # students graded (and given feedback) at once (0: a core each); KIT_GRADING_WORKERS wins
    scheduler: str             # a Dask scheduler's address ("": grade on this machine); KIT_GRADING_SCHEDULER overrides
    grader_budget: GraderBudget  # the grader's CPU, clock time and memory per student, and the student's disk (autograder/budget.py)
    canvas_assignment_id: str  # the Canvas assignment's id ("" : matched by title)
    exchange_root: str         # nbgrader's exchange ("": exchange/ in the course folder, one machine and one account)
    accounts: str              # CSV of id → account for a shared exchange's hand-ins ("": the account named as the id)
    max_file_bytes: int        # a hand-in holding a larger file is refused (apparent or allocated size)
    max_submission_bytes: int  # ... and one larger than this in all
    clock_slack_seconds: float  # a hand-in's claimed time may be this much earlier than its files' last change
    gradebook_wait_seconds: float  # how long a command waits for a gradebook another writer holds
    service: ServicePolicy = ServicePolicy()  # grading on hand-in

    @property
    def shared_exchange(self) -> bool:
        """Do students hand in from accounts of their own (a hub), rather than the instructor's alone?"""
        return bool(self.exchange_root)


def course(root: Path = ROOT) -> Course:
    """The facts of the course in folder `root`."""
    toml = policy(root)
    grading = toml.get("grading", {})
    exchange = toml.get("exchange", {})
    return Course(assignment=toml["assignment"]["name"], course_id=toml["course"]["id"],
                  duedate=toml["assignment"]["duedate"], late_per_hour=toml["late"]["per_hour"],
                  late_max_fraction=toml["late"]["max_fraction"], unconfined=grading.get("unconfined", False),
                  workers=int(os.environ.get("KIT_GRADING_WORKERS") or grading.get("workers", 0)),
                  scheduler=os.environ.get("KIT_GRADING_SCHEDULER", grading.get("scheduler", "")),
                  grader_budget=GraderBudget(
                      float(grading.get("grader_cpu_seconds", GraderBudget.cpu_seconds)),
                      float(grading.get("grader_wall_seconds", GraderBudget.wall_seconds)),
                      int(grading.get("grader_memory_mib", GraderBudget.memory_bytes / MIB) * MIB),
                      int(grading.get("student_disk_mib", GraderBudget.disk_bytes / MIB) * MIB)),
                  canvas_assignment_id=str(toml.get("export", {}).get("canvas_assignment_id", "")),
                  exchange_root=exchange.get("root", ""), accounts=exchange.get("accounts", ""),
                  max_file_bytes=int(exchange.get("max_file_mib", 20) * MIB),
                  max_submission_bytes=int(exchange.get("max_submission_mib", 100) * MIB),
                  clock_slack_seconds=float(exchange.get("clock_slack_seconds", 60)),
                  gradebook_wait_seconds=float(toml.get("gradebook", {}).get("wait_seconds", 120)),
                  service=_service(toml.get("service", {})))


def _service(table: dict) -> ServicePolicy:
    return ServicePolicy(on=bool(table.get("on", ServicePolicy.on)),
                         per_day=int(table.get("per_day", ServicePolicy.per_day)),
                         min_gap_minutes=float(table.get("min_gap_minutes", ServicePolicy.min_gap_minutes)),
                         stop_at_deadline=bool(table.get("stop_at_deadline", ServicePolicy.stop_at_deadline)))


def db_url(root: Path = ROOT) -> str:
    """The gradebook's SQLAlchemy URL (``sqlite:///...`` or ``postgresql+psycopg://...``)."""
    url = os.environ.get(DB_URL_VARIABLE) or policy(root).get("gradebook", {}).get("url", "")
    if not url:
        return f"sqlite:///{Path(root) / 'gradebook.db'}"
    from sqlalchemy.engine import make_url  # only for a configured URL: most readers of the policy need no database

    try:
        parsed = make_url(url)
    except Exception:  # not a URL: returned as given, for kit.nbgrader_glue.reachable to refuse in one line
        return url
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:" \
            and not Path(parsed.database).is_absolute():
        return parsed.set(database=str(Path(root) / parsed.database)).render_as_string(hide_password=False)
    return url


ASSIGNMENT = course().assignment  # this kit's own course
COURSE_ID = course().course_id

if __name__ == "__main__":
    print(getattr(course(), sys.argv[1]))
