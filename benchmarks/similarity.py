"""What the similarity section costs at scale, and what it finds (issue 25).

    .venv/bin/python -m benchmarks.similarity               # 1,500 students × every exercise, and the sweep
    .venv/bin/python -m benchmarks.similarity --write        # ... and put the section in benchmarks/REPORT.md

Scale: 1,500 synthetic students answer every exercise of the kit. The five
exercises tests/report/similar_class.py writes honest answers for get those; every
other exercise gets the reference's statements, each kept, dropped, or
swapped for a statement of another exercise's reference, with conversions of
the student's own in front (so answers differ as a class's do, and the
index has statements held by one student and by hundreds). One answer in
fifty is a disguised copy of another student's. Timed: `similar_answers`
over the whole class, with its default workers (one per core), nothing cached before.

Sweep: the synthetic class of tests/report/test_similarity.py (with its copies
edited beyond renaming, tests/report/similar_class.plant_edited_copies) at 48, 54 and 60
students over twenty seeds each (classes of one seed share their first
students), 50 students over a hundred other seeds, 100 students over twenty
more and 300 over forty more: how many planted pairs were found, how many honest pairs were flagged,
and which classes were not exactly right. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import re
import resource
import time
from collections import Counter
from itertools import combinations

from benchmarks import machine
from benchmarks.report_section import REPORT, publish
from kit.notebooks import ROOT
from kit.report.answers import exercises
from kit.report.normalise import tokens
from kit.report.similarity import similar_answers
from tests.report.similar_class import EDITED, WRITERS, honest_class, plant_copies, plant_edited_copies, recommented, renamed

HEADING = "## Similarity at scale (issue 25)"


def _statements(reference: str) -> tuple[str, list[str]]:
    """The reference's signature line and its body's statements, each as indented source (a reference
    that defines no function: no signature, its own statements)."""
    tree = ast.parse(reference)
    function = next((node for node in tree.body if isinstance(node, ast.FunctionDef)), None)
    if function is None:
        return "", [ast.unparse(s) for s in tree.body]
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    signature = reference.splitlines()[function.lineno - 1]
    return signature, ["\n".join("    " + line for line in ast.unparse(s).splitlines()) for s in body]


def _varied(signature: str, body: list[str], pool: list[str], rng: random.Random) -> str:
    indent = "    " if signature else ""
    params = re.findall(r"[(,]\s*(\w+)", signature)
    lines = [f"    {p} = np.asarray({p}{rng.choice(['', ', dtype=float'])})" for p in params if rng.random() < 0.3]
    for statement in body:
        draw = rng.random()
        if draw < 0.6:
            lines.append(statement)
        elif draw < 0.85:
            lines.append(indent + rng.choice(pool))
    return "\n".join([signature, *(lines or [indent + "pass"])]).lstrip("\n") + "\n"


def course_exercises() -> dict:
    """The kit's exercises as the report reads them: the source, the release, the reference module."""
    return exercises(ROOT / "source" / "attention", ROOT / "assignments" / "attention",
                     ROOT / "solutions" / "attention.py")


