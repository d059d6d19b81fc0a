"""The grading service (kit/grading_service/) as a JupyterHub managed service, run as the instructor.

JupyterHub starts a managed service with the hub, as the system account its
`user` names (the hub runs as root to start servers as their accounts),
starts it again whenever it exits, and stops it with the hub.
`write_service` puts one into the hub's configuration file, between `python -m
kit.hub setup`'s markers (students.py), so that running the set-up again
replaces it rather than adding another: `python -m kit.grading_service` in the
instructor's course folder, with the course's own Python.
"""

from __future__ import annotations

import pwd
from pathlib import Path

from kit.hub.students import write_block


class ServiceRefused(RuntimeError):
    """The grading service cannot be set up as asked; the message says why."""


def service_name(course_id: str) -> str:
    return f"grading-{course_id}"


def service_entry(instructor: str, course: Path, python: Path, course_id: str) -> dict:
    """JupyterHub's description of the course's grading service (one entry of c.JupyterHub.services)."""
    return {"name": service_name(course_id), "user": instructor, "cwd": str(course),
            "command": [str(python), "-m", "kit.grading_service"],
            "environment": {"PYTHONPATH": str(course)}}  # the kit, as the course's own commands import it


def write_service(hub_config: Path, instructor: str, course: Path, python: Path, course_id: str) -> Path:
    """Add the grading service to the hub's configuration file `hub_config` (its mode kept); refuses a course
    folder that is not the instructor's, or a Python that is not there."""
    owner = pwd.getpwuid(course.stat().st_uid).pw_name if course.is_dir() else None
    if owner != instructor or not (course / "course.toml").is_file():
        raise ServiceRefused(f"{course} is not a course folder of {instructor}'s (it holds course.toml, and "
                             f"{instructor} owns it): give the instructor's copy of the course with --course")
    if not python.is_file():
        raise ServiceRefused(f"{python} is not there: give the course's Python with --python (make setup makes "
                             f"{course / '.venv/bin/python'})")
    entry = service_entry(instructor, course, python, course_id)
    return write_block(hub_config, f"c.JupyterHub.services.append({entry!r})\n", mode=None)
