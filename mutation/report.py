"""REPORT.md: what `make mutants` found, per exercise, written from results.json."""

from __future__ import annotations

import datetime
import json
import os
from importlib.metadata import version
from pathlib import Path

from autograder.exercises import REGISTRY

REPORT = Path(__file__).with_name("REPORT.md")
BEFORE = Path(__file__).with_name("before.json")  # the first run, on the cases and judge of main before issue 37
COLUMNS = ("mutants", "killed by visible", "killed by hidden", "equivalent", "survived")


def write(results: dict, graded: list[str], seconds: dict[str, float], wall: float, load_before, load_after,
          jobs: int) -> None:
    exercises = results["exercises"]
    totals = {c: sum(r[c] for r in exercises.values()) for c in COLUMNS}
    lines = [
        "# Mutation testing of the graders",
        "",
        "Written by `make mutants` (`.venv/bin/python -m mutation`; mutation/__main__.py says how to choose",
        "exercises). Every exercise's reference, and the private helpers it calls, is mutated with cosmic-ray's",
        f"operators (cosmic-ray {version('cosmic-ray')}) and the kit's own (mutation/operators.py); each mutant is",
        "graded as a student's answer by the kit's grading engine (autograder.grade.exercise_problems on the",
        "registry's cases, in process). A mutant is killed when it loses the exercise's hidden points;",
        "\"killed by visible\" counts those the visible check fails as well (a mutant can be both). Equivalent:",
        "reviewed in mutation/equivalent.txt, one line each with the reason. Survived: none of these.",
        "",
        f"Last run: {datetime.date.today().isoformat()}, {len(graded)} exercise(s) graded in {wall:.0f} s on the",
        f"clock with {jobs} process(es) on {os.cpu_count()} cores; load average {load_before[0]:.2f} before and"
        f" {load_after[0]:.2f} after (the machine is shared).",
        "",
        "| exercise | notebook | " + " | ".join(COLUMNS) + " | mistakes named | CPU s | survived before |",
        "|---|---|" + "---:|" * (len(COLUMNS) + 3),
    ]
    before = json.loads(BEFORE.read_text())
    for name, r in exercises.items():
        cpu = seconds.get(name, r.get("cpu seconds"))
        r["cpu seconds"] = round(cpu, 1) if cpu is not None else None
        lines.append(f"| `{name}` | {REGISTRY[name].notebook[:2]} | " + " | ".join(str(r[c]) for c in COLUMNS)
                     + f" | {len(r['named'])} | {r['cpu seconds']} | "
                     + f"{before['exercises'].get(name, {}).get('survived', '')} |")
    lines.append("| **all** | | " + " | ".join(f"**{totals[c]}**" for c in COLUMNS)
                 + f" | {sum(len(r['named']) for r in exercises.values())} | | "
                 + f"{sum(r['survived'] for r in before['exercises'].values())} |")
    lines += ["", f"Survived before: the first run, at {before['commit']}: {before['note']}."]
    errors = [(name, key, why) for name, r in exercises.items() for key, why in r["judge errors"].items()]
    if errors:
        lines += ["", "## Mutants the grader itself failed on", "",
                  "The judge raised instead of giving a verdict: neither killed nor survived.", ""]
        lines += [f"- `{name}`: `{key}`: {why}" for name, key, why in errors]
    survivors = [(name, key) for name, r in exercises.items() for key in r["survivors"]]
    lines += ["", "## Survivors", ""]
    if not survivors:
        lines.append("None: every mutant loses its exercise's hidden points or is reviewed as equivalent.")
    for name, key in survivors:
        lines.append(f"- `{name}`: `{key}`")
    REPORT.write_text("\n".join(lines) + "\n")
