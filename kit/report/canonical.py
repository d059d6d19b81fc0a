"""One spelling for code written several equivalent ways: an `ast` rewrite done before normalise.py reads a cell.

    canonical(tree, main) → the same tree, rewritten in place; main: the exercise's function name (None: the
    cell's first function)

Three disguises of a copy, and the ordinary variety of honest answers, are undone here:
- a helper of the cell's own called from the exercise's function (`x = _impl(Q, K)`, `return _impl(...)`)
  is inlined: its statements put in place of the call, its parameters replaced by the arguments, so a body
  moved into a helper reads as the body. A helper returning anywhere but at its end is inlined only where
  its call is returned (`return _impl(...)`: its returns are then the function's); one called from anywhere
  but a statement of its own stays as it is;
- a list built by a loop (`x = []`, then `for ...: x.append(e)`, with at most one assignment before the
  append) is the list comprehension `x = [e for ...]`;
- NumPy's equivalent spellings are one: `np.matmul(a, b)` is `a @ b`; `np.sqrt(x)`, `math.sqrt(x)` and
  `np.power(x, 0.5)` are `x ** 0.5`; `x += y` is `x = x + y`; `x.sum(...)` is `np.sum(x, ...)` (and so for the
  other methods of `_METHODS`); `np.shape(x)` is `x.shape`; `numpy.` is `np.`; `np.amax` is `np.max`;
  `np.newaxis` is None; `float("-inf")`, `-math.inf` and `-np.inf` are one; the two axes of `swapaxes` are
  sorted; `a > b` is `b < a`; a list written out is a tuple.

Nothing is run; what is rewritten is only what cannot change what the code computes on NumPy arrays (a
list comprehension where a loop appended, a helper inlined, a function where a method was called).

One job, kept whole past 250 lines: one rewrite of the tree, its passes run in order over what `_read_once`
found, each pass short.
"""

from __future__ import annotations

import ast
import copy

_NUMPY = frozenset({"np", "numpy"})
_METHODS = frozenset({"sum", "max", "min", "mean", "prod", "any", "all", "swapaxes", "transpose", "cumsum",
                      "argmax", "argmin", "std", "var", "clip", "round"})
_RENAMED = {"amax": "max", "amin": "min"}
_FLIPPED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def canonical(tree: ast.Module, main: str | None = None) -> ast.Module:
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    root = next((f for f in functions if f.name == main), functions[0] if functions else None)
    helpers = {f.name: f for f in functions if f is not root and _plain(f)}
    if root is not None and helpers:
        used = _inline(root, helpers, depth=0)
        tree.body = [node for node in tree.body if not (isinstance(node, ast.FunctionDef) and node.name in used
                                                         and not _still_called(tree, node.name, root))]
    blocks, stores, loads = _read_once(tree)
    _Spellings().visit(tree)  # rewrites within blocks, in place: a block's list stays the one found
    for node, name in blocks:
        setattr(node, name, _comprehensions(getattr(node, name), loads))
    for node, name in blocks:
        setattr(node, name, _temporaries(getattr(node, name), stores, loads))
    return tree


def _read_once(tree: ast.Module) -> tuple[list[tuple[ast.AST, str]], dict[str, int], dict[str, int]]:
    """The cell's blocks of statements (the node and field holding each), how often it binds each name (a
    parameter counts twice: it is bound by the caller too) and how often it reads it."""
    blocks: list[tuple[ast.AST, str]] = []
    stores: dict[str, int] = {}
    loads: dict[str, int] = {}
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Name:
            counted = loads if type(node.ctx) is ast.Load else stores
            counted[node.id] = counted.get(node.id, 0) + 1
        elif kind is ast.arg:
            stores[node.arg] = stores.get(node.arg, 0) + 2
        elif kind in _BLOCKS:
            blocks += [(node, name) for name in _BLOCKS[kind] if getattr(node, name, None)]
    return blocks, stores, loads


_BLOCKS = {ast.Module: ("body",), ast.FunctionDef: ("body",), ast.AsyncFunctionDef: ("body",),
           ast.ClassDef: ("body",), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
           ast.While: ("body", "orelse"), ast.If: ("body", "orelse"), ast.With: ("body",),
           ast.AsyncWith: ("body",), ast.Try: ("body", "orelse", "finalbody"), ast.ExceptHandler: ("body",)}


# ---- helpers inlined

def _body(function: ast.FunctionDef) -> list[ast.stmt]:
    body = function.body
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]
    return body


