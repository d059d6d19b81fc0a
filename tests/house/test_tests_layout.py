"""Are the tests laid out as README's map says (issue 42)? One folder of tests/ per room, each a package, each
described in README's "Layout of the tests" and in docs/adapting.md's "Where a new test goes"; no test module at
tests/ top level; and every tests/ path the docs, the Makefile, the configuration and the code name still exists
(a module moved to another room leaves no stale path behind)."""

from __future__ import annotations

import re
from pathlib import Path

from kit.notebooks import ROOT

TESTS = ROOT / "tests"
TOP_LEVEL = {"__init__.py", "conftest.py"}  # conftest.py: the session's fixtures, shared with every room
# Where paths of the tests are named: the docs, the Makefile, the configuration, and the code of the kit, its tools
# and its tests (comments and docstrings included).
NAMING = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml", ROOT / ".ci" / "run",
          *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "requirements").glob("*.txt"))]
CODE = ("kit", "autograder", "benchmarks", "mutation", "examples", "explorer", "model", "tests")
PATH = re.compile(r"(?<![\w./-])tests/[\w/.*<>-]*")  # a path from the course root: tests/…
MODULE = re.compile(r"(?<![\w./-])tests(?:\.\w+)+")  # a dotted module: tests.<room>.<module>[.<name>]
NEW_FILE = ": add as a new file"  # docs/adapting.md's code block that makes a file names it before this


def rooms() -> list[str]:
    return sorted(p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__")


def section(path: Path, heading: str) -> str:
    """The text under `heading` (a `## ` heading of `path`) up to the next `## ` heading."""
    return path.read_text().split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_every_folder_of_the_tests_is_a_room_the_map_and_the_guide_describe():
    described = set(re.findall(r"^### `tests/(\w+)/`", section(ROOT / "README.md", "Layout of the tests"), re.M))
    guided = set(re.findall(r"^- `tests/(\w+)/`", section(ROOT / "docs" / "adapting.md", "Where a new test goes"),
                            re.M))
    assert "judge" in rooms() and "shared" in rooms()
    assert described == set(rooms()), "README's layout of the tests describes each folder of tests/, no other"
    assert guided == set(rooms()), "docs/adapting.md says which tests go in each folder of tests/, no other"
    assert [room for room in rooms() if not (TESTS / room / "__init__.py").is_file()] == []


def test_no_test_module_sits_at_the_top_level_of_the_tests():
    assert {p.name for p in TESTS.iterdir() if p.is_file()} == TOP_LEVEL


def exists(path: str, line: str) -> bool:
    """Whether `path`, named in `line`, is there: a file or a folder; a pattern (`<name>`, `*`) whose folder is;
    a module's name (tests/<room>/<module>.<name>); a file the guide has the reader add, whose folder is."""
    path = path.rstrip(".,:;)'\"`-")
    if (ROOT / path).exists() or (ROOT / f"{path.rsplit('.', 1)[0]}.py").exists():
        return True
    pattern = re.search(r"[*<]", path)
    if pattern:
        return (ROOT / path[:pattern.start()]).parent.is_dir() if "/" in path[:pattern.start()] else False
    return line.rstrip().endswith(f"{path}{NEW_FILE}") and (ROOT / path).parent.is_dir()


def module_exists(name: str) -> bool:
    """tests.<room>.<module>, maybe followed by a name in it: a package or a module of the tests."""
    parts = name.split(".")
    return any((ROOT / Path(*parts[:n])).with_suffix(".py").is_file() or (ROOT / Path(*parts[:n]) / "__init__.py").is_file()
               for n in (len(parts), len(parts) - 1) if n > 1)


def test_every_path_of_the_tests_that_the_docs_and_the_code_name_exists():
    files = [*NAMING, *(p for folder in CODE for p in sorted((ROOT / folder).rglob("*.py"))
                        if "__pycache__" not in p.parts and p != Path(__file__))]  # this file names stale ones
    stale = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            stale += [f"{where}: {m[0]}" for m in PATH.finditer(line) if not exists(m[0], line)]
            if path.suffix != ".py" or "-m tests." in line:  # in code, only the modules run as commands
                stale += [f"{where}: {m[0]}" for m in MODULE.finditer(line) if not module_exists(m[0])]
    assert stale == []


def test_the_check_of_paths_finds_a_stale_one():
    assert exists("tests/house/test_tests_layout.py", "") and exists("tests/shared/", "")
    assert exists("tests/shared/corpus/mistakes/<exercise>__<mistake>.py", "")
    assert exists("tests/report/disguised_class.judged", "")
    assert exists("tests/shared/corpus/mistakes/x__y.py", f"# tests/shared/corpus/mistakes/x__y.py{NEW_FILE}")
    assert not exists("tests/test_corpus.py", "") and not exists("tests/corpus/mistakes/<exercise>__<x>.py", "")
    assert not exists("tests/nowhere/x__y.py", f"# tests/nowhere/x__y.py{NEW_FILE}")
    assert module_exists("tests.shared.gradebooks.dump") and module_exists("tests.judge.held_out_figures")
    assert not module_exists("tests.gradebooks") and not module_exists("tests.held_out_figures")
