"""A synthetic class for the similarity report (tests/report/test_similarity.py, benchmarks/similarity.py).

Honest answers to five exercises of the kit, each written by drawing a style
(loops, einsum, vectorised, a helper function) and, within it, the many small
choices a student makes (how to get d_k, where to scale, how to mask, whether
to validate, intermediate names or one expression), with names and comments of
their own. Planted copies are made from another student's answer the way a
student disguises one: names replaced, comments rewritten and blank lines
added, independent statements swapped, lines of the copier's own added, a
line written another way, type hints and a docstring added. `raw_scores` is
the short exercise: a line or two that every correct answer shares.
"""

from __future__ import annotations

import keyword
import random
import re
from dataclasses import dataclass, field

EXERCISES = ("softmax", "raw_scores", "attention", "causal_mask", "multi_head_attention")
_NAMES = ["scores", "s", "logits", "att", "grid", "sim", "w", "weights", "probs", "p", "out", "result", "z", "e",
          "tmp", "a", "vals", "x", "shifted", "top", "m", "total", "norm", "denom", "mixed", "y", "acc"]
_COMMENTS = ["# subtract the max for stability", "# scale by sqrt(d_k)", "# mask out the future", "# normalise",
             "# as in the chapter", "# shape check", "# heads side by side", "# TODO tidy", "# works for batches",
             "# step 1", "# step 2", "# the mix", "# keys transposed", "# avoid NaN"]


def _pick(rng: random.Random, *options):
    return rng.choice(options)


def _names(rng: random.Random, k: int) -> list[str]:
    return rng.sample(_NAMES, k)


def _comment(rng: random.Random) -> str:
    return "  " + rng.choice(_COMMENTS) if rng.random() < 0.3 else ""


def _habits(rng: random.Random, *arrays: str) -> list[str]:
    """What a student adds of their own before the answer proper: conversions, asserts, unpacked sizes."""
    lines = []
    for a in arrays:
        lines.append(_pick(rng, "", "", f"{a} = np.asarray({a})", f"{a} = np.asarray({a}, dtype=float)",
                           f"{a} = np.array({a}, dtype=np.float64)", f"{a} = {a}.astype(float)",
                           f"{a} = np.asarray({a}).astype(np.float64)"))
        if rng.random() < 0.2:
            lines.append(_pick(rng, f"assert {a}.ndim >= 2", f"assert np.ndim({a}) > 1, 'need a matrix'",
                               f"assert {a}.size > 0", f"if {a}.ndim < 2:\n    raise ValueError('{a} is not a matrix')"))
    if len(arrays) > 1 and rng.random() < 0.3:
        lines.append(_pick(rng, f"n_rows = {arrays[0]}.shape[-2]", f"*_, n_rows, width = {arrays[0]}.shape",
                           f"batch = {arrays[0]}.shape[:-2]"))
    return [line for line in lines if line]


def _function(head: str, body: list[str]) -> str:
    return head + "\n" + "".join(f"    {line}\n" for part in body for line in part.split("\n"))


def softmax(rng: random.Random) -> str:
    s, top, e, total = _names(rng, 4)
    body = _habits(rng, "S")
    if rng.random() < 0.4:
        body.append(_pick(rng, "axis = axis % S.ndim", "axis = int(axis)", "assert -S.ndim <= axis < S.ndim",
                          "if S.size == 0:\n    return S.astype(float)"))
    if rng.random() < 0.3:
        body.append(_pick(rng, "if S.dtype.kind != 'f':\n    S = S.astype(np.float64)",
                          "if not np.issubdtype(S.dtype, np.floating):\n    S = S.astype(float)"))
    style = _pick(rng, "keepdims", "expand", "loop")
    if style == "loop":
        body += _softmax_loop(rng, s, top, e)
    else:
        if style == "keepdims":
            body.append(f"{top} = {_pick(rng, 'S.max(axis=axis, keepdims=True)', 'np.max(S, axis=axis, keepdims=True)', 'np.amax(S, axis, keepdims=True)')}")
        else:
            body.append(f"{top} = np.expand_dims({_pick(rng, 'S.max(axis=axis)', 'np.max(S, axis=axis)')}, axis)")
        guard = _pick(rng, f"{top} = np.where(np.isneginf({top}), 0, {top})", f"{top}[np.isneginf({top})] = 0",
                      f"{top} = np.nan_to_num({top}, neginf=0.0)")
        body.append(guard + _comment(rng))
        body.append(f"{e} = " + _pick(rng, f"np.exp(S - {top})", f"np.exp(np.subtract(S, {top}))",
                                      f"np.exp(-({top} - S))", f"np.power(np.e, S - {top})"))
        body.append(f"{total} = {_pick(rng, f'{e}.sum(axis=axis, keepdims=True)', f'np.sum({e}, axis=axis, keepdims=True)', f'np.add.reduce({e}, axis=axis, keepdims=True)')}")
        body.append(_pick(rng, f"return np.divide({e}, {total}, out=np.zeros_like({e}), where={total} > 0)",
                          f"{total}[{total} == 0] = 1\nreturn {e} / {total}",
                          f"return np.where({total} > 0, {e} / np.where({total} > 0, {total}, 1), 0.0)"))
    return _function("def softmax(S, axis=-1):", body)


