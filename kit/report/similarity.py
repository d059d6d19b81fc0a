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
matches (every student's best match rises with the size of the class). Rarity is
counted per statement, not per fingerprint: a rare line sits in several k-grams
whose few holders differ, and counting each of them made honest pairs sharing a
rare line or two look like copies. An answer's statements are its lines,
normalised as above, the function's parameters told apart by position (so
`X = np.asarray(X)` is not `W_o = np.asarray(W_o)`), in canonical order. For a
pair (a, b), the surprise is −log of the chance that another student of this
class writes all the statements the two share, by a chain rule over them in a's
order, P(s1)·P(s2 | s1)·…, each statement paid for once:
- a statement that follows the same statement in both answers is taken with it,
  its chance the share of the others writing the statement before who follow it
  so (a Markov step: it also tells what the two left out between); otherwise its
  chance is the share of the others who wrote it;
- while some others hold all the shared statements so far, the chance is the
  share of them who hold this one too, shrunk towards the chance above by 3
  students (one lucky match is not a rule), so the lines of one style cost once;
  when none does, the chain restarts there;
- shares are smoothed by half a student, so a statement no one else wrote costs
  log((others + 1) / 0.5).
The chance is then multiplied by the ways of choosing that many of an answer's
statements (the smaller of a's and b's count), since the two could have shared
any such set. The "others" leave out at most 3 students nearly the same as a or
b (a ring of copies, so the copy of a copy is found; more than 3 is a common
answer, and they stay in). The expected number of pairs as alike by chance is
pairs × e^−surprise, and a pair is flagged when it shares at least 3
statements and either its similarity is at least 0.7 and at most 0.01 such
pairs are expected, or at least 0.75 of the two answers' statements are in
common (`in_common`, their Jaccard index) and at most 0.0001 are expected. The
second way finds a copy edited beyond renaming: lines of the copier's own added
or a line written another way cost the pair every fingerprint across the edit,
and most of its similarity, but few statements. It asks a chance a hundred
times smaller because honest answers of one style share most of their
statements too (tests/test_similarity.py measures both kinds). Code many
students wrote thus explains itself: a short exercise where every correct answer
looks alike gives every pair a small surprise and flags nobody.

Known limit. Shares among the few students who wrote a rare statement are
noisy, and the chain treats statements as independent where it restarts, so a
pair's surprise is off by a few nats either way, and honest coincidences that
rare do happen. The benchmark's sweep (benchmarks/similarity.py, 220 classes of
the test's generator) found 1,755 of 1,760 planted pairs and flagged 9 honest
pairs. Up to 100 students 7 classes of 180 are not exactly right, 6 for an
honest pair flagged (3 of them are the classes of one seed, which
share their first students): two students there wrote the same short softmax,
which chance gives about 0.05 pairs of a class of 50 (measured on 100,000
answers of the generator) and the statistic put at 0.0004; the others share a
rare combination of small choices. At 300 students 5 classes in 40 are not:
among 44,850 pairs some copied answers are not rare enough to stand out (2
classes miss a copy), and some honest pairs are still overstated (3 classes).
Copies edited beyond renaming, in the same classes: lines added found 365 times
in 440, a line changed 291 in 440 (each changed line also costs the pair the
ways of choosing which statements it shares), type hints and a docstring added
440 in 440. At 1,500 students built from few ingredients, a copy of an answer no
one else wrote is mostly still not rare enough to stand out among 1.1 million
pairs, and is missed; see benchmarks/REPORT.md.

An exercise with fewer than 10 answers, or whose answers hold a median of fewer
than 5 informative fingerprints (short, or all alike), flags nobody and says
why. Answers identical to the reference after normalisation (a leaked key) are
listed apart, for exercises whose reference holds at least 5 fingerprints beyond
the given code; a pair both identical to the reference is listed there, not as a
pair. Pairs alike across exercises: a pair at least 0.5 similar (or with 0.75
of its statements in common) in 3 or more exercises is listed when their chances, e^−surprise each, combined as Fisher's
method does (the chance that as many independent chances multiply to so little),
leave fewer than 0.01 such pairs expected in the class; an exercise's chance
counts for no less than that of a pair expected once by chance in it, so a pair
flagged in one exercise is not, for that alone, alike across exercises. It is
then also shown in each of those exercises, marked as listed for that reason.

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

import hashlib
import math
import multiprocessing
import os
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import NamedTuple

from kit.report.answers import Exercise
from kit.report.fingerprints import Fingerprints, fingerprints
from kit.report.normalise import read, unnumbered


