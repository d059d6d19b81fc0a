"""Does the example class come out of `make demo` as recorded: the same gradebook, feedback, report and grades?

The record (tests/shared/grading_outputs.json) was made before the grading run was
redesigned (issue 27) and is kept by every change that should leave what
graders and students read alone. A change that means to alter it records it
again: `make demo` in a copy of the course, then
`.venv/bin/python -m tests.shared.grading_outputs --write COPY`.
"""

from __future__ import annotations

import json

from tests.shared.grading_outputs import RECORD, differences, digests


def test_the_example_class_gives_the_recorded_gradebook_feedback_report_and_grades(graded_class):
    changed = differences(json.loads(RECORD.read_text()), digests(graded_class.course))
    assert not changed, f"{len(changed)} outputs differ from the record: {changed[:20]}"
