"""`python -m kit.hub setup --instructor ACCOUNT [--exchange DIR] [--config-dir DIR] [--hub-config FILE
--course DIR [--python PYTHON]]`, as root: the shared exchange (exchange.py) and every account's nbgrader
configuration (students.py), then what was made and what a student can and cannot reach; with
--hub-config, the grading service as the hub's managed service, run as the instructor in their course
(managed_service.py). `python -m kit.hub students --prefix DIR`, as root: the
Python every account's server runs, with what the release needs and nothing of the course
(students_env.py)."""

from __future__ import annotations

import argparse
import os
import pwd
import sys
from pathlib import Path

from kit.course import course
from kit.hub import students
from kit.hub.exchange import ExchangeRefused, make_exchange, require_access_lists
from kit.hub.managed_service import ServiceRefused, service_name, write_service
from kit.hub.quota import per_account_quota
from kit.hub.students_env import SYSTEM_PYTHON, StudentsEnvironmentRefused
from kit.hub.students_env import main as make_students

REACH = """\
A student can:
  - fetch the released assignment (outbound/ is readable by all);
  - hand in: write a new entry into inbound/ (write and search, no listing);
  - fetch their own feedback, by its secret name; each feedback file is readable by their account alone.
A student cannot:
  - list, read, replace or remove anyone else's hand-in (inbound/: no read bit; sticky: only an entry's
    owner or the instructor removes it);
  - list feedback/ or read another student's feedback, even knowing its name (mode 0600 and an access
    list naming its student only);
  - release, or take the course's name in the exchange ({course} is the instructor's; the root is sticky);
  - reach the instructor's course folder (keep it mode 700: source/, the gradebook, submitted/), or
    another student's home (keep homes mode 700: HOME_MODE 0700 in /etc/login.defs);
  - see the formgrader, Create Assignment or the Course List in JupyterLab (disabled in {config_dir})."""


NO_QUOTA = """\
WARNING: no per-account quota on {exchange}'s file system: one account can fill it, and every later
  nbgrader submit and release_feedback then fails until root removes the file. Put the exchange on a
  file system of its own with a quota for every account (README: JupyterHub and nbgrader's shared exchange)."""


GRADING_SERVICE = """\
Grading service {name}, in {hub_config}: JupyterHub starts it with the hub, as {instructor}, in {course},
  and starts it again whenever it exits. It grades each hand-in as it arrives once {course}/course.toml
  says [service] on = true (README: Grading on hand-in). Watch it: {course}/service/{assignment}.log, or
  `python -m kit.grading_service status` in {course} as {instructor}. Restart the hub to start it now."""


def setup(instructor: str, exchange: Path, config_dir: Path, course_id: str) -> None:
    course_folder = make_exchange(exchange, course_id, instructor)
    require_access_lists(course_folder / "feedback")
    made = [*students.for_everyone(config_dir, course_id, exchange), *students.for_instructor(instructor)]
    print(f"Exchange for {course_id} at {exchange}:")
    print(f"  {exchange}  root 1777 (sticky, writable by all)")
    print(f"  {course_folder}  {instructor} 0755")
    for name, mode in {"inbound": "3733", "outbound": "0755", "feedback": "0711"}.items():
        print(f"  {course_folder / name}  {instructor} {mode}")
    print("Configuration written:")
    for path in made:
        print(f"  {path}")
    quota = per_account_quota(exchange)
    print(f"Quota: {quota}." if quota else NO_QUOTA.format(exchange=exchange))
    print(f"In the course folder's course.toml, set [exchange] root = \"{exchange}\".")
    print(REACH.format(course=course_folder, config_dir=config_dir))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.hub", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("setup", help="make the exchange and the students' configuration (as root)")
    command.add_argument("--instructor", required=True, help="the account that releases, collects and grades")
    command.add_argument("--exchange", type=Path, default=Path("/srv/nbgrader/exchange"))
    command.add_argument("--config-dir", type=Path, default=Path("/etc/jupyter"),
                         help="the system's Jupyter configuration (elsewhere for a test)")
    command.add_argument("--course-id", default=course().course_id)
    command.add_argument("--hub-config", type=Path,
                         help="the hub's configuration file (jupyterhub_config.py, or one it loads): the grading "
                              "service is added to it as a managed service, run as the instructor")
    command.add_argument("--course", type=Path, help="with --hub-config: the instructor's course folder")
    command.add_argument("--python", type=Path,
                         help="with --hub-config: the course's Python (default: the course's .venv/bin/python)")
    students_env = commands.add_parser("students", help="make the Python every account's server runs (as root)")
    students_env.add_argument("--prefix", type=Path, default=Path("/opt/attention-students"))
    students_env.add_argument("--python", default=SYSTEM_PYTHON, help="the Python it is made from, readable by all")
    students_env.add_argument("--pip-arg", action="append", default=[],
                              help="passed to pip install, e.g. --pip-arg=--index-url=https://mirror.example.edu")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print(f"python -m kit.hub {args.command} must run as root (it makes folders owned by root"
              f"{' and by the instructor' if args.command == 'setup' else ''})", file=sys.stderr)
        return 1
    if args.command == "students":
        try:
            make_students(args.prefix, args.python, tuple(args.pip_arg))
        except StudentsEnvironmentRefused as refused:
            print(f"Refused: {refused}", file=sys.stderr)
            return 1
        return 0
    try:
        pwd.getpwnam(args.instructor)
    except KeyError:
        print(f"no account {args.instructor!r} on this machine: make it first (useradd)", file=sys.stderr)
        return 1
    if args.hub_config and not args.course:
        print("--hub-config needs --course: the instructor's course folder the grading service runs in",
              file=sys.stderr)
        return 1
    try:
        setup(args.instructor, Path(os.path.abspath(args.exchange)), args.config_dir, args.course_id)
        if args.hub_config:
            grading_service(args.hub_config, args.instructor, Path(os.path.abspath(args.course)), args.python,
                            args.course_id)
    except (ExchangeRefused, ServiceRefused, PermissionError) as refused:  # PermissionError: the instructor's files
        print(f"Refused: {refused}", file=sys.stderr)
        return 1
    return 0


def grading_service(hub_config: Path, instructor: str, course_folder: Path, python: Path | None,
                    course_id: str) -> None:
    python = Path(os.path.abspath(python or course_folder / ".venv" / "bin" / "python"))
    written = write_service(hub_config, instructor, course_folder, python, course_id)
    print(GRADING_SERVICE.format(name=service_name(course_id), hub_config=written, instructor=instructor,
                                 course=course_folder, assignment=course(course_folder).assignment))


if __name__ == "__main__":
    sys.exit(main())
