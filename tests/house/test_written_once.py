"""Is any piece of logic or any constant in autograder/, kit/ and the figures written twice?

Two functions whose bodies parse to the same tree (docstrings aside, three
statements or more) are one piece of logic kept in two places: a fix to one
would miss the other; so are two module constants of the same literal value (a
style, a list of names). The figures (notebooks/attention/figures/) are read
too: the class report's charts draw in their style. The release's copies of the
judge and the figures are generated, not written (tests/notebooks/test_release.py checks
they equal autograder/judge/ and notebooks/attention/figures/ byte for byte),
so only the originals are read here.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from kit.course import ROOT

PACKAGES = ("autograder", "kit", "notebooks/attention/figures")
SMALLEST = 3  # statements: shorter bodies (a delegation, a lock around a call) may rightly look alike


def _body_without_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


def function_bodies() -> dict[str, list[str]]:
    """The dump of every function body of PACKAGES with SMALLEST statements or more → where it is written."""
    places = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                body = _body_without_docstring(node)
                if sum(isinstance(n, ast.stmt) for statement in body for n in ast.walk(statement)) >= SMALLEST:
                    places[ast.dump(ast.Module(body=body, type_ignores=[]))].append(
                        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return places


def test_no_function_of_the_kit_is_written_twice():
    twice = [where for where in function_bodies().values() if len(where) > 1]
    assert not twice, f"the same logic in several places (keep one, call it from the others): {twice}"


def module_constants() -> dict[str, list[str]]:
    """The dump of every module-level constant of PACKAGES that is a literal of three items or more (a dict,
    list, tuple or set) or a string of five characters or more → where it is written."""
    places = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text()).body:
                value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and len(value.value) >= 5 \
                        or isinstance(value, ast.Dict) and len(value.keys) >= 3 \
                        or isinstance(value, (ast.List, ast.Tuple, ast.Set)) and len(value.elts) >= 3:
                    places[ast.dump(value)].append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return places


# The registry declares the memory mistake's name and imports nothing of the judge; tests/judge/test_registry.py
# holds the two equal.
HELD_EQUAL = {("autograder/exercises/blockwise.py", "autograder/judge/verdicts.py")}


def test_no_constant_of_the_kit_is_written_twice():
    """A setting kept in two places drifts: the report's charts once copied the figures' style."""
    twice = [where for where in module_constants().values() if len(where) > 1
             and tuple(sorted(w.split(":")[0] for w in where)) not in HELD_EQUAL]
    assert not twice, f"the same constant in several places (keep one, import it in the others): {twice}"


def test_the_check_finds_a_function_written_twice(tmp_path, monkeypatch):
    """The check can fail: a copied function is found."""
    package = tmp_path / "autograder"
    package.mkdir()
    source = "def a(x):\n    y = x + 1\n    z = y * 2\n    return z\n"
    (package / "one.py").write_text(source)
    (package / "two.py").write_text(source.replace("def a", "def b"))
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "PACKAGES", ("autograder",))
    assert [len(w) for w in function_bodies().values()] == [2]


def test_the_check_finds_a_constant_written_twice(tmp_path, monkeypatch):
    """The check can fail: a copied style is found."""
    package = tmp_path / "kit"
    package.mkdir()
    (package / "one.py").write_text('STYLE = {"font.size": 10, "axes.titlesize": 10, "figure.dpi": 100}\n')
    (package / "two.py").write_text('OTHER = 1\nSTYLE = {"font.size": 10, "axes.titlesize": 10, "figure.dpi": 100}\n')
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "PACKAGES", ("kit",))
    assert list(module_constants().values()) == [["kit/one.py:1", "kit/two.py:2"]]
