"""Does every exercise an answer may call stand in while that answer is graded?

One mistake costs points once only if, while exercise E is graded, every
exercise E may call is the reference's (judge.BUILT_ON). What E may call is
derived here, never listed by hand, from two sources:

- the answer key: the exercises each reference function calls, through the
  module's private helpers and through each other (solutions/attention.py,
  model/heads.py, solutions/check_yourself.py, read by AST);
- the notebooks: the exercises the notebook's own solution of E calls, and
  those that a sentence of its stub's docstring or of the text above it tells
  the student to call or use, written as a call: "use your `softmax(S)`".
"""

from __future__ import annotations

import ast
import re

import pytest

from autograder.cases import EXERCISES
from autograder.judge import BUILT_ON
from kit.notebooks import ROOT, _cells

REFERENCES = ("solutions/attention.py", "model/heads.py", "solutions/check_yourself.py")
NOTEBOOKS = sorted((ROOT / "notebooks" / "attention").glob("[0-9]*.py"))
# Blockwise attention is graded on the memory it uses, and work done by a stand-in would not count.
ALONE = {"blockwise_attention"}


def _called(node: ast.AST) -> set[str]:
    """Names called anywhere under `node` (f(...) only: a name passed along is not a call)."""
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _closure(calls: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each function → every function reachable through `calls`."""
    reach = {}
    for start in calls:
        seen, todo = set(), list(calls[start])
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += calls.get(name, ())
        reach[start] = seen
    return reach


def reference_dependencies() -> dict[str, set[str]]:
    """Exercise → the exercises its reference function calls, directly or through helpers."""
    calls: dict[str, set[str]] = {}
    for path in REFERENCES:
        for node in ast.parse((ROOT / path).read_text()).body:
            if isinstance(node, ast.FunctionDef):
                calls.setdefault(node.name, set()).update(_called(node))
    reach = _closure(calls)
    return {name: (reach[name] & set(EXERCISES)) - {name} for name in EXERCISES if name in reach}


def _exercise_texts() -> dict[str, tuple[str, str]]:
    """grade_id of each solution cell → (its code, the markdown since the previous exercise)."""
    found = {}
    for script in NOTEBOOKS:
        prose: list[str] = []
        for cell_type, kind, options, source in _cells(script.read_text()):
            if cell_type == "markdown":
                prose.append(source)
            elif kind == "solution":
                found[options["id"]] = (source, "\n".join(prose))
                prose = []
    return found


TELLS_TO_CALL = re.compile(r"\b(call|calls|calling|use|uses|using)\b", re.IGNORECASE)


def _told_to_call(text: str) -> set[str]:
    """Names written as a call ("`softmax(S)`") in a sentence that says to call or use them."""
    sentences = re.split(r"(?<=[.!?;])\s+|\n\s*\n", text)
    return {name for sentence in sentences if TELLS_TO_CALL.search(sentence)
            for name in re.findall(r"`(\w+)\(", sentence)}


def notebook_dependencies() -> dict[str, set[str]]:
    """Exercise → the exercises its notebook's solution calls, or its text and stub tell the student to call."""
    found = {}
    for grade_id, (code, prose) in _exercise_texts().items():
        tree = ast.parse(code)
        stubs = [ast.get_docstring(f) or "" for f in tree.body if isinstance(f, ast.FunctionDef)]
        named = _called(tree) | _told_to_call("\n\n".join([prose, *stubs]))
        found[grade_id] = (named & set(EXERCISES)) - {grade_id}
    return found


def all_dependencies() -> dict[str, set[str]]:
    """Both sources together, closed: what an exercise calls, its callees may call too."""
    merged = {name: set() for name in EXERCISES}
    for source in (reference_dependencies(), notebook_dependencies()):
        for name, deps in source.items():
            merged.setdefault(name, set()).update(deps)
    return {name: deps - {name} for name, deps in _closure(merged).items() if name in EXERCISES}


def test_the_derivation_finds_what_the_notebooks_plainly_call():
    deps = all_dependencies()
    assert {"self_score", "previous_score", "start_score", "induction_score"} <= deps["classify_head"]
    assert {"softmax", "scaled_scores", "raw_scores"} <= deps["attention"]
    assert {"score_flops", "projection_flops"} <= deps["attention_share"]


@pytest.mark.parametrize("exercise", sorted(set(EXERCISES) - ALONE))
def test_every_exercise_an_answer_may_call_stands_in(exercise):
    missing = all_dependencies()[exercise] - set(BUILT_ON.get(exercise, ()))
    assert not missing, f"BUILT_ON[{exercise!r}] lacks {sorted(missing)}: a mistake there would cost points twice"


def test_blockwise_attention_is_graded_alone_and_its_reference_calls_no_exercise():
    assert not BUILT_ON.get("blockwise_attention") and not reference_dependencies().get("blockwise_attention")


def test_built_on_names_only_exercises_and_never_an_exercise_itself():
    for exercise, deps in BUILT_ON.items():
        assert exercise in EXERCISES and set(deps) <= set(EXERCISES) and exercise not in deps