def _softmax_loop(rng: random.Random, s: str, top: str, e: str) -> list[str]:
    """A softmax one slice at a time: over np.ndindex, over the rows of a 2-D view, or a helper per row."""
    row_max = _pick(rng, f"{top} = row.max()", f"{top} = max(row)", f"{top} = np.max(row)")
    skip = _pick(rng, [f"if np.isneginf({top}):", "    continue"], [f"if {top} == -np.inf:", "    continue"],
                 [f"if not np.isfinite({top}):", "    continue"])
    weights = _pick(rng, f"{e} / {e}.sum()", f"{e} / np.sum({e})", f"{e} * (1.0 / {e}.sum())")
    way = _pick(rng, "ndindex", "rows", "helper")
    if way == "helper":
        return [f"def one(row):", f"    {row_max}", *("    " + line for line in skip[:1]),
                f"        return np.zeros_like(row, dtype=float)", f"    {e} = np.exp(row - {top})",
                f"    return {weights}", f"return np.apply_along_axis(one, axis, S)"]
    start = _pick(rng, f"{s} = np.zeros(T.shape)", f"{s} = np.empty(T.shape, dtype=float)",
                  f"{s} = np.zeros_like(T, dtype=np.float64)")
    if way == "ndindex":
        return ["T = np.moveaxis(S, axis, -1)", start, "for i in np.ndindex(T.shape[:-1]):", "    row = T[i]",
                f"    {row_max}", *("    " + line for line in skip), f"    {e} = np.exp(row - {top})",
                f"    {s}[i] = {weights}", f"return np.moveaxis({s}, -1, axis)"]
    return ["T = np.moveaxis(S, axis, -1)", "flat = T.reshape(-1, T.shape[-1])", start.replace("T.shape", "flat.shape")
            .replace("(T,", "(flat,"), "for r in range(flat.shape[0]):", "    row = flat[r]", f"    {row_max}",
            *("    " + line for line in skip), f"    {e} = np.exp(row - {top})", f"    {s}[r] = {weights}",
            f"return np.moveaxis({s}.reshape(T.shape), -1, axis)"]


def raw_scores(rng: random.Random) -> str:
    return "def raw_scores(Q, K):\n    " + _pick(
        rng, "return Q @ np.swapaxes(K, -1, -2)", "return Q @ K.swapaxes(-1, -2)",
        "return np.matmul(Q, np.swapaxes(K, -1, -2))") + "\n"


def _validation(rng: random.Random, *arrays: str) -> list[str]:
    if rng.random() < 0.4:
        return []
    lines = [f"{', '.join(arrays)} = " + ", ".join(f"np.asarray({a})" for a in arrays)] if rng.random() < 0.6 else []
    check = _pick(rng, f"{arrays[0]}.shape[-1] != {arrays[1]}.shape[-1]", f"np.shape({arrays[0]})[-1] != np.shape({arrays[1]})[-1]")
    message = _pick(rng, repr("d_k differs"), repr("bad shapes"), 'f"{Q.shape} {K.shape}"')
    return lines + [f"if {check}:", f"    raise ValueError({message})"]


