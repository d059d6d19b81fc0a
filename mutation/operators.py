"""The mutation operators: cosmic-ray's own, and the five it lacks, in its interface.

cosmic-ray (``cosmic_ray.operators``) replaces binary, comparison, unary and
boolean operators, True and False, break and continue, numbers (n ± 1) and
a loop's iterable (zero iterations). It has no operator that removes a
statement, removes an operand of ``and``/``or`` (a condition of a guard),
swaps two arguments or two operands, or changes a dtype; mutmut 3 has none
of these either but argument removal, and drives its mutants through files
and test runs rather than in-process. So the kit writes those five as
cosmic-ray `Operator`s (parso trees in, parso trees out) and drives all of
them through cosmic-ray's `mutate_code`.

Left out of cosmic-ray's set: VariableReplacer and VariableInserter (they
need a variable named in advance and insert random numbers: a mutant would
differ from run to run), RemoveDecorator (no reference has one) and NoOp.

`POSITIONS` leaves out what grading cannot see by design: the message of a
raised exception (the judge compares its type only) and annotations (never
evaluated: the references use ``from __future__ import annotations``).

One job, kept whole past 250 lines: the operators, each a short class of cosmic-ray's interface.
"""

from __future__ import annotations

import re
from functools import cache

import cosmic_ray.plugins
from cosmic_ray.operators.operator import Example, Operator
from parso.python.tree import Keyword, Name, Param

LEFT_OUT = {"core/VariableReplacer", "core/VariableInserter", "core/RemoveDecorator"}


def _swap(first, second) -> None:
    """Exchange two sibling nodes in their parent, each keeping the spacing before its place."""
    parent = first.parent
    i, j = parent.children.index(first), parent.children.index(second)
    a, b = first.get_first_leaf(), second.get_first_leaf()
    a.prefix, b.prefix = b.prefix, a.prefix
    parent.children[i], parent.children[j] = second, first
    first.parent = second.parent = parent


class _Choices(Operator):
    """An operator that can change a node in several ways, `_choices(node)`: one position per way."""

    def mutation_positions(self, node):
        for _ in self._choices(node):
            yield node.start_pos, node.end_pos

    @staticmethod
    def _choices(node) -> list:
        return []


class DeleteStatement(Operator):
    """A statement of a function's body becomes ``pass`` (its docstring aside)."""

    def mutation_positions(self, node):
        if node.type == "simple_stmt" and node.parent.type == "suite" and node.children[0].type != "string":
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        statement = node.children[0]
        node.children[0] = Keyword("pass", statement.start_pos, prefix=statement.get_first_leaf().prefix)
        node.children[0].parent = node
        return node

    @classmethod
    def examples(cls):
        return (Example("def f(x):\n    y = x + 1\n    return y\n", "def f(x):\n    pass\n    return y\n"),)


class DropOperand(_Choices):
    """One operand of an ``and``/``or`` chain is removed: a condition of a guard forgotten."""

    @staticmethod
    def _choices(node) -> list:
        return node.children[::2] if node.type in ("or_test", "and_test") else []

    def mutate(self, node, index):
        operands = node.children[::2]
        prefix = operands[0].get_first_leaf().prefix
        kept = [op for i, op in enumerate(operands) if i != index]
        joiner = node.children[1]
        children = []
        for op in kept:
            children += [Keyword(joiner.value, (0, 0), prefix=" "), op] if children else [op]
        kept[0].get_first_leaf().prefix = prefix
        if len(kept) == 1:
            kept[0].parent = node.parent
            return kept[0]
        node.children = children
        for child in children:
            child.parent = node
        return node

    @classmethod
    def examples(cls):
        return (Example("if a or b or c: pass", "if b or c: pass"),
                Example("if a or b or c: pass", "if a or c: pass", occurrence=1),
                Example("if a and b: pass", "if a: pass", occurrence=1))


class SwapArguments(_Choices):
    """Two neighbouring positional arguments of a call change places."""

    @staticmethod
    def _choices(node) -> list:
        if node.type != "arglist":
            return []
        positional = [c for c in node.children if c.type != "operator" and
                      not (c.type == "argument" and len(c.children) == 3 and c.children[1] == "=")
                      and not (c.type == "argument" and c.children[0].type == "operator")]
        return list(zip(positional, positional[1:]))

    def mutate(self, node, index):
        _swap(*self._choices(node)[index])
        return node

    @classmethod
    def examples(cls):
        return (Example("f(a, b, c=1)", "f(b, a, c=1)"),)


NOT_COMMUTING = {"-", "/", "//", "%", "@", "**"}