def scale_class(students: int, seed: int) -> tuple[dict, dict[str, dict[str, str]], set]:
    """The exercises, student → exercise → answer, and the planted (exercise, pair)s."""
    given = course_exercises()
    rng = random.Random(seed)
    parsed = {}
    for name, exercise in given.items():
        try:
            parsed[name] = _statements(exercise.reference)
        except (SyntaxError, StopIteration, IndexError):
            continue
    pool = [s.strip() for _, body in parsed.values() for s in body if "\n" not in s]
    ids = [f"b{i:04d}" for i in range(students)]
    answers, planted = {s: {} for s in ids}, set()
    for name in given:
        for s in ids:
            if name in WRITERS:
                answers[s][name] = WRITERS[name](rng)
            elif name in parsed:
                answers[s][name] = _varied(*parsed[name], pool, rng)
        for s in rng.sample(ids, students // 50):
            source = rng.choice([i for i in ids if i != s])
            answers[s][name] = recommented(renamed(answers[source][name], rng), rng)
            planted.add((name, tuple(sorted((s, source)))))
    return given, answers, planted


def _copy_groups(planted: set) -> set:
    """(exercise, pair)s of students whose answers are one copied answer: the planted pairs and, when one
    answer was copied twice or a copy copied, the rest of its group."""
    group: dict[tuple[str, str], set[str]] = {}
    for name, (a, b) in sorted(planted):
        joined = group.get((name, a), {a}) | group.get((name, b), {b})
        for s in joined:
            group[name, s] = joined
    return {(name, tuple(sorted(pair))) for (name, _), who in group.items() for pair in combinations(who, 2)}


def measure_scale(students: int, seed: int = 25) -> dict:
    given, answers, planted = scale_class(students, seed)
    load = machine.load_average()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started, cpu = time.perf_counter(), time.process_time()
    similarity = similar_answers(given, answers)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    compared = {e.name for e in similarity.exercises if e.compared}
    flagged = {(e.name, p.students) for e in similarity.exercises for p in e.flagged}
    copies = _copy_groups(planted)
    planted = {p for p in planted if p[0] in compared}
    written = {name: Counter(tuple(t for t, _ in tokens(by[name])) for by in answers.values() if name in by)
               for name in compared}  # exercise → normalised answer → students who handed it in

    def others_writing(name: str, pair: tuple[str, str]) -> int:
        code = tuple(t for t, _ in tokens(answers[pair[0]][name]))
        group = {s for n, p in copies if n == name and pair[0] in p for s in p} | set(pair)
        return written[name][code] - len(group)
    writers = {p: others_writing(*p) for p in planted}
    rare = {p for p, n in writers.items() if n < 0.01 * students}
    unique = {p for p, n in writers.items() if n == 0}
    honest = flagged - copies
    identical = {(name, (a, b)) for name, (a, b) in honest
                 if tuple(t for t, _ in tokens(answers[a][name])) == tuple(t for t, _ in tokens(answers[b][name]))}
    return dict(students=students, exercises=len(given), answers=sum(len(a) for a in answers.values()),
                seconds=seconds, cpu=cpu, workers=workers, load=load,
                load_after=machine.load_average(), candidates=similarity.candidates(),
                compared=len(compared), flagged=len(flagged), repeated=len(similarity.repeated),
                planted_compared=len(planted), found=len(planted & flagged), copies_flagged=len(flagged & copies),
                rare=len(rare), rare_found=len(rare & flagged), unique=len(unique),
                unique_found=len(unique & flagged), honest=len(honest), honest_identical=len(identical),
                generator=sum(1 for p in planted if p[0] in WRITERS),
                generator_found=sum(1 for p in planted & flagged if p[0] in WRITERS))


SWEEP = ((48, range(20)), (54, range(20)), (60, range(20)), (50, range(100, 200)), (100, range(20, 40)),
         (300, range(40, 80)))


def sweep(groups=SWEEP) -> dict:
    """Over classes of tests/report/similar_class.py, (size, seeds) by group: planted pairs found, honest pairs flagged,
    and the classes where the report was not exactly right (a pair missed or an honest one flagged)."""
    given = {n: e for n, e in course_exercises().items() if n in WRITERS}
    total = Counter()
    wrong = []
    for students, seeds in groups:
        for seed in seeds:
            answers = honest_class(students, seed)
            planted = plant_copies(answers, {n: e.reference for n, e in given.items()}, seed + 100)
            edited = plant_edited_copies(answers, seed + 200)
            similarity = similar_answers(given, answers)
            flagged = {(e.name, p.students) for e in similarity.exercises for p in e.flagged}
            repeated = {r.students for r in similarity.repeated}
            reference = {(e.name, p.students[0]) for e in similarity.exercises for p in e.reference}
            honest = flagged - planted.pairs - set(edited)
            total.update(classes=1, planted=len(planted.pairs), found=len(planted.pairs & flagged),
                         false=len(honest), repeated=len(planted.repeated),
                         repeated_found=len(planted.repeated & repeated), repeated_false=len(repeated - planted.repeated),
                         reference=len(planted.reference), reference_found=len(planted.reference & reference))
            for pair, how in edited.items():
                total[f"edited {how}"] += 1
                total[f"edited {how} found"] += pair in flagged
            if honest or planted.pairs - flagged or repeated != planted.repeated or reference != planted.reference:
                wrong.append((students, seed, sorted(honest), sorted(planted.pairs - flagged)))
    return dict(total, groups=groups, wrong=wrong)


def _classes(groups) -> str:
    return "; ".join(f"{students} students, seeds {seeds.start}–{seeds.stop - 1}" for students, seeds in groups)


def section(scale: dict, swept: dict, command: str) -> str:
    wrong = "; ".join(
        f"{students} students, seed {seed}: " + ", ".join(
            [f"honest {name} {a}–{b} flagged" for name, (a, b) in false]
            + [f"planted {name} {a}–{b} missed" for name, (a, b) in missed])
        for students, seed, false, missed in swept["wrong"]) or "none"
    return "\n".join([
        HEADING, "",
        f"`{command}` on {time.strftime('%Y-%m-%d %H:%M')}, {machine.details()['CPU']}, "
        f"{machine.details()['cores']} cores; load average (1, 5, 15 min) {scale['load']} before, "
        f"{scale['load_after']} after.", "",
        f"**{scale['students']:,} students × {scale['exercises']} exercises ({scale['answers']:,} answers): "
        f"{scale['seconds']:.1f} s** of wall time: reading every answer as statements in one worker process "
        f"per core ({scale['workers']:.1f} CPU seconds in all), then the index and scoring in this one "
        f"({scale['cpu']:.1f} CPU seconds), so about {scale['workers'] / len(os.sched_getaffinity(0)) + scale['cpu']:.0f} s "
        f"on these cores when nothing else runs (an estimate from the CPU seconds): {scale['candidates']:,} candidate "
        f"pairs scored (pairs that share an uncommon statement) against "
        f"{scale['exercises'] * scale['students'] * (scale['students'] - 1) // 2:,} had every pair been compared. "
        f"{scale['compared']} exercises were long and varied enough to compare. {scale['flagged']} pairs flagged: "
        f"{scale['found']} of the {scale['planted_compared']} planted copies in those exercises "
        f"({scale['generator_found']} of {scale['generator']} in `attention` and `multi_head_attention`, whose "
        f"answers tests/report/similar_class.py writes; {scale['rare_found']} of the {scale['rare']} whose answer fewer "
        f"than 1% of the class also wrote; {scale['unique_found']} of the {scale['unique']} whose answer no one "
        f"else wrote), {scale['copies_flagged'] - scale['found']} more pairs of one copied answer (two copies of "
        f"one answer, or a copy of a copy), and {scale['honest']} honest pair(s) ({scale['honest_identical']} of "
        f"them identical answers); {scale['repeated']} pairs alike across exercises (none was planted). The other "
        "exercises' answers are made of few ingredients (a reference's statements kept, dropped or swapped), so "
        "by the class's own frequencies an answer no one else wrote is still not rare enough to stand out among "
        "1.1 million pairs, and a copy of it is missed.",
        "",
        f"Detection on the synthetic class of tests/report/test_similarity.py, {swept['classes']} classes "
        f"({_classes(swept['groups'])}; classes of one seed share their first students): {swept['found']} of "
        f"{swept['planted']} planted pairs flagged in their exercise, {swept['repeated_found']} of "
        f"{swept['repeated']} pairs alike across three exercises listed (and {swept['repeated_false']} other "
        f"pairs), {swept['reference_found']} of {swept['reference']} copies of the reference listed; "
        f"{swept['false']} honest pairs flagged in all (the test's own class, 50 students, seed 3: none). "
        "Copies edited beyond renaming, planted in the same classes (attention and multi_head_attention, one of "
        "each per class): " + ", ".join(f"{how} {swept[f'edited {how} found']} of {swept[f'edited {how}']}"
                                        for how in EDITED) + ". "
        f"Classes not exactly right: {wrong}.", ""])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=1500)
    parser.add_argument("--write", action="store_true", help=f"put the section in {REPORT.name}")
    args = parser.parse_args(argv)
    scale = measure_scale(args.students)
    text = section(scale, sweep(), " ".join(["python -m benchmarks.similarity", *(argv or [])]))
    return publish(HEADING, text, args.write)


if __name__ == "__main__":
    raise SystemExit(main())
