"""docs/adapting.md's code blocks, section by section: tests/house/test_adapting_guide.py follows "Add an exercise"
with them, tests/notebooks/test_written_answers.py "Add a written question"."""

from __future__ import annotations

import re

from kit.notebooks import ROOT

GUIDE = ROOT / "docs" / "adapting.md"
BLOCK = re.compile(r"^( *)```(\w+)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def blocks(section: str) -> list[tuple[str, str]]:
    """(language, text) of every code block under the guide's `## {section}` heading, unindented."""
    text = GUIDE.read_text().split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [(language, "".join(line[len(indent):] for line in body.splitlines(keepends=True)))
            for indent, language, body in BLOCK.findall(text)]
