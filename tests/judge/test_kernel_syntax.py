"""Is a cell read as Jupyter's kernel reads it (autograder/judge/kernel_syntax.py), line for line?"""

from __future__ import annotations

import json

import numpy as np
import pytest

from autograder.judge import (answer_cells, bound_names, fresh_namespace, left_out_note, left_out_statements,
                              run_cells)
from autograder.judge.kernel_syntax import as_python

PYTHON = [
    "def f(a, b):\n    return (a\n            % b)\n",          # a continuation line that starts with %
    'def f():\n    """\n    %timeit in a docstring\n    !\n    """\n',
    "x = 1  # why?\n",                                         # a question in a comment
    "y = {'a': 1}\n",
]


@pytest.mark.parametrize("source", PYTHON)
def test_a_cell_that_is_python_is_left_as_it_is(source):
    assert as_python(source) is source


@pytest.mark.parametrize("source", [
    "%matplotlib inline\ndef f(x):\n    return x + 1\n!pip install numpy\nfiles = !ls\nf?\n%timeit f(1)\n",
    "\n\n%%time\n\ndef f(x):\n    %time y = 2\n    return x + 1\n",
    "%%capture\ndef f(x):\n    return x + 1\n",
    "%timeit 1\r\ndef f(x):\r\n    return x + 1\r\nf?\r\n"])  # lines ending as on Windows
def test_magics_and_shell_escapes_run_nothing_and_every_line_keeps_its_number(source):
    python = as_python(source)
    assert len(python.splitlines()) == len(source.splitlines())
    def_line = next(i for i, line in enumerate(source.splitlines()) if line.startswith("def f"))
    assert python.splitlines()[def_line].startswith("def f")
    namespace = fresh_namespace()
    run_cells([("cell", python)], namespace)
    assert namespace["__cell_errors__"] == [] and namespace["f"](1) == 2


@pytest.mark.parametrize("magic", ["%%timeit", "%%bash", "%%writefile helper.py", "%%html"])
def test_a_cell_under_a_cell_magic_whose_body_jupyter_does_not_keep_defines_nothing(magic):
    assert as_python(f"{magic}\ndef f(x):\n    return x\n") == ""


def test_time_runs_its_statement_in_the_notebooks_namespace():
    namespace = fresh_namespace()
    run_cells([("cell", as_python("%time y = 41 + 1\n"))], namespace)
    assert namespace["y"] == 42


def test_a_cell_that_displays_what_it_made_runs_as_in_jupyter():
    namespace = fresh_namespace()
    run_cells([("cell", "display('a demonstration')\ndef f(x):\n    return x\n")], namespace)
    assert namespace["__cell_errors__"] == [] and namespace["f"](1) == 1


def test_an_answer_under_a_main_guard_is_defined_as_in_jupyter():
    # Jupyter's kernel runs every cell as __main__; a student used to scripts may guard a cell's code by it.
    namespace = fresh_namespace()
    run_cells([("softmax", 'if __name__ == "__main__":\n    def softmax(S, axis=-1):\n        return S\n')], namespace)
    assert namespace["__cell_errors__"] == [] and namespace["softmax"](1) == 1
    # In a cell of the student's own, what runs under the guard is its definitions, as at the top level.
    own = {"cell_type": "code", "metadata": {},
           "source": 'if "__main__" == __name__:\n    def helper(x):\n        return 2 * x\n    print(helper(1))\n    1 / 0\n'}
    run_cells(answer_cells(None, [own]), namespace)
    assert namespace["__cell_errors__"] == [] and namespace["helper"](2) == 4


def test_run_runs_a_script_as_ipython_does_and_its_names_join_the_notebooks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helpers.py").write_text("seen = __name__\ndef twice(x):\n    return 2 * x\n")
    namespace = fresh_namespace()
    run_cells([("cell", as_python("%run helpers.py\n"))], namespace)
    assert namespace["__cell_errors__"] == [] and namespace["twice"](2) == 4 and namespace["seen"] == "__main__"
    assert namespace["__name__"] == "__main__" and "__file__" not in namespace  # the script's own names stay its own
    run_cells([("cell", as_python("%run -n helpers\n"))], namespace)  # its own name; the .py found as IPython does
    assert namespace["seen"] == "helpers"
    (tmp_path / "uses.py").write_text("found = given + 1\n")
    run_cells([("cell", "given = 1\n" + as_python("%run -i uses.py\n"))], namespace)  # in the notebook's namespace
    assert namespace["found"] == 2 and namespace["__cell_errors__"] == []


