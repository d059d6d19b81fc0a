"""What the similarity section found, as the page and the summary read it: the engine's settings, each
exercise's listed pairs and distribution, the pairs alike across exercises. similarity.py finds them."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

DISTRIBUTION_BINS = 10
DISTRIBUTION_PAIRS = 20_000


@dataclass(frozen=True)
class Settings:
    min_answers: int = 10          # fewer answers: no distribution to judge by
    common_share: float = 0.2      # a statement held by more than this share of answers makes no candidate pair...
    common_least: int = 3          # ...but never below this many holders
    common_most: int = 50          # ...nor above this many
    min_shared: int = 3            # a listed pair shares at least this many statements beyond the given code
    same_in_common: float = 0.95   # and either at least this share of the two answers' statements...
    same_expected: float = 0.03    # ...and at most this many pairs as alike expected by chance in the exercise,
    min_in_common: float = 0.75    # or at least this share (a copy with lines added or written another way)...
    flag_expected: float = 0.001   # ...and at most this many
    smoothing: float = 0.5         # students added to a statement's writers when its share is counted
    shrink: float = 3.0            # students' worth a share among a few others is shrunk towards the share alone
    ring_most: int = 1             # near-copies of a pair's two, at most this many, are left out of "the others"
    edit_rate: float = 0.2         # the chance a copier changes a statement: each statement one of the two wrote
                                   # and the other did not costs log(1 / edit_rate) of the surprise
    names_least: int = 3           # others who wrote a statement, at least, for the names they give in it to tell
    renamed_rate: float = 0.95     # the chance that a copier renaming changes a name (renaming.py)
    fresh_rate: float = 0.5        # the chance that the name a copier renames to is one no one else of the class
                                   # binds in the exercise (renaming.py)
    fresh_prior: float = 10.0      # names' worth a student's own rate of such names is shrunk towards the class's
    tail_expected: float = 1.0     # an exercise's chance counts as no smaller than a pair's this often expected
    repeated_least: int = 2        # exercises alike together
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
    in_common: float    # the share of the two answers' statements they have in common (0 to 1)
    shared: int         # statements in common beyond the given code
    surprise: float     # −log of the chance another student writes the statements they share, times the
                        # ways of choosing that many of an answer's statements (nats)
    expected: float     # pairs of the exercise as alike expected by chance: pairs × e^−surprise
    sides: tuple[list[Line], list[Line]] = ((), ())
    across: bool = False  # listed because the pair is alike across exercises, not on this exercise alone


@dataclass
class ExerciseSimilarity:
    name: str
    answers: int
    compared: bool
    why_not: str = ""
    untouched: int = 0          # handed in as released (nothing beyond the given code): no answer
    pairs: int = 0              # pairs of students (the chances a coincidence had)
    candidates: int = 0         # pairs that share an uncommon statement (all that were scored)
    flagged: list[Pair] = field(default_factory=list)
    reference: list[Pair] = field(default_factory=list)  # students alike a form of the reference (its name second)
    distribution: list[int] = field(default_factory=list)  # pairs by in_common, DISTRIBUTION_BINS bins from 0 to 1
    sampled: bool = False       # the distribution is of DISTRIBUTION_PAIRS pairs drawn evenly, not of every pair

    def at_least(self, in_common: float) -> float:
        """The share of the distribution's pairs in the bin of `in_common` or above."""
        total = sum(self.distribution)
        return sum(self.distribution[bin_of(in_common):]) / total if total else 0.0


def bin_of(in_common: float) -> int:
    return min(DISTRIBUTION_BINS - 1, int(in_common * DISTRIBUTION_BINS))


@dataclass(frozen=True)
class RepeatedPair:
    students: tuple[str, str]
    exercises: tuple[str, ...]   # where the pair is alike (in_common at least min_in_common)
    expected: float              # pairs of the class as alike across these exercises expected by chance
    chance: float                # the chance for one pair


@dataclass
class Similarity:
    exercises: list[ExerciseSimilarity]
    repeated: list[RepeatedPair]
    unparsed: dict[str, list[str]] = field(default_factory=dict)  # exercise → students whose answer did not parse
    settings: Settings = field(default_factory=Settings)

    def reference_by_student(self) -> dict[str, list[tuple[str, str]]]:
        """student → (exercise, form of the reference) they are alike, most exercises first."""
        found = defaultdict(list)
        for exercise in self.exercises:
            for pair in exercise.reference:
                found[pair.students[0]].append((exercise.name, pair.students[1]))
        return dict(sorted(found.items(), key=lambda item: (-len(item[1]), item[0])))

    def candidates(self) -> int:
        return sum(e.candidates for e in self.exercises)
