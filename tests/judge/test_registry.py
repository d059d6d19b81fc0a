"""Is every exercise declared once, and is everything derived from that declaration in sync?

The registry (autograder/exercises/) declares each exercise; the judge's
built-on map, the figures' notebook map and the points written into the
notebooks are generated from it by `make release`, and must equal what it
gives now.
"""

from __future__ import annotations

import ast
import json
import re

import numpy as np
import pytest

from autograder import judge
from autograder.cases import hidden_cases, visible_cases
from autograder.exercises import REGISTRY, blockwise, built_on, notebook_of, points
from autograder.mistakes import MISTAKES
from kit.notebooks import ROOT, course_points
from kit.release import BUILT_ON, NOTEBOOK_OF, as_json

SOURCE = ROOT / "source" / "attention"


def test_the_committed_built_on_json_is_what_the_registry_gives():
    assert (ROOT / BUILT_ON).read_text() == as_json(built_on()), "run `make release`"
    assert judge.BUILT_ON == {name: tuple(deps) for name, deps in built_on().items()}


def test_the_release_tells_figures_which_notebook_asks_for_each_exercise():
    for folder in (SOURCE, ROOT / "assignments" / "attention"):
        assert json.loads((folder / NOTEBOOK_OF).read_text()) == notebook_of(), "run `make release`"
        assert (folder / BUILT_ON.parent.name / BUILT_ON.name).read_text() == as_json(built_on())


def test_each_exercise_is_graded_in_the_notebook_the_registry_names():
    graded = {}
    for path in sorted(SOURCE.glob("[0-9]*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
            if grade_id.startswith("hidden_"):
                graded[grade_id.removeprefix("hidden_")] = path.stem
    assert graded == notebook_of()
    assert list(graded) == list(REGISTRY), "the registry lists exercises in the notebooks' order"


def test_the_memory_mistake_has_the_name_the_judge_gives_it():
    assert blockwise.FULL_GRID == judge.FULL_GRID
    assert judge.FULL_GRID in {m.name for m in MISTAKES["blockwise_attention"]}


def test_course_toml_points_override_the_registry_and_name_real_cells(tmp_path):
    policy = (ROOT / "course.toml").read_text()
    (tmp_path / "course.toml").write_text(policy.replace("\n[points]\n", "\n[points]\nhidden_softmax = 4\n"))
    assert course_points(tmp_path) == {**points(), "hidden_softmax": 4}
    (tmp_path / "course.toml").write_text(policy.replace("\n[points]\n", "\n[points]\nhidden_sofmax = 4\n"))
    with pytest.raises(ValueError, match="hidden_sofmax"):
        course_points(tmp_path)


def test_the_registry_imports_nothing_of_the_kit():
    for path in sorted((ROOT / "autograder" / "exercises").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                ours = name.split(".")[0] in ("autograder", "kit") and not name.startswith("autograder.exercises")
                assert not ours, f"{path.name} imports {name}: the registry must not import the kit"


def test_is_each_blockwise_mistakes_output_that_of_its_own_inputs_whatever_was_asked_before():
    """The two mistakes are computed in one pass, the other's output kept for its turn (the case builder
    asks for both on each case): what is kept must never answer other inputs."""
    rng = np.random.default_rng(0)
    first, second = ([rng.normal(size=(5, 4)) for _ in range(3)] for _ in range(2))
    variants = {m.name: m.variant for m in MISTAKES["blockwise_attention"] if m.variant is not None}
    assert set(variants) == {blockwise.NOT_RESCALED, blockwise.NOT_DIVIDED}
    alone = blockwise._blockwise_mistakes(*second, 2, causal=True)
    for asked, then in (list(variants), list(variants)[::-1]):
        variants[asked](*first, 2, causal=True)  # keeps the other's output for `first`
        for name in (then, asked, then):
            assert variants[name](*second, 2, causal=True).tobytes() == alone[name].tobytes()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_does_an_exercise_whose_answer_is_a_tuple_name_each_of_its_parts(name):
    answers = [c["expected"] for c in hidden_cases(name) if "expected" in c]
    tuples = {len(a) for a in answers if isinstance(a, tuple)}
    assert tuples <= {len(REGISTRY[name].parts)}, f"{name} returns a tuple of {tuples}, names parts {REGISTRY[name].parts}"
    assert not REGISTRY[name].parts or tuples, f"{name} names parts {REGISTRY[name].parts} but returns no tuple"


def test_a_case_label_counts_in_agreeing_words():
    """"1 head", never "1 heads" (spec.counted makes the words of a drawn count)."""
    labels = [c["label"] for name in REGISTRY for c in hidden_cases(name)] + [c["label"] for c in visible_cases()]
    assert not [label for label in labels if re.search(r"(?<![\d.,])1 (head|token|key|quer|sample|trial)[a-z]*s\b", label)]
