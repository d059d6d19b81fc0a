"""`make mutants`: grade the mutants of every exercise a change touched; write results.json and REPORT.md.

    .venv/bin/python -m mutation                 # the exercises touched since the last run (record.touched)
    .venv/bin/python -m mutation softmax reach   # these exercises
    .venv/bin/python -m mutation --all           # every exercise (about N minutes on 2 cores; REPORT.md says)
    .venv/bin/python -m mutation --jobs 2        # two exercises at a time (default 1: the machine is shared)

Each exercise is graded in a process of its own, forked, with its address
space capped (MEMORY), so a mutant that allocates without end fails alone.
Not a test: nothing here asserts; tests/judge/test_mutants.py reads what it writes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys
import time

from autograder.cases import build_every_hidden_case
from autograder.exercises import REGISTRY
from mutation import record, report

MEMORY = 6 << 30  # bytes of address space a grading process may map


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _run(name: str) -> tuple[str, dict, float]:
    start = time.process_time()
    result = record.run(name)
    return name, result, time.process_time() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation", description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", help="exercises to grade (default: those a change touched)")
    parser.add_argument("--all", action="store_true", help="grade every exercise's mutants")
    parser.add_argument("--jobs", type=int, default=1, help="exercises graded at once")
    args = parser.parse_args(argv)
    results = record.load()
    unknown = set(args.exercises) - set(REGISTRY)
    if unknown:
        parser.error(f"no exercise called {', '.join(sorted(unknown))}")
    names = list(REGISTRY) if args.all else args.exercises or record.touched(results)
    if results.get("engine") != record.engine():
        results = {"engine": record.engine(), "exercises": {}}  # graded by another engine: none of it holds
        names = list(REGISTRY) if not args.exercises else names
    build_every_hidden_case()  # once, before forking
    load_before, started = os.getloadavg(), time.monotonic()
    seconds = {}
    with multiprocessing.get_context("fork").Pool(args.jobs, initializer=_capped, maxtasksperchild=1) as pool:
        for name, result, cpu in pool.imap_unordered(_run, names):
            results["exercises"][name] = result | {"cpu seconds": round(cpu, 1)}
            seconds[name] = cpu
            record.save(results)  # after each exercise: a run cut short keeps what it graded
            print(f"{name:22} {result['mutants']:4} mutants, {result['survived']:3} survived "
                  f"({cpu:.1f} s CPU)", flush=True)
    results["exercises"] = {name: results["exercises"][name] for name in REGISTRY if name in results["exercises"]}
    record.save(results)
    report.write(results, names, seconds, time.monotonic() - started, load_before, os.getloadavg(), args.jobs)
    survived = sum(r["survived"] for r in results["exercises"].values())
    print(f"{survived} mutants survived; {report.REPORT.relative_to(record.ROOT)} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
