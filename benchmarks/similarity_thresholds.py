"""What moving the report's two thresholds trades, on tests/report/disguised_class.py's classes (issue 40).

    .venv/bin/python -m benchmarks.similarity_thresholds                    # seeds 0-15 and held-out 100-131
    .venv/bin/python -m benchmarks.similarity_thresholds --seeds 0:4 --held-out 0:0 --times 1   # a quick look

Both thresholds on pairs expected by chance (Settings.same_expected and flag_expected) multiplied by one
factor, the report run on each class at each factor and judged as benchmarks/similarity_tools.py judges it
(tests/report/disguised_class.judged): copies found per kind and honest pairs listed. Classes run in one process per
core. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from benchmarks import machine
from benchmarks.disguised_table import found_row, seed_range
from kit.report.similarity import Settings
from tests.report.disguised_class import KINDS, given_exercises, judged, listed_by_kit, second_class

TIMES = (0.1, 0.3, 1.0, 3.0)


def one_class(seed: int, times: tuple[float, ...]) -> list[tuple[Counter, int]]:
    """(copies found per kind, honest pairs listed) of the class of `seed` at each factor."""
    given, made, defaults = given_exercises(), second_class(seed), Settings()
    out = []
    for factor in times:
        settings = Settings(same_expected=defaults.same_expected * factor,
                            flag_expected=defaults.flag_expected * factor)
        found, honest = judged(made, listed_by_kit(given, made.answers, settings))
        out.append((found, len(honest)))
    return out


def table(label: str, seeds: range, times: tuple[float, ...]) -> list[str]:
    with ProcessPoolExecutor(len(os.sched_getaffinity(0))) as pool:
        classes = list(pool.map(partial(one_class, times=times), seeds))
    rows = [f"| {label}: thresholds × | " + " | ".join(KINDS) + " | in all | honest pairs (most in a class) |",
            "|" + "---|" * (len(KINDS) + 3)]
    for i, factor in enumerate(times):
        found, honest = Counter(), []
        for each in classes:
            found.update(each[i][0])
            honest.append(each[i][1])
        rows.append(found_row([f"{factor:g}"], found, KINDS, len(seeds), honest))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=seed_range, default=range(0, 16))
    parser.add_argument("--held-out", type=seed_range, default=range(100, 132))
    parser.add_argument("--times", type=lambda text: tuple(map(float, text.split(","))), default=TIMES)
    args = parser.parse_args(argv)
    lines = [f"`python -m benchmarks.similarity_thresholds` on {time.strftime('%Y-%m-%d %H:%M')}, load average "
             f"{machine.load_average()}.", ""]
    for label, seeds in (("seeds", args.seeds), ("held-out seeds", args.held_out)):
        if len(seeds):
            lines += table(f"{label} {seeds[0]}–{seeds[-1]}", seeds, args.times) + [""]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
