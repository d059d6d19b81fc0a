"""Copies found however disguised: the kit's similarity section beside Dolos and copydetect (issue 40).

    .venv/bin/python -m benchmarks.similarity_tools                 # 16 classes of 60, and 1,500 students timed
    .venv/bin/python -m benchmarks.similarity_tools --write         # ... and put the table in benchmarks/REPORT.md
    .venv/bin/python -m benchmarks.similarity_tools --classes 4 --no-scale   # a quick look

Classes: tests/disguised_class.py, seeds 0–15, 60 students each, one planted copy of each kind per class (16
of each kind in all). Every engine is given the same answers, the same given code (the released stub and
the notebook's set-up) and the reference in both its forms (solutions/attention.py's function with its
helpers, named "reference", and the notebook's cell, "reference (notebook)") as if two more students.

- The kit: `similar_answers`, as the report runs it; a pair is listed where the report lists it.
- Dolos 3.5.1 (`make dolos`: npm's @dodona/dolos-lib, driven by benchmarks/dolos_pairs.mjs), and copydetect
  0.5.0 (PyPI; its CodeFingerprint and compare_files, its default k-gram of 25 tokens, the given code as
  boilerplate), which score pairs but list none: each is given the one threshold on its similarity that
  lists at most 16 honest pairs over the 16 classes (one a class), chosen after seeing them all, the most
  favourable threshold it could have.

Found, per kind: the planted pair listed in its exercise (a chain: both links; short answers: the pair in
any exercise or across exercises; the reference's module form: the copier listed with the reference in that
exercise). Honest: pairs of students listed that were not planted (a chain's two ends count as planted).

Scale: 1,500 students × every exercise of the kit (benchmarks/similarity.py's class), timed for each engine
that can run it whole; copydetect, which scores every pair, is timed on two exercises and scaled up.
Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

from benchmarks import machine
from kit.notebooks import ROOT
from kit.report.answers import MODULE_FORM, NOTEBOOK_FORM, exercises, handed_in
from kit.report.similarity import similar_answers
from tests.disguised_class import EXERCISES, KINDS, REFERENCE, disguised_class

REPORT = Path(__file__).resolve().parent / "REPORT.md"
HEADING = "## Copies found however disguised (issue 40)"
DOLOS_LIB = ROOT / ".run" / "dolos" / "node_modules" / "@dodona" / "dolos-lib" / "dist" / "index.js"
NOTEBOOK_REFERENCE = "reference (notebook)"
SEEDS = range(16)


def stubs() -> dict[str, str]:
    """Exercise → its cell as the release hands it out."""
    return handed_in(ROOT / "assignments" / "attention", set(EXERCISES))


def second_class(seed: int):
    return disguised_class(seed, stubs(), (ROOT / "solutions" / "attention.py").read_text())


def with_references(given: dict, answers: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The answers and, as two more students, the reference's module form and its notebook cell."""
    forms = {REFERENCE: {}, NOTEBOOK_REFERENCE: {}}
    for name in answers[next(iter(answers))]:
        forms[NOTEBOOK_REFERENCE][name] = given[name].forms[NOTEBOOK_FORM]
        forms[REFERENCE][name] = given[name].forms[MODULE_FORM]
    return answers | forms


def _pair(a: str, b: str) -> tuple[str, str]:
    a, b = (REFERENCE if s == NOTEBOOK_REFERENCE else s for s in (a, b))
    return tuple(sorted((a, b)))


# ---- engines: each gives {(exercise, pair)} listed, or {exercise: {pair: similarity}} to be thresholded

def kit(given, answers) -> set:
    """The report's listing: its pairs, its pairs across exercises, its students alike the reference (which
    it compares in both forms itself)."""
    similarity = similar_answers(given, answers)
    listed = {(e.name, p.students) for e in similarity.exercises for p in e.flagged}
    listed |= {(e.name, (p.students[0], REFERENCE)) for e in similarity.exercises for p in e.reference}
    listed |= {("", r.students) for r in similarity.repeated}
    return {(name, _pair(*pair)) for name, pair in listed if pair[0] != pair[1]}


def dolos_installed() -> bool:
    return DOLOS_LIB.exists() and shutil.which("node") is not None


