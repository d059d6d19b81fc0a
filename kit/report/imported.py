"""An answer imported from the student's own module, read as the code that was graded.

A student may answer `from my_helpers import softmax` and keep the function in
a module handed in beside the notebooks: it is graded
(autograder/student_modules.py), so a similarity check that read the cell
alone would compare one import line, and a copy moved into a module would go
unseen. `with_imports_resolved` gives the cell with the definitions it
imports from the student's modules, and every definition of that module they
use, in the module's order, in place of the lines that import them: the code
compared is the code graded. Nothing here runs code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)


def _parsed(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _imports(answer: ast.Module, modules: set[str]) -> dict[str, set[str]]:
    """Module → the names the answer takes from it ("*": all), for the student's `modules`."""
    wanted: dict[str, set[str]] = {}
    for node in ast.walk(answer):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module in modules:
            wanted.setdefault(node.module, set()).update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in (a for a in node.names if a.name in modules):
                bound = alias.asname or alias.name
                wanted.setdefault(alias.name, set()).update(
                    used.attr for used in ast.walk(answer) if isinstance(used, ast.Attribute)
                    and isinstance(used.value, ast.Name) and used.value.id == bound)
    return wanted


def _names_defined(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)]


def used_definitions(start: list[ast.stmt], lookup: Callable[[str], ast.stmt | None]) -> list[ast.stmt]:
    """The top-level definitions the statements of `start` use, and those they use in turn, in the order found;
    lookup: a name → its definition, or None for a name not to follow."""
    found, waiting = [], list(start)
    while waiting:
        node = waiting.pop()
        for used in sorted({name.id for name in ast.walk(node) if isinstance(name, ast.Name)}):
            definition = lookup(used)
            if definition is not None and definition not in found:
                found.append(definition)
                waiting.append(definition)
    return found


def definitions(module: str, names: set[str]) -> str:
    """The top-level definitions of `module` (source) named in `names` ("*": all), and those they use, in the
    module's order; "" when it has none of them or does not parse."""
    tree = _parsed(module)
    if tree is None:
        return ""
    defined = {name: node for node in tree.body if isinstance(node, _DEFINITIONS) for name in _names_defined(node)}
    start = [node for name, node in defined.items() if name in names or "*" in names]
    needed = {id(node) for node in [*start, *used_definitions(start, defined.get)]}
    return "\n\n\n".join(ast.get_source_segment(module, node) or "" for node in tree.body if id(node) in needed)


def _only_binds_theirs(node: ast.stmt, modules: set[str], bound: set[str]) -> bool:
    """Whether a statement of the cell only imports from the student's modules, or names again what it
    imported (`attention = my_attention.attention`); `bound` gathers the names such imports bind."""
    if isinstance(node, ast.ImportFrom) and not node.level and node.module in modules:
        bound.update(alias.asname or alias.name for alias in node.names)
        return True
    if isinstance(node, ast.Import) and all(alias.name in modules for alias in node.names):
        bound.update(alias.asname or alias.name for alias in node.names)
        return True
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        value = node.value.value if isinstance(node.value, ast.Attribute) else node.value
        return isinstance(value, ast.Name) and value.id in bound
    return False


def with_imports_resolved(answer: str, modules: dict[str, str]) -> str:
    """The answer cell with what it imports from the student's `modules` (module name → source) in place of the
    statements that import it (`definitions` of each, below what else the cell holds); the cell as it is when it
    imports nothing of theirs."""
    tree = _parsed(answer) if modules else None
    wanted = _imports(tree, set(modules)) if tree is not None else {}
    imported = [code for module, names in sorted(wanted.items()) if (code := definitions(modules[module], names))]
    if not imported:
        return answer
    bound: set[str] = set()
    dropped = [node for node in tree.body if _only_binds_theirs(node, set(modules), bound)]
    kept = {line for node in tree.body if node not in dropped for line in range(node.lineno, node.end_lineno + 1)}
    lines = answer.splitlines(keepends=True)
    for line in {line for node in dropped for line in range(node.lineno, node.end_lineno + 1)} - kept:
        lines[line - 1] = ""
    rest = "".join(lines).strip()
    return "\n\n\n".join(filter(None, [rest, *imported])) + "\n"