@dataclass(frozen=True)
class Settings:
    min_answers: int = 10          # fewer answers: no distribution to judge by
    common_share: float = 0.1      # a fingerprint held by more than this share of answers is common...
    common_least: int = 3          # ...but never below this many holders
    common_most: int = 50          # ...nor above this many
    min_fingerprints: int = 5      # median informative fingerprints per answer below this: too short to tell
    min_shared: int = 3            # a flagged pair shares at least this many statements beyond the given code
    min_similarity: float = 0.7    # and at least this similar
    flag_expected: float = 0.01    # and fewer pairs than this as alike are expected by chance in the exercise;
    edited_in_common: float = 0.75 # or: at least this share of their statements in common (a copy edited)
    edited_expected: float = 0.0001 # and fewer pairs than this as alike expected by chance
    smoothing: float = 0.5         # students added to a statement's writers when its share is counted
    shrink: float = 3.0            # students' worth a share among a few others is shrunk towards the share alone
    ring_most: int = 3             # near-copies of a pair's two, at most this many, are left out of "the others"
    tail_similarity: float = 0.5   # alike in an exercise, for pairs across exercises: at least this similar
    tail_expected: float = 1.0     # an exercise's chance counts as no smaller than a pair's this often expected
    repeated_least: int = 3        # exercises alike together
    repeated_chance: float = 0.01  # pairs of the class as alike across them expected by chance, at most


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
    surprise: float     # −log of the chance another student writes the statements they share, times the
                        # ways of choosing that many of an answer's statements (nats)
    expected: float     # pairs of the exercise as alike expected by chance: pairs × e^−surprise
    shared: int         # statements in common beyond the given code
    in_common: float    # the share of the two answers' statements they have in common (0 to 1)
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
    exercises: tuple[str, ...]   # where the pair is alike (similarity at least tail_similarity)
    expected: float              # pairs of the class as alike across these exercises expected by chance
    chance: float                # the chance for one pair (Fisher's combination of the exercises' chances)


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


Statements = dict[int, int]  # a line's normalised statement → the statement before it (0: none), in canonical order


def _statements(toks: list[tuple[str, int]], serials: list[int]) -> Statements:
    """The answer's statements, in the canonical order `tokens` puts them in (a block's header before its
    body), each keyed by a stable hash of its tokens."""
    by_line: dict[int, list[str]] = {}
    for (text, _), serial in zip(toks, serials):
        by_line.setdefault(serial, []).append(text)
    statements: Statements = {}
    before = 0
    for texts in by_line.values():
        key = int.from_bytes(hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest(), "big")
        statements.setdefault(key, before)
        before = key
    return statements


class Answer(NamedTuple):
    tokens: tuple[str, ...]    # normalised token texts
    prints: Fingerprints
    statements: Statements     # its lines, normalised
    parsed: bool               # read with `ast` (False: with Python's tokenizer, without reordering)


def _read(source: str) -> Answer:
    numbered, serials, parsed = read(source, arguments=True)
    toks = unnumbered(numbered)
    return Answer(tuple(text for text, _ in toks), fingerprints(toks), _statements(numbered, serials), parsed)


