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

import math
import os
import sys
import tomllib
from dataclasses import dataclass
from datetime import datetime
from functools import cache, partial, wraps
from pathlib import Path

from autograder.budget import GraderBudget

ROOT = Path(__file__).resolve().parent.parent
DB_URL_VARIABLE = "KIT_DB_URL"
MIB = 1 << 20


class CourseFileError(ValueError):
    """course.toml cannot be read, or holds a value of the wrong kind: said with the file, table and key."""


@cache
def _read(path: Path, mtime_ns: int, size: int) -> dict:
    with open(path, "rb") as f:
        try:
            return tomllib.load(f)
        except tomllib.TOMLDecodeError as e:  # its message names the line and column
            raise CourseFileError(f"{path} is not valid TOML: {e}") from None


def policy(root: Path = ROOT) -> dict:
    """course.toml as a dict (read once while the file is unchanged)."""
    path = Path(root) / "course.toml"
    try:
        stat = path.stat()
    except OSError as e:
        raise CourseFileError(f"{path}: {e.strerror} (is {Path(root)} the course folder?)") from None
    return _read(path, stat.st_mtime_ns, stat.st_size)


def said_in_one_line(command: str):
    """For a command's `main`: a CourseFileError ends it with one line naming `command`, not a traceback."""
    def wrap(main):
        @wraps(main)
        def checked(*args, **kwargs):
            try:
                return main(*args, **kwargs)
            except CourseFileError as e:
                raise SystemExit(f"{command}: {e}") from None
        return checked
    return wrap


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
    """The facts of the course in folder `root`; CourseFileError naming the table and key of a value that is
    missing or of the wrong kind (`unconfined = "no"` is not false: a string would have read as true)."""
    toml = policy(root)
    get = partial(_value, toml)
    budget = GraderBudget(get("grading", "grader_cpu_seconds", float, GraderBudget.cpu_seconds, POSITIVE),
                          get("grading", "grader_wall_seconds", float, GraderBudget.wall_seconds, POSITIVE),
                          int(get("grading", "grader_memory_mib", float, GraderBudget.memory_bytes / MIB, POSITIVE)
                              * MIB),
                          int(get("grading", "student_disk_mib", float, GraderBudget.disk_bytes / MIB, POSITIVE)
                              * MIB))
    return Course(assignment=get("assignment", "name", str), course_id=get("course", "id", str, within=A_NAME),
                  duedate=get("assignment", "duedate", str, within=A_TIME),
                  late_per_hour=get("late", "per_hour", float, within=AT_LEAST_0),
                  late_max_fraction=get("late", "max_fraction", float, within=FRACTION),
                  unconfined=get("grading", "unconfined", bool, False),
                  workers=_workers(get),
                  scheduler=os.environ.get("KIT_GRADING_SCHEDULER", get("grading", "scheduler", str, "")),
                  grader_budget=budget,
                  canvas_assignment_id=str(get("export", "canvas_assignment_id", (str, int), "")),
                  exchange_root=get("exchange", "root", str, ""), accounts=get("exchange", "accounts", str, ""),
                  max_file_bytes=int(get("exchange", "max_file_mib", float, 20, POSITIVE) * MIB),
                  max_submission_bytes=int(get("exchange", "max_submission_mib", float, 100, POSITIVE) * MIB),
                  clock_slack_seconds=get("exchange", "clock_slack_seconds", float, 60, AT_LEAST_0),
                  gradebook_wait_seconds=get("gradebook", "wait_seconds", float, 120, AT_LEAST_0),
                  service=ServicePolicy(on=get("service", "on", bool, ServicePolicy.on),
                                        per_day=get("service", "per_day", int, ServicePolicy.per_day, AT_LEAST_0),
                                        min_gap_minutes=get("service", "min_gap_minutes", float,
                                                            ServicePolicy.min_gap_minutes, AT_LEAST_0),
                                        stop_at_deadline=get("service", "stop_at_deadline", bool,
                                                             ServicePolicy.stop_at_deadline)))


_REQUIRED = object()  # a key course.toml must hold
KIND_NAMES = {bool: "true or false", int: "a whole number", float: "a number", str: "text in quotes"}


POSITIVE = (lambda v: math.isfinite(v) and v > 0, "a number above 0")
AT_LEAST_0 = (lambda v: math.isfinite(v) and v >= 0, "a number of 0 or more")
FRACTION = (lambda v: 0 <= v <= 1, "a fraction from 0 to 1")
A_NAME = (lambda v: v.strip() not in ("", ".", "..") and "/" not in v and v.isprintable(),
          "a name, not empty and without / (nbgrader makes folders of it in the exchange)")


def _zoned_time(text: str) -> bool:
    try:
        return datetime.fromisoformat(text).tzinfo is not None
    except ValueError:
        return False


A_TIME = (_zoned_time, "a time in ISO 8601 with its time zone, such as \"2026-12-14T23:59:00+00:00\"")


def _value(toml: dict, table: str, key: str, kind, default=_REQUIRED, within=None):
    """course.toml's value of `key` in `table`, of `kind` (a type, or a tuple of them; float takes an integer too,
    never a string or a boolean), or `default` where the key is absent; `within`: (test, what it asks for) of a
    number (a budget of 0 made every student's grading fail; a negative late penalty added points)."""
    section = toml.get(table, {})
    if not isinstance(section, dict):
        raise CourseFileError(f"course.toml: [{table}] is not a table")
    if key not in section:
        if default is _REQUIRED:
            raise CourseFileError(f"course.toml: [{table}] has no {key}")
        return default
    value, wanted = section[key], kind if isinstance(kind, tuple) else (kind,)
    accepted = (int, float) if kind is float else wanted
    if isinstance(value, bool) != (bool in accepted) or not isinstance(value, accepted):
        raise CourseFileError(f"course.toml: [{table}] {key} = {value!r}: "
                              f"{' or '.join(KIND_NAMES[k] for k in wanted)} is expected")
    if within is not None and not within[0](value):
        raise CourseFileError(f"course.toml: [{table}] {key} = {value!r}: {within[1]} is expected")
    return float(value) if kind is float else value


def _workers(get) -> int:
    """KIT_GRADING_WORKERS, else [grading] workers: 0 (one per core) or more."""
    given = os.environ.get("KIT_GRADING_WORKERS")
    if not given:
        return get("grading", "workers", int, 0, AT_LEAST_0)
    if not given.strip().isdigit():
        raise CourseFileError(f"KIT_GRADING_WORKERS={given!r}: a whole number of 0 or more is expected "
                              "(0: one per core)")
    return int(given)


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
