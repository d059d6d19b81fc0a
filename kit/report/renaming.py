"""What renaming leaves: the names two answers give at the same places of the statements they share.

    Names = {statement: the names the cell binds, in the order the statement uses them}
    ClassNames(names, writers) → the names the class gives at each place of each statement, counted on demand
    renaming(first, second, shared, class_names, pair, settings) → nats

The statements of an answer leave names out (normalise.py), so that renaming hides nothing. But renaming is a
trace of its own. Students who write the same statements mostly give the same names where a name is the
class's convention there (a loop's `i`, a row's `row`) and differ where each has a word of their own; a
copier renaming changes them all, the conventional ones too. So for each name of the first answer, at the
first place it takes among the shared statements, and the name the second answer gives there: the chance
that two others who wrote that statement agree at that place, from the class (the share of pairs of those
others giving one name there, the pair's own two left out, shrunk by two students' worth towards
disagreeing: a few others all alike are no certainty). The pattern of agreeing and differing places is then
weighed under two accounts:

- honest: each place agrees with that chance, independently of the others (and an agreement counts as no
  rarer than a renaming copier's: agreeing is never evidence of renaming);
- a copy: renamed half the time (each place differs with chance `renamed_rate`), and half the time named
  the way honest students name (the honest account again: a copy that kept its names, or chose them as
  students do, loses at most log 2 by this).

The evidence is log(copy / honest), a likelihood ratio whose mean over honest pairs is 1: as far as names
are independent of the statements' rarity, adding it to a pair's surprise lists no more honest pairs on
average than before, and a pair that differs in every name where the class's writers agree stands out.
A place that fewer than `names_least` others wrote tells nothing of agreeing, and is left out where the two
agree; with no place left the evidence is 0.

What a renaming copier writes in place of a name is a trace too: a word of their own, which often no one else
in the class binds in that exercise (`tmp`, `foo`, `my_var`), while honest students mostly name as others of
the class do. So where the two differ, each of the two names is weighed by whether anyone else of the class
binds it in the exercise ("fresh"; in a class of 100 or more, at most 1 in 100 of the others do): honestly, a student's name is fresh with their own rate (`fresh_rates`:
the share of fresh names among the names they bind in their other exercises, shrunk towards the class's
share and never below it, so a student who names unlike the class everywhere is no copier for it); the name a
copier renamed to is fresh with chance `fresh_rate`. In a class whose students often name as no one else
does, a fresh name tells little; where every student names from the class's common stock, a copy renamed
with words of the copier's own stands out. A fresh name tells that a student renamed someone's answer, not
whose: the account of renaming this answer is weighed by the chance that it was this one (`renamers`: 1 / the
answers as near the renamer's as this one, 0 where another is nearer); otherwise the renamer's names are
taken as their own. Fewer than `names_least` other students naming anything in the exercise: no fresh name
tells anything.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Protocol

Names = dict[int, tuple[str, ...]]  # a statement → the names the cell binds, in the order it uses them


class Renaming(Protocol):
    names_least: int      # others who wrote a statement, at least, for its names to tell anything
    renamed_rate: float   # the chance that a copier renaming changes a name
    fresh_rate: float     # the chance that the name a copier renames to is one no one else of the class binds


class ClassNames:
    """The names the class's students give at each place of each statement (counted when first asked), how many
    students bind each name in the exercise, and each student's own rate of fresh names."""

    def __init__(self, names: dict[str, Names], writers: dict[int, list[str]], students=None,
                 fresh_rates: dict[str, float] | None = None, class_rate: float | None = None,
                 fresh_most: int | None = None):
        self.names = names      # student (or a form of the reference) → their names
        self.writers = writers  # statement → the students who wrote it
        self._counted: dict[tuple[int, int], Counter] = {}
        students = set(names) if students is None else set(students)
        self.bound = {s: bound_names(given) for s, given in names.items()}
        self.binders = Counter(n for s in students for n in self.bound.get(s, ()))
        self.students = students
        self.namers = sum(1 for s in students if self.bound.get(s))
        self.fresh_most = fresh_others(len(students)) if fresh_most is None else fresh_most
        if class_rate is None:
            class_rate = fresh_share({s: self.bound[s] for s in students if s in self.bound}, self.fresh_most)
        self.class_rate = class_rate
        self.fresh_rates = fresh_rates or {}

    def at(self, statement: int, place: int) -> Counter:
        key = (statement, place)
        if key not in self._counted:
            self._counted[key] = Counter(given[place] for s in self.writers.get(statement, ())
                                         if len(given := self.names[s].get(statement, ())) > place)
        return self._counted[key]

    def fresh(self, name: str, pair: tuple[str, ...]) -> bool:
        """At most `fresh_most` students of the class but the pair's bind `name` in this exercise."""
        return self.binders[name] - sum(name in self.bound.get(s, ()) for s in pair) <= self.fresh_most

    def stock(self, pair: tuple[str, ...], least: int) -> bool:
        """Whether at least `least` students but the pair's bind names in this exercise (else whether a name
        is fresh tells nothing)."""
        return self.namers - sum(1 for s in pair if self.bound.get(s) and s in self.students) >= least

    def rate(self, student: str) -> float:
        """How often `student` names freshly when writing honestly (the class's share where unknown)."""
        return max(self.class_rate, self.fresh_rates.get(student, self.class_rate))


