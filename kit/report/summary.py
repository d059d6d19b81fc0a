"""The report's few lines for the terminal: the commonest mistakes, the hardest exercises, who needs a look."""

from __future__ import annotations

import statistics

from kit.report.collect import ClassResults
from kit.report.page import percent
from kit.report.sections import describe
from kit.report.similar_results import Similarity


def summary(results: ClassResults, anonymous: bool = False, top: int = 5, similarity: Similarity | None = None) -> str:
    n = len(results.students)
    lines = [f"Class report for {results.assignment}: {n} students submitted"
             + (f", {len(results.awaiting)} handed in and not graded yet" if results.awaiting else "")
             + (f", {len(results.not_submitted)} did not hand in" if results.not_submitted else "")]
    made = sorted(((len(who), i, e, m) for i, e in enumerate(results.exercises) for m, who in e.mistakes.items()),
                  key=lambda t: (-t[0], t[1], t[3]))
    if made:
        lines.append("Commonest known mistakes:")
        lines += [f"  {e.name}: {m}: {count} ({percent(e.share(e.mistakes[m]))}); revisit {describe(e.section)}"
                  for count, _, e, m in made[:top]]
    hardest = sorted(results.exercises, key=lambda e: (e.share(e.hidden_passed), e.name))[:3] if n else []
    if hardest:
        lines.append("Lowest hidden pass rates: " + ", ".join(
            f"{e.name} {percent(e.share(e.hidden_passed))}" for e in hardest))
    if n:
        scores = [s.score for s in results.students]
        lines.append(f"Scores after late penalties (out of {max(s.max_score for s in results.students):g}): "
                     f"mean {statistics.mean(scores):.1f}, median {statistics.median(scores):.1f}, "
                     f"lowest {min(scores):g}, highest {max(scores):g}")
    on_hand_in = [e for e in results.exercises if e.attempts]
    if on_hand_in:
        slowest = sorted(on_hand_in, key=lambda e: (-statistics.median(e.passed_at().values() or [0]), e.name))[:3]
        lines.append("Graded on hand-in, attempts before passing (median): " + ", ".join(
            f"{e.name} {statistics.median(e.passed_at().values() or [0]):g}" for e in slowest))
    graded, ungraded = results.written_counts()
    if graded or ungraded:
        lines.append(f"Written answers: {graded} graded, {ungraded} not yet graded")
    for label, who in (("Late", [s for s in results.students if s.seconds_late > 0]),
                       ("Unreadable notebooks", [s for s in results.students if s.unreadable]),
                       ("Handed in under another name", [s for s in results.students if s.renamed]),
                       ("Read-only cells changed", [s for s in results.students if s.tampering]),
                       ("Not graded by the kit", [s for s in results.students if not s.graded]),
                       ("Grading unfinished, scores so far (run autograde again)",
                        [s for s in results.students if s.unfinished])):
        if who:
            lines.append(f"{label}: {len(who)}" + ("" if anonymous else " (" + ", ".join(s.id for s in who) + ")"))
    if results.awaiting:
        lines.append(f"Handed in, not graded yet (run autograde; its log says why it leaves one out): "
                     f"{len(results.awaiting)}" + ("" if anonymous else " (" + ", ".join(results.awaiting) + ")"))
    if results.refused:
        lines.append(f"Hand-ins refused at collect: {len(results.refused)}" + ("" if anonymous else " (" + ", ".join(
            f"{h['hand_in']}: {h['why']}" for h in results.refused) + ")"))
    if similarity is not None:
        pairs = sum(len(e.flagged) for e in similarity.exercises)
        lines.append(f"Answers alike, to look at (not a verdict): {pairs} pairs in "
                     f"{sum(1 for e in similarity.exercises if e.flagged)} exercises, {len(similarity.repeated)} "
                     f"alike across exercises, {len(similarity.reference_by_student())} students whose answers are "
                     f"alike the reference")
    return "\n".join(lines)
