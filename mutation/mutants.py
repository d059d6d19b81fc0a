"""The mutants of one exercise: its reference, and the private helpers it calls, each changed once.

A mutant is one operator (operators.py) applied at one position of one of
those functions: the reference itself, or a helper of its module that it
calls, directly or through another helper, and that is no exercise's
reference (those are the reference's own while it is graded, judge.BUILT_ON).
`Mutant.answer()` is the reference with that one change, a function as a
student would hand it in: its module's names, the changed function among
them. Mutants whose code is the same are one mutant.
"""

from __future__ import annotations

import __future__
import difflib
import inspect
import sys
import textwrap
import types
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.mutating import mutate_code

from autograder.exercises import REGISTRY
from mutation.operators import Graded, operators


@dataclass(frozen=True)
class Mutant:
    exercise: str
    function: Callable   # the function changed: the reference or one of its helpers
    operator: str
    occurrence: int      # which of the operator's positions in that function
    source: str          # the changed function's code
    before: str          # the lines changed, as they were (joined by " ⏎ ")
    after: str           # ... and as the mutant has them
    line: int            # where the change starts, in the function's file

    @property
    def key(self) -> str:
        """What the mutant is, in words that outlive line numbers: "softmax: <line> → <line>"."""
        return f"{self.function.__name__}: {self.before} → {self.after}"

    @cached_property
    def _compiled(self):
        return compile(self.source, f"<mutant of {self.function.__name__}>", "exec",
                       flags=__future__.annotations.compiler_flag, dont_inherit=True)

    def answer(self) -> Callable:
        """The exercise's reference with this change: a new function, in a copy of its module's names."""
        reference = REGISTRY[self.exercise].reference
        names = dict(vars(sys.modules[reference.__module__]))
        for f in changed_functions(self.exercise):  # each reads its helpers from the copy, the changed one too
            names[f.__name__] = _rebound(f, names)
        exec(self._compiled, names)
        return names[reference.__name__]


def _rebound(f: types.FunctionType, names: dict) -> types.FunctionType:
    g = types.FunctionType(f.__code__, names, f.__name__, f.__defaults__, f.__closure__)
    g.__kwdefaults__, g.__doc__, g.__qualname__ = f.__kwdefaults__, f.__doc__, f.__qualname__
    return g


def changed_functions(exercise: str) -> list[types.FunctionType]:
    """The reference of `exercise`, then the private helpers of its module it calls (through each other too)."""
    reference = REGISTRY[exercise].reference
    module = sys.modules[reference.__module__]
    references = {e.reference for e in REGISTRY.values() if callable(e.reference)}
    found, todo = [reference], [reference.__code__]
    while todo:
        code = todo.pop()
        for name in code.co_names:
            f = vars(module).get(name)
            if isinstance(f, types.FunctionType) and f.__module__ == module.__name__ and f not in references \
                    and f not in found:
                found.append(f)
                todo.append(f.__code__)
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]  # nested functions
    return found


def mutants_of(exercise: str) -> list[Mutant]:
    """Every mutant of `exercise` (none for a question answered by a value), in a fixed order."""
    if not callable(REGISTRY[exercise].reference):
        return []
    found, seen = [], set()
    for function in changed_functions(exercise):
        source = textwrap.dedent(inspect.getsource(function))
        first_line = inspect.getsourcelines(function)[1]
        tree = get_ast(source)
        nodes = list(ast_nodes(tree))
        for name, operator_class in operators().items():
            operator = Graded(operator_class())
            count = sum(len(operator.mutation_positions(node)) for node in nodes)
            for occurrence in range(count):
                changed = mutate_code(source, operator, occurrence)
                if changed is None or changed == source or changed in seen:
                    continue
                seen.add(changed)
                before, after, line = _difference(source, changed)
                found.append(Mutant(exercise, function, name, occurrence, changed, before, after,
                                    first_line + line))
    return found


def _difference(source: str, changed: str) -> tuple[str, str, int]:
    """(the lines `changed` replaced, their replacement, the first one's index), each side stripped and
    joined by " ⏎ "."""
    old, new = source.splitlines(), changed.splitlines()
    blocks = [b for b in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if b[0] != "equal"]
    i1, i2, j1, j2 = blocks[0][1], blocks[-1][2], blocks[0][3], blocks[-1][4]
    return " ⏎ ".join(s.strip() for s in old[i1:i2]), " ⏎ ".join(s.strip() for s in new[j1:j2]), i1
