"""Answers unusually alike: pairs of students to look at, per exercise and across exercises.

    similar_answers(exercises, answers) → Similarity
    exercises: grade_id → answers.Exercise (reference and given code); answers: student → grade_id → code

Each answer is normalised (normalise.py: no comments or docstrings, local names
renamed, independent statements in one order) and winnowed (fingerprints.py);
the fingerprints of the exercise's given code (stub and set-up) are removed.
An inverted index, fingerprint → students, yields the candidate pairs: only
students sharing a fingerprint are ever scored, never every pair. A fingerprint
that more than a tenth of the class holds (at least 3, at most 50 students) is
what everyone writes, not evidence, and is left out; every other one weighs
log(answers / holders), so rarer shared code counts more. A pair's similarity is
the weighted Jaccard index of its informative fingerprints (0 to 1).

How unusual a pair is comes from the class itself, and from how common the code
the two share is in it, not from where the pair stands among the class's best
matches (every student's best match rises with the size of the class, so at
1,500 students a copy stood no higher than honest pairs). For a pair (a, b),
the surprise is −log of the chance that another student of this class writes
all the fingerprints the two share: taken in the order of a's answer, in runs,
each run costing the share of the other students who hold all of it
(fingerprints that go together, a line's overlapping k-grams or the lines of one
style, cost once); when none of the others holds all of a run, its share is
counted and a new run starts; a stretch of fingerprints no one else holds counts
once, as half a student. The "others" leave out at most 3 students nearly the
same as a or b (a ring of copies, so the copy of a copy is found; more than 3 is
a common answer, and they stay in). The expected number of pairs as alike by
chance is then pairs × e^−surprise, and a pair is flagged when it is at most
0.01, its similarity is at least 0.7 and it shares at least 3 informative
fingerprints. Code many students wrote thus explains itself: a short exercise
where every correct answer looks alike gives every pair a small surprise and
flags nobody. Known limit: runs are taken as independent, and a rare line sits
in several k-grams whose few holders differ, so surprise is overstated for
honest pairs whose short answers coincide on a rare line (the benchmark's
classes built from a few ingredients, 1,500 students); see benchmarks/REPORT.md.

An exercise with fewer than 10 answers, or whose answers hold a median of fewer
than 5 informative fingerprints (short, or all alike), flags nobody and says
why. Answers identical to the reference after normalisation (a leaked key) are
listed apart, for exercises whose reference holds at least 5 fingerprints beyond
the given code; a pair both identical to the reference is listed there, not as a
pair. Pairs alike across exercises: a pair in the top tail of several exercises
(similarity at least 0.5, at most 1 pair as alike expected by chance) is listed
when a Poisson count with the class's own tail rates says so few pairs would
reach that count by chance (below 1% for the whole class); it is then also shown
in each of those exercises, marked as listed for that reason.

Why not a library. copydetect (MOSS's winnowing in Python) tokenises with
pygments, which does not survive reordered statements, scores every pair
(O(n²): 1.1 million pairs per exercise at 1,500 students), and importing it
loads matplotlib's pyplot (a third of a second and global state the report
avoids); its winnow function alone is no faster than the fifteen lines here.
Dolos (Ghent University's detector) is a Node program on tree-sitter. So the
tokens come from Python's own `ast`, which never runs the code, and the
fingerprints and index are written here. This is something to look at, never a
verdict: two honest students can write alike, and a copy rewritten enough is
missed.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import combinations

from kit.report.answers import Exercise
from kit.report.fingerprints import Fingerprints, fingerprints
from kit.report.normalise import parses, tokens


@dataclass(frozen=True)
class Settings:
    min_answers: int = 10          # fewer answers: no distribution to judge by
    common_share: float = 0.1      # a fingerprint held by more than this share of answers is common...
    common_least: int = 3          # ...but never below this many holders
    common_most: int = 50          # ...nor above this many
    min_fingerprints: int = 5      # median informative fingerprints per answer below this: too short to tell
    min_shared: int = 3            # a flagged pair shares at least this many informative fingerprints
    min_similarity: float = 0.7    # and at least this similar
    flag_expected: float = 0.01    # and fewer pairs than this as alike are expected by chance in the exercise
    ring_most: int = 3             # near-copies of a pair's two, at most this many, are left out of "the others"
    tail_similarity: float = 0.5   # "in the top tail" of an exercise, for pairs across exercises: this similar
    tail_expected: float = 1.0     # and at most this many pairs as alike expected by chance
    repeated_least: int = 3        # exercises in the top tail together
    repeated_chance: float = 0.01  # for the whole class


@dataclass(frozen=True)
class Line:
    number: int
    text: str
    region: int | None  # the matching region it is part of (1, 2, ...), None if unmatched


@dataclass(frozen=True)
class Pair:
    exercise: str
    students: tuple[str, str]
    similarity: float
    surprise: float     # −log of the chance that another student writes the statements they share (nats)
    expected: float     # pairs of the exercise as alike expected by chance: pairs × e^−surprise
    shared: int         # informative fingerprints in common
    sides: tuple[list[Line], list[Line]] = ((), ())
    across: bool = False  # listed because the pair is alike across exercises, not on this exercise alone


@dataclass
class ExerciseSimilarity:
    name: str
    answers: int
    compared: bool
    why_not: str = ""
    pairs: int = 0              # pairs of students (the chances a coincidence had)
    candidates: int = 0         # pairs that share a fingerprint (all that were scored)
    flagged: list[Pair] = field(default_factory=list)
    reference: list[str] = field(default_factory=list)  # identical to the reference after normalisation


@dataclass(frozen=True)
class RepeatedPair:
    students: tuple[str, str]
    exercises: tuple[str, ...]   # where the pair is in the top tail
    expected: float              # exercises a pair reaches by chance, from the class's tail rates
    chance: float                # the chance a pair reaches this many


@dataclass
class Similarity:
    exercises: list[ExerciseSimilarity]
    repeated: list[RepeatedPair]
    unparsed: dict[str, list[str]] = field(default_factory=dict)  # exercise → students whose answer did not parse
    settings: Settings = field(default_factory=Settings)

    def reference_by_student(self) -> dict[str, list[str]]:
        found = defaultdict(list)
        for exercise in self.exercises:
            for student in exercise.reference:
                found[student].append(exercise.name)
        return dict(sorted(found.items(), key=lambda item: (-len(item[1]), item[0])))

    def candidates(self) -> int:
        return sum(e.candidates for e in self.exercises)


Statements = dict[int, int]  # hash of a line's normalised tokens → the line (where it is in the answer)


def _read(source: str) -> tuple[tuple[str, ...], Fingerprints, Statements]:
    """An answer's normalised token texts, its fingerprints, and its statements (its lines, normalised)."""
    toks = tokens(source)
    by_line: dict[int, list[str]] = defaultdict(list)
    for text, line in toks:
        by_line[line].append(text)
    statements: Statements = {}
    for line in sorted(by_line):
        statements.setdefault(hash(tuple(by_line[line])), line)
    return tuple(text for text, _ in toks), fingerprints(toks), statements