def attention(rng: random.Random) -> str:
    s, w, out, d = _names(rng, 4)
    body = _habits(rng, "Q", "K", "V") + _validation(rng, "Q", "K", "V")
    body.append(f"{d} = {_pick(rng, 'Q.shape[-1]', 'K.shape[-1]', 'np.shape(Q)[-1]', 'len(Q[0])')}")
    root = _pick(rng, f"np.sqrt({d})", f"math.sqrt({d})", f"{d} ** 0.5")
    style = _pick(rng, "matmul", "einsum", "loop", "dot")
    if style == "loop":
        body += [f"{s} = np.zeros((Q.shape[0], K.shape[0]))", "for i in range(Q.shape[0]):",
                 "    for j in range(K.shape[0]):", f"        {s}[i, j] = {_pick(rng, 'np.dot(Q[i], K[j])', '(Q[i] * K[j]).sum()', 'Q[i] @ K[j]')} / {root}"]
    else:
        product = {"matmul": _pick(rng, "Q @ K.swapaxes(-1, -2)", "Q @ np.swapaxes(K, -1, -2)", "Q @ K.T"),
                   "einsum": _pick(rng, "np.einsum('...qd,...kd->...qk', Q, K)", "np.einsum('ij,kj->ik', Q, K)"),
                   "dot": _pick(rng, "np.dot(Q, K.T)", "np.matmul(Q, np.swapaxes(K, -1, -2))")}[style]
        if rng.random() < 0.5:
            body += [f"{s} = {product}", f"{s} = {s} / {root}"]
        else:
            body.append(f"{s} = {product} / {root}" + _comment(rng))
    body += _pick(rng, [f"if mask is not None:", f"    {s} = {s} + mask"], [f"if mask is not None:", f"    {s} += mask"],
                  [f"{s} = {s} + (0 if mask is None else mask)"], [f"if mask is not None:", f"    {s} = np.add({s}, mask)"])
    if rng.random() < 0.7:
        body.append(f"{w} = softmax({s}{_pick(rng, '', ', axis=-1', ', -1')})")
    else:
        body += [f"{w} = np.exp({s} - {s}.max(axis=-1, keepdims=True))", f"{w} = {w} / {w}.sum(axis=-1, keepdims=True)"]
    mix = {"einsum": _pick(rng, f"np.einsum('...qk,...kd->...qd', {w}, V)", f"np.einsum('ik,kd->id', {w}, V)"),
           "dot": f"np.dot({w}, V)"}.get(style, f"{w} @ V")
    if rng.random() < 0.5:
        body += [f"{out} = {mix}", f"return {out}, {w}"]
    else:
        body.append(f"return {mix}, {w}")
    return _function("def attention(Q, K, V, mask=None):", body)


def causal_mask(rng: random.Random) -> str:
    m, i, j = _names(rng, 3)
    body = []
    if rng.random() < 0.4:
        body.append(_pick(rng, "n = int(n)", "n = operator.index(n)", "assert n > 0, 'n must be positive'",
                          "size = (n, n)", "assert isinstance(n, int)"))
    if rng.random() < 0.6:
        body += [_pick(rng, "if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:",
                       "if isinstance(n, bool) or not isinstance(n, int) or n <= 0:",
                       "if type(n) is bool or int(n) != n or n < 1:"),
                 "    raise ValueError(" + _pick(rng, repr("n must be a positive integer"), 'f"bad n: {n!r}"') + ")"]
    style = _pick(rng, "triu", "where", "loop", "compare", "tril")
    if style == "triu":
        body += [f"{m} = np.triu(np.full((n, n), -np.inf), k=1)", f"return {m} + 0.0"
                 if rng.random() < 0.5 else f"return {m}"]
    elif style == "tril":
        body += [f"{m} = np.tril(np.ones((n, n), dtype=bool))", f"return np.where({m}, 0.0, -np.inf)"]
    elif style == "where":
        body += [f"{i} = np.arange(n)", f"return np.where({i}[None, :] > {i}[:, None], -np.inf, 0.0)"]
    elif style == "compare":
        body += [f"{i}, {j} = np.indices((n, n))", f"{m} = np.zeros((n, n))", f"{m}[{j} > {i}] = -np.inf",
                 f"return {m}"]
    else:
        body += [f"{m} = np.zeros((n, n))", f"for {i} in range(n):",
                 _pick(rng, f"    for {j} in range({i} + 1, n):\n        {m}[{i}, {j}] = -np.inf",
                       f"    {m}[{i}, {i} + 1:] = -np.inf"), f"return {m}"]
    return _function("def causal_mask(n):", body)