def bound_names(names: Names) -> set[str]:
    return {n for given in names.values() for n in given}


def fresh_others(students: int) -> int:
    """A name is fresh when at most this many other students bind it: none in a class of up to 99, 1 in 100 of a
    larger class (a copier's word of their own is more often someone's in a large class)."""
    return students // 100


def fresh_counts(bound: dict[str, set[str]], most: int) -> dict[str, tuple[int, int]]:
    """student → (fresh names, names) they bind: fresh, bound by at most `most` other students."""
    binders = Counter(n for given in bound.values() for n in given)
    return {s: (sum(1 for n in given if binders[n] - 1 <= most), len(given)) for s, given in bound.items()}


def fresh_share(bound: dict[str, set[str]], most: int) -> float:
    """The share of the names each student binds that are fresh (1/2 of a name added, so never 0)."""
    counts = fresh_counts(bound, most).values()
    return (sum(f for f, _ in counts) + 0.5) / (sum(m for _, m in counts) + 1)


def renaming(first: Names, second: Names, shared: list[int], class_names: ClassNames, pair: tuple[str, ...],
             settings: Renaming, renamers: tuple[float, float] = (1.0, 1.0)) -> float:
    """Nats of evidence that `second` renamed `first` (or the reverse) beyond what honest students differ in:
    log(copy / honest) over the places of `first`'s names in the `shared` statements (see the module's
    docstring). pair: the students (or a student and a form of the reference) whose own names are left out
    of the class's counts; a form's fresh rate is the class's. renamers: the chance that the first, and the
    second, renamed the other's answer if either did (1 / the answers as near theirs as the other's, 0 where
    another answer is nearer): otherwise its names are its own, weighed by its own fresh rate in every
    account (fresh names tell that a student renamed someone's answer, not whose)."""
    seen: set[str] = set()
    seen_theirs: set[str] = set()
    # logs of the accounts' chances: honest; the second renamed the first's names, the first the second's (the
    # renamer's names fresh at `fresh_rate`), or either did with every name its own (by_own); `common`: the terms
    # the three renaming accounts share (a name kept or changed)
    honest = common = by_second = by_first = by_own = 0.0
    places = 0
    own = [class_names.rate(s) for s in (pair if len(pair) == 2 else (pair[0], ""))]
    q = settings.fresh_rate

    def bernoulli(fresh: bool, rate: float) -> float:
        return math.log(rate if fresh else 1 - rate)

    for statement in shared:
        for place, (mine, theirs) in enumerate(zip(first.get(statement, ()), second.get(statement, ()))):
            if mine in seen:
                continue
            seen.add(mine)
            counted = class_names.at(statement, place).copy()
            for student in pair:
                given = class_names.names.get(student, {}).get(statement, ())
                if len(given) > place:
                    counted[given[place]] -= 1
            others = sum(n for n in counted.values() if n > 0)
            known = others >= settings.names_least
            if mine == theirs:
                if not known:
                    continue
                collision = sum(n * (n - 1) for n in counted.values() if n > 1) / ((others + 2) * (others - 1))
                places += 1
                honest += math.log(max(collision, 1 - settings.renamed_rate))  # never evidence of renaming
                common += math.log(1 - settings.renamed_rate)
                continue
            if known:
                collision = sum(n * (n - 1) for n in counted.values() if n > 1) / ((others + 2) * (others - 1))
                honest += math.log(1 - collision)
                common += math.log(settings.renamed_rate)
            elif not class_names.stock(pair, settings.names_least):
                continue
            places += 1
            fresh_mine = class_names.fresh(mine, pair)
            as_own = bernoulli(fresh_mine, own[0])
            honest, by_second, by_own = honest + as_own, by_second + as_own, by_own + as_own
            by_first += bernoulli(fresh_mine, q)
            if theirs not in seen_theirs:
                seen_theirs.add(theirs)
                fresh_theirs = class_names.fresh(theirs, pair)
                as_own = bernoulli(fresh_theirs, own[1])
                honest, by_first, by_own = honest + as_own, by_first + as_own, by_own + as_own
                by_second += bernoulli(fresh_theirs, q)
    if not places:
        return 0.0
    by_first = _mixed(common + by_first, common + by_own, renamers[0])
    by_second = _mixed(common + by_second, common + by_own, renamers[1])
    renamed = _log_sum(by_second, by_first) - math.log(2)
    copy = _log_sum(renamed, honest) - math.log(2)
    return copy - honest


def _mixed(fresh: float, own: float, weight: float) -> float:
    """log(weight e^fresh + (1 - weight) e^own)."""
    if weight >= 1:
        return fresh
    if weight <= 0:
        return own
    return _log_sum(math.log(weight) + fresh, math.log1p(-weight) + own)


def _log_sum(a: float, b: float) -> float:
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))
