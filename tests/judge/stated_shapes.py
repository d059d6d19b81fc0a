"""The shapes an exercise's docstring gives, and whether a case fits them (notebook 01's rule on shapes).

A docstring gives its arguments' shapes as ``X: (..., n, d); W_q, W_k: (d, d_k)`` and its answer's as
``Returns (..., n_q, n_k)``. Notebook 01 says what they mean: ``...`` is any number of leading batch
dimensions, a size named twice is one size (an integer argument of that name included), and arrays that do
not fit raise a ValueError. Read here so that tests/judge/test_case_coverage.py can check the docstrings against the
cases both ways: every case that raises nothing fits them (its inputs, and the reference's answer), a case
that must raise for its shapes does not fit them, and every argument given a ``...`` meets a batch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np

from autograder.judge import fresh_inputs
from tests.judge.exercise_text import docstring, parameters, statements

# An argument's entry: ``X: (..., n, d) tokens``, ``W_q, W_k: (d, d_k)``, ``mask: None or (n, n) additive``.
ENTRY = re.compile(r"^(?P<names>\w+(?:, \w+)*): (?P<how>None or |additive, broadcastable to )?\((?P<dims>[^()]*)\)")
GROUP = re.compile(r"\(([^()]*)\)")
DIVISIBLE = re.compile(r"\bwith (\w+(?: and \w+)*) divisible by (\w+)")
DEFINED = re.compile(r"\bwith (\w+) = ")
NAME = re.compile(r"[A-Za-z_]\w*")
# What an entry says its numbers are, right after the shape: ``tokens: (n,) int``, ``allowed: (g, g) booleans``.
KIND = re.compile(r"\s*(?:positive )?(int|ints|integers?|integer ids|booleans)\b")
KINDS = {"int": "iu", "ints": "iu", "integer": "iu", "integers": "iu", "integer ids": "iu", "booleans": "b"}


@dataclass(frozen=True)
class Given:
    """One argument's shape as its entry gives it (broadcast: the argument need only broadcast to it; kind: the
    dtype kinds its numbers must be of, "iu" for integers, "b" for booleans, "" when the entry does not say)."""
    name: str
    dims: tuple[str, ...]
    broadcast: bool
    statement: str
    kind: str = ""

    @property
    def batched(self) -> bool:
        return self.dims[:1] == ("...",)


@dataclass(frozen=True)
class Stated:
    """The shapes one docstring gives: its arguments', its answer's (one per part), and the statements giving them."""
    arguments: tuple[Given, ...]
    returns: tuple[tuple[str, ...], ...]
    divisible: tuple[tuple[str, str], ...]
    statements: dict[str, tuple[str, ...]]  # a statement that gives shapes → its words that give them, "(..., n, d)"


def _tokens(text: str) -> list[str]:
    tokens = [t.strip() for t in text.split(",")]
    return tokens[:-1] if len(tokens) > 1 and tokens[-1] == "" else tokens  # "(n,)"


def _names(token: str) -> set[str] | None:
    """The names an expression token uses, or None when it is not one Python reads."""
    try:
        compile(token, "<shape>", "eval")
    except SyntaxError:
        return None
    return set(NAME.findall(token))


def _head(statement: str) -> str:
    """A statement up to its first colon outside brackets (what follows describes the answer's numbers)."""
    depth = 0
    for i, c in enumerate(statement):
        depth += (c in "([{") - (c in ")]}")
        if depth == 0 and statement.startswith(": ", i):
            return statement[:i]
    return statement


@cache
def stated(notebook: str, name: str) -> Stated:
    params, arguments, returns, divisible, giving = parameters(notebook, name), [], [], [], {}
    for statement in statements(docstring(notebook, name)):
        entry = ENTRY.match(statement)
        if entry and set(entry["names"].split(", ")) <= set(params):
            dims, kind = tuple(_tokens(entry["dims"])), KIND.match(statement, entry.end())
            arguments += [Given(n, dims, entry["how"] == "additive, broadcastable to ", statement,
                                KINDS[kind[1]] if kind else "") for n in entry["names"].split(", ")]
            divisible += [(size, by) for sizes, by in DIVISIBLE.findall(statement) for size in sizes.split(" and ")]
            giving[statement] = (f"({entry['dims']})",) + ((kind[1],) if kind else ())
    sizes = {t for g in arguments for t in g.dims if NAME.fullmatch(t)} | \
        (set(params) - {g.name for g in arguments})  # an integer argument names a size
    for statement in statements(docstring(notebook, name)):
        if statement.startswith("Returns "):
            head = _head(statement)
            known = sizes | set(DEFINED.findall(head))
            groups = [g for g in GROUP.findall(head) if ("," in g or g == "...") and not all(
                t.isdigit() for t in _tokens(g)) and all(t == "..." and i == 0 or t.isdigit() or (
                    _names(t) or {None}) <= known for i, t in enumerate(_tokens(g)))]
            if groups:
                returns += [tuple(_tokens(g)) for g in groups]
                giving[statement] = tuple(f"({g})" for g in groups)
    return Stated(tuple(arguments), tuple(returns), tuple(divisible), giving)


def _bind(dims: tuple[str, ...], shape: tuple[int, ...], sizes: dict, *, broadcast: bool = False) -> str:
    """Bind `dims` to `shape` (sizes: name → size, filled in); "" when they fit, else why not."""
    named = dims[1:] if dims[:1] == ("...",) else dims
    if len(shape) < len(named) and not broadcast or len(shape) > len(named) and dims[:1] != ("...",):
        return f"{len(shape)} dimensions for {len(named)}{' or more' if dims[:1] == ('...',) else ''}"
    for token, size in zip(reversed(named), reversed(shape)):
        if broadcast and size == 1:
            continue
        if NAME.fullmatch(token):
            if sizes.setdefault(token, size) != size:
                return f"{token} is {sizes[token]} and {size}"
        elif (_names(token) or {None}) <= set(sizes):
            if eval(token, {}, dict(sizes)) != size:  # noqa: S307 (a docstring's size expression)
                return f"{token} is {eval(token, {}, dict(sizes))}, not {size}"  # noqa: S307
    return ""


def arguments_of(notebook: str, name: str, case: dict) -> dict:
    """A case's inputs by parameter name (fresh ones: a seed is a new generator)."""
    args, kwargs = fresh_inputs(case)
    return {**dict(zip(parameters(notebook, name), args)), **kwargs}


def misfit(notebook: str, name: str, arguments: dict, answer=None, *, answered: bool = False) -> str:
    """Why the inputs (and, when `answered`, the answer) do not fit the shapes the docstring gives; "" if they do."""
    given = stated(notebook, name)
    sizes = {p: int(v) for p, v in arguments.items()
             if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))}
    batches = []
    for g in given.arguments:
        if arguments.get(g.name) is None:
            continue
        shape = np.shape(arguments[g.name])
        why = _bind(g.dims, shape, sizes, broadcast=g.broadcast)
        if why:
            return f"{g.name} {shape} does not fit '{g.statement}': {why}"
        if g.batched:
            batches.append(shape[:max(0, len(shape) - len(g.dims) + 1)])
    for size, by in given.divisible:
        if size in sizes and by in sizes and (sizes[by] < 1 or sizes[size] % sizes[by]):
            return f"{size} = {sizes[size]} is not divisible by {by} = {sizes[by]}"
    try:
        batch = np.broadcast_shapes(*batches)
    except ValueError:
        return f"the batch dimensions {batches} do not broadcast"
    if not answered or not given.returns:
        return ""
    parts = answer if isinstance(answer, tuple) else (answer,)
    if len(parts) != len(given.returns):
        return f"{len(parts)} parts answered for the {len(given.returns)} shapes given"
    for dims, part in zip(given.returns, parts):
        shape = np.shape(part)
        why = _bind(dims, shape, sizes) or (dims[:1] == ("...",) and shape[:len(shape) - len(dims) + 1] != batch
                                            and f"batch {shape[:len(shape) - len(dims) + 1]}, not {batch}")
        if why:
            return f"the answer {shape} does not fit {'(' + ', '.join(dims) + ')'}: {why}"
    return ""