def _read_all(sources: set[str], workers: int) -> dict[str, tuple[tuple[str, ...], Fingerprints, Statements]]:
    """`_read` of every distinct source, in `workers` forked processes when there are many."""
    ordered = sorted(sources)
    if workers <= 1 or len(ordered) < 2000:
        return {source: _read(source) for source in ordered}
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip(ordered, pool.map(_read, ordered, chunksize=500)))


def similar_answers(exercises: dict[str, Exercise], answers: dict[str, dict[str, str]],
                    settings: Settings = Settings(), workers: int | None = None) -> Similarity:
    """workers: processes that normalise and winnow (default: one per core this process may use)."""
    workers = len(os.sched_getaffinity(0)) if workers is None else workers
    cache = _read_all({code for by in answers.values() for code in by.values()}
                      | {code for e in exercises.values() for code in (e.given, e.reference)}, workers)
    results, tails, unparsed, answers_of = [], {}, {}, {}
    for name, exercise in exercises.items():
        _, given_prints, given_statements = cache[exercise.given]
        given_prints = set(given_prints)
        held = {s: by[name] for s, by in answers.items() if name in by}
        prints = {s: {h: span for h, span in cache[code][1].items() if h not in given_prints}
                  for s, code in held.items()}
        prints = {s: p for s, p in prints.items() if p}  # nothing beyond the given code: not started
        statements = {s: {h: line for h, line in cache[held[s]][2].items() if h not in given_statements}
                      for s in prints}
        unparsed_here = sorted(s for s in prints if not parses(held[s]))
        if unparsed_here:
            unparsed[name] = unparsed_here
        reference_tokens, reference_prints, _ = cache[exercise.reference]
        result, tail, informative = _compare(name, prints, statements, settings)
        if len(set(reference_prints) - given_prints) >= settings.min_fingerprints:
            result.reference = sorted(s for s in prints if cache[held[s]][0] == reference_tokens)
        results.append(result)
        tails[name] = tail
        answers_of[name] = (held, prints, informative)
    repeated = _repeated(results, tails, settings)
    for result in results:  # a pair alike across exercises is shown in each exercise where it is in the tail
        flagged = {p.students for p in result.flagged}
        result.flagged += [replace(tails[result.name][r.students], across=True) for r in repeated
                           if result.name in r.exercises and r.students not in flagged]
        leaked = set(result.reference)
        held, prints, informative = answers_of[result.name]
        result.flagged = sorted((_with_sides(p, held, prints, informative) for p in result.flagged
                                 if not set(p.students) <= leaked), key=lambda p: (p.expected, p.students))
    return Similarity(results, repeated, unparsed, settings)


