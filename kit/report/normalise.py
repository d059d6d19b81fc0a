"""An answer cell's code as tokens that renaming, comments and reordering do not change.

    tokens(source) → [(token, line), ...]   line: 1-based, in `source` as written
    tokens(source, arguments=True): the same, the function's parameters numbered ("V:0", "V:1", ...)
    read(source) → Reading(tokens, the statement of each, whether `ast` read them, the name behind each "V")

Read with `ast` (nothing is run): docstrings, comments and type hints go; every name the cell
binds (variables, parameters, its own functions, loop targets) becomes "V",
while what it did not bind (np, math, builtins, another exercise's function)
and attribute names (`.einsum`, `.T`) stay, so a loop, an einsum and a
vectorised answer stay apart. Statements a block could run in either order
(neither reads or writes what the other writes) are put in one canonical order:
a dependency graph over the block's statements, sorted topologically with ties
broken by the statements' own tokens (the function's parameters told apart by
position, so three projections sort the same way in any order); a statement that leaves the block
(return, raise, break, continue, yield) keeps its place; between statements
alike, the one whose followers' tokens come first goes first. A cell that does not
parse (a syntax error, an IPython magic) falls back to Python's tokenizer with
the same renaming, and no reordering; so does a cell nested too deeply for
`ast` or for this reading (a chain of thousands of `+`, written to break the
report). Only the first MAX_CHARACTERS of a cell are read: an honest answer is
a few thousand.

One job, kept whole past 250 lines: one reading of a cell; its emitter (`_Emitter`) and the statements'
effects (`_Effects`), which order them, are two halves of one walk over the tree.
"""

from __future__ import annotations

import ast
import builtins
import heapq
import io
import keyword
import re
import tokenize
import zlib
from typing import NamedTuple

from kit.report.canonical import canonical

Token = tuple[str, int]  # (text, line)
Numbered = tuple[str, int, int]  # (text, line, statement), while a cell is read
MAX_CHARACTERS = 100_000
_BUILTINS = frozenset(dir(builtins))
_UNREADABLE = (SyntaxError, ValueError, RecursionError, MemoryError)  # ValueError: a null byte
_LEAVES = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await,
           ast.Global, ast.Nonlocal)


def tokens(source: str, arguments: bool = False, main: str | None = None) -> list[Token]:
    """The normalised tokens of `source` (see the module's docstring). arguments: the parameters of the
    exercise's function (`main`, or the cell's first function) are told apart by position, "V:0", "V:1", ...
    (`unnumbered` makes them "V")."""
    return read(source, arguments, main).tokens


class Reading(NamedTuple):
    tokens: list[Token]
    statements: list[int]  # the statement each token is part of (a block's header is one, each line of its body
                           # another), in the canonical order
    parsed: bool           # read with `ast` (False: with Python's tokenizer, a statement a line)
    names: tuple[str, ...] = ()  # the name behind each token that a name the cell binds became ("V"), else "";
                                 # all "" for a cell read with the tokenizer (what renaming changed: renaming.py)


def read(source: str, arguments: bool = False, main: str | None = None) -> Reading:
    """`tokens(source, arguments, main)`, the statement of each, and whether they were read with `ast`."""
    source = source[:MAX_CHARACTERS]
    try:
        tree = ast.parse(source)
        written = _bound(tree)  # before canonical.py inlines a name away: a string may still say it
        tree = canonical(tree, main)
        emitter = _Emitter(_parameters(tree, main))
        emitted = emitter.block(tree.body)
    except _UNREADABLE:
        toks = _tokenizer_tokens(source)
        return Reading(toks, [line for _, line in toks], False)
    named = {name: "V" for name in emitter.bound}
    if arguments:
        named |= {name: f"V:{i}" for name, i in emitter.parameters.items()}
    def token(text: str) -> str:
        if text[:1] == _NAME:
            return named.get(text[1:], text[1:])
        return _string(text[1:], written | emitter.bound) if text[:1] == _TEXT else text
    toks = [(token(text), line) for text, line, _ in emitted]
    names = tuple(text[1:] if text[:1] == _NAME and tok == "V" else ""
                  for (text, *_), (tok, _) in zip(emitted, toks))
    return Reading(toks, [serial for *_, serial in emitted], True, names)


