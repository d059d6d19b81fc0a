"""Do the modules of autograder/, kit/ and the figures import each other in a circle?

Every import counts, deferred ones inside functions too (read with `ast`):
a circle that works only because an import waits inside a function is still
a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

from kit.notebooks import ROOT

PACKAGES = ("autograder", "kit", "notebooks/attention/figures")  # the figures: notebooks.attention.figures.*


def modules() -> dict[str, Path]:
    """Dotted name → file of every module in PACKAGES (a package is its __init__.py)."""
    found = {}
    for package in PACKAGES:
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
