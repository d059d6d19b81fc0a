"""Answers unusually alike: pairs of students to look at, per exercise, across exercises, and with the reference.

    similar_answers(exercises, answers) → Similarity
    exercises: grade_id → answers.Exercise (the reference in each form, and the given code); answers: student →
    grade_id → code

One job, kept whole past 250 lines: the engine this docstring describes; what it finds, the Similarity the
page and the summary read, is similar_results.py's.

An answer is read as statements (normalise.py, after canonical.py: no comments or docstrings, local names
renamed, independent statements in one order, helpers inlined, a loop that appends as a comprehension, one
spelling for NumPy's equivalent ones, strings by their words); the statements of the given code (the
released stub, the notebook's set-up, the release's hints) are taken out, and an answer with nothing left
is no answer (an untouched stub). An inverted index, statement → students, yields the candidate pairs:
only students sharing a statement that few wrote (at most a fifth of the class, 3 to 50 students) are
scored, never every pair.

How unusual a pair is comes from the class itself (chance.py): the chance that another student of the class
writes all the statements the two share, by a chain rule over them with the class's own frequencies, each
paid for once, times the ways of choosing that many of an answer's statements. Times the pairs of the
exercise, that is the number of pairs as alike expected by chance. The "others" leave out one student
nearly the same as the pair's two (a ring of three copies, so the copy of a copy is found; four or more
alike is an answer the class writes, not a ring). Comments and blank lines the two share on the same
statements (traces.py: what a copier left as it was) add to the surprise by how rarely the others who
wrote those statements marked them so; differing in them costs nothing. So do the names the two give at the
same places of the statements they share (renaming.py): differing where the class's other writers of those
statements name alike is what renaming does, and so is naming with words no one else of the class binds in
the exercise ("fresh" names) where the student's other answers name as the class does; by a likelihood ratio
whose mean over honest pairs is 1 (two answers naming as students do lose at most log 2 by it). A fresh name
tells that a student renamed someone's answer, not whose: it counts with the answer nearest theirs, shared
among as many as are as near. Each
statement one of the two wrote and the other did not costs log(1 / edit_rate) = 1.6 nats of the surprise
(a copier changes a statement about one time in five; honest students of one style differ in a few). A pair
is listed when it shares at least 3 statements and either at least 95% of the two answers' statements are
in common (`in_common`, their Jaccard index) and at most 0.03 pairs as alike are expected, or at least 75%
are (a copy with lines added or written another way) and at most 0.001 are. So code many students wrote
explains itself: a short exercise where every answer looks alike gives every pair a small surprise and
lists nobody alone.

Across exercises: a pair alike (75% of their statements in common) in 2 or more exercises is listed when
the product of its chances there, times the ways of choosing those exercises among those compared, leaves
at most 0.01 pairs of the class as alike. A pair's chance in an exercise is its rank there (the share of
the exercise's pairs at least as surprising: the statistic orders pairs, and its error is not multiplied
across exercises), and no smaller than that of a pair expected once by chance in it, so a pair listed in
one exercise is not, for that alone, alike across exercises. This is what finds short answers copied: four
answers each among the few most unusual pairs of their exercise are, together, as rare as one long answer.
The pair is then shown in each of those exercises.

The reference in each of its forms (the notebook's cell, the module's function with its helpers) is
compared with every student as one more answer, by the same rule (its expected count over the class's
students), and a student alike it is listed apart. For every exercise the page shows the class's
distribution of `in_common` over its pairs (every pair up to DISTRIBUTION_PAIRS, an even sample beyond)
beside each listed pair's.

Known limits. Shares among the few students who wrote a rare statement are noisy, and the chain treats
statements as independent where it restarts, so a pair's surprise is off by a few nats either way; benchmarks
/similarity.py and benchmarks/similarity_tools.py measure what that costs on two synthetic classes written
apart (benchmarks/REPORT.md). A copy of an answer many students wrote is not told apart from them. Why the
engine is the kit's own and not Dolos's or copydetect's: benchmarks/similarity_tools.py compares the three on
the same classes (neither library judges a pair by the class's frequencies, so an honest answer written
alike by many and a copy score the same). Something to look at, never a verdict.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import multiprocessing
import os
import random
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from itertools import combinations
from typing import NamedTuple

from kit.report.answers import Exercise
from kit.report.chance import Statements, across, surprise, ways
from kit.report.normalise import read
from kit.report.renaming import ClassNames, Names, bound_names, fresh_counts, fresh_others, renaming
from kit.report.similar_results import (DISTRIBUTION_BINS, DISTRIBUTION_PAIRS, ExerciseSimilarity, Line, Pair,
                                        RepeatedPair, Settings, Similarity, bin_of)
from kit.report.traces import Marks, evidence, traces

class Answer(NamedTuple):
    statements: Statements            # its statements, in canonical order
    lines: dict[int, frozenset[int]]  # a statement → the lines it was written on
    parsed: bool                      # read with `ast` (False: with Python's tokenizer, a statement a line)
    marks: Marks                      # its comments and blank lines, each on a statement (traces.py)
    names: Names                      # the names it binds, statement by statement (renaming.py)


def _read(task: tuple[str, str]) -> Answer:
    """An answer's statements (keyed by a stable hash of their tokens, each with the statement before it) and
    their lines."""
    source, name = task
    toks, serials, parsed, bound = read(source, arguments=True, main=name)
    texts: dict[int, list[str]] = {}
    lines: dict[int, set[int]] = {}
    named: dict[int, list[str]] = {}
    for (text, line), serial, was in zip(toks, serials, bound or [""] * len(toks)):
        texts.setdefault(serial, []).append(text)
        lines.setdefault(serial, set()).add(line)
        if was:
            named.setdefault(serial, []).append(was)
    statements: Statements = {}
    written: dict[int, frozenset[int]] = {}
    names: Names = {}
    before = 0
    for serial, words in texts.items():
        joined = "\x1f".join(words).encode(errors="surrogatepass")
        key = int.from_bytes(hashlib.blake2b(joined, digest_size=8).digest(), "big")
        statements.setdefault(key, before)
        names.setdefault(key, tuple(named.get(serial, ())))
        written[key] = written.get(key, frozenset()) | frozenset(lines[serial])
        before = key
    return Answer(statements, written, parsed, traces(source, written), names)


def _read_all(tasks: set[tuple[str, str]], workers: int) -> dict[tuple[str, str], Answer]:
    """`_read` of every distinct (source, exercise), in `workers` forked processes when there are many."""
    ordered = sorted(tasks)
    if workers <= 1 or len(ordered) < 2000:
        return {task: _read(task) for task in ordered}
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip(ordered, pool.map(_read, ordered, chunksize=500)))


def similar_answers(exercises: dict[str, Exercise], answers: dict[str, dict[str, str]],
                    settings: Settings = Settings(), workers: int | None = None) -> Similarity:
    """workers: processes that read the answers (default: one per core this process may use)."""
    workers = len(os.sched_getaffinity(0)) if workers is None else workers
    cache = _read_all({(code, name) for by in answers.values() for name, code in by.items() if name in exercises}
                      | {(code, name) for name, e in exercises.items() for code in (e.given, *e.forms.values())},
                      workers)
    results, tails, commons, unparsed, shown = [], {}, {}, {}, {}
    fresh = _fresh_rates(exercises, answers, cache, settings)
    for name, exercise in exercises.items():
        given = cache[exercise.given, name].statements
        given_marks = cache[exercise.given, name].marks
        held = {s: by[name] for s, by in answers.items() if name in by}
        statements = {s: {h: b for h, b in cache[code, name].statements.items() if h not in given}
                      for s, code in held.items()}
        untouched = sum(1 for found in statements.values() if not found)
        statements = {s: found for s, found in statements.items() if found}
        forms = {form: {h: b for h, b in cache[code, name].statements.items() if h not in given}
                 for form, code in exercise.forms.items()}
        unparsed_here = sorted(s for s in statements if not cache[held[s], name].parsed)
        if unparsed_here:
            unparsed[name] = unparsed_here
        marks = {s: {m: h for m, h in cache[held[s], name].marks.items() if m not in given_marks} for s in statements}
        names = {s: cache[held[s], name].names for s in statements} | \
            {form: cache[code, name].names for form, code in exercise.forms.items()}
        result, tail, commons[name] = _compare(name, statements, {f: s for f, s in forms.items() if s}, settings,
                                               marks, names, fresh.get(name, ({}, None)))
        result.untouched = untouched
        results.append(result)
        tails[name] = tail
        shown[name] = {s: (held.get(s) or exercise.forms[s], cache[held.get(s) or exercise.forms[s], name])
                       for s in [*statements, *exercise.forms]}
    repeated = _repeated(results, tails, settings)
    for result in results:  # a pair alike across exercises is shown in each exercise where it is alike
        flagged = {p.students for p in result.flagged}
        result.flagged += [replace(tails[result.name][r.students], across=True) for r in repeated
                           if result.name in r.exercises and r.students not in flagged]
        common = commons[result.name] | set(cache[exercises[result.name].given, result.name].statements)
        result.flagged = sorted((_with_sides(p, shown[result.name], common) for p in result.flagged),
                                key=lambda p: (p.expected, p.students))
        result.reference = [_with_sides(p, shown[result.name], common) for p in result.reference]
    return Similarity(results, repeated, unparsed, settings)


def _fresh_rates(exercises: dict[str, Exercise], answers: dict[str, dict[str, str]], cache: dict,
                 settings: Settings) -> dict[str, tuple[dict[str, float], float]]:
    """exercise → (student → how often they bind a name no other student binds, in their other exercises,
    shrunk towards the class's share by `fresh_prior` names; the class's share): renaming.py's honest rate."""
    given = {name: set(cache[e.given, name].statements) for name, e in exercises.items()}
    bound: dict[str, dict[str, set[str]]] = {}
    for name in exercises:
        bound[name] = {s: bound_names(cache[by[name], name].names) for s, by in answers.items()
                       if name in by and set(cache[by[name], name].statements) - given[name]}
    counts: dict[str, dict[str, tuple[int, int]]] = {}  # exercise → student → (fresh names, names)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, by in bound.items():
        counts[name] = fresh_counts(by, fresh_others(len(by)))
        for s, (f, m) in counts[name].items():
            totals[s][0] += f
            totals[s][1] += m
    everyone = [sum(t[0] for t in totals.values()), sum(t[1] for t in totals.values())]
    share = (everyone[0] + 0.5) / (everyone[1] + 1)
    k = settings.fresh_prior
    return {name: ({s: (totals[s][0] - f + k * share) / (totals[s][1] - m + k) for s, (f, m) in by.items()}, share)
            for name, by in counts.items()}


