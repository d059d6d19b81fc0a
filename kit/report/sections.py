"""Which chapter section each exercise follows, read from the instructor notebooks.

An exercise belongs to the last "chapter section N" named in the markdown
above its answer cell (or, before any, the notebook's "follows section N");
a written question (a task cell) to the last one named above it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

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
_NAMED = re.compile(r"chapter section (\d+)")
_FOLLOWS = re.compile(r"follows (?:the end of )?(?:chapter )?section (\d+)")


def exercise_sections(source: Path) -> dict[str, int]:
    """Answer cell id (the exercise) or written question → chapter section, for every notebook in `source`."""
    sections: dict[str, int] = {}
    for path in sorted(source.glob("*.ipynb")):
        section = None
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell["cell_type"] == "markdown":
                found = _NAMED.findall(text) or _FOLLOWS.findall(text)
                section = int(found[-1]) if found else section
            meta = cell["metadata"].get("nbgrader", {})
            if (meta.get("solution") or meta.get("task")) and section is not None:
                sections[meta["grade_id"]] = section
    return sections


def describe(section: int | None) -> str:
    if section is None:
        return "no chapter section found"
    return f"chapter section {section}: {TITLES.get(section, '')}".rstrip(": ")