def _bound(tree: ast.Module) -> set[str]:
    """Every name the cell binds: assigned, a parameter, a function or class of its own."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
    return found


def _parameters(tree: ast.Module, main: str | None) -> dict[str, int]:
    """The parameters of the exercise's function (`main`, or the cell's first) → their positions (what the
    stub's signature fixes)."""
    functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    function = next((f for f in functions if f.name == main), functions[0] if functions else None)
    if function is None:
        return {}
    given = function.args
    every = [*given.posonlyargs, *given.args, given.vararg, *given.kwonlyargs, given.kwarg]
    return {arg.arg: i for i, arg in enumerate(every) if arg is not None}


def unnumbered(toks: list[Token]) -> list[Token]:
    """`tokens(..., arguments=True)` as `tokens(...)` gives them: every parameter "V"."""
    return [("V" if text[:2] == "V:" else text, line) for text, line in toks]


_UNREAD_FIELDS = frozenset({"ctx", "annotation", "returns", "type_comment"})  # type hints change nothing run


def _children(node: ast.AST):
    """(field, value) of a node's fields that hold nodes (ast.iter_fields, without its generator's cost), but
    type hints."""
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, (ast.AST, list)) and name not in _UNREAD_FIELDS:
            yield name, value


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


class _Effects:
    """The names a statement reads and writes, and whether it leaves its block; filled while it is emitted."""

    def __init__(self):
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.leaves = False

    def names(self) -> set[str]:
        return self.reads | self.writes

    def add(self, other: _Effects) -> None:
        self.reads |= other.reads
        self.writes |= other.writes
        self.leaves = self.leaves or other.leaves

    def conflicts(self, other: _Effects) -> bool:
        return (self.leaves or other.leaves or bool(self.writes & (other.reads | other.writes))
                or bool(self.reads & other.writes))


_DEFINES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


_NAME = "\x00"  # marks a name until the whole cell is read and it is known whether the cell binds it
_TEXT = "\x01"  # marks a string's text, for the same reason