@pytest.mark.parametrize("line, error", [("%run other.ipynb", "only a Python script (.py) is run"),
                                         ("%run -m helpers", "only a Python script (.py) is run"),
                                         ("%run missing.py", "FileNotFoundError")])
def test_run_of_what_grading_does_not_run_fails_its_cell_saying_so(line, error, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = fresh_namespace()
    run_cells([("cell", as_python(line + "\n"))], namespace)
    assert len(namespace["__cell_errors__"]) == 1 and error in namespace["__cell_errors__"][0]


def test_a_cell_of_the_students_own_keeps_the_scripts_it_runs_with_its_definitions():
    own = {"cell_type": "code", "metadata": {}, "source": "%matplotlib inline\n%run helpers.py\nprint('hi')\nx = 1\n"}
    [(label, kept)] = answer_cells(None, [own])
    assert label == "your cell 1" and kept == "get_ipython().run_line_magic('run', 'helpers.py')\nx = 1"


def test_a_cell_of_the_students_own_keeps_its_blocks_of_definitions_alone():
    # An import with a fallback, a definition chosen by an if: the answer that uses them works in JupyterLab,
    # and was graded "name 'torch' is not defined". A block that also demonstrates is still left out.
    source = ("try:\n    import torch\nexcept ImportError:\n    torch = None\n"
              "if torch is None:\n    def backend():\n        return 'numpy'\nelse:\n    def backend():\n"
              "        return 'torch'\n"
              "try:\n    import missing_module\nexcept ImportError:\n    print('no missing_module')\n"
              "for i in range(3):\n    def f():\n        pass\n")
    [(_, kept)] = answer_cells(None, [{"cell_type": "code", "metadata": {}, "source": source}])
    namespace = fresh_namespace()
    run_cells([("cell", kept)], namespace)
    assert namespace["__cell_errors__"] == [] and namespace["backend"]() in ("numpy", "torch")
    assert "missing_module" not in kept and "print" not in kept and "for" not in kept


def test_what_a_cell_of_the_students_own_left_out_is_named_only_where_the_answer_reads_what_it_changes(tmp_path):
    """left_out_note: a loop filling a table a helper of the answer reads, and a method call under the main guard
    on a list the answer reads, are named with their lines; a demonstration, a call on a module (np.seterr)
    and a loop over names the answer never reads are not; an answer that reads none of them gets no note."""
    own = ("TABLE = {}\nfor k in range(3):\n    TABLE[k] = 2 * k\nprint(TABLE)\nnp.seterr(all='ignore')\n"
           "for unused in range(2):\n    pass\nif __name__ == '__main__':\n    CACHE = []\n    CACHE.append(1)\n")
    answer = "def helper(k):\n    return TABLE[k] + len(CACHE)\n\ndef f(k):\n    return np.float64(helper(k))\n"
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {}, "source": own},
        {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "f", "solution": True}}, "source": answer}]}))
    namespace = fresh_namespace()
    run_cells(answer_cells(notebook), namespace)
    note = left_out_note(left_out_statements(notebook), namespace["f"], namespace)
    assert note.startswith(" (while graded, a cell of your own runs only its definitions, so these did not run: "
                           "the for loop at line 2 of your cell that begins `TABLE = {}`, which changes TABLE; the "
                           "call at line 10 of your cell that begins `TABLE = {}`, which changes CACHE. "), note
    assert left_out_note(left_out_statements(notebook), lambda k: np.ones(k), namespace) == ""


@pytest.mark.parametrize("source, names", [
    ("def soft_max(x):\n    inner = 1\n    return x\nclass Heads:\n    pass\n", ["soft_max", "Heads"]),
    ("Softmax = lambda x: x\nscale: float = 0.5\na, b = 1, 2\nfor i in range(2):\n    pass\nx += 1\n",
     ["Softmax", "scale", "a", "b", "i", "x"]),
    ("import numpy as np\nfrom workbook import my\nfrom figures import *\nnp.random.seed(0)\nprint('hi')\nT[0] = 1\n", ["np", "my"]),
    ("def broken(:\n", []),                                      # a syntax error binds nothing
    ("(" * 400 + ")" * 400, [])])                                # nor a cell nested too deeply to read
def test_a_cell_binds_the_names_its_top_level_statements_define(source, names):
    assert bound_names(source) == names
