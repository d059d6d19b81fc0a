"""Grading on hand-in (issue 39): how soon feedback is fetchable after Submit, alone and in a burst.

    .venv/bin/python -m benchmarks.grading_service                       # one hand-in, then 100 within 2 minutes
    .venv/bin/python -m benchmarks.grading_service --students 20 --within 30   # a smaller burst, for a look
    .venv/bin/python -m benchmarks.grading_service --write               # ... and put the section in REPORT.md

A scratch copy of the course (tests/shared/course_copy.py) with its release in an exchange of its own and N students
on its roster, handing in the example class's work (each kind in turn: perfect, two mistakes, untouched,
half done, late, a notebook that is not JSON, locked cells edited); course.toml `[service] on`, with no
limit. The grading service (`python -m kit.grading_service`) runs in it as this account (as root: the whole
benchmark runs again as the account attention-bench, as the service never runs as root). Each hand-in is
nbgrader's own submit, run in this process as a student's Jupyter server runs it (no new Python per Submit),
the N of them at even intervals over `--within` seconds, after one hand-in alone. A hand-in's feedback is
fetchable once one of its pages is in the exchange under the name its student's Fetch Feedback looks for;
its wait is from the start of its Submit. Sampled every second: the resident memory of the service's own
process and of its round's processes (every process of the round's session). The load average is read at
start and end. Not a test: nothing here asserts a time.

One job, kept whole past 250 lines: one benchmark, its course, its sampler and its section of REPORT.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import machine
from benchmarks.report_section import publish
from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID
from kit.grading_service.processes import session_members

HEADING = "## Grading on hand-in (issue 39)"
ACCOUNT = "attention-bench"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "class" / "submitted"


def _rss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        total += int(found[1]) if found else 0
    return total / 1024


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            found.append(int(entry))
    return found


def _cpu_seconds(pid: int) -> float:
    """The process's CPU seconds and those of the children it has reaped (its rounds)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")


class Course:
    """The scratch course and its students' folders (this account's)."""

    def __init__(self, root: Path, students: int):
        from tests.hand_in.grading_service import with_service_policy

        self.root = root
        toml = root / "course.toml"
        toml.write_text(with_service_policy(toml.read_text(), None, on=True, per_day=0, min_gap_minutes=0,
                                            stop_at_deadline=False))
        kinds = sorted(p.name for p in EXAMPLE.iterdir())
        self.students = {f"{kinds[i % len(kinds)]}{i:03d}": kinds[i % len(kinds)] for i in range(students)}
        self.cache = root / "students" / "cache"
        if not (root / "assignments" / ASSIGNMENT).is_dir():  # (as root: made before, see `measured`)
            self.run("generate_assignment", ASSIGNMENT, "--force")
        self.run("release_assignment", ASSIGNMENT, "--force")
        roster = root / "students" / "roster.csv"
        roster.parent.mkdir()
        roster.write_text("id,first_name,last_name,email\n" + "".join(f"{s},,,\n" for s in self.students))
        self.run("db", "student", "import", str(roster))
        for student, kind in self.students.items():
            folder = self.home(student) / ASSIGNMENT
            shutil.copytree(root / "assignments" / ASSIGNMENT, folder)
            for notebook in (EXAMPLE / kind / ASSIGNMENT).glob("*.ipynb"):
                shutil.copyfile(notebook, folder / notebook.name)

    def run(self, *args: str) -> list[str]:
        return nbgrader_cli.run_here(*args, "--log-level=WARN", cwd=self.root)

    def home(self, student: str) -> Path:
        return self.root / "students" / student

    def submit(self, student: str) -> list[str]:
        """nbgrader's submit as `student`'s Jupyter server runs it; the names of the feedback pages their Fetch
        Feedback will look for."""
        from nbgrader.utils import notebook_hash

        lines = nbgrader_cli.run_here("submit", ASSIGNMENT, f"--student={student}",
                                      f"--Exchange.root={self.root / 'exchange'}", f"--Exchange.cache={self.cache}",
                                      f"--CourseDirectory.course_id={COURSE_ID}",
                                      f"--CourseDirectory.root={self.home(student)}", cwd=self.home(student))
        stamp = next(line for line in lines if "Submitted as:" in line).split(f"{ASSIGNMENT} ", 1)[1].strip()
        held = self.cache / COURSE_ID / f"{student}+{ASSIGNMENT}+{stamp}"
        secret = (held / "submission_secret.txt").read_text()
        return [notebook_hash(secret=secret, notebook_id=nb.stem) for nb in sorted(held.glob("*.ipynb"))]