def _compare(name: str, statements: dict[str, Statements], forms: dict[str, Statements], settings: Settings,
             marks: dict[str, Marks], names: dict[str, Names],
             fresh: tuple[dict[str, float], float | None] = ({}, None)) \
        -> tuple[ExerciseSimilarity, dict[tuple[str, str], Pair], set[int]]:
    """The exercise's listed pairs and students alike the reference, its pairs at least min_in_common alike
    (pair → Pair) for `_repeated`, and the statements most of the class wrote."""
    n = len(statements)
    result = ExerciseSimilarity(name, n, compared=False)
    if n < settings.min_answers:
        result.why_not = f"{n} answers; at least {settings.min_answers} are needed to know what is usual"
        return result, {}, set()
    students = sorted(statements)
    bit = {s: 1 << i for i, s in enumerate(students)}
    holding: dict = defaultdict(int)  # statement, or (statement before, statement) → writers, one bit each
    writers = defaultdict(list)
    for student in students:
        for h, before in statements[student].items():
            holding[h] |= bit[student]
            holding[before, h] |= bit[student]
            writers[h].append(student)
        for mark in marks[student]:
            holding[mark] |= bit[student]
    cap = min(settings.common_most, max(settings.common_least, round(settings.common_share * n)))
    candidates = set()
    for who in writers.values():
        if len(who) <= cap:
            candidates.update(combinations(who, 2))
    pairs = math.comb(n, 2)
    result.compared, result.pairs, result.candidates = True, pairs, len(candidates)
    result.distribution, result.sampled = _distribution(statements, students)
    alike = {}
    for a, b in candidates:
        shared = len(statements[a].keys() & statements[b].keys())
        in_common = shared / (len(statements[a]) + len(statements[b]) - shared)
        if in_common >= settings.min_in_common:
            alike[a, b] = (shared, in_common)
    nearest = defaultdict(lambda: (0.0, 0))  # student → the most in common they have with another answer (or a
    # form), and how many answers they have that much in common with

    def near_to(student: str, in_common: float) -> None:
        best, count = nearest[student]
        if in_common > best + 1e-9:
            nearest[student] = (in_common, 1)
        elif in_common > best - 1e-9:
            nearest[student] = (best, count + 1)
    for (a, b), (_, in_common) in alike.items():
        near_to(a, in_common)
        near_to(b, in_common)
    for form, code in forms.items():
        for student in students:
            shared = len(statements[student].keys() & code.keys())
            near_to(student, shared / (len(statements[student]) + len(code) - shared))

    def renamer(student: str, in_common: float) -> float:
        """The chance `student` renamed this answer if they renamed one: 1 / the answers as near, 0 if one is
        nearer."""
        best, count = nearest[student]
        return 1 / max(count, 1) if in_common > best - 1e-9 else 0.0
    near = defaultdict(int)  # student → the students nearly the same as theirs, one bit each
    for (a, b), (_, in_common) in alike.items():
        if in_common >= 0.9:
            near[a] |= bit[b]
            near[b] |= bit[a]
    everyone = (1 << n) - 1
    class_names = ClassNames(names, writers, students, *fresh)
    tail = {}
    for (a, b), (shared, in_common) in alike.items():
        ring = (near[a] | near[b]) & ~bit[a] & ~bit[b]  # a copy of a copy: the rest of a small ring is no chance
        others = everyone & ~bit[a] & ~bit[b] & ~(ring if ring.bit_count() <= settings.ring_most else 0)
        edits = len(statements[a].keys() ^ statements[b].keys()) * math.log(1 / settings.edit_rate)
        both = [h for h in statements[a] if h in statements[b]]
        nats = surprise(statements[a], statements[b], holding, others, settings) - \
            ways(statements[a], statements[b], shared) - edits + \
            evidence(marks[a], marks[b], holding, holding, others, settings.smoothing) + \
            renaming(names[a], names[b], both, class_names, (a, b), settings,
                     (renamer(a, in_common), renamer(b, in_common)))
        tail[a, b] = found = Pair(name, (a, b), in_common, shared, nats, pairs * math.exp(-nats))
        if _unusual(found, settings):
            result.flagged.append(found)
    for form, code in forms.items():
        for student in students:
            shared = len(statements[student].keys() & code.keys())
            in_common = shared / (len(statements[student]) + len(code) - shared)
            if in_common < settings.min_in_common or shared < settings.min_shared:
                continue
            others = everyone & ~bit[student]
            both = [h for h in statements[student] if h in code]
            nats = surprise(statements[student], code, holding, others, settings) - \
                ways(statements[student], code, shared) + \
                renaming(names[student], names[form], both, class_names, (student,), settings,
                         (renamer(student, in_common), 0.0))
            found = Pair(name, (student, form), in_common, shared, nats, n * math.exp(-nats))
            if _unusual(found, settings):
                result.reference.append(found)
    return result, tail, {h for h, who in writers.items() if len(who) * 2 > n}