def _read_all(sources: set[str], workers: int) -> dict[str, Answer]:
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
        given = cache[exercise.given]
        given_prints = set(given.prints)
        held = {s: by[name] for s, by in answers.items() if name in by}
        prints = {s: {h: span for h, span in cache[code].prints.items() if h not in given_prints}
                  for s, code in held.items()}
        prints = {s: p for s, p in prints.items() if p}  # nothing beyond the given code: not started
        statements = {s: {h: before for h, before in cache[held[s]].statements.items() if h not in given.statements}
                      for s in prints}
        unparsed_here = sorted(s for s in prints if not cache[held[s]].parsed)
        if unparsed_here:
            unparsed[name] = unparsed_here
        reference = cache[exercise.reference]
        result, tail, informative = _compare(name, prints, statements, settings)
        if len(set(reference.prints) - given_prints) >= settings.min_fingerprints:
            result.reference = sorted(s for s in prints if cache[held[s]].tokens == reference.tokens)
        results.append(result)
        tails[name] = tail
        answers_of[name] = (held, prints, informative)
    repeated = _repeated(results, tails, settings)
    for result in results:  # a pair alike across exercises is shown in each exercise where it is alike
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
    """The exercise's flagged pairs, its pairs at least tail_similarity alike (pair → Pair) for `_repeated`,
    and its informative fingerprints."""
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
    shared_weight = defaultdict(float)
    for h, w in weight.items():
        for pair in combinations(sorted(holders[h]), 2):
            shared_weight[pair] += w
    total = {s: sum(weight.get(h, 0.0) for h in found) for s, found in prints.items()}
    bit = {s: 1 << i for i, s in enumerate(prints)}
    everyone = (1 << n) - 1
    holding: dict[int, int] = defaultdict(int)  # statement, or (statement before, statement) → writers, one bit each
    for student, found in statements.items():
        for h, before in found.items():
            holding[h] |= bit[student]
            holding[before, h] |= bit[student]
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
        a, b = pair
        shared = len(statements[a].keys() & statements[b].keys())
        in_common = shared / max(1, len(statements[a]) + len(statements[b]) - shared)
        if value < settings.tail_similarity and in_common < settings.edited_in_common:
            continue
        ring = (near[a] | near[b]) & ~bit[a] & ~bit[b]  # a copy of a copy: the rest of a small ring is no chance
        others = everyone & ~bit[a] & ~bit[b] & ~(ring if ring.bit_count() <= settings.ring_most else 0)
        ways = min(math.comb(len(statements[a]), shared), math.comb(len(statements[b]), shared))
        surprise = _surprise(statements[a], statements[b], holding, others, settings) - math.log(ways)
        found = Pair(name, pair, value, surprise, pairs * math.exp(-surprise), shared, in_common)
        tail[pair] = found
        if _unusual(found, settings):
            result.flagged.append(found)
    return result, tail, set(weight)


def _unusual(pair: Pair, settings: Settings) -> bool:
    """Flagged: alike in their uncommon code (similarity), or in their statements (a copy with lines added or
    changed, whose fingerprints around every edit are lost), and either way too rare to be chance."""
    if pair.shared < settings.min_shared:
        return False
    return (pair.similarity >= settings.min_similarity and pair.expected <= settings.flag_expected) or \
        (pair.in_common >= settings.edited_in_common and pair.expected <= settings.edited_expected)


def _surprise(first: Statements, second: Statements, holding: dict, others: int, settings: Settings) -> float:
    """−log (nats) of the chance that another student of this class (`others`, one bit each) writes all the
    statements `first` and `second` share: the chain rule of the module's docstring, in `first`'s order."""
    n_others = others.bit_count()
    surprise, run, paid = 0.0, others, set()
    for h, before in first.items():
        if h not in second:
            continue
        unit = (before, h) if second[h] == before else h
        held = holding[unit] & others
        writers_before = (holding[before] & others).bit_count() if unit != h and before in paid else n_others
        alone = (held.bit_count() + settings.smoothing) / (writers_before + 1)
        kept = run & held
        if kept and run != others:
            share, run = (kept.bit_count() + settings.shrink * alone) / (run.bit_count() + settings.shrink), kept
        else:
            share, run = alone, held or others
        surprise -= math.log(share)
        paid.add(h)
    return surprise


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
    """Pairs alike (similarity at least tail_similarity) in several exercises whose chances, taken together,
    chance explains for fewer than repeated_chance of the class's pairs. An exercise's chance for the pair,
    e^−surprise, counts for no less than a pair expected tail_expected times by chance in it (so a pair
    flagged in one exercise is not, for that alone, alike across exercises); the chances are combined as
    Fisher's method does (the chance that as many independent chances multiply to so little)."""
    together = defaultdict(list)
    for result in results:
        cap = math.log(max(result.pairs, 1) / settings.tail_expected)
        for pair, found in tails[result.name].items():
            together[pair].append((result.name, min(found.surprise, cap)))
    students = max((e.answers for e in results), default=0)
    pairs = max(math.comb(students, 2), 1)
    found = []
    for pair, alike in together.items():
        if len(alike) >= settings.repeated_least:
            chance = _fisher(sum(surprise for _, surprise in alike), len(alike))
            if chance * pairs <= settings.repeated_chance:
                found.append(RepeatedPair(pair, tuple(name for name, _ in alike), chance * pairs, chance))
    return sorted(found, key=lambda r: (r.chance, r.students))


def _fisher(surprise: float, count: int) -> float:
    """The chance that `count` independent chances multiply to at most e^−surprise:
    e^−surprise · Σ_{i<count} surprise^i / i!."""
    term, total = math.exp(-surprise), 0.0
    for i in range(count):
        total += term
        term *= surprise / (i + 1)
    return min(total, 1.0)
