"""Does the class report find what a class copied, and only that?

A synthetic class of 50 (tests/report/similar_class.py): honest answers to five
exercises written independently in several styles (loops, einsum, vectorised,
helpers), and planted copies: renamed, re-commented, reordered, a copy of a
copy, a copy across three exercises, a copy of the reference. Every planted
pair must be found and no honest pair flagged; copies edited beyond renaming
(lines added, a line changed, type hints) are found as often as measured over
twelve classes; answers written to break the report do not; the short exercise, where every
answer is alike, flags nobody; the anonymous page names no student; the page
loads in Chromium (which saves docs/class-report-similarity.png).
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from kit.notebooks import ROOT
from kit.report.answers import NOTEBOOK_FORM, exercises, handed_in
from kit.report.collect import ClassResults, Student
from kit.report.normalise import tokens
from kit.report.page import render
from kit.report.similarity import similar_answers
from tests.report.similar_class import (EDITED, EXERCISES, WRITERS, annotated, honest_class, plant_copies, plant_edited_copies,
                                 recommented, renamed, reordered)

SOURCE = ROOT / "source" / "attention"
STUDENTS, SEED = 50, 3


@pytest.fixture(scope="module")
def given():
    found = exercises(SOURCE, ROOT / "assignments" / "attention", ROOT / "solutions" / "attention.py")
    return {name: e for name, e in found.items() if name in EXERCISES}


@pytest.fixture(scope="module")
def synthetic(given):
    answers = honest_class(STUDENTS, SEED)
    planted = plant_copies(answers, {name: e.reference for name, e in given.items()}, SEED + 100)
    return answers, planted, similar_answers(given, answers)


def _flagged(similarity) -> set[tuple[str, tuple[str, str]]]:
    """(exercise, pair) listed in that exercise, on its own or for being alike across exercises."""
    return {(e.name, p.students) for e in similarity.exercises for p in e.flagged}


def _alone(similarity) -> set[tuple[str, tuple[str, str]]]:
    """(exercise, pair) listed on that exercise alone."""
    return {(e.name, p.students) for e in similarity.exercises for p in e.flagged if not p.across}


def _texts(code: str) -> list[str]:
    return [text for text, _ in tokens(code)]


def test_renamed_variables_comments_spacing_and_reordered_statements_change_no_token():
    rng = random.Random(0)
    for _ in range(20):
        answer = WRITERS["multi_head_attention"](rng)
        disguised = recommented(renamed(reordered(answer), rng), rng)
        assert _texts(disguised) == _texts(answer), (answer, disguised)


def test_a_loop_an_einsum_and_a_vectorised_answer_stay_apart():
    loop = ("def raw_scores(Q, K):\n    S = np.zeros((len(Q), len(K)))\n    for i in range(len(Q)):\n"
            "        for j in range(len(K)):\n            S[i, j] = Q[i] @ K[j]\n    return S\n")
    einsum = "def raw_scores(Q, K):\n    return np.einsum('id,jd->ij', Q, K)\n"
    vectorised = "def raw_scores(Q, K):\n    return Q @ K.T\n"
    assert len({tuple(_texts(code)) for code in (loop, einsum, vectorised)}) == 3


def test_every_planted_pair_is_found_and_no_honest_pair_is_flagged(synthetic):
    _, planted, similarity = synthetic
    assert _flagged(similarity) == planted.pairs
    assert len(planted.pairs) == 8  # renamed, re-commented, reordered, a copy of a copy (3 pairs), 3 exercises


@pytest.mark.parametrize("students, seed", [(54, 5), (60, 6), (100, 20)])
def test_classes_of_other_sizes_and_seeds_give_every_planted_pair_and_no_honest_one(given, students, seed):
    # While the surprise chained k-gram fingerprints (a rare line paid for in each k-gram holding it), (54, 5)
    # flagged two honest students' softmaxes and (60, 6) missed the copy across three exercises; (100, 20): larger
    answers = honest_class(students, seed)
    planted = plant_copies(answers, {name: e.reference for name, e in given.items()}, seed + 100)
    similarity = similar_answers(given, answers)
    assert _alone(similarity) | {p for p in _flagged(similarity) if p[1] in planted.repeated} >= planted.pairs
    assert _alone(similarity) <= planted.pairs
    assert {r.students for r in similarity.repeated} == planted.repeated


def test_copies_edited_beyond_renaming_are_found_as_measured_and_no_honest_pair_with_them(given):
    """Lines of the copier's own added, a line written another way, type hints and a docstring added: over twelve
    classes of 50, such copies of attention and multi_head_attention are found at least as often as measured
    when this was written (issue 40: type hints and a line changed 24 of 24, lines added 17 of 24, each line
    of the copier's own counting against the pair; before it, 18 of 24 for the last two), the other planted
    pairs are found but for the 3 of 96 missed then (a reordered copy, and the softmax of the pair alike across
    exercises twice), and at most the 2 honest pairs measured then are listed (in 2 of the 12 classes; issue
    40 allows one a class)."""
    found, total, honest, missed = Counter(), Counter(), set(), set()
    for seed in range(12):
        answers = honest_class(STUDENTS, seed)
        planted = plant_copies(answers, {name: e.reference for name, e in given.items()}, seed + 100)
        edited = plant_edited_copies(answers, seed + 200)
        flagged = _flagged(similar_answers(given, answers))
        for pair, how in edited.items():
            total[how] += 1
            found[how] += pair in flagged
        honest |= {(seed, pair) for pair in flagged - planted.pairs - set(edited)}
        missed |= {(seed, pair) for pair in planted.pairs - flagged}
    assert len(missed) <= 3 and len(honest) <= 2 and len({seed for seed, _ in honest}) == len(honest), \
        (honest, missed)
    assert set(total) == set(EDITED) and all(n == 24 for n in total.values())
    assert found["type hints added"] == 24 and found["a line changed"] == 24
    assert found["lines added"] >= 17, found


def test_type_hints_and_a_docstring_change_no_token():
    code = WRITERS["multi_head_attention"](random.Random(1))
    assert _texts(annotated(code)) == _texts(code)


def test_a_pair_alike_across_three_exercises_is_listed_with_the_three(synthetic):
    _, planted, similarity = synthetic
    assert {r.students for r in similarity.repeated} == planted.repeated
    assert all(set(r.exercises) >= {"softmax", "attention", "multi_head_attention"} for r in similarity.repeated)
    assert all(r.chance < 1e-4 for r in similarity.repeated)


def test_an_answer_identical_to_the_reference_is_listed_apart_not_as_a_pair(synthetic):
    _, planted, similarity = synthetic
    assert {(e.name, p.students[0]) for e in similarity.exercises for p in e.reference} == planted.reference
    assert similarity.reference_by_student() == {"s045": [("attention", NOTEBOOK_FORM)]}


def test_a_short_exercise_where_every_answer_is_alike_flags_nobody(synthetic, given):
    answers, _, _ = synthetic
    copied = {s: dict(by) for s, by in answers.items()}
    copied["s001"]["raw_scores"] = copied["s002"]["raw_scores"]  # even a copy: nothing there to tell it by
    raw = next(e for e in similar_answers(given, copied).exercises if e.name == "raw_scores")
    assert raw.compared and raw.flagged == []


def test_how_unusual_a_pair_is_comes_from_its_exercise(synthetic):
    _, _, similarity = synthetic
    settings = similarity.settings
    for exercise in similarity.exercises:
        for pair in exercise.flagged:
            assert pair.expected == pytest.approx(exercise.pairs * math.exp(-pair.surprise))
            assert pair.across or pair.expected <= settings.flag_expected or (
                pair.in_common >= settings.same_in_common and pair.expected <= settings.same_expected)


def test_the_given_code_and_an_untouched_stub_are_no_evidence(given):
    stub = given["attention"].given.split("\n# YOUR CODE HERE")[0]
    answers = {f"u{i:02d}": {"attention": stub} for i in range(20)}
    attention = next(e for e in similar_answers(given, answers).exercises if e.name == "attention")
    assert attention.answers == 0 and attention.flagged == []


def test_an_answer_that_does_not_parse_is_compared_without_crashing(synthetic, given):
    answers, _, _ = synthetic
    broken = {s: dict(by) for s, by in answers.items()}
    broken["s005"]["attention"] = broken["s005"]["attention"] + "\n    %timeit attention(Q, K, V)\n  oops(\n"
    similarity = similar_answers(given, broken)
    assert similarity.unparsed == {"attention": ["s005"]}
    assert _flagged(similarity) >= {p for p in _flagged(synthetic[2]) if "s005" not in p[1]}


HOSTILE_ANSWERS = {
    "a chain of 5,000 additions": "def attention(Q, K, V, mask=None):\n    return " + " + ".join(["Q"] * 5000) + "\n",
    "a unary chain the parser cannot hold": "def attention(Q, K, V, mask=None):\n    return " + "-" * 50_000 + "Q\n",
    "brackets nested past the parser's limit": "def attention(Q, K, V, mask=None):\n    return " + "(" * 300 + "Q"
                                                 + ")" * 300 + "\n",
    "a megabyte of statements": "def attention(Q, K, V, mask=None):\n" + "    Q = Q + 1\n" * 80_000,
    "a null byte": "def attention(Q, K, V, mask=None):\n    return Q\x00\n",
    "a string of lone surrogates": 'def attention(Q, K, V, mask=None):\n    return "\\ud83d\\ude00 \\udfff"\n',
}


@pytest.mark.parametrize("kind", HOSTILE_ANSWERS)
def test_an_answer_written_to_break_the_report_is_compared_without_crashing(synthetic, given, kind):
    answers, _, found = synthetic
    hostile = {s: dict(by) for s, by in answers.items()}
    hostile["s005"]["attention"] = HOSTILE_ANSWERS[kind]
    similarity = similar_answers(given, hostile)
    assert _flagged(similarity) >= {p for p in _flagged(found) if "s005" not in p[1]}


def _handed_in_03(folder: Path, answer: str, source: str) -> None:
    """Notebook 03 as released into `folder`, its `answer` cell's source replaced by `source`."""
    release = ROOT / "assignments" / "attention" / "03_softmax_and_mix.ipynb"
    notebook = json.loads(release.read_text())
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == answer:
            cell["source"] = source
    (folder / release.name).write_text(json.dumps(notebook))


def test_the_report_reads_answer_cells_from_handed_in_notebooks(tmp_path):
    _handed_in_03(tmp_path, "softmax", "def softmax(S, axis=-1):\n    return np.exp(S) / np.exp(S).sum(axis, keepdims=True)\n")
    (tmp_path / "04_heads.ipynb").write_text("{ not json")
    found = handed_in(tmp_path, {"softmax", "attention", "split_heads"})
    assert set(found) == {"softmax", "attention"}
    assert "np.exp(S)" in found["softmax"] and "NotStarted" in found["attention"]


def test_of_an_answer_cell_duplicated_to_try_again_the_report_compares_the_copy_graded(tmp_path):
    release = ROOT / "assignments" / "attention" / "03_softmax_and_mix.ipynb"
    notebook = json.loads(release.read_text())
    at = next(i for i, c in enumerate(notebook["cells"])
              if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")
    tried_again = "def softmax(S, axis=-1):\n    return np.exp(S) / np.exp(S).sum(axis, keepdims=True)\n"
    notebook["cells"].insert(at + 1, {**notebook["cells"][at], "id": "tried-again", "source": tried_again})
    (tmp_path / release.name).write_text(json.dumps(notebook))
    assert handed_in(tmp_path, {"softmax"}, ROOT / "source" / "attention")["softmax"] == tried_again
    assert "NotStarted" in handed_in(tmp_path, {"softmax"})["softmax"]  # without the source: the first copy


def test_a_copy_kept_in_the_students_own_module_is_compared_as_graded(synthetic, given, tmp_path):
    """The copy moved into a module handed in beside the notebooks, renamed, the cell left with its import line
    (graded with the module: autograder/student_modules.py): listed with the answer it copies, and nothing of the
    module the answer does not use is read."""
    answers, planted, similarity = synthetic
    in_pairs = {s for _, pair in planted.pairs for s in pair} | {s for pair in planted.repeated for s in pair}
    original, copier = [s for s in sorted(answers) if s not in in_pairs][:2]
    assert ("attention", (original, copier)) not in _flagged(similarity)
    imports = "import my_attention\n\nattention = my_attention.attention\n"
    _handed_in_03(tmp_path, "attention", imports)
    copy = renamed(answers[original]["attention"], random.Random(0))
    (tmp_path / "my_attention.py").write_text(f"import numpy as np\n\n\ndef unused():\n    return 1\n\n\n{copy}")
    found = handed_in(tmp_path, {"attention"}, SOURCE)["attention"]
    assert found == copy.strip() + "\n" and "unused" not in found
    copied = {s: dict(by) for s, by in answers.items()}
    copied[copier]["attention"] = found
    assert ("attention", (original, copier)) in _flagged(similar_answers(given, copied))
    copied[copier]["attention"] = imports  # the cell as it reads
    assert ("attention", (original, copier)) not in _flagged(similar_answers(given, copied))


def test_a_copy_kept_in_a_package_of_the_students_own_is_read_as_graded(synthetic, tmp_path):
    answers, _, _ = synthetic
    copy = renamed(answers[sorted(answers)[0]]["attention"], random.Random(1))
    _handed_in_03(tmp_path, "attention", "from helpers.core import attention\n")
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "core.py").write_text(f"import numpy as np\n\n\n{copy}")
    assert handed_in(tmp_path, {"attention"}, SOURCE)["attention"] == copy.strip() + "\n"


def _page(similarity, answers, anonymous: bool) -> str:
    results = ClassResults("attention", [], [Student(s, 1.0, 1.0, 0.0, 0.0) for s in sorted(answers)], [])
    return render(results, [], anonymous, similarity)


def test_the_anonymous_page_names_no_student_and_labels_each_one_the_same_way(synthetic, given):
    answers, planted, _ = synthetic
    signed = {s: dict(by) for s, by in answers.items()}
    for student in ("s040", "s041"):  # a comment that signs the copy
        signed[student]["attention"] = signed[student]["attention"].replace(
            "def attention(Q, K, V, mask=None):", f"def attention(Q, K, V, mask=None):  # {student}, week 3")
    similarity = similar_answers(given, signed)
    page = _page(similarity, signed, anonymous=True)
    assert not {s for s in signed if re.search(rf"\b{s}\b", page)}
    repeated = re.search(r"<td>(student \w+) and (student \w+)</td><td class=\"n\">\d+</td>", page)
    assert repeated, "the pair alike across exercises is not in the page"
    shown = {e.name for e in similarity.exercises for p in e.flagged if p.students == ("s040", "s041")}
    assert page.count(f"<h5>{repeated[1]} and {repeated[2]}: ") == len(shown) >= 3  # the same labels in each
    named = _page(similarity, signed, anonymous=False)
    assert "<h5>s040 and s041: " in named and "never a verdict" in named


def test_the_similarity_section_loads_in_chromium_with_its_marks(synthetic, tmp_path):
    from tests.shared.browser import DOCS, chromium, require_browser

    require_browser()

    answers, planted, similarity = synthetic
    page_file = tmp_path / "index.html"
    page_file.write_text(_page(similarity, answers, anonymous=False), encoding="utf-8")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 1500})
        page.goto(page_file.as_uri())
        shown = page.evaluate("""() => ({
            headings: [...document.querySelectorAll('h1, h2, h3, h4, h5')].map(h => +h.tagName[1]),
            pairs: document.querySelectorAll('#similar-pairs ~ section .sides').length,
            marks: [...document.querySelectorAll('.sides mark')].map(m => m.innerText),
            verdict: document.getElementById('similar').nextElementSibling.innerText,
            sideBySide: [...document.querySelectorAll('.sides')].every(s => {
                const [a, b] = s.querySelectorAll('figure');
                return a.getBoundingClientRect().top === b.getBoundingClientRect().top
                    && a.getBoundingClientRect().right <= b.getBoundingClientRect().left; }),
        })""")
        page.evaluate("document.getElementById('similar').scrollIntoView()")
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / "class-report-similarity.png"))
    assert all(b - a <= 1 for a, b in zip(shown["headings"], shown["headings"][1:])), shown["headings"]
    assert shown["pairs"] == len(planted.pairs) and shown["sideBySide"]
    assert shown["marks"] and all(re.match(r"\[\d+\] ", mark) for mark in shown["marks"])  # a number, not colour
    assert "never a verdict" in shown["verdict"]