def _unusual(pair: Pair, settings: Settings) -> bool:
    """Listed: the same answer, or nearly (most of it, for a copy edited), and too rare to be chance."""
    if pair.shared < settings.min_shared:
        return False
    return (pair.in_common >= settings.same_in_common and pair.expected <= settings.same_expected) or \
        (pair.in_common >= settings.min_in_common and pair.expected <= settings.flag_expected)


def _distribution(statements: dict[str, Statements], students: list[str]) -> tuple[list[int], bool]:
    """Pairs by in_common in DISTRIBUTION_BINS bins: every pair, or DISTRIBUTION_PAIRS drawn evenly (with a
    seed of the class, so a report written twice is the same)."""
    pairs = math.comb(len(students), 2)
    sampled = pairs > DISTRIBUTION_PAIRS
    if sampled:
        rng = random.Random(len(students))
        drawn = set()
        while len(drawn) < DISTRIBUTION_PAIRS:
            a, b = rng.randrange(len(students)), rng.randrange(len(students) - 1)
            b += b >= a  # another student than a, every one as likely
            drawn.add((students[min(a, b)], students[max(a, b)]))
    else:
        drawn = combinations(students, 2)
    counts = [0] * DISTRIBUTION_BINS
    for a, b in drawn:
        shared = len(statements[a].keys() & statements[b].keys())
        counts[bin_of(shared / (len(statements[a]) + len(statements[b]) - shared))] += 1
    return counts, sampled