def multi_head_attention(rng: random.Random) -> str:
    q, k, v, heads, joined, ctx = _names(rng, 6)
    body = [_pick(rng, f"{ctx} = X if context is None else context",
                  f"if context is None:\n    {ctx} = X\nelse:\n    {ctx} = context",
                  f"{ctx} = context if context is not None else X")]
    body += _habits(rng, "X", "W_q", "W_k", "W_v", "W_o")
    style = _pick(rng, "split", "loop", "reshape")
    projections = [f"{q} = X @ W_q", f"{k} = {ctx} @ W_k", f"{v} = {ctx} @ W_v"]
    if rng.random() < 0.3:
        projections = [p.replace(" @ ", ".dot(").replace("W_", "W_") + ")" for p in projections]
        projections = [re.sub(r"(\w+)\.dot\(", r"np.dot(\1, ", p) for p in projections]
    body += projections
    if style == "split":
        if rng.random() < 0.5 and True:
            body.append("if mask is not None and np.ndim(mask) >= 2:\n    mask = np.expand_dims(mask, -3)")
        body.append(f"{heads}, _ = attention(split_heads({q}, n_heads), split_heads({k}, n_heads), "
                    f"split_heads({v}, n_heads), mask)")
        body.append(f"{joined} = merge_heads({heads})")
    elif style == "loop":
        body += [f"d_k = {q}.shape[-1] // n_heads", f"{heads} = []", "for h in range(n_heads):",
                 "    cols = slice(h * d_k, (h + 1) * d_k)",
                 f"    o, _ = attention({q}[..., cols], {k}[..., cols], {v}[..., cols], mask)",
                 f"    {heads}.append(o)", f"{joined} = np.concatenate({heads}, axis=-1)"]
    else:
        body += [f"*b, n, d_h = {q}.shape", "m = " + ctx + ".shape[-2]",
                 f"{q}4 = {q}.reshape(*b, n, n_heads, d_h // n_heads).swapaxes(-2, -3)",
                 f"{k}4 = {k}.reshape(*b, m, n_heads, d_h // n_heads).swapaxes(-2, -3)",
                 f"{v}4 = {v}.reshape(*b, m, n_heads, -1).swapaxes(-2, -3)",
                 f"{heads}, _ = attention({q}4, {k}4, {v}4, None if mask is None else np.expand_dims(mask, -3))",
                 f"{joined} = {heads}.swapaxes(-2, -3).reshape(*b, n, -1)"]
    body.append(_pick(rng, f"return {joined} @ W_o", f"return np.dot({joined}, W_o)", f"out = {joined} @ W_o\nreturn out"))
    return _function("def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None):", body)


WRITERS = {"softmax": softmax, "raw_scores": raw_scores, "attention": attention, "causal_mask": causal_mask,
           "multi_head_attention": multi_head_attention}


# ---- how a student disguises a copy

def renamed(code: str, rng: random.Random) -> str:
    """Every name the answer assigns, but its parameters and function, replaced by another."""
    signature = re.match(r"def \w+\(([^)]*)\)", code)
    kept = set(re.findall(r"\w+", signature.group(0))) if signature else set()
    one_line = r"^[ \t]*(?:for[ \t]+)?([A-Za-z_]\w*)(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*[ \t]*(?:=|in\b|\+=)"
    assigned = set(re.findall(one_line, code, re.M))
    assigned |= {n for group in re.findall(r"^[ \t]*([\w \t,*]+?)[ \t]*=(?!=)", code, re.M)  # never across lines
                 for n in re.findall(r"[A-Za-z_]\w*", group)}
    for name in sorted(assigned - kept - {"np", "math"} - set(keyword.kwlist)):
        code = re.sub(rf"\b{name}\b", f"{name}_{rng.choice('uvwxyz')}{rng.randint(0, 99)}", code)
    return code


def recommented(code: str, rng: random.Random) -> str:
    """Comments dropped, others written, blank lines and spacing changed."""
    lines = []
    for line in code.splitlines():
        line = re.sub(r"\s*#.*$", "", line)
        line = re.sub(r"(?<=[\w\])])\s*=\s*(?=[\w(\[\-'\"])", " = ", line)  # spacing around a plain =
        if line.strip() and not line.lstrip().startswith("def ") and rng.random() < 0.4:
            indent = line[:len(line) - len(line.lstrip())]
            lines.append(f"{indent}# {rng.choice(['here we go', 'this part is the tricky one', 'ok', 'see notes'])}")
        lines.append(line)
        if rng.random() < 0.3:
            lines.append("")
    return "\n".join(lines) + "\n"


def reordered(code: str) -> str:
    """The three projections of multi_head_attention in reverse order (they do not depend on each other)."""
    lines = code.splitlines()
    at = [i for i, line in enumerate(lines) if re.match(r"\s+\w+ = (np\.dot\()?(X|\w+)( @ |, )W_[qkv]", line)]
    for i, j in zip(at, reversed(at)):
        if i < j:
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


def padded(code: str, rng: random.Random) -> str:
    """Two lines of the copier's own added to the function's body (a debugging print, a check), where a
    statement of the body begins."""
    lines = code.splitlines()
    for extra in rng.sample(["print('shapes ok')", "_checked = True", "assert n_heads > 0" if "n_heads" in code
                             else "assert Q.ndim >= 2", "print('done')"], 2):
        starts = [i for i in range(2, len(lines)) if re.match(r"    \S", lines[i])
                  and not lines[i - 1].rstrip().endswith((":", ",", "("))]
        lines.insert(rng.choice(starts) if starts else len(lines), "    " + extra)
    return "\n".join(lines) + "\n"


