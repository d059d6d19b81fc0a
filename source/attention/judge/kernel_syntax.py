"""A notebook cell as Python, the way Jupyter's kernel reads it: magics, shell escapes and help.

Answer cells run outside a kernel when they are graded (cells.py), so a cell
that Jupyter runs, with a `%timeit` under the answer, a `%%time` on top or a
`!pip install` line, must not fail here as a syntax error. `as_python` gives
such a cell as Jupyter would run it, line for line:

- a cell magic's body runs where Jupyter runs it in the notebook's namespace
  (%%time, %%capture); a cell under any other cell magic (%%timeit, whose
  definitions stay inside its timer; %%bash, %%writefile, %%html, ...) is not
  Python that the notebook keeps, and is dropped;
- line magics, shell escapes and help (`%matplotlib inline`, `!ls`,
  `files = !ls`, `softmax?`) become IPython's own calls to `get_ipython()`
  (IPython's transformer), which in the grading namespace (`NoShell`) run
  nothing, except `%time statement`, which runs the statement as Jupyter does,
  and `%run script.py`, which runs a script handed in beside the notebooks
  (autograder/student_modules.py) as IPython does.

The kernel also gives every cell `display` (IPython's builtin); a cell that
calls it runs here too (`display`: shows nothing).

A cell that is Python already is given back unchanged.
"""

from __future__ import annotations

import builtins
import os
import re
import shlex

# A line only IPython reads: a magic or shell escape (also assigned: `files = !ls`), or help (`name?`).
_IPYTHON_LINE = re.compile(r"^[ \t]*(?:%|!|[\w.]+[ \t]*=[ \t]*[%!])|\?[ \t]*$", re.MULTILINE)
_CELL_MAGIC = re.compile(r"\A((?:[ \t]*\n)*)%%(\w*)[^\n]*(?:\n|\Z)")
BODY_RUNS = ("time", "capture")  # the cell magics whose body Jupyter runs in the notebook's namespace


def as_python(source: str) -> str:
    """The cell's source as Python that runs what Jupyter's kernel would, each line where it was."""
    if "\r\n" in source:  # written on Windows: IPython's transformer reads lines ending in \n
        source = source.replace("\r\n", "\n")
    if not _IPYTHON_LINE.search(source) or _compiles(source):
        return source
    magic = _CELL_MAGIC.match(source)
    if magic:
        if magic.group(2) not in BODY_RUNS:
            return ""
        source = magic.group(1) + "\n" + source[magic.end():]  # the magic's line left blank
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # no IPython: the cell fails as a syntax error, which says where
        return source
    lines = source.splitlines()
    blank = next((i for i, line in enumerate(lines) if line.strip()), len(lines))  # IPython drops them
    return "\n" * blank + TransformerManager().transform_cell(source)


def _compiles(source: str) -> bool:
    try:
        compile(source, "<cell>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    except Exception:  # too deep to compile, a null byte, ...: as it is, it fails on its own when run
        return True
    return True


def display(*objects, **options) -> None:
    """IPython's `display`, which every cell in Jupyter has: nothing is shown while an answer is graded."""


def run_script(line: str, namespace: dict) -> None:
    """`%run script.py` as IPython runs it: the script as __main__ (`-n`: under its own name) in a namespace of
    its own whose names then join the notebook's (`-i`: in the notebook's namespace itself). A notebook, an
    .ipy file or a module (`-m`) is not run while an answer is graded: that raises, saying so."""
    words = shlex.split(line)
    options = []
    while words and words[0].startswith("-"):
        options.append(words.pop(0))
    if "-m" in options or not words or words[0].endswith((".ipynb", ".ipy")):
        raise RuntimeError(f"%run {line.strip()}: only a Python script (.py) is run while an answer is graded: "
                           f"put what it defines in a .py file beside your notebooks, and %run or import that")
    path = words[0] if os.path.exists(words[0]) or not os.path.exists(words[0] + ".py") else words[0] + ".py"
    with open(path, encoding="utf-8") as script:
        code = compile(script.read(), path, "exec", dont_inherit=True)
    if "-i" in options:
        exec(code, namespace)
        return
    own_names = ("__name__", "__file__", "__builtins__")
    own = {"__name__": os.path.splitext(os.path.basename(path))[0] if "-n" in options else "__main__",
           "__file__": path, "__builtins__": namespace.get("__builtins__", builtins)}
    exec(code, own)
    namespace.update({name: value for name, value in own.items() if name not in own_names})


class NoShell:
    """`get_ipython()` in the grading namespace: IPython's calls for magics and shell escapes run nothing,
    except `%time statement`, which runs the statement in the notebook's namespace, and `%run script.py`
    (`run_script`)."""

    def __init__(self, namespace: dict):
        self._namespace = namespace

    def run_line_magic(self, name: str, line: str, _stack_depth: int = 1):
        if name == "time" and line.strip():
            exec(compile(line, "<%time>", "exec"), self._namespace)
        elif name == "run":
            run_script(line, self._namespace)

    def run_cell_magic(self, name: str, line: str, cell: str):
        return None

    def system(self, command: str):
        return None

    def getoutput(self, command: str, split: bool = True, depth: int = 0) -> list:
        return []
