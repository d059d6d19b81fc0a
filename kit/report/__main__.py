"""`python -m kit.report [assignment] [--anonymous] [--root COURSE]`: the class report.

Writes reports/<assignment>/index.html in the course root (with --anonymous:
anonymous.html, naming no student, fit to show the class) and prints a short
summary. The course and its gradebook are nbgrader's configuration's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kit.course import ROOT, course, said_in_one_line
from kit.report.build import course_directory, write_report


@said_in_one_line("python -m kit.report")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.report", description=__doc__.splitlines()[0])
    parser.add_argument("assignment", nargs="?", help="default: course.toml's assignment")
    parser.add_argument("--anonymous", action="store_true", help="name no student (a version to show the class)")
    parser.add_argument("--root", type=Path, help="the course root (default: nbgrader's configuration's)")
    args = parser.parse_args(argv)
    assignment = args.assignment or course(args.root or ROOT).assignment
    page, text = write_report(course_directory(args.root), assignment, args.anonymous)
    print(text)
    print(f"report: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