_REWRITES = [(r"([\w.]+(?:\[[^\]]*\])?) @ ([\w.]+(?:\([^()]*\))?)", r"np.matmul(\1, \2)"),  # a @ b: np.matmul(a, b)
             (r"np\.sqrt\(([\w.\[\]-]+)\)", r"\1 ** 0.5"),                    # np.sqrt(d): d ** 0.5
             (r"(\w+) \+= ", r"\1 = \1 + "),                                     # s += m: s = s + m
             (r"np\.einsum\(", "numpy.einsum(")]


def edited(code: str) -> str:
    """One line written another way: the first of a few rewrites that applies (a @ b as np.matmul(a, b), ...)."""
    for pattern, written in _REWRITES:
        changed = re.sub(pattern, written, code, count=1)
        if changed != code:
            return changed
    return code


def annotated(code: str) -> str:
    """Type hints on the signature and a docstring of the copier's own."""
    def hinted(match: re.Match) -> str:
        params = [p.strip() for p in match[2].split(",")]
        params = [p if "=" in p or p.startswith("*") else f"{p}: np.ndarray" for p in params]
        return f"def {match[1]}({', '.join(params)}) -> np.ndarray:\n    \"\"\"My own answer.\"\"\""
    return re.sub(r"def (\w+)\(([^)]*)\):", hinted, code, count=1)


@dataclass
class Planted:
    """What was planted: (exercise, student, student) pairs, the pair alike across exercises, the key's copy."""
    pairs: set[tuple[str, tuple[str, str]]] = field(default_factory=set)
    repeated: set[tuple[str, str]] = field(default_factory=set)
    reference: set[tuple[str, str]] = field(default_factory=set)  # (exercise, student)


def honest_class(n_students: int, seed: int) -> dict[str, dict[str, str]]:
    """student → exercise → an answer written independently."""
    rng = random.Random(seed)
    return {f"s{i:03d}": {name: write(rng) for name, write in WRITERS.items()} for i in range(n_students)}


def plant_copies(answers: dict[str, dict[str, str]], reference: dict[str, str], seed: int) -> Planted:
    """Plant the copies of tests/report/test_similarity.py into `answers` (changed in place)."""
    rng = random.Random(seed)
    s = sorted(answers)
    planted = Planted()

    def copy(exercise: str, source: str, target: str, *disguises) -> None:
        code = answers[source][exercise]
        for disguise in disguises:
            code = disguise(code)
        answers[target][exercise] = code
        planted.pairs.add((exercise, tuple(sorted((source, target)))))

    copy("attention", s[3], s[10], lambda c: renamed(c, rng))                       # renamed
    copy("multi_head_attention", s[11], s[20], lambda c: recommented(c, rng))       # re-commented
    copy("multi_head_attention", s[14], s[25], reordered, lambda c: renamed(c, rng))  # reordered
    copy("attention", s[10], s[30], lambda c: renamed(c, rng), lambda c: recommented(c, rng))  # a copy of a copy
    planted.pairs.add(("attention", tuple(sorted((s[3], s[30])))))                   # ... so alike its original
    for exercise in ("softmax", "attention", "multi_head_attention"):               # across three exercises
        copy(exercise, s[41], s[40], lambda c: renamed(c, rng))
    planted.repeated.add((s[40], s[41]))
    answers[s[45]]["attention"] = recommented(renamed(reference["attention"], rng), rng)  # a copy of the key
    planted.reference.add(("attention", s[45]))
    return planted


EDITED = {"lines added": lambda code, rng: padded(code, rng), "a line changed": lambda code, rng: edited(code),
          "type hints added": lambda code, rng: annotated(code)}


def plant_edited_copies(answers: dict[str, dict[str, str]], seed: int) -> dict[tuple[str, tuple[str, str]], str]:
    """Plant copies edited beyond renaming into `answers` (changed in place), in `attention` and
    `multi_head_attention`, among students plant_copies leaves alone: (exercise, pair) → how it was edited."""
    rng = random.Random(seed)
    s = sorted(answers)
    planted = {}
    for exercise, sources, targets in (("multi_head_attention", (16, 6, 18), (33, 36, 38)),
                                       ("attention", (1, 2, 4), (42, 43, 44))):
        for (how, edit), source, target in zip(EDITED.items(), sources, targets):
            answers[s[target]][exercise] = renamed(edit(answers[s[source]][exercise], rng), rng)
            planted[exercise, (s[source], s[target])] = how
    return planted

