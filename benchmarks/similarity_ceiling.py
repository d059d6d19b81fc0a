"""The most a reading of the copied code alone could find, on tests/report/disguised_class.py's classes (issue 40).

    .venv/bin/python -m benchmarks.similarity_ceiling                          # seeds 0-15 and held-out 100-131
    .venv/bin/python -m benchmarks.similarity_ceiling --samples 4000 --seeds 0:4 --held-out 0:0   # a quick look

A copy renamed, re-commented, reordered, moved into a helper or made a comprehension reads as the answer it
copies (the kit's statements, normalise.py); two honest students alike wrote alike by chance. For this
generator the chance that an honest student writes all the statements a pair shares is known: draw many
honest answers from the generator itself (a fresh voice each) and count those holding them all. A copy shares
everything with its original, so that chance is the likelihood ratio of "copy" against "chance" for what the
two answers' statements show, and ranking pairs by it is the best any statistic of their statements can do
(up to the sampling: a pair whose statements no drawn answer holds all counts as rarer than any and is
listed at every threshold, so the ceiling is if anything generous to copies). Listing the pairs it ranks
highest by the report's own rule and thresholds (similarity.py: the share of statements in common, the
exercise's pairs times the chance) gives, per threshold, the copies within one exercise that a reading of
the code alone could list for as many honest pairs. The kit is measured beside it on the same classes and
thresholds: it also weighs what a copier left beyond the statements (comments and blank lines kept,
traces.py; names changed where the class names alike, renaming.py).

Short answers copied together (across exercises) and the reference's module form are left out: the chance here
is per exercise, between students. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import Counter
from itertools import combinations

from benchmarks import machine
from benchmarks.disguised_table import found_row, seed_range
from kit.notebooks import ROOT
from kit.report.answers import handed_in
from kit.report.similarity import Settings, _read
from tests.report.disguised_class import (EXERCISES, KINDS, given_exercises, honest_answer, judged, listed_by_kit,
                                   second_class, voice)

WITHIN = tuple(kind for kind in KINDS if kind not in ("short answers", "reference module"))
MULTIPLIERS = (0.1, 0.3, 1.0, 3.0)  # both thresholds of the report (Settings) times each


def _statements(code: str, exercise: str, given: set[int]) -> frozenset[int]:
    return frozenset(h for h in _read((code, exercise)).statements if h not in given)


def honest_index(samples: int, given_statements: dict[str, set[int]], seed: int = 12345) -> dict[str, dict]:
    """exercise → statement → the honest samples holding it, one bit each."""
    stubs = handed_in(ROOT / "assignments" / "attention", set(EXERCISES))
    rng = random.Random(seed)
    index = {}
    for exercise in EXERCISES:
        holding: dict[int, int] = {}
        for i in range(samples):
            code = honest_answer(exercise, voice(random.Random(rng.random())), stubs[exercise])
            for h in _statements(code, exercise, given_statements[exercise]):
                holding[h] = holding.get(h, 0) | (1 << i)
        index[exercise] = holding
    return index


def ceiling_listing(made, index: dict, samples: int, given_statements: dict, multiplier: float) -> set:
    """(exercise, pair) listed by the report's rule, each pair's chance the generator's own."""
    settings = Settings()
    everyone = (1 << samples) - 1
    listed = set()
    for exercise in EXERCISES:
        answers = {s: _statements(by[exercise], exercise, given_statements[exercise])
                   for s, by in made.answers.items()}
        answers = {s: found for s, found in answers.items() if found}
        pairs = math.comb(len(answers), 2)
        for a, b in combinations(sorted(answers), 2):
            shared = answers[a] & answers[b]
            in_common = len(shared) / len(answers[a] | answers[b])
            if len(shared) < settings.min_shared or in_common < settings.min_in_common:
                continue
            held = everyone
            for h in shared:
                held &= index[exercise].get(h, 0)
            expected = pairs * held.bit_count() / samples  # none drawn holds them all: rarer than any, listed
            if (in_common >= settings.same_in_common and expected <= settings.same_expected * multiplier) or \
                    expected <= settings.flag_expected * multiplier:
                listed.add((exercise, (a, b)))
    return listed


def kit_listing(given, made, multiplier: float) -> set:
    defaults = Settings()
    return listed_by_kit(given, made.answers, Settings(same_expected=defaults.same_expected * multiplier,
                                                       flag_expected=defaults.flag_expected * multiplier))


def measure(seeds: range, index: dict, samples: int, given, given_statements: dict) -> dict:
    """multiplier → engine → (copies found per kind within one exercise, honest pairs per class)."""
    found = {m: {"ceiling": Counter(), "kit": Counter()} for m in MULTIPLIERS}
    honest = {m: {"ceiling": [], "kit": []} for m in MULTIPLIERS}
    for seed in seeds:
        made = second_class(seed)
        for m in MULTIPLIERS:
            for engine, listed in (("ceiling", ceiling_listing(made, index, samples, given_statements, m)),
                                   ("kit", {(e, p) for e, p in kit_listing(given, made, m) if e})):
                counted, listed_honest = judged(made, listed)
                found[m][engine].update({kind: counted[kind] for kind in WITHIN})
                honest[m][engine].append(len(listed_honest))
    return {m: {engine: (found[m][engine], honest[m][engine]) for engine in ("ceiling", "kit")} for m in MULTIPLIERS}


def table(name: str, results: dict, classes: int) -> list[str]:
    rows = [f"| {name}: thresholds × | engine | " + " | ".join(WITHIN) +
            " | in all | honest pairs (most in a class) |",
            "|" + "---|" * (len(WITHIN) + 4)]
    for m, engines in results.items():
        for engine, (found, honest) in engines.items():
            rows.append(found_row([f"{m:g}", engine], found, WITHIN, classes, honest))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=20_000, help="honest answers drawn per exercise")
    parser.add_argument("--seeds", type=seed_range, default=range(0, 16))
    parser.add_argument("--held-out", type=seed_range, default=range(100, 132))
    args = parser.parse_args(argv)
    given = given_exercises()
    given_statements = {e: set(_read((given[e].given, e)).statements) for e in EXERCISES}
    started, cpu = time.perf_counter(), time.process_time()
    index = honest_index(args.samples, given_statements)
    lines = [f"`python -m benchmarks.similarity_ceiling` on {time.strftime('%Y-%m-%d %H:%M')}, "
             f"{args.samples:,} honest answers drawn per exercise; load average {machine.load_average()}.", ""]
    for name, seeds in (("seeds", args.seeds), ("held-out seeds", args.held_out)):
        if len(seeds):
            lines += table(f"{name} {seeds[0]}–{seeds[-1]}", measure(seeds, index, args.samples, given,
                                                                      given_statements), len(seeds)) + [""]
    lines.append(f"({time.perf_counter() - started:,.0f} s, {time.process_time() - cpu:,.0f} CPU s)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
