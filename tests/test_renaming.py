"""Does renaming, the disguise every copier uses, count as evidence of copying, and only as far as honest students
name differently (kit/report/renaming.py)?

A copier who renames changes every name, the class's conventional ones too (a loop's `i`, a row's `row`);
honest students writing the same statements mostly share those and differ where each has a word of their
own. The evidence is a likelihood ratio of mean 1 over honest pairs, so it adds no honest pairs on average.
"""

from __future__ import annotations

import math
import random

from kit.report.normalise import read
from kit.report.renaming import ClassNames, renaming
from kit.report.similarity import Settings, _read

ANSWER = """def f(x, n):
    {total} = 0.0
    for {i} in range(n):
        for {j} in range(n):
            {total} = {total} + x[{i}, {j}]
    return {total}
"""


def _class(named: dict[str, dict[str, str]]):
    """Each student's reading of ANSWER with their names, and the class's names at each place."""
    read_ = {s: _read((ANSWER.format(**names), "f")) for s, names in named.items()}
    writers: dict[int, list[str]] = {}
    for student, answer in read_.items():
        for statement in answer.statements:
            writers.setdefault(statement, []).append(student)
    return read_, ClassNames({s: a.names for s, a in read_.items()}, writers)


def _evidence(read_, class_names, a: str, b: str) -> float:
    shared = [h for h in read_[a].statements if h in read_[b].statements]
    return renaming(read_[a].names, read_[b].names, shared, class_names, (a, b), Settings())


CONVENTIONAL = {"total": "total", "i": "i", "j": "j"}


def test_does_the_reading_keep_the_name_behind_each_v():
    reading = read("def f(x):\n    y = x + 1\n    return y * y\n", arguments=True, main="f")
    assert [name for (token, _), name in zip(reading.tokens, reading.names) if token == "V" and name] == ["y"] * 3
    assert len(reading.names) == len(reading.tokens)


def test_does_a_copy_renamed_where_the_class_names_alike_stand_out():
    named = {f"s{k}": CONVENTIONAL for k in range(12)} | {"copy": {"total": "acc", "i": "a", "j": "b"}}
    read_, class_names = _class(named)
    assert _evidence(read_, class_names, "s0", "copy") > 3.0  # three places where 11 others of 11 agree


def test_do_two_students_naming_alike_lose_at_most_log_two():
    """A copy that kept its names (or chose them as students do) is weighed as the honest pair it looks like,
    half the copy account: at most log 2 below nothing."""
    named = {f"s{k}": CONVENTIONAL for k in range(12)}
    read_, class_names = _class(named)
    assert -math.log(2) - 1e-9 <= _evidence(read_, class_names, "s0", "s1") < 0


def test_is_a_name_few_others_give_no_evidence():
    """Three students in all: the pair's two, and one other, fewer than names_least others: nothing to tell
    by."""
    named = {"s0": CONVENTIONAL, "s1": CONVENTIONAL, "copy": {"total": "acc", "i": "a", "j": "b"}}
    read_, class_names = _class(named)
    assert _evidence(read_, class_names, "s0", "copy") == 0.0


def test_is_the_evidence_on_average_no_more_than_chance_over_honest_pairs():
    """Honest students naming each place from the class's habits (conventional names most of the time, a
    word of their own now and then): the mean of the likelihood ratio over every honest pair is 1 (within
    the noise of estimating each place's agreement from the others)."""
    rng = random.Random(7)
    named = {f"s{k}": {"total": rng.choice(["total", "total", "s", "acc", "out"]),
                       "i": "i" if rng.random() < 0.8 else "r",
                       "j": "j" if rng.random() < 0.7 else rng.choice(["c", "k"])} for k in range(80)}
    read_, class_names = _class(named)
    students = sorted(named)
    ratios = [math.exp(_evidence(read_, class_names, a, b)) for i, a in enumerate(students) for b in students[i + 1:]]
    assert 0.85 < sum(ratios) / len(ratios) < 1.15
