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
    word of their own now and then): the mean of the likelihood ratio over every honest pair is at most 1
    (within the noise of estimating each place's agreement from the others). It is 1 in expectation; here
    below it, as no one of this class names freshly (a name no one else binds): the account of a renaming
    copier, whose words would often be fresh, loses where none is, and the rare fresh name whose large
    ratio makes up the mean never comes."""
    rng = random.Random(7)
    named = {f"s{k}": {"total": rng.choice(["total", "total", "s", "acc", "out"]),
                       "i": "i" if rng.random() < 0.8 else "r",
                       "j": "j" if rng.random() < 0.7 else rng.choice(["c", "k"])} for k in range(80)}
    assert 0.4 < _mean_ratio_of_honest_pairs(named) < 1.15


def _mean_ratio_of_honest_pairs(named: dict) -> float:
    """The mean likelihood ratio over every pair of a class whose students name as `named` says."""
    read_, class_names = _class(named)
    students = sorted(named)
    ratios = [math.exp(_evidence(read_, class_names, a, b)) for i, a in enumerate(students) for b in students[i + 1:]]
    return sum(ratios) / len(ratios)


def test_is_the_mean_one_where_students_name_freshly_at_their_own_rate():
    """The same class, where each student now and then names a place with a word of their own (one no one
    else binds) at the rate their other answers show: the mean of the ratio over honest pairs comes back to 1."""
    rng = random.Random(11)
    own = iter(f"w{k}" for k in range(10_000))
    named = {f"s{k}": {"total": rng.choice(["total", "total", "s", "acc", "out"]) if rng.random() > 0.1 else next(own),
                       "i": "i" if rng.random() < 0.8 else "r",
                       "j": "j" if rng.random() < 0.7 else rng.choice(["c", "k"])} for k in range(80)}
    assert 0.8 < _mean_ratio_of_honest_pairs(named) < 1.2


def test_does_a_copy_renamed_with_words_no_one_else_uses_stand_out_where_students_name_variously():
    """Where honest students differ in their names anyway (each of several words for one thing, so differing
    from an honest student tells little), a copy whose every name is one no one else of the class binds
    stands out: by how rarely the class names freshly, not by the differing alone. The same copy renamed with
    the class's own words does not."""
    rng = random.Random(5)
    named = {f"s{k}": {"total": rng.choice(["total", "s", "acc", "out", "res"]), "i": rng.choice(["i", "r", "a"]),
                       "j": rng.choice(["j", "c", "b"])} for k in range(40)}
    fresh = named | {"copy": {"total": "my_var", "i": "foo", "j": "zz"}}
    common = named | {"copy": {"total": "res" if named["s0"]["total"] != "res" else "out",
                               "i": "a" if named["s0"]["i"] != "a" else "r",
                               "j": "b" if named["s0"]["j"] != "b" else "c"}}
    read_, class_names = _class(fresh)
    assert _evidence(read_, class_names, "s0", "copy") > 4.0
    read_, class_names = _class(common)
    assert _evidence(read_, class_names, "s0", "copy") < 1.0


def test_are_fresh_names_weighed_against_the_students_own_habit():
    """A student whose other answers name freshly as often as this one does is no renamer for it: with their
    own rate high, the same fresh names tell little."""
    named = {f"s{k}": {"total": ["total", "s", "acc"][k % 3], "i": ["i", "r"][k % 2], "j": ["j", "c"][k % 2]}
             for k in range(40)} | {"copy": {"total": "my_var", "i": "foo", "j": "zz"}}
    read_, class_names = _class(named)
    shared = [h for h in read_["s0"].statements if h in read_["copy"].statements]
    plain = renaming(read_["s0"].names, read_["copy"].names, shared, class_names, ("s0", "copy"), Settings())
    class_names.fresh_rates = {"copy": 0.9}
    habit = renaming(read_["s0"].names, read_["copy"].names, shared, class_names, ("s0", "copy"), Settings())
    assert plain > 4.0 and habit < 1.0


def test_do_fresh_names_count_only_with_the_answer_the_renamer_most_likely_copied():
    """A fresh name tells that a student renamed someone's answer, not whose: with the chance of having
    copied this answer 0 (another is nearer), the fresh names add nothing (what is left is the names differing
    where the class's writers agree, as without them); with it 1/3 (three answers as near), less than with it 1."""
    named = {f"s{k}": {"total": ["total", "s", "acc"][k % 3], "i": ["i", "r"][k % 2], "j": ["j", "c"][k % 2]}
             for k in range(40)} | {"copy": {"total": "my_var", "i": "foo", "j": "zz"}}
    read_, class_names = _class(named)
    shared = [h for h in read_["s0"].statements if h in read_["copy"].statements]
    def weighed(chance: float) -> float:
        return renaming(read_["s0"].names, read_["copy"].names, shared, class_names, ("s0", "copy"), Settings(),
                        (0.0, chance))
    differing = renaming(read_["s0"].names, read_["copy"].names, shared, class_names, ("s0", "copy"),
                         Settings(fresh_rate=class_names.rate("copy")))  # fresh as often as an honest student
    assert abs(weighed(0.0) - differing) < 0.05
    assert weighed(0.0) + 1.0 < weighed(1 / 3) < weighed(1.0) - 0.5
