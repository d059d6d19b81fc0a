"""The report as one HTML page that works offline: charts inline as data URIs, no external files."""

from __future__ import annotations

import statistics
from pathlib import Path
from types import SimpleNamespace

import jinja2

from kit.report.charts import Chart
from kit.report.collect import ClassResults, Exercise
from kit.report.sections import describe
from kit.report.similar_view import SimilarView
from kit.report.similar_results import Similarity

_TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent),
                                autoescape=True, trim_blocks=True, lstrip_blocks=True)


def percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def _ranked(groups: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """The groups, most students first."""
    return sorted(groups.items(), key=lambda group: (-len(group[1]), group[0]))


def _count(students: list[str], exercise: Exercise) -> str:
    if not exercise.students:
        return "none graded yet"
    return f"{len(students)} of {exercise.students} ({percent(exercise.share(students))})"


def median(values) -> str:
    values = list(values)
    return f"{statistics.median(values):g}" if values else ""


def render(results: ClassResults, charts: list[Chart], anonymous: bool = False,
           similarity: Similarity | None = None) -> str:
    scores = [s.score for s in results.students]
    stats = SimpleNamespace(mean=statistics.mean(scores), median=statistics.median(scores),
                            low=min(scores), high=max(scores)) if scores else None
    return _TEMPLATES.get_template("page.html.j2").render(
        r=results, charts=charts, anonymous=anonymous, describe=describe, percent=percent, count=_count, ranked=_ranked,
        median=median,
        stats=stats, max_score=max((s.max_score for s in results.students), default=0.0),
        late=[s for s in results.students if s.seconds_late > 0],
        unreadable=[s for s in results.students if s.unreadable],
        renamed=[s for s in results.students if s.renamed],
        tampered=[s for s in results.students if s.tampering],
        not_graded=[s for s in results.students if not s.graded],
        unfinished=[s for s in results.students if s.unfinished],
        similar=None if similarity is None else SimilarView(
            similarity, anonymous, [s.id for s in results.students] + results.not_submitted + results.awaiting))
