"""An answer cell's code as tokens that renaming, comments and reordering do not change.

    tokens(source) → [(token, line), ...]   line: 1-based, in `source` as written

Read with `ast` (nothing is run): docstrings and comments go; every name the cell
binds (variables, parameters, its own functions, loop targets) becomes "V",
while what it did not bind (np, math, builtins, another exercise's function)
and attribute names (`.einsum`, `.T`) stay, so a loop, an einsum and a
vectorised answer stay apart. Statements a block could run in either order
(neither reads or writes what the other writes) are put in one canonical order:
a dependency graph over the block's statements, sorted topologically with ties
broken by the statements' own tokens; a statement that leaves the block
(return, raise, break, continue, yield) keeps its place; between statements
alike, the one whose followers' tokens come first goes first. A cell that does not
parse (a syntax error, an IPython magic) falls back to Python's tokenizer with
the same renaming, and no reordering.
"""

from __future__ import annotations

import ast
import builtins
import heapq
import io
import keyword
import tokenize

Token = tuple[str, int]  # (text, line)
_BUILTINS = frozenset(dir(builtins))
_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await,
           ast.Global, ast.Nonlocal)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def tokens(source: str) -> list[Token]:
    """The normalised tokens of `source` (see the module's docstring)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: a null byte
        return _tokenizer_tokens(source)
    return _Emitter(_bound_names(tree)).block(tree.body)


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def _bound_names(tree: ast.AST) -> frozenset[str]:
    """Every name the cell binds itself; imported names stay as they are (they name libraries)."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return frozenset(bound)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


class _Effects:
    """The names one statement reads and writes, and whether it leaves its block."""

    def __init__(self, statement: ast.stmt, bound: frozenset[str]):
        self.bound = bound
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.leaves = False
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.writes.add(statement.name)  # its body runs later: only decorators and defaults run now
            parts = [*statement.decorator_list, *getattr(statement.args, "defaults", ()),
                     *getattr(statement, "bases", ())]
        else:
            parts = [statement]
        for part in parts:
            self._visit(part)
        if isinstance(statement, ast.Expr):
            self.writes |= self.reads  # a bare call may change what it is given

    def _visit(self, node: ast.AST) -> None:
        for child in ast.walk(node):
            if isinstance(child, _LEAVES):
                self.leaves = True
            elif isinstance(child, ast.Name):
                (self.reads if isinstance(child.ctx, ast.Load) else self.writes).add(child.id)
            elif isinstance(child, (ast.Subscript, ast.Attribute)) and not isinstance(child.ctx, ast.Load):
                self.writes |= {n.id for n in ast.walk(child.value) if isinstance(n, ast.Name)}
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                # x.append(...), x.sort(): a method may change its object (np.exp(...) changes no np)
                self.writes |= {n.id for n in ast.walk(child.func.value)
                                if isinstance(n, ast.Name) and n.id in self.bound}
            elif isinstance(child, ast.keyword) and child.arg == "out":
                self.writes |= {n.id for n in ast.walk(child.value) if isinstance(n, ast.Name)}

    def conflicts(self, other: _Effects) -> bool:
        return (self.leaves or other.leaves or bool(self.writes & (other.reads | other.writes))
                or bool(self.reads & other.writes))


class _Emitter:
    def __init__(self, bound: frozenset[str]):
        self.bound = bound

    def block(self, statements: list[ast.stmt]) -> list[Token]:
        """The tokens of a block, its statements in canonical order."""
        kept = [s for s in statements if not _is_docstring(s)]
        emitted = [self.node(s, s.lineno) for s in kept]
        effects = [_Effects(s, self.bound) for s in kept]
        after = {i: [j for j in range(i + 1, len(kept)) if effects[i].conflicts(effects[j])] for i in range(len(kept))}
        waiting = [0] * len(kept)
        for later in after.values():
            for j in later:
                waiting[j] += 1
        # A tie between statements alike (three projections) goes to the one whose followers come first.
        own = [" ".join(text for text, _ in toks) for toks in emitted]
        keys = [(own[i], sorted(own[j] for j in after[i])) for i in range(len(kept))]
        ready = [(keys[i], i) for i in range(len(kept)) if not waiting[i]]
        heapq.heapify(ready)
        out: list[Token] = []
        while ready:
            _, i = heapq.heappop(ready)
            out += emitted[i]
            for j in after[i]:
                waiting[j] -= 1
                if not waiting[j]:
                    heapq.heappush(ready, (keys[j], j))
        return out

    def node(self, node: ast.AST, line: int) -> list[Token]:
        line = getattr(node, "lineno", line)
        if isinstance(node, ast.Name):
            return [("V" if node.id in self.bound else node.id, line)]
        if isinstance(node, ast.Constant):
            value = node.value
            return [("S" if isinstance(value, (str, bytes)) else repr(value), line)]
        out = [(type(node).__name__, line)]
        if isinstance(node, ast.Attribute):
            out.append(("." + node.attr, line))
        elif isinstance(node, ast.keyword):
            out.append((f"{node.arg}=", line))
        elif isinstance(node, (ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(("V", line))
        elif isinstance(node, ast.alias):
            out.append((node.name, line))
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", line))
        for field, value in ast.iter_fields(node):
            if field == "ctx" or not isinstance(value, (ast.AST, list)):
                continue
            if isinstance(value, ast.AST):
                out += self.node(value, line)
            elif value and isinstance(value[0], ast.stmt):
                out += [(f"<{field}", line), *self.block(value), (">", line)]
            else:
                for item in value:
                    if isinstance(item, ast.AST):
                        out += self.node(item, line)
        return out


def _tokenizer_tokens(source: str) -> list[Token]:
    """Tokens of code that does not parse: every name that is not a keyword, a builtin or an attribute
    becomes "V"; strings "S"; comments and blank lines go."""
    out: list[Token] = []
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER)
    previous = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in skip:
                continue
            text = tok.string
            if tok.type == tokenize.NAME and not keyword.iskeyword(text) and text not in _BUILTINS \
                    and previous != ".":
                text = "V"
            elif tok.type == tokenize.STRING:
                text = "S"
            elif tok.type == tokenize.INDENT:
                text = "<indent"
            elif tok.type == tokenize.DEDENT:
                text = ">"
            out.append((text, tok.start[0]))
            previous = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # what came before the error still counts
    return out
