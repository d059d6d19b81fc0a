"""`python -m kit.grading_service [--course DIR]`: grade each hand-in as it arrives, until stopped (what the
hub's managed service runs, as the instructor; README: Grading on hand-in). `python -m kit.grading_service
status`: what it is doing: whether it runs, the policy, the round under way, the hand-ins waiting in line
and the last outcomes."""

from __future__ import annotations

import argparse
import fcntl
import os
import sys
import time
from pathlib import Path

from kit.course import ROOT, course, said_in_one_line
from kit.grading_service.journal import Journal, journal_path
from kit.grading_service.service import GradingService, NotAsRoot, service_folder


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


def running(root: Path) -> str | None:
    """The pid of the service running on the course, None if none runs."""
    try:
        fd = os.open(service_folder(root) / "lock", os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        return os.pread(fd, 32, 0).decode().strip() or "?"
    finally:
        os.close(fd)


def status(root: Path) -> str:
    settings = course(root)
    policy, pid = settings.service, running(root)
    limits = [f"at most {policy.per_day} graded feedbacks a day"] * (policy.per_day > 0) + \
             [f"one every {policy.min_gap_minutes:g} minutes"] * (policy.min_gap_minutes > 0)
    lines = [f"Grading on hand-in: {'on' if policy.on else 'off'} (course.toml [service]: "
             f"{', '.join(limits) or 'no limit'}; {'stops' if policy.stop_at_deadline else 'goes on'} at the due "
             f"date, {settings.duedate})",
             f"Service: {f'running (pid {pid})' if pid else 'not running'}"]
    path = journal_path(root, settings.assignment)
    if not path.exists():
        return "\n".join(lines + ["No hand-in seen yet."])
    journal = Journal(path)
    try:
        waiting = journal.waiting()
        lines.append(f"Waiting: {len(waiting)} hand-ins of {len({h.student for h in waiting})} students"
                     + "".join(f"\n  {h.student}: {h.name} (arrived {_when(h.arrived)}"
                               f"{', noticed' if h.noticed else ''})" for h in waiting))
        lines.append("Last changes:")
        lines += [f"  {_when(at)} {name} ({student}): {state}{f', {outcome}' if outcome else ''}"
                  for name, student, state, outcome, at in journal.recent(10)]
    finally:
        journal.close()
    lines.append(f"Log: {service_folder(root) / (settings.assignment + '.log')}")
    return "\n".join(lines)


@said_in_one_line("python -m kit.grading_service")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.grading_service", description=__doc__)
    parser.add_argument("command", nargs="?", choices=["run", "status"], default="run")
    parser.add_argument("--course", type=Path, default=ROOT, help="the course folder (default: this kit's)")
    args = parser.parse_args(argv)
    if args.command == "status":
        print(status(args.course))
        return 0
    try:
        return GradingService(args.course).run()
    except NotAsRoot as refused:
        print(f"Refused: {refused}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