def _with_sides(pair: Pair, shown: dict, common: set[int]) -> Pair:
    """The pair with both answers' lines, the statements they share (but the given code's and what most of the
    class wrote, `common`) marked,
    each run of them numbered in the first side's order, the same number on the other side."""
    a, b = pair.students
    (code_a, answer_a), (code_b, answer_b) = shown[a], shown[b]
    shared = [h for h in answer_a.statements if h in answer_b.statements and h not in common]
    region_of, regions, previous = {}, 0, None
    for h in answer_a.statements:
        if h in shared:
            if previous not in shared:
                regions += 1
            region_of[h] = regions
        previous = h

    def lines(code: str, answer: Answer) -> list[Line]:
        marked: dict[int, int] = {}
        for h, region in region_of.items():
            for number in answer.lines.get(h, ()):
                marked.setdefault(number, region)
        return [Line(i, text, marked.get(i)) for i, text in enumerate(code.splitlines(), 1)]
    return replace(pair, sides=(lines(code_a, answer_a), lines(code_b, answer_b)))


def _repeated(results: list[ExerciseSimilarity], tails: dict[str, dict], settings: Settings) -> list[RepeatedPair]:
    """Pairs alike (in_common at least min_in_common) in several exercises whose chances there, multiplied,
    times the ways of choosing those exercises among the exercises compared, leave at most repeated_chance
    pairs of the class as alike. An exercise's chance for a pair is its rank there: the share of the
    exercise's pairs at least as surprising (so a statistic a few nats overconfident orders pairs but does
    not multiply its error across exercises), and no smaller than a pair expected tail_expected times by
    chance in it (so a pair listed in one exercise is not, for that alone, alike across exercises)."""
    together = defaultdict(list)
    for result in results:
        pairs = max(result.pairs, 1)
        surprises = sorted(p.surprise for p in tails[result.name].values())
        for found in tails[result.name].values():
            rank = len(surprises) - bisect.bisect_left(surprises, found.surprise)  # pairs at least as surprising
            together[found.students].append((result.name, max(rank, settings.tail_expected) / pairs))
    students = max((e.answers for e in results), default=0)
    pairs = max(math.comb(students, 2), 1)
    compared = sum(1 for e in results if e.compared)
    found = []
    for pair, alike in together.items():
        if len(alike) >= settings.repeated_least:
            chance = across([c for _, c in alike], compared)
            if chance * pairs <= settings.repeated_chance:
                found.append(RepeatedPair(pair, tuple(name for name, _ in alike), chance * pairs, chance))
    return sorted(found, key=lambda r: (r.chance, r.students))