def dolos(given, answers) -> dict[str, dict[tuple[str, str], float]]:
    request = {name: {"ignore": e.given, "files": {s: by[name] for s, by in answers.items() if name in by}}
               for name, e in given.items()}
    done = subprocess.run(["node", str(Path(__file__).with_name("dolos_pairs.mjs")), str(DOLOS_LIB)],
                          input=json.dumps(request), capture_output=True, text=True, check=True)
    return {name: {_pair(a, b): similarity for a, b, similarity, *_ in pairs}
            for name, pairs in json.loads(done.stdout).items()}


def copydetect(given, answers) -> dict[str, dict[tuple[str, str], float]]:
    from copydetect import CodeFingerprint, compare_files, defaults

    k, window = defaults.NOISE_THRESHOLD, defaults.GUARANTEE_THRESHOLD - defaults.NOISE_THRESHOLD + 1
    found = {}
    for name, exercise in given.items():
        boilerplate = CodeFingerprint("given.py", k, window, fp=io.StringIO(exercise.given)).hashes
        prints = {s: CodeFingerprint(f"{s}.py", k, window, list(boilerplate), fp=io.StringIO(by[name]))
                  for s, by in answers.items() if name in by}
        ids = sorted(prints)
        scores = {}
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                _, (one, other), _ = compare_files(prints[a], prints[b])
                if max(one, other) > 0:
                    scores[_pair(a, b)] = max(one, other)
        found[name] = scores
    return found


def thresholded(scored: dict, threshold: float) -> set:
    return {(name, pair) for name, pairs in scored.items() for pair, value in pairs.items()
            if value >= threshold and pair[0] != pair[1]}


# ---- what was found

def judged(made, listed: set) -> tuple[Counter, set]:
    """Planted copies found by kind, and the honest pairs of students listed."""
    pairs = {pair for _, pair in listed}
    found = Counter()
    for kind in KINDS:
        planted = made.planted[kind]
        if kind == "short answers":
            found[kind] += bool(planted) and next(iter(planted))[1] in pairs
        elif kind == "chain":
            found[kind] += planted <= listed
        else:
            found[kind] += bool(planted & listed)
    copies = {pair for found_ in made.planted.values() for _, pair in found_}
    chain = {s for _, pair in made.planted["chain"] for s in pair}
    copies |= {tuple(sorted((a, b))) for a in chain for b in chain if a < b}
    return found, pairs - copies


def given_exercises() -> dict:
    """The generator's exercises as the report reads them: the release's stubs and hints, the reference
    module."""
    found = exercises(ROOT / "source" / "attention", ROOT / "assignments" / "attention",
                      ROOT / "solutions" / "attention.py")
    return {name: e for name, e in found.items() if name in EXERCISES}


def compare(seeds=SEEDS, tools: bool = True) -> dict:
    given = given_exercises()
    engines = {"kit": kit}
    scored_engines = {"copydetect": copydetect} if tools else {}
    if tools and dolos_installed():
        scored_engines["Dolos"] = dolos
    kit_found, kit_honest, scored = Counter(), [], {name: [] for name in scored_engines}
    for seed in seeds:
        made = second_class(seed)
        answers = with_references(given, made.answers)
        found, honest = judged(made, engines["kit"](given, made.answers))
        kit_found.update(found)
        kit_honest.append(len(honest))
        for name, engine in scored_engines.items():
            scored[name].append((made, engine(given, answers)))
    results = {"kit": dict(found=kit_found, honest=kit_honest, threshold=None)}
    for name, classes in scored.items():
        results[f"{name}, one threshold"] = _best_threshold(classes, len(seeds))
        results[f"{name}, a threshold per exercise"] = _best_thresholds(classes)
    return dict(results=results, classes=len(seeds))


def _best_threshold(classes: list, most_honest: int) -> dict:
    """The lowest threshold (of the scores seen) that lists at most `most_honest` honest pairs in all."""
    values = sorted({v for _, scored in classes for pairs in scored.values() for v in pairs.values()})
    best = (float("inf"), [judged(made, set()) for made, _ in classes])  # even its highest score lists too many
    low, high = 0, len(values) - 1
    while low <= high:  # honest pairs listed only fall as the threshold rises
        middle = (low + high) // 2
        outcome = [judged(made, thresholded(scored, values[middle])) for made, scored in classes]
        if sum(len(honest) for _, honest in outcome) <= most_honest:
            best, high = (values[middle], outcome), middle - 1
        else:
            low = middle + 1
    threshold, outcome = best
    found = Counter()
    for counted, _ in outcome:
        found.update(counted)
    return dict(found=found, honest=[len(h) for _, h in outcome], threshold=threshold)


