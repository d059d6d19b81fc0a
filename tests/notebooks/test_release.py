"""The instructor notebooks and the student release they generate."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autograder.cases import EXERCISES, REGISTRY, hidden_cases
from autograder.exercises.model_explorer import NOTEBOOK as MODEL_NOTEBOOK
from autograder.judge import load_cases
from autograder.source_assignment import GradeId
from tests.notebooks.execute import errors_outside_graded_cells, execute, graded_results
from kit.notebooks import ROOT
from tests.shared.course_copy import copy_course

SOURCE = ROOT / "source" / "attention"
RELEASE = ROOT / "assignments" / "attention"
JUDGE = ROOT / "autograder" / "judge"
NOTEBOOKS = sorted(p.name for p in SOURCE.glob("*.ipynb"))

# "Check yourself" questions: graded hidden only, no visible check.
QUESTIONS = tuple(name for name, e in REGISTRY.items() if e.points.check is None)
# Notebook 09's exercises on the explorer's model (their answer key is model/heads.py).
MODEL_FUNCTIONS = tuple(name for name, e in REGISTRY.items() if e.notebook == MODEL_NOTEBOOK)
FUNCTIONS = tuple(name for name in EXERCISES if name not in QUESTIONS + MODEL_FUNCTIONS)


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_every_section_of_the_chapter_has_its_notebook():
    stems = [n.split("_", 1)[1].removesuffix(".ipynb") for n in NOTEBOOKS]
    assert stems == ["worked_example", "scores_and_scaling", "softmax_and_mix", "heads",
                     "masks_and_cross_attention", "blockwise", "cost", "check_yourself", "model_explorer"]


def test_every_exercise_has_an_answer_cell_a_visible_check_and_hidden_checks():
    ids = {c["metadata"]["nbgrader"]["grade_id"] for n in NOTEBOOKS for c in _cells(SOURCE / n)
           if "nbgrader" in c["metadata"]}
    for name in FUNCTIONS + MODEL_FUNCTIONS:
        assert {name, f"check_{name}", f"hidden_{name}"} <= ids, name
    for name in QUESTIONS:
        assert {name, f"hidden_{name}"} <= ids, name


def test_are_the_exercises_numbered_one_way_notebook_then_place():
    """Notebook N's k-th exercise (or question) is headed "Exercise N.k" ("Question N.k")."""
    for script in sorted((ROOT / "notebooks" / "attention").glob("0*.py")):
        numbers = re.findall(r"^# ### (?:Exercise|Question) ([0-9.]+):", script.read_text(), flags=re.M)
        notebook = int(script.name[:2])
        assert numbers == [f"{notebook}.{k}" for k in range(1, len(numbers) + 1)], (script.name, numbers)


def test_are_the_written_questions_lettered_one_way_notebook_then_place():
    """Notebook N's written questions are headed "Written question N.a", "N.b", ... in order."""
    for script in sorted((ROOT / "notebooks" / "attention").glob("0*.py")):
        letters = re.findall(r"^# ### Written question ([0-9]+\.[a-z]):", script.read_text(), flags=re.M)
        notebook = int(script.name[:2])
        assert letters == [f"{notebook}.{chr(ord('a') + k)}" for k in range(len(letters))], (script.name, letters)


def test_every_written_question_is_a_locked_task_cell_with_a_rubric_and_an_answer_cell_after_it():
    from kit.written import rubric

    questions = 0
    for name in NOTEBOOKS:
        source, released = _cells(SOURCE / name), _cells(RELEASE / name)
        for cells in (source, released):
            for at, cell in enumerate(cells):
                meta = cell["metadata"].get("nbgrader", {})
                if not meta.get("task"):
                    continue
                questions += cells is source
                assert cell["cell_type"] == "markdown" and meta["locked"] and not meta["grade"], (name, meta)
                answer = cells[at + 1]
                assert answer["id"] == f"{meta['grade_id']}-answer" and answer["cell_type"] == "markdown"
                assert "nbgrader" not in answer["metadata"] and _source(answer) == "YOUR ANSWER HERE"
                if cells is source:
                    assert meta["points"] == sum(point.points for point in rubric(_source(cell))) > 0
    assert questions == 3


def test_instructor_notebooks_are_committed_without_outputs():
    for name in NOTEBOOKS:
        for cell in _cells(SOURCE / name):
            assert not cell.get("outputs") and not cell.get("execution_count"), name