class Sampler(threading.Thread):
    """Once a second: the service's resident memory and its round's (MiB)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.samples, self.stopping = pid, [], False

    def run(self) -> None:
        while not self.stopping:
            rounds = [member for child in _children(self.pid) for member in session_members(child)]
            self.samples.append((time.monotonic(), _rss_mib([self.pid]), _rss_mib(rounds)))
            time.sleep(1)


def _wait_for_pages(exchange: Path, students: list[str], expected: dict[str, list[str]], seen: dict[str, float],
                    timeout: float) -> None:
    """Record in `seen` when each student's first page appears (the names of their pages in `expected`, which
    may grow meanwhile), until every one of `students` has, or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while any(student not in seen for student in students) and time.monotonic() < deadline:
        for student, names in list(expected.items()):
            if student not in seen and any((exchange / f"{name}.html").exists() for name in names):
                seen[student] = time.monotonic()
        time.sleep(0.2)


def measure(root: Path, students: int, within: float) -> dict:
    """The figures, measured in the course `root` (this account's)."""
    from tests.hand_in.grading_service import RunningService

    course = Course(root, students + 1)
    service = RunningService(root, None, sys.executable)
    feedback = root / "exchange" / COURSE_ID / "feedback"
    load_start = os.getloadavg()
    pid = service.start()
    sampler = Sampler(pid)
    sampler.start()
    alone, *burst = course.students
    started = time.monotonic()
    seen: dict[str, float] = {}
    _wait_for_pages(feedback, [alone], {alone: course.submit(alone)}, seen, 600)
    one = seen[alone] - started
    time.sleep(5)  # the round's process ends; the burst starts on an idle service
    burst_start, submitted, expected = time.monotonic(), {}, {}
    watcher = threading.Thread(target=_wait_for_pages, args=(feedback, burst, expected, seen, within + 1800),
                               daemon=True)
    watcher.start()
    for i, student in enumerate(burst):
        time.sleep(max(0.0, burst_start + i * within / max(1, len(burst) - 1) - time.monotonic()))
        submitted[student] = time.monotonic()
        expected[student] = course.submit(student)
    last_submit = time.monotonic() - burst_start
    watcher.join()
    service.wait_until(lambda rows: len(rows) == len(course.students) and all(r["state"] == "done" for r in rows),
                       "every hand-in recorded")  # the last round's process ended and reaped: its CPU counted
    cpu = _cpu_seconds(pid)
    sampler.stopping = True
    service.stop()
    waits = {s: seen[s] - submitted[s] for s in burst if s in seen}
    order = [s for s in burst if s in seen]
    rounds = {}
    for number, names in re.findall(r"round (\d+): grading ([^(;]*)", service.log()):
        for name in names.split(","):
            rounds.setdefault(name.strip(), int(number))
    in_order = all(rounds.get(a, 0) <= rounds.get(b, 0) for a, b in zip(order, order[1:]))
    quarter = max(1, len(sampler.samples) // 4)
    memory = [rss for _, rss, _ in sampler.samples]
    return {"students": len(burst), "within_s": within, "last_submit_s": round(last_submit, 1),
            "one_s": round(one, 1), "fetchable": len(waits), "max_s": round(max(waits.values()), 1),
            "median_s": round(statistics.median(waits.values()), 1),
            "p90_s": round(sorted(waits.values())[int(0.9 * (len(waits) - 1))], 1),
            "within_5_min": sum(w <= 300 for w in waits.values()), "in_order": in_order,
            "last_feedback_s": round(max(seen[s] for s in burst if s in seen) - burst_start, 1),
            "rounds": max(rounds.values(), default=0), "service_cpu_s": round(cpu, 1),
            "service_mib_first_quarter": round(statistics.mean(memory[:quarter]), 1),
            "service_mib_last_quarter": round(statistics.mean(memory[-quarter:]), 1),
            "service_mib_max": round(max(memory), 1),
            "round_mib_max": round(max(r for _, _, r in sampler.samples), 1),
            "load_start": [round(x, 2) for x in load_start], "load_end": [round(x, 2) for x in os.getloadavg()],
            "graded": len(re.findall(r": graded, ", service.log()))}


def measured(students: int, within: float) -> dict:
    """measure() in a scratch course of this account's; as root, run as ACCOUNT in a course in its home."""
    from tests.shared.course_copy import copy_course, run_nbgrader

    if os.geteuid() != 0:
        with tempfile.TemporaryDirectory(prefix="grading-service-bench-") as scratch:
            return measure(copy_course(Path(scratch) / "course"), students, within)
    from tests.shared.accounts import command_as, give, make_account

    home = make_account(ACCOUNT)
    course = copy_course(home / "course")
    # The gradebook made here: nbgrader makes a new one with `alembic`, which the accounts' environment lacks.
    run_nbgrader(course, "generate_assignment", ASSIGNMENT, "--force", "--log-level=ERROR")
    give(ACCOUNT, course)
    out = home / "figures.json"
    run = subprocess.run(command_as(ACCOUNT, "python", "-m", "benchmarks.grading_service", "--students",
                                    str(students), "--within", str(within), "--json", str(out)), cwd=course,
                         capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"the benchmark as {ACCOUNT} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    return json.loads(out.read_text())


def section(figures: dict, command: str) -> str:
    f = figures
    return f"""{HEADING}

`{command}` on {time.strftime('%Y-%m-%d %H:%M')}, {machine.cpu_model()}, {os.cpu_count()} cores; load average
(1, 5, 15 min) {', '.join(map(str, f['load_start']))} at the start, {', '.join(map(str, f['load_end']))} at the end.

| | figure | goal (issue 39) |
|---|---|---|
| one hand-in alone: Submit to feedback fetchable | {f['one_s']} s | within 60 s on a quiet machine |
| {f['students']} students handing in over {f['last_submit_s']} s: every feedback fetchable | {f['within_5_min']} of {f['fetchable']} within 5 min of its Submit; the last {f['last_feedback_s']} s after the first Submit | every one within 5 min |
| wait from Submit to feedback, over the burst | median {f['median_s']} s, 90th percentile {f['p90_s']} s, longest {f['max_s']} s | |
| served in order of arrival (each hand-in's round no earlier than an earlier hand-in's) | {'yes' if f['in_order'] else 'NO'} ({f['rounds']} rounds in all) | in order of arrival |
| the service's own resident memory | {f['service_mib_first_quarter']} MiB in the burst's first quarter, {f['service_mib_last_quarter']} MiB in its last, at most {f['service_mib_max']} MiB | flat |
| a round's processes (the loop's commands, nbgrader's workers, the confined children), at most | {f['round_mib_max']} MiB | |
| the service's CPU, its rounds' included | {f['service_cpu_s']} s for {f['graded']} graded hand-ins | |
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=100, help="students in the burst")
    parser.add_argument("--within", type=float, default=120.0, help="seconds over which they hand in")
    parser.add_argument("--write", action="store_true", help="put the section in benchmarks/REPORT.md")
    parser.add_argument("--json", type=Path, help=argparse.SUPPRESS)  # as ACCOUNT, for root's run of it
    args = parser.parse_args(argv)
    if args.json:
        args.json.write_text(json.dumps(measure(Path.cwd(), args.students, args.within)))
        return 0
    figures = measured(args.students, args.within)
    print(json.dumps(figures))
    return publish(HEADING, section(figures, " ".join(["python -m benchmarks.grading_service",
                                                       *(argv or sys.argv[1:])])), args.write)


if __name__ == "__main__":
    raise SystemExit(main())
