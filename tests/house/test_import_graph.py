"""Do the modules of autograder/, kit/ and the figures import each other in a circle? And the tests' own?

Every import counts, deferred ones inside functions too (read with `ast`):
a circle that works only because an import waits inside a function is still
a circle.

The tests are laid out in rooms, one folder of tests/ each (README's "Layout of the tests"): a room's modules
import from their own room and from tests/shared/ alone, the shared helpers from tests/shared/ alone, and
tests/conftest.py (its fixtures reach every room through pytest, not through imports) from tests/shared/ alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

from kit.notebooks import ROOT

PACKAGES = ("autograder", "kit", "notebooks/attention/figures")  # the figures: notebooks.attention.figures.*
SHARED = "shared"  # tests/shared/: the helpers every room may import


def modules(packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted name → file of every module in `packages` (a package is its __init__.py)."""
    found = {}
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that the module `name` imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from package import module` imports that module; `from module import name` the module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        found |= {t for t in targets if t in known and t != name}
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle found by a depth-first walk, each as the path that closes it."""
    found, state = [], {}

    def walk(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    return found


def test_the_modules_of_autograder_kit_and_the_figures_import_each_other_in_no_circle():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert circles(graph) == []


def test_an_import_inside_a_function_closes_a_circle_too(tmp_path):
    (tmp_path / "a.py").write_text("import kit.b\n")
    (tmp_path / "b.py").write_text("def later():\n    from kit import a\n    return a\n")
    known = {"kit.a": tmp_path / "a.py", "kit.b": tmp_path / "b.py"}
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert graph == {"kit.a": {"kit.b"}, "kit.b": {"kit.a"}}
    assert circles(graph) == [["kit.a", "kit.b", "kit.a"]]


def room(name: str) -> str | None:
    """The room of the tests' module `name` (tests.<room>.…), None for the modules at tests/ top level."""
    parts = name.split(".")
    return parts[1] if len(parts) > 2 else None


def crossings(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Module → the tests' modules it imports outside its own room and tests/shared/ (the shared helpers and
    the top-level modules, conftest.py among them, may import tests/shared/ alone)."""
    found = {}
    for name, targets in graph.items():
        allowed = {SHARED} if room(name) in (SHARED, None) else {room(name), SHARED}
        beyond = sorted(target for target in targets if room(target) not in allowed)
        if beyond:
            found[name] = beyond
    return found


def test_the_modules_of_the_tests_import_each_other_in_no_circle():
    known = modules(("tests",))
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert circles(graph) == []


def test_a_room_of_the_tests_imports_only_from_itself_and_the_shared_helpers():
    known = modules(("tests",))
    assert {room(name) for name in known} - {None} >= {SHARED, "judge"}  # the rooms are there
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert crossings(graph) == {}


def test_a_room_importing_another_rooms_helper_or_conftest_is_found(tmp_path):
    files = {"tests.shared.helper": "import tests.judge.text\n", "tests.judge.text": "",
             "tests.report.test_a": "def later():\n    from tests.judge import text\n",
             "tests.report.test_b": "from tests.conftest import DATABASES\nfrom tests.shared import helper\n",
             "tests.conftest": "from tests.report.test_a import later\n"}
    known = {}
    for name, text in files.items():
        known[name] = tmp_path / f"{name}.py"
        known[name].write_text(text)
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert crossings(graph) == {"tests.shared.helper": ["tests.judge.text"], "tests.report.test_a": ["tests.judge.text"],
                                "tests.report.test_b": ["tests.conftest"], "tests.conftest": ["tests.report.test_a"]}