def _own_nodes(statements: list[ast.stmt]):
    """The nodes of `statements`, but those of the functions they define."""
    waiting = list(statements)
    while waiting:
        node = waiting.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            waiting.extend(ast.iter_child_nodes(node))


def _plain(function: ast.FunctionDef) -> bool:
    """A helper that takes plain parameters, ends in a return and neither yields nor reaches out of itself."""
    body = _body(function)
    args = function.args
    if not body or not isinstance(body[-1], ast.Return) or args.vararg or args.kwarg or args.kwonlyargs:
        return False
    return not any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) for n in _own_nodes(body))


def _returns_once(function: ast.FunctionDef) -> bool:
    """It returns only at its end."""
    return sum(isinstance(n, ast.Return) for n in _own_nodes(_body(function))) == 1


def _still_called(tree: ast.Module, name: str, root: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree) if n is not root) and \
        any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(root))


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]):
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node


def _call_of(statement: ast.stmt, helpers: dict) -> ast.Call | None:
    value = statement.value if isinstance(statement, (ast.Return, ast.Assign, ast.Expr)) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in helpers \
            and not any(isinstance(a, ast.Starred) for a in value.args):
        return value
    return None


def _inline(function: ast.FunctionDef, helpers: dict, depth: int) -> set[str]:
    """Inline the helpers called from `function`'s statements; returns the names inlined."""
    used: set[str] = set()
    if depth > 3:
        return used
    for node in ast.walk(function):
        for name in ("body", "orelse"):
            block = getattr(node, name, None)
            if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
                continue
            out = []
            for statement in block:
                call = _call_of(statement, helpers)
                if call is None or not (isinstance(statement, ast.Return) or _returns_once(helpers[call.func.id])):
                    out.append(statement)
                    continue
                helper = copy.deepcopy(helpers[call.func.id])
                _inline(helper, helpers, depth + 1)
                params = [a.arg for a in helper.args.posonlyargs + helper.args.args]
                values = dict(zip(params, call.args))
                values |= {k.arg: k.value for k in call.keywords if k.arg in params}
                defaults = helper.args.defaults
                for param, default in zip(params[len(params) - len(defaults):], defaults):
                    values.setdefault(param, default)
                body = [_Substitute(values).visit(s) for s in _body(helper)]
                result = body[-1].value or ast.Constant(None)
                statement.value = result
                out += body[:-1] + [statement]
                used.add(call.func.id)
            setattr(node, name, out)
    return used


# ---- a loop that appends, as a comprehension

def _comprehensions(block: list[ast.stmt], loads: dict[str, int]) -> list[ast.stmt]:
    """The block with each list built by a loop as a comprehension (`loads` loses the appends' reads)."""
    out: list[ast.stmt] = []
    i = 0
    while i < len(block):
        start, loop = block[i], block[i + 1] if i + 1 < len(block) else None
        made = _as_comprehension(start, loop)
        if made is not None:
            out.append(made)
            name = made.targets[0].id
            loads[name] = loads.get(name, 0) - 1
            i += 2
        else:
            out.append(start)
            i += 1
    return out


def _as_comprehension(start: ast.stmt, loop: ast.stmt | None) -> ast.Assign | None:
    if not (isinstance(start, ast.Assign) and len(start.targets) == 1 and isinstance(start.targets[0], ast.Name)
            and isinstance(start.value, (ast.List, ast.Tuple)) and not start.value.elts
            and isinstance(loop, ast.For) and not loop.orelse and 1 <= len(loop.body) <= 2):
        return None
    name = start.targets[0].id
    *before, last = loop.body
    append = last.value if isinstance(last, ast.Expr) else None
    if not (isinstance(append, ast.Call) and isinstance(append.func, ast.Attribute) and append.func.attr == "append"
            and isinstance(append.func.value, ast.Name) and append.func.value.id == name and len(append.args) == 1):
        return None
    element = append.args[0]
    if before:
        step = before[0]
        if not (isinstance(step, ast.Assign) and len(step.targets) == 1 and isinstance(step.targets[0], ast.Name)):
            return None
        element = _Substitute({step.targets[0].id: step.value}).visit(element)
    comprehension = ast.ListComp(element, [ast.comprehension(loop.target, loop.iter, [], 0)])
    return ast.Assign([start.targets[0]], comprehension, lineno=start.lineno)


# ---- a name used once, as the expression it names

