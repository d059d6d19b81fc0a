"""The chapter's sections by number, and how the report names one (SourceAssignment.sections says which
section each exercise follows)."""

from __future__ import annotations

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
def describe(section: int | None) -> str:
    if section is None:
        return "no chapter section found"
    return f"chapter section {section}: {TITLES.get(section, '')}".rstrip(": ")
