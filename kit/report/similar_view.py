"""What the page shows of `similar_results.Similarity`: who is who, and the code as it may be shown.

The full report names students by id. The anonymous one gives each student in
the section a label ("student A", "student B", ...) in the order they first
appear there, so the same student has the same label in every pair and
exercise of the page and the labels say nothing of ids or their order; the
code it shows has its comments blanked and any student's id in it replaced,
since a comment can sign a name.
"""

from __future__ import annotations

import io
import re
import string
import tokenize
from dataclasses import dataclass, field

from kit.report.similar_results import DISTRIBUTION_BINS, Line, Similarity, bin_of


def _label(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = string.ascii_uppercase[rest] + letters
    return f"student {letters}"


def _without_comments(text: str) -> str:
    """`text` with every comment blanked, line for line (a regex where the tokenizer gives up)."""
    lines = text.split("\n")
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                lines[row - 1] = lines[row - 1][:col].rstrip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        lines = [re.sub(r"#.*$", "", line).rstrip() for line in lines]
    return "\n".join(lines)


@dataclass
class SimilarView:
    similarity: Similarity
    anonymous: bool
    students: list[str]                      # every student of the class (whose ids the code must not show)
    _labels: dict[str, str] = field(default_factory=dict)

    def name(self, student: str) -> str:
        if not self.anonymous:
            return student
        return self._labels.setdefault(student, _label(len(self._labels)))

    def lines(self, lines: list[Line]) -> list[Line]:
        if not self.anonymous:
            return lines
        text = _without_comments("\n".join(line.text for line in lines))
        ids = sorted(self.students, key=len, reverse=True)
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, ids)) + r")\b") if ids else None
        shown = text.split("\n")
        return [Line(line.number, pattern.sub("…", shown[i]) if pattern else shown[i], line.region)
                for i, line in enumerate(lines)]

    @staticmethod
    def bins() -> list[str]:
        """The distribution's columns: "0–9%", ..., "90–100%"."""
        step = 100 // DISTRIBUTION_BINS
        return [f"{i * step}–{i * step + step - 1}%" for i in range(DISTRIBUTION_BINS - 1)] + \
            [f"{100 - step}–100%"]

    @staticmethod
    def bin(in_common: float) -> int:
        return bin_of(in_common)

    @staticmethod
    def share(value: float) -> str:
        return f"{100 * value:.0f}%" if value >= 0.01 or value == 0 else f"{100 * value:.1g}%"
