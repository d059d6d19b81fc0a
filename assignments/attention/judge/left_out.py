"""What a message adds when an answer fails for want of work a cell of the student's own does in JupyterLab.

Grading runs only the definitions of a student's own cells (cells.py), so a
loop there that fills a table the answer reads did not run: the answer meets
an empty table (a KeyError), or a table filled in part (a wrong value), where in
JupyterLab it passed. `left_out_note` names those statements; the grading child
sends it with the answer's outcome, and the grader adds it to the message of
a case the answer fails.
"""

from __future__ import annotations

import ast
import json
import types

from .cells import left_out, own_cells

# How a note names a statement that grading leaves out.
_STATEMENT_KINDS = {ast.For: "for loop", ast.AsyncFor: "for loop", ast.While: "while loop", ast.With: "with block",
                    ast.AugAssign: "augmented assignment", ast.If: "if block", ast.Try: "try block",
                    ast.Delete: "del", ast.Expr: "call"}


def left_out_statements(path) -> list[tuple[str, ast.stmt, set[str]]]:
    """(how a message names its cell, the statement, the names it changes) of each statement of the notebook's
    cells of the student's own that grading leaves out; read once per notebook."""
    with open(path, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    return [(cell, node, _names_changed(node)) for cell, source in own_cells(cells) for node in left_out(source)]


def left_out_note(statements, answer, namespace: dict) -> str:
    """What to add to the message of an answer that failed while graded (it raised, or gave a wrong value): the
    `statements` (left_out_statements') that change a name the answer reads (or a function of the notebook that
    it calls reads); '' when there is none."""
    if not statements:
        return ""
    read = _names_read(answer, namespace)
    found = [f"the {_STATEMENT_KINDS.get(type(node), 'statement')} at line {node.lineno} of {cell}, "
             f"which changes {', '.join(sorted(changed & read))}"
             for cell, node, changed in statements if changed & read]
    if not found:
        return ""
    return (f" (while graded, a cell of your own runs only its definitions, so these did not run: {'; '.join(found)}."
            " Move that work into a function your answer calls, or into the answer's own cell, which runs whole)")


def _names_changed(node: ast.stmt) -> set[str]:
    """The names a statement binds, deletes or changes anywhere in it: assigned or imported names, functions and
    classes defined, and the name under an item or attribute set (``table[k] = v``) or a method called on it
    (``table.update(...)``)."""
    changed = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            changed.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            changed.add(sub.name)
        elif isinstance(sub, ast.alias):
            changed.add(sub.asname or sub.name.split(".")[0])
        elif isinstance(sub, (ast.Subscript, ast.Attribute)) and isinstance(sub.ctx, (ast.Store, ast.Del)) or \
                isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            base = sub.func.value if isinstance(sub, ast.Call) else sub.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                changed.add(base.id)
    return changed


def _names_read(answer, namespace: dict) -> set[str]:
    """The global names the answer's code reads, and those of the notebook's functions it reads, in turn; a
    module's name (``np``) left out: a statement calling ``np.seterr`` changes no table of the answer's."""
    read, seen, todo = set(), set(), [answer]
    while todo:
        code = getattr(todo.pop(), "__code__", None)
        if not isinstance(code, types.CodeType) or code in seen:
            continue
        seen.add(code)
        codes = [code]
        while codes:
            current = codes.pop()
            codes += [c for c in current.co_consts if isinstance(c, types.CodeType)]
            for name in current.co_names:
                value = namespace.get(name)
                if not isinstance(value, types.ModuleType):
                    read.add(name)
                if isinstance(value, types.FunctionType):
                    todo.append(value)
    return read
