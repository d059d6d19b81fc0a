"""Fixtures shared by test modules that grade the example class with whole nbgrader commands."""

from __future__ import annotations

import pytest

from kit.course_copy import EXAMPLE, autograde, class_course, gradebook_snapshot


@pytest.fixture(scope="session")
def graded_one_at_a_time(tmp_path_factory) -> tuple[list[str], dict]:
    """The example class (one student of each kind) autograded by nbgrader's own serial loop:
    (student ids, gradebook snapshot)."""
    course = tmp_path_factory.mktemp("serial")
    students = class_course(course, len(list(EXAMPLE.iterdir())))
    result = autograde(course, KIT_GRADING_WORKERS="1")
    assert result.returncode == 0, result.stderr[-3000:]
    return students, gradebook_snapshot(course, students)