def _compare(name: str, prints: dict[str, Fingerprints], statements: dict[str, Statements], settings: Settings) \
        -> tuple[ExerciseSimilarity, dict[tuple[str, str], Pair], set[int]]:
    """The exercise's flagged pairs, its top-tail pairs (pair → Pair) for `_repeated`, and its
    informative fingerprints."""
    n = len(prints)
    holders = defaultdict(list)
    for student, found in prints.items():
        for h in found:
            holders[h].append(student)
    common = min(settings.common_most, max(settings.common_least, round(settings.common_share * n)))
    weight = {h: math.log(n / len(who)) for h, who in holders.items() if len(who) <= common}
    result = ExerciseSimilarity(name, n, compared=False)
    if n < settings.min_answers:
        result.why_not = f"{n} answers; at least {settings.min_answers} are needed to know what is usual"
        return result, {}, set()
    uncommon = statistics.median(sum(1 for h in found if h in weight) for found in prints.values())
    if uncommon < settings.min_fingerprints:
        result.why_not = (f"answers too short or too alike to tell a copy from a common answer (a median of "
                          f"{uncommon:g} uncommon fingerprints per answer; {settings.min_fingerprints} needed)")
        return result, {}, set()
    shared_weight, shared_count = defaultdict(float), defaultdict(int)
    for h, w in weight.items():
        for pair in combinations(sorted(holders[h]), 2):
            shared_weight[pair] += w
            shared_count[pair] += 1
    total = {s: sum(weight.get(h, 0.0) for h in found) for s, found in prints.items()}
    bit = {s: 1 << i for i, s in enumerate(prints)}
    everyone = (1 << n) - 1
    holding = {h: sum(bit[s] for s in who) for h, who in holders.items()}  # fingerprint → holders, one bit each
    pairs = math.comb(n, 2)
    result.compared, result.candidates, result.pairs = True, len(shared_weight), pairs
    alike = {pair: shared / (total[pair[0]] + total[pair[1]] - shared) for pair, shared in shared_weight.items()}
    near = defaultdict(int)  # student → the students nearly the same as theirs, one bit each
    for (a, b), value in alike.items():
        if value >= settings.min_similarity:
            near[a] |= bit[b]
            near[b] |= bit[a]
    tail = {}
    for pair, value in alike.items():
        if value < settings.tail_similarity:
            continue
        a, b = pair
        ring = (near[a] | near[b]) & ~bit[a] & ~bit[b]  # a copy of a copy: the rest of a small ring is no chance
        others = everyone & ~bit[a] & ~bit[b] & ~(ring if ring.bit_count() <= settings.ring_most else 0)
        both = sorted(prints[a].keys() & prints[b].keys(), key=lambda h: (prints[a][h], h))
        surprise = _surprise(both, holding, others, others.bit_count())
        found = Pair(name, pair, value, surprise, pairs * math.exp(-surprise), shared_count[pair])
        if found.expected <= settings.tail_expected:
            tail[pair] = found
        if found.expected <= settings.flag_expected and value >= settings.min_similarity \
                and shared_count[pair] >= settings.min_shared:
            result.flagged.append(found)
    return result, tail, set(weight)