class _Emitter:
    def __init__(self, parameters: dict[str, int]):
        self.bound: set[str] = set()  # the names the cell binds (so far, while it is read)
        self.parameters = parameters  # the first function's parameters → position (they break ties in order)
        self.serial = 0               # the statement whose tokens are being emitted (a block's header apart)
        self.statements = 0

    def block(self, statements: list[ast.stmt], effects: _Effects | None = None) -> list[Numbered]:
        """The tokens of a block, its statements in canonical order; what they read and write goes to
        `effects` (the statement that holds the block)."""
        kept = [s for s in statements if not _is_docstring(s)]
        each = [_Effects() for _ in kept]
        emitted = [self.statement(s, e) for s, e in zip(kept, each)]
        if effects is not None:
            for e in each:
                effects.add(e)
        if len(kept) == 1:
            return emitted[0]
        after = {i: [j for j in range(i + 1, len(kept)) if each[i].conflicts(each[j])] for i in range(len(kept))}
        waiting = [0] * len(kept)
        for later in after.values():
            for j in later:
                waiting[j] += 1
        # A tie between statements alike (three projections) goes to the one whose followers come first.
        own = [" ".join(f"N{self.parameters.get(text[1:], '')}" if text[:1] == _NAME else text for text, *_ in toks)
               for toks in emitted]
        keys = [(own[i], sorted(own[j] for j in after[i])) for i in range(len(kept))]
        ready = [(keys[i], i) for i in range(len(kept)) if not waiting[i]]
        heapq.heapify(ready)
        out: list[Numbered] = []
        while ready:
            _, i = heapq.heappop(ready)
            out += emitted[i]
            for j in after[i]:
                waiting[j] -= 1
                if not waiting[j]:
                    heapq.heappush(ready, (keys[j], j))
        return out

    def statement(self, node: ast.stmt, effects: _Effects) -> list[Numbered]:
        if isinstance(node, ast.AnnAssign) and node.value is None:  # `x: int`, a type hint alone: nothing runs
            return []
        outer, self.statements = self.serial, self.statements + 1
        self.serial = self.statements
        try:
            return self._statement(node, effects)
        finally:
            self.serial = outer

    def _statement(self, node: ast.stmt, effects: _Effects) -> list[Numbered]:
        if isinstance(node, _DEFINES):  # its body runs later: it binds its name now, reads nothing yet
            out = self.node(node, node.lineno, _Effects())
            effects.writes.add(node.name)
            return out
        out = self.node(node, node.lineno, effects)
        if isinstance(node, ast.Expr):
            effects.writes |= effects.reads  # a bare call may change what it is given
        return out

    def node(self, node: ast.AST, line: int, effects: _Effects) -> list[Numbered]:
        line = getattr(node, "lineno", line)
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Load:
                effects.reads.add(node.id)
            else:
                effects.writes.add(node.id)
                self.bound.add(node.id)
            return [(_NAME + node.id, line, self.serial)]
        if kind is ast.Constant:
            value = node.value
            if isinstance(value, str):
                return [(_TEXT + value, line, self.serial)]
            return [("S" if isinstance(value, bytes) else repr(value), line, self.serial)]
        if kind in _LEAVES:
            effects.leaves = True
        out = [("Assign" if kind is ast.AnnAssign else kind.__name__, line, self.serial)]  # `x: float = ...` is `x = ...`
        if kind is ast.Attribute:
            out.append(("." + node.attr, line, self.serial))
        elif kind is ast.keyword:
            out.append((f"{node.arg}=", line, self.serial))
        elif kind is ast.arg:
            self.bound.add(node.arg)
            out.append(("V", line, self.serial))
        elif kind in _DEFINES:
            self.bound.add(node.name)
            out.append(("V", line, self.serial))
        elif kind is ast.ExceptHandler and node.name:
            self.bound.add(node.name)
        elif kind is ast.alias:
            out.append((node.name, line, self.serial))
        elif kind is ast.ImportFrom:
            out.append((node.module or "", line, self.serial))
        for field, value in _children(node):
            if isinstance(value, ast.AST):
                if kind is ast.Call and field == "func" and type(value) is ast.Attribute:
                    # x.append(...), x.sort(): a method may change its object (np.exp(...) changes no np)
                    effects.writes |= {n for n in _object_names(value.value) if n in self.bound}
                # x[i] = ..., x.a = ..., out=x: x changes
                if (field == "value" and kind in (ast.Subscript, ast.Attribute) and type(node.ctx) is not ast.Load) \
                        or (kind is ast.keyword and node.arg == "out"):
                    inner = _Effects()
                    out += self.node(value, line, inner)
                    effects.add(inner)
                    effects.writes |= inner.names()
                else:
                    out += self.node(value, line, effects)
            elif value and isinstance(value[0], ast.stmt):
                out += [(f"<{field}", line, self.serial), *self.block(value, effects), (">", line, self.serial)]
            else:
                for item in value:
                    if isinstance(item, ast.AST):
                        out += self.node(item, line, effects)
        return out


def _string(value: str, bound: set[str]) -> str:
    """A string's token: its words, case and spacing aside, a name the cell binds as "V" in a string of several
    words (a message copied word for word is evidence; renaming throughout, strings too, is no disguise). A
    string of one word (an einsum's '...qd,...kd->...qk', a key) is code as it is: a name of the cell that
    happens to be spelled like it ("qk") changes nothing in it."""
    bound = bound if re.search(r"\s", value.strip()) else set()
    words = " ".join("V" if word in bound else word.lower() for word in re.findall(r"\w+|[^\w\s]", value))
    return f"S{zlib.crc32(words.encode(errors='surrogatepass')):08x}" if words else "S"  # "\ud83d" is a string


def _object_names(node: ast.AST) -> set[str]:
    """The names in `x.y` or `x[i]` that a method called on it could change: x."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


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
    except (tokenize.TokenError, IndentationError, SyntaxError, RecursionError, MemoryError):
        pass  # what came before the error still counts
    return out