def test_regenerating_the_source_and_the_release_changes_nothing(tmp_path):
    copy = copy_course(tmp_path)
    subprocess.run([sys.executable, "-m", "kit.release"], cwd=copy, check=True, capture_output=True)
    for folder in ("source/attention", "assignments/attention"):
        committed = {p.relative_to(ROOT / folder): p.read_bytes()
                     for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        fresh = {p.relative_to(copy / folder): p.read_bytes()
                 for p in (copy / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        assert fresh.keys() == committed.keys(), folder
        stale = [str(k) for k in fresh if fresh[k] != committed[k]]
        assert not stale, f"run `make release`: {folder} is out of date in {stale}"


def scaled(data, factor: float):
    """`data` (cases as load_cases reads them) with every float multiplied by `factor`."""
    if isinstance(data, dict):
        return {key: scaled(value, factor) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(scaled(part, factor) for part in data)
    if isinstance(data, float) or isinstance(data, np.ndarray) and data.dtype.kind == "f":
        # np.asarray: a 0-d array times a float is a NumPy scalar, and a case's one number stays a 0-d array
        return np.asarray(data * factor, dtype=data.dtype) if isinstance(data, np.ndarray) else data * factor
    return data


def test_regenerated_cases_that_differ_only_by_another_cpus_rounding_leave_the_committed_file_alone(tmp_path):
    from kit.release import write_cases

    shipped = SOURCE / "worked_example.npz"
    cases = load_cases(shipped)
    path = tmp_path / "worked_example.npz"
    shutil.copyfile(shipped, path)
    write_cases(path, scaled(cases, 1 + 3e-7))  # the explorer's float32 products rounded by another BLAS
    assert path.read_bytes() == shipped.read_bytes()

    write_cases(path, scaled(cases, 1 + 1e-2))  # a value that changed
    assert path.read_bytes() != shipped.read_bytes()
    assert not np.array_equal(load_cases(path)[0]["expected"], cases[0]["expected"])

    shutil.copyfile(shipped, path)
    relabelled = [dict(case) for case in cases]
    relabelled[-1]["label"] += " (renamed)"
    write_cases(path, relabelled)
    assert load_cases(path)[-1]["label"].endswith(" (renamed)")

    shutil.copyfile(shipped, path)
    reshaped = [dict(case) for case in cases]
    array_case = next(i for i, case in enumerate(cases) if isinstance(case["args"][0], np.ndarray))
    reshaped[array_case]["args"] = [cases[array_case]["args"][0][:1], *cases[array_case]["args"][1:]]
    write_cases(path, reshaped)
    assert load_cases(path)[array_case]["args"][0].shape[0] == 1


def _mark_scheme_lines(cell: dict) -> list[str]:
    """The lines of a cell's rubric (between BEGIN and END MARK SCHEME), the markers left out."""
    from autograder.handed_in import MARK_SCHEME

    found = MARK_SCHEME.search(_source(cell))
    return [line.strip() for line in found.group().splitlines()[1:-1] if line.strip()] if found else []


def test_the_release_and_the_source_differ_only_by_each_rubric_in_the_written_questions():
    from autograder.handed_in import MARK_SCHEME

    for name in NOTEBOOKS:
        released = {c["id"]: _source(c) for c in _cells(RELEASE / name)}
        for cell in _cells(SOURCE / name):
            if cell["metadata"].get("nbgrader", {}).get("task"):
                assert _mark_scheme_lines(cell), cell["id"]
                assert released[cell["id"]].strip() == MARK_SCHEME.sub("", _source(cell)).strip()


def test_the_release_holds_no_solution_code_and_no_hidden_tests():
    released = {p.name for p in RELEASE.iterdir()}
    assert released == set(NOTEBOOKS) | {"judge", "figures", "workbook.py", "worked_example.npz",
                                         "explorer_model.py", "model_weights.npz", "explorer.py",
                                         "explorer_server.py", "explorer.html", "explorer.js"}
    for name in NOTEBOOKS:
        text = (RELEASE / name).read_text()
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "hidden_check", "autograder",
                       "solutions", "MARK SCHEME", "Rubric", "Model answer", "Look for:"):
            assert marker not in text, f"{name} contains {marker!r}"
        rubric_lines = [line for cell in _cells(SOURCE / name) for line in _mark_scheme_lines(cell) if len(line) > 12]
        leaked = [line for line in rubric_lines if line in text or json.dumps(line)[1:-1] in text]
        assert leaked == [], f"{name} leaks rubric lines {leaked[:3]}"
        released_cells = {c["metadata"]["nbgrader"]["grade_id"]: _source(c) for c in _cells(RELEASE / name)
                          if "nbgrader" in c["metadata"]}
        for cell in _cells(SOURCE / name):
            source = _source(cell)
            if "### BEGIN SOLUTION" not in source:
                continue
            grade_id = cell["metadata"]["nbgrader"]["grade_id"]
            solution = source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
            leaked = [line.strip() for line in solution.splitlines()
                      if len(line.strip()) > 12 and line.strip() in released_cells[grade_id]]
            assert leaked == [], f"{name}:{grade_id} leaks solution lines"


def test_the_release_holds_no_hidden_reference_values():
    """No hidden expected value is in the release. A value of counts (ranks, indices, booleans) or of one number
    repeated can match a visible one by chance, as two sequences of 3 tokens both have rank 3 and a mask that
    leaks nothing leaks zeros: it is a leak only with the hidden case's inputs."""
    visible = [a for case in load_cases(RELEASE / "worked_example.npz") for a in _arrays(case)]

    def released(array: np.ndarray) -> bool:
        return any(v.shape == array.shape and np.array_equal(v, array) for v in visible)

    for name in FUNCTIONS:
        for case in hidden_cases(name):
            inputs_released = any(released(a) for a in _arrays(case["args"]) if a.size > 1)
            for hidden in _arrays(case.get("expected")):
                guessable = hidden.dtype.kind in "biu" or np.all(hidden == hidden.flat[0])
                if hidden.size > 1 and (inputs_released or not guessable):
                    assert not released(hidden), f"a hidden expected value of {name} ({case['label']}) is in the release"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def test_the_released_judge_is_the_judge_package_file_for_file():
    """Every file of the release's judge/ folder is autograder/judge's own, byte for byte, and nothing else."""
    assert _files(RELEASE / "judge") == _files(JUDGE) == _files(SOURCE / "judge")
    assert "__init__.py" in _files(JUDGE) and "built_on.json" in _files(JUDGE)


def test_the_released_figures_are_the_figures_folder_file_for_file_with_their_notebook_map():
    """The release's figures/ folder is notebooks/attention/figures/ byte for byte, and the notebook map
    its placeholders read (written by the release) and nothing else."""
    figures = _files(ROOT / "notebooks" / "attention" / "figures")
    assert "__init__.py" in figures and "notebook_of.json" not in figures
    for folder in (SOURCE, RELEASE):
        shipped = _files(folder / "figures")
        assert shipped.keys() - figures.keys() == {"notebook_of.json"}, folder
        assert {name: shipped[name] for name in figures} == figures, folder


def test_the_released_judge_reaches_no_reference_and_holds_no_reference_value():
    """Its modules import only each other, the standard library, numpy and IPython (never the
    answer key, which they do not even name), hold no hidden test and no hidden expected number,
    and built_on.json holds exercise names only."""
    hidden_numbers = {float(x) for name in EXERCISES for case in hidden_cases(name)
                      for x in _scalars(case.get("expected")) if abs(float(x)) > 16}
    for name, text in _files(RELEASE / "judge").items():
        for marker in (b"BEGIN SOLUTION", b"BEGIN HIDDEN TESTS", b"hidden_check", b"answer_key"):
            assert marker not in text, f"judge/{name} contains {marker!r}"
        if not name.endswith(".py"):
            continue
        tree = ast.parse(text)
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module and not node.level}
        assert imported <= set(sys.stdlib_module_names) | {"numpy", "IPython"}, f"judge/{name} imports {imported}"
        numbers = {float(node.value) for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and type(node.value) in (int, float)}
        assert not numbers & hidden_numbers, f"judge/{name} holds hidden expected values {numbers & hidden_numbers}"
    built_on = json.loads(_files(RELEASE / "judge")["built_on.json"])
    assert set(built_on) <= set(EXERCISES)
    assert all(isinstance(deps, list) and set(deps) <= set(EXERCISES) for deps in built_on.values()), built_on


def _scalars(obj):
    if isinstance(obj, (tuple, list)):
        for x in obj:
            yield from _scalars(x)
    elif type(obj) in (int, float) or isinstance(obj, (np.integer, np.floating)):
        yield obj


def _arrays(obj):
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _arrays(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _arrays(x)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_solved_instructor_notebook_passes_every_check(name, tmp_path):
    shutil.copytree(SOURCE, tmp_path, dirs_exist_ok=True)
    nb = execute(tmp_path / name, with_graders=True)
    assert errors_outside_graded_cells(nb) == []
    failed = [f"{r.grade_id}: {r.message}" for r in graded_results(nb) if not r.passed]
    assert failed == []


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_untouched_release_fails_only_at_the_stubs(name, tmp_path):
    shutil.copytree(RELEASE, tmp_path, dirs_exist_ok=True)
    nb = execute(tmp_path / name, with_graders=False)
    assert errors_outside_graded_cells(nb) == []
    for cell in nb.cells:  # a failed check shows the student's cell and its message, not the checker's code
        for out in cell.get("outputs", []):
            if out.output_type == "error" and out.ename == "CheckFailed":
                shown = "\n".join(out.traceback)
                assert "judge/" not in shown and "judge.py" not in shown, out.traceback
    for result in graded_results(nb):
        if result.passed:
            assert result.grade_id.startswith("hidden_"), f"{result.grade_id} passed on a stub"
            continue
        exercise = GradeId.parse(result.grade_id).exercise
        assert "not started" in result.message or "not answered" in result.message, result
        assert exercise in result.message.lower(), result


def test_the_release_is_rebuilt_when_its_content_changes_and_only_then(tmp_path):
    from kit.release import content_hash

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01.py").write_text("x = 1\n")
    (tmp_path / "course.toml").write_text("[points]\n")
    before = content_hash(tmp_path, ("notebooks", "course.toml"))
    os.utime(tmp_path / "course.toml", (0, 0))  # a new timestamp alone is no change
    (tmp_path / "notebooks" / "__pycache__").mkdir()
    (tmp_path / "notebooks" / "__pycache__" / "01.cpython-311.pyc").write_bytes(b"cache")
    assert content_hash(tmp_path, ("notebooks", "course.toml")) == before
    (tmp_path / "notebooks" / "01.py").write_text("x = 2\n")
    assert content_hash(tmp_path, ("notebooks", "course.toml")) != before
