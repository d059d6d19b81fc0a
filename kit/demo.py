"""The kit's main job: `make demo`.

Regenerates the student release from the instructor notebooks, then runs every
solved instructor notebook top to bottom (visible and hidden checks) and
prints one row per exercise with the points each check earned.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kit.execute import errors_outside_graded_cells, execute, graded_results
from kit.release import build_source, generate_release


def run_solved_notebooks(source: Path) -> dict[str, list]:
    """notebook name → its graded cells' results, run in a scratch copy."""
    with tempfile.TemporaryDirectory() as scratch:
        shutil.copytree(source, scratch, dirs_exist_ok=True)
        names = sorted(p.name for p in source.glob("*.ipynb"))
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = dict(zip(names, pool.map(lambda n: execute(Path(scratch) / n, with_graders=True), names)))
    problems = {n: errors_outside_graded_cells(nb) for n, nb in runs.items()}
    for name, errors in problems.items():
        for error in errors:
            print(f"! {name}: {error}", file=sys.stderr)
    return {name: graded_results(nb) for name, nb in runs.items()}


def exercise_table(results: dict[str, list]) -> tuple[list[tuple], float, float]:
    """Rows (notebook, exercise, visible, hidden) with 'earned/possible' points."""
    rows, earned, possible = [], 0.0, 0.0
    for notebook, cells in results.items():
        by_exercise: dict[str, dict[str, str]] = {}
        for cell in cells:
            kind, exercise = cell.grade_id.split("_", 1)
            got = cell.points if cell.passed else 0.0
            by_exercise.setdefault(exercise, {})[kind] = f"{got:g}/{cell.points:g}"
            earned, possible = earned + got, possible + cell.points
        for exercise, points in by_exercise.items():
            rows.append((notebook.removesuffix(".ipynb"), exercise, points.get("check", "-"), points.get("hidden", "-")))
    return rows, earned, possible


def print_table(rows: list[tuple], earned: float, possible: float) -> None:
    header = ("notebook", "exercise", "visible", "hidden")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(4)]
    line = lambda r: "  ".join(str(v).ljust(w) for v, w in zip(r, widths))  # noqa: E731
    print(line(header))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))
    print(f"\ntotal: {earned:g} of {possible:g} points")


def main() -> int:
    source = build_source()
    release = generate_release()
    print(f"student release written to {release}\nrunning the solved instructor notebooks ...\n")
    rows, earned, possible = exercise_table(run_solved_notebooks(source))
    print_table(rows, earned, possible)
    return 0 if earned == possible else 1


if __name__ == "__main__":
    sys.exit(main())