class SwapOperands(_Choices):
    """The two operands of a subtraction, division, matrix product or power change places."""

    @staticmethod
    def _choices(node) -> list:
        if node.type not in ("arith_expr", "term", "power"):
            return []
        return [i for i, c in enumerate(node.children) if c.type == "operator" and c.value in NOT_COMMUTING]

    def mutate(self, node, index):
        i = self._choices(node)[index]
        _swap(node.children[i - 1], node.children[i + 1])
        return node

    @classmethod
    def examples(cls):
        return (Example("y = a - b", "y = b - a"), Example("y = A @ B.T", "y = B.T @ A"))


DTYPES = {"float64": ("float32",), "float32": ("float64",), "int64": ("int32", "float64"), "bool_": ("int64",)}
KIND_LETTERS = re.compile(r"^[\"'][biufc]{1,5}[\"']$")


class ChangeDtype(_Choices):
    """A dtype changes: ``np.float64`` ↔ ``np.float32``, ``np.int64`` → int32 or float64, an
    ``.astype(...)`` left out, or a dtype kind string ("fiu") loses a letter or gains "f"."""

    @staticmethod
    def _choices(node) -> list:
        if isinstance(node, Name) and node.value in DTYPES and node.parent.type == "trailer":
            return list(DTYPES[node.value])
        if node.type == "atom_expr":
            return [i for i, c in enumerate(node.children[:-1]) if c.type == "trailer" and c.children[0] == "."
                    and c.children[1].value == "astype" and node.children[i + 1].children[0] == "("]
        if node.type == "string" and KIND_LETTERS.match(node.value) and node.parent.type == "comparison":
            letters = node.value[1:-1]
            return [letters.replace(c, "") for c in letters if len(letters) > 1] + \
                ([letters + "f"] if "f" not in letters else [])
        return []

    def mutate(self, node, index):
        change = self._choices(node)[index]
        if node.type == "atom_expr":  # .astype(...) left out
            del node.children[change:change + 2]
            return node.children[0] if len(node.children) == 1 else node
        node.value = f'"{change}"' if node.type == "string" else change
        return node

    @classmethod
    def examples(cls):
        return (Example("x = a.astype(np.float64)", "x = a"),
                Example("x = a.astype(np.float64)", "x = a.astype(np.float32)", occurrence=1),
                Example("ok = a.kind in 'iu'", 'ok = a.kind in "u"'))


class DropKeyword(_Choices):
    """A keyword argument of a call is left out (``keepdims=True``, ``dtype=...``, ``out=...``)."""

    @staticmethod
    def _choices(node) -> list[int]:
        if node.type not in ("arglist", "trailer"):
            return []
        return [i for i, c in enumerate(node.children)
                if c.type == "argument" and len(c.children) == 3 and c.children[1] == "="]

    def mutate(self, node, index):
        i = self._choices(node)[index]
        siblings = node.children
        if node.type == "trailer":  # f(x=1) → f()
            del siblings[i]
        elif i == 0:  # the first of several: its comma goes with it, the next one takes its place
            siblings[i + 2].get_first_leaf().prefix = siblings[i].get_first_leaf().prefix
            del siblings[i:i + 2]
        else:
            del siblings[i - 1:i + 1]
        return node

    @classmethod
    def examples(cls):
        return (Example("y = f(a, axis=-1, keepdims=True)", "y = f(a, axis=-1)", occurrence=1),
                Example("y = f(a, axis=-1, keepdims=True)", "y = f(a, keepdims=True)"),
                Example("y = f(axis=-1)", "y = f()"))


OWN = (DeleteStatement, DropOperand, SwapArguments, SwapOperands, ChangeDtype, DropKeyword)


@cache
def operators() -> dict[str, type[Operator]]:
    """Every operator by name: cosmic-ray's core set (less LEFT_OUT), then the kit's own (OWN)."""
    found = {name: cosmic_ray.plugins.get_operator(name) for name in cosmic_ray.plugins.operator_names()
             if name not in LEFT_OUT}
    return found | {f"kit/{op.__name__}": op for op in OWN}


def graded(node) -> bool:
    """Can grading see a change at `node`: not in a raised exception's message, nor in an annotation?"""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "fstring" or (parent.type == "trailer" and parent.parent is not None
                                         and parent.parent.parent is not None
                                         and parent.parent.parent.type == "raise_stmt"):
            return False
        if isinstance(parent, Param) and child is not parent.default:
            return False
        if parent.type == "funcdef" and child is parent.children[-3] and parent.children[-4] == "->":
            return False
        child, parent = parent, parent.parent
    return True


class Graded(Operator):
    """`inner`, at the positions grading can see only (`graded`)."""

    def __init__(self, inner: Operator):
        self.inner = inner

    def mutation_positions(self, node):
        return list(self.inner.mutation_positions(node)) if graded(node) else []

    def mutate(self, node, index):
        return self.inner.mutate(node, index)

    @classmethod
    def examples(cls):
        return ()
