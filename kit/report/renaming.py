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
A place that fewer than `names_least` others wrote tells nothing and is left out; with no place left the
evidence is 0.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Protocol

Names = dict[int, tuple[str, ...]]  # a statement → the names the cell binds, in the order it uses them


class Renaming(Protocol):
    names_least: int      # others who wrote a statement, at least, for its names to tell anything
    renamed_rate: float   # the chance that a copier renaming changes a name


class ClassNames:
    """The names the class's students give at each place of each statement (counted when first asked)."""

    def __init__(self, names: dict[str, Names], writers: dict[int, list[str]]):
        self.names = names      # student → their names
        self.writers = writers  # statement → the students who wrote it
        self._counted: dict[tuple[int, int], Counter] = {}

    def at(self, statement: int, place: int) -> Counter:
        key = (statement, place)
        if key not in self._counted:
            self._counted[key] = Counter(given[place] for s in self.writers.get(statement, ())
                                         if len(given := self.names[s].get(statement, ())) > place)
        return self._counted[key]


def renaming(first: Names, second: Names, shared: list[int], class_names: ClassNames, pair: tuple[str, ...],
             settings: Renaming) -> float:
    """Nats of evidence that `second` renamed `first` (or the reverse) beyond what honest students differ in:
    log(copy / honest) over the places of `first`'s names in the `shared` statements (see the module's
    docstring). pair: the students (or a student and a form of the reference) whose own names are left out
    of the class's counts."""
    seen: set[str] = set()
    honest = renamed = 0.0  # logs of the two accounts' chances
    places = 0
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
            if others < settings.names_least:
                continue
            collision = sum(n * (n - 1) for n in counted.values() if n > 1) / ((others + 2) * (others - 1))
            places += 1
            if mine == theirs:  # never evidence of renaming, however rare the name
                honest += math.log(max(collision, 1 - settings.renamed_rate))
                renamed += math.log(1 - settings.renamed_rate)
            else:
                honest += math.log(1 - collision)
                renamed += math.log(settings.renamed_rate)
    if not places:
        return 0.0
    copy = max(renamed, honest) + math.log1p(math.exp(-abs(renamed - honest))) - math.log(2)
    return copy - honest
