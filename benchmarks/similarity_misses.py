"""Why each planted copy within one exercise that the report misses is missed, on tests/report/disguised_class.py's classes
(issue 40).

    .venv/bin/python -m benchmarks.similarity_misses --samples 4000 --seeds 0:16

For each miss: how many statements the pair shares (beyond the given code), how often the generator's own honest
answers hold them all (`--samples` drawn per exercise, as benchmarks/similarity_ceiling.py draws them: times the
class's pairs, the pairs as alike expected by chance in a class of this generator), how many other students of
the class wrote them all, and what the report expected. Then the count of misses per reason. Not a test: nothing
here asserts.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter

import kit.report.similarity as similarity
from benchmarks import machine
from benchmarks.disguised_table import seed_range
from benchmarks.similarity_ceiling import _statements, honest_index
from tests.report.disguised_class import EXERCISES, KINDS, given_exercises, second_class

WITHIN = tuple(kind for kind in KINDS if kind not in ("short answers", "reference module"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=4000, help="honest answers drawn per exercise")
    parser.add_argument("--seeds", type=seed_range, default=range(0, 16))
    args = parser.parse_args(argv)
    given = given_exercises()
    given_statements = {e: set(similarity._read((given[e].given, e)).statements) for e in EXERCISES}
    index = honest_index(args.samples, given_statements)
    everyone = (1 << args.samples) - 1
    settings = similarity.Settings()
    tails: dict = {}
    repeated = similarity._repeated

    def keep_tails(results, found, settings):
        tails.update(found)
        return repeated(results, found, settings)
    similarity._repeated = keep_tails
    reasons, lines = Counter(), []
    try:
        for seed in args.seeds:
            made = second_class(seed)
            listed = similarity.similar_answers(given, made.answers)
            flagged = {(e.name, p.students) for e in listed.exercises for p in e.flagged}
            across = {r.students for r in listed.repeated}
            for kind in WITHIN:
                for exercise, (a, b) in sorted(made.planted[kind]):
                    if (exercise, (a, b)) in flagged or (a, b) in across:
                        continue
                    first, second = (_statements(made.answers[s][exercise], exercise, given_statements[exercise])
                                     for s in (a, b))
                    shared = first & second
                    held = everyone
                    for h in shared:
                        held &= index[exercise].get(h, 0)
                    answers = sum(1 for by in made.answers.values()
                                  if _statements(by[exercise], exercise, given_statements[exercise]))
                    chance = math.comb(answers, 2) * held.bit_count() / args.samples
                    others = sum(1 for s, by in made.answers.items() if s not in (a, b) and shared
                                 and shared <= _statements(by[exercise], exercise, given_statements[exercise]))
                    pair = tails.get(exercise, {}).get((a, b))
                    reasons["honest students of this generator write it: at least 1 such pair expected a class"
                            if chance >= 1 else
                            f"rarer, but above the report's threshold ({settings.same_expected:g})"
                            if chance > settings.same_expected else
                            f"rare: none of the {args.samples:,} drawn holds it all"
                            if not held else "rare by the generator, missed by the report"] += 1
                    if others:
                        reasons["(of them) another student of the class wrote it all"] += 1
                    if len(shared) < settings.min_shared:
                        reasons[f"(of them) fewer than {settings.min_shared} statements shared"] += 1
                    lines.append(f"| {seed} | {kind} | {exercise} | {a}, {b} | {len(shared)} | "
                                 f"{held.bit_count():,} of {args.samples:,} ({chance:.3g}) | {others} | "
                                 f"{f'{pair.expected:.3g}' if pair else 'not scored'} |")
    finally:
        similarity._repeated = repeated
    print(f"`python -m benchmarks.similarity_misses --samples {args.samples} --seeds "
          f"{args.seeds[0]}:{args.seeds[-1] + 1}` on {time.strftime('%Y-%m-%d %H:%M')}; load average "
          f"{machine.load_average()}.\n")
    print("| seed | kind | exercise | pair | statements shared | honest answers drawn holding them all (pairs "
          "expected a class) | others of the class holding them all | the report's expected |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    print()
    for reason, count in reasons.most_common():
        print(f"- {count}: {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