def _surprise(shared: list[int], holding: dict[int, int], others: int, n_others: int) -> float:
    """How unlikely (−log of a probability, in nats) it is that another student of this class writes all the
    fingerprints `shared` (in the order of the first student's answer), by the class's own frequencies: the
    share of the other students who hold all of a run of them, fingerprint after fingerprint (so fingerprints
    that go together, the overlapping k-grams of one line or the lines of one style, cost once). When none of
    the others holds all of a run, its share is counted and a new run starts (runs taken as independent); a
    stretch of fingerprints no one else holds counts once, as half a student."""
    surprise, run, novel = 0.0, others, False
    for h in shared:
        kept = run & holding[h]
        if kept:
            run, novel = kept, False
            continue
        if run != others:
            surprise += math.log((n_others + 1) / (run.bit_count() + 0.5))
        run = others & holding[h]
        if not run:
            if not novel:
                surprise += math.log((n_others + 1) / 0.5)
            run, novel = others, True
    return surprise + math.log((n_others + 1) / (run.bit_count() + 0.5))


def _with_sides(pair: Pair, held: dict[str, str], prints: dict[str, Fingerprints], informative: set[int]) -> Pair:
    """The pair with both answers' lines, each shared region numbered from the first student's side."""
    a, b = pair.students
    shared = sorted(set(prints[a]) & set(prints[b]) & informative, key=lambda h: prints[a][h])
    region_of, regions, end = {}, 0, -1
    for h in shared:  # overlapping or touching spans on a's side are one region
        first, last = prints[a][h]
        if first > end + 1:
            regions += 1
        region_of[h], end = regions, max(end, last)

    def lines(student: str) -> list[Line]:
        marked: dict[int, int] = {}
        for h in shared:
            first, last = prints[student][h]
            for number in range(first, last + 1):
                marked.setdefault(number, region_of[h])
        return [Line(i, text, marked.get(i)) for i, text in enumerate(held[student].splitlines(), 1)]
    return replace(pair, sides=(lines(a), lines(b)))


def _repeated(results: list[ExerciseSimilarity], tails: dict[str, dict], settings: Settings) -> list[RepeatedPair]:
    """Pairs in the top tail of more exercises than chance explains, by the class's own tail rates."""
    rates = [len(tails[e.name]) / math.comb(e.answers, 2) for e in results if e.compared and e.answers > 1]
    expected = sum(rates)
    together = defaultdict(list)
    for name, tail in tails.items():
        for pair in tail:
            together[pair].append(name)
    students = max((e.answers for e in results), default=0)
    pairs = max(math.comb(students, 2), 1)
    found = []
    for pair, names in together.items():
        if len(names) >= settings.repeated_least:
            chance = _poisson_at_least(len(names), expected)
            if chance * pairs <= settings.repeated_chance:
                found.append(RepeatedPair(pair, tuple(names), expected, chance))
    return sorted(found, key=lambda r: (r.chance, r.students))


def _poisson_at_least(count: int, mean: float) -> float:
    """P(X ≥ count) for X ~ Poisson(mean), summed upwards (no cancellation for a small mean)."""
    if mean <= 0:
        return 0.0
    term = math.exp(-mean) * mean ** count / math.factorial(count)
    total, i = 0.0, count
    while term > 1e-300 and i < count + 200:
        total += term
        i += 1
        term *= mean / i
    return min(total, 1.0)