def _temporaries(block: list[ast.stmt], stores: dict[str, int], loads: dict[str, int]) -> list[ast.stmt]:
    """`x = e`, and a later statement of the block that reads x, where the cell binds x there alone and reads
    it there alone, and nothing between binds what e reads: that statement with e in place of x (`parts =
    [...]; return np.stack(parts)` is `return np.stack([...])`, in whatever order the lines were written)."""
    out = list(block)
    i = 0
    while i < len(out):
        named = out[i]
        if not (isinstance(named, ast.Assign) and len(named.targets) == 1 and isinstance(named.targets[0], ast.Name)
                and stores.get(named.targets[0].id) == 1 and loads.get(named.targets[0].id) == 1):
            i += 1
            continue
        name = named.targets[0].id
        reads = {n.id for n in ast.walk(named.value) if isinstance(n, ast.Name)}
        for j in range(i + 1, len(out)):
            later = out[j]
            if any(isinstance(n, ast.Name) and n.id == name for n in _own_nodes([later])):
                if not isinstance(later, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
                    out[j] = _Substitute({name: named.value}).visit(later)
                    del out[i]
                    i -= 1
                break
            if any(isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in reads
                   for n in ast.walk(later)):
                break
        i += 1
    return out


# ---- equivalent spellings

def _numpy(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in _NUMPY \
        and node.attr in names


def _math(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "math" \
        and node.attr == name


def _np(attr: str) -> ast.Attribute:
    return ast.Attribute(ast.Name("np", ast.Load()), attr, ast.Load())


def _infinity(node: ast.AST) -> int:
    """+1 or −1 for a spelling of ±infinity, 0 otherwise."""
    if _numpy(node, "inf", "Inf", "infty", "PINF") or _math(node, "inf"):
        return 1
    if _numpy(node, "NINF"):
        return -1
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and \
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        text = node.args[0].value.strip().lower()
        return {"inf": 1, "+inf": 1, "infinity": 1, "-inf": -1, "-infinity": -1}.get(text, 0)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_infinity(node.operand)
    return 0


class _Spellings(ast.NodeTransformer):
    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        target = copy.deepcopy(node.target)
        for n in ast.walk(target):
            if hasattr(n, "ctx"):
                n.ctx = ast.Load()
        return ast.Assign([node.target], ast.BinOp(target, node.op, node.value), lineno=node.lineno)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "numpy":
            node.value = ast.Name("np", ast.Load())
        if _numpy(node, "newaxis"):
            return ast.Constant(None)
        sign = _infinity(node)
        if sign:
            return _np("inf") if sign > 0 else ast.UnaryOp(ast.USub(), _np("inf"))
        if _numpy(node, *_RENAMED) and isinstance(node.value, ast.Name):
            node.attr = _RENAMED[node.attr]
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        sign = _infinity(node)
        if sign:
            return _np("inf") if sign > 0 else ast.UnaryOp(ast.USub(), _np("inf"))
        return self.generic_visit(node)

    def visit_List(self, node: ast.List) -> ast.AST:
        self.generic_visit(node)
        return ast.Tuple(node.elts, node.ctx) if isinstance(node.ctx, ast.Load) else node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in _FLIPPED:
            return ast.Compare(node.comparators[0], [_FLIPPED[type(node.ops[0])]()], [node.left])
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        sign = _infinity(node)
        if sign:
            return _np("inf") if sign > 0 else ast.UnaryOp(ast.USub(), _np("inf"))
        self.generic_visit(node)
        func, args = node.func, node.args
        if _numpy(func, "matmul") and len(args) == 2 and not node.keywords:
            return ast.BinOp(args[0], ast.MatMult(), args[1])
        if (_numpy(func, "sqrt") or _math(func, "sqrt")) and len(args) == 1 and not node.keywords:
            return ast.BinOp(args[0], ast.Pow(), ast.Constant(0.5))
        if _numpy(func, "power") and len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value == 0.5:
            return ast.BinOp(args[0], ast.Pow(), ast.Constant(0.5))
        if _numpy(func, "shape") and len(args) == 1 and not node.keywords:
            return ast.Attribute(args[0], "shape", ast.Load())
        if isinstance(func, ast.Attribute) and func.attr in _METHODS and not (
                isinstance(func.value, ast.Name) and func.value.id in _NUMPY | {"math"}):
            node = ast.Call(_np(func.attr), [func.value, *args], node.keywords)
            func, args = node.func, node.args
        if _numpy(func, "swapaxes") and len(args) == 3:
            first, second = sorted(args[1:], key=ast.dump)
            node.args = [args[0], first, second]
        return node