def _best_thresholds(classes: list) -> dict:
    """A threshold per exercise: the lowest that lists at most one honest pair in that exercise over all the
    classes (so at most one per exercise, nine in all)."""
    chosen = {}
    for exercise in EXERCISES:
        alone = [(made, {exercise: scored.get(exercise, {})}) for made, scored in classes]
        chosen[exercise] = _best_threshold(alone, 1)["threshold"]
    outcome = [judged(made, {hit for exercise, t in chosen.items()
                             for hit in thresholded({exercise: scored.get(exercise, {})}, t)})
               for made, scored in classes]
    found = Counter()
    for counted, _ in outcome:
        found.update(counted)
    return dict(found=found, honest=[len(h) for _, h in outcome], threshold=min(chosen.values()),
                thresholds=chosen)


# ---- time at scale

def timed_scale(students: int) -> dict:
    from benchmarks.similarity import scale_class

    given, answers, _ = scale_class(students, 25)
    times = {"load": machine.load_average()}
    started = time.perf_counter()
    similar_answers(given, answers)
    times["kit"] = time.perf_counter() - started
    if dolos_installed():
        started = time.perf_counter()
        dolos(given, answers)
        times["Dolos"] = time.perf_counter() - started
    two = dict(list(given.items())[:2])
    started = time.perf_counter()
    copydetect(two, answers)
    times["copydetect"] = (time.perf_counter() - started) * len(given) / len(two)
    times["load_after"] = machine.load_average()
    return times


def section(compared: dict, times: dict | None, command: str) -> str:
    classes = compared["classes"]
    header = "| engine | " + " | ".join(KINDS) + " | honest pairs listed (most in a class) | 1,500 students × every exercise |"
    rows = [header, "|" + "---|" * (len(KINDS) + 3)]
    for name, result in compared["results"].items():
        honest = result["honest"]
        seconds = f"{times[name]:.0f} s" + (" (scaled up from 2 exercises)" if name == "copydetect" else "") \
            if times and name in times else "not timed"
        label = name if result["threshold"] is None or "thresholds" in result else \
            f"{name} (listed at ≥ {result['threshold']:.3f})" if result["threshold"] < float("inf") else \
            f"{name} (no threshold lists few enough)"
        rows.append(f"| {label} | " + " | ".join(f"{result['found'][kind]} of {classes}" for kind in KINDS)
                    + f" | {sum(honest)} ({max(honest)}) | {seconds} |")
    load = f"; load average (1, 5, 15 min) {times['load']} before the timing, {times['load_after']} after" \
        if times else ""
    return "\n".join([HEADING, "", f"`{command}` on {time.strftime('%Y-%m-%d %H:%M')}, {machine.details()['CPU']}, "
                      f"{machine.details()['cores']} cores{load}. Classes: tests/disguised_class.py, seeds "
                      f"0–{classes - 1}, 60 students each, one copy of each kind per class.", "", *rows, ""])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=len(SEEDS))
    parser.add_argument("--students", type=int, default=1500)
    parser.add_argument("--no-scale", action="store_true", help="skip the 1,500-student timing")
    parser.add_argument("--kit-only", action="store_true", help="the kit alone, not Dolos or copydetect")
    parser.add_argument("--write", action="store_true", help=f"put the section in {REPORT.name}")
    args = parser.parse_args(argv)
    compared = compare(range(args.classes), tools=not args.kit_only)
    times = None if args.no_scale else timed_scale(args.students)
    text = section(compared, times, " ".join(["python -m benchmarks.similarity_tools", *(argv or [])]))
    print(text)
    if args.write:
        report = REPORT.read_text()
        kept = re.sub(rf"\n{re.escape(HEADING)}\n.*?(?=\n## |\Z)", "", report, flags=re.S)
        REPORT.write_text(kept.rstrip("\n") + "\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
