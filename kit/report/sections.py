"""Which chapter section each exercise follows (autograder.source_assignment reads it), and its title."""

from __future__ import annotations

from pathlib import Path

from autograder.source_assignment import SourceAssignment

# The chapter's nine sections (attention-guide.txt), by number.
TITLES = {
    1: "What one token needs from the others",
    2: "Query, key and value: three learned projections",
    3: "The score between one query and every key",
    4: "Softmax, the mix, and the whole thing as matrices",
    5: "Several small heads instead of one big one",
    6: "Self-attention, cross-attention, and the mask",
    7: "What attention costs as the window grows",
    8: "Where to read next",
    9: "Using it in Python",
}
def exercise_sections(source: Path) -> dict[str, int]:
    """Answer cell id (the exercise) or written question → chapter section, for every notebook in `source`."""
    return SourceAssignment.of(source).sections


def describe(section: int | None) -> str:
    if section is None:
        return "no chapter section found"
    return f"chapter section {section}: {TITLES.get(section, '')}".rstrip(": ")
