"""A second synthetic class for the similarity section, written apart from tests/report/similar_class.py and from the
engine (issue 40): nothing here was changed to suit what the report finds.

    disguised_class(seed, stubs, module, students=60) → Class(answers, planted)
    stubs: exercise → its released cell (signature, docstring, stub); module: solutions/attention.py's text

Honest students. Each exercise has six styles written by hand, as students in a course write them (a loop,
a comprehension, np.where, einsum, a helper of their own, the chapter's formula), and each student writes
with a voice of their own: names they reach for ("logits" or "sc" or "S"), how often they check their inputs
and in which words, whether they comment, keep the "# YOUR CODE HERE" line or leave blank lines, and which of
equivalent NumPy spellings they favour. A student now and then leaves an exercise untouched (the stub as
released), and one student leaves every exercise untouched.

Copiers, one of each kind per class, each copying an honest student's answer (or the reference) and
disguising it: renamed; comments rewritten; independent statements reordered; an expression rewritten to an
equivalent form; the body moved into a helper; a loop made a comprehension (or the reverse); four short
answers copied across exercises; the reference as solutions/attention.py has it, with the helpers it needs
pasted in (kit/report/answers.module_form, as a student pasting it needs them); and a chain, a copy of a
copy. Every copier also renames, as nearly every copier does. The disguises work on the text and on `ast`,
never through the kit's normaliser.
"""

from __future__ import annotations

import ast
import random
import re
from collections import Counter
from dataclasses import dataclass, field

from kit.notebooks import ROOT
from kit.report.answers import exercises, handed_in, header, module_form
from kit.report.similarity import Settings, similar_answers

EXERCISES = ("softmax", "scaled_scores", "attention", "split_heads", "merge_heads", "multi_head_attention",
             "causal_mask", "padding_mask", "block_mask")
LONG = ("softmax", "attention", "multi_head_attention")
SHORT = ("scaled_scores", "split_heads", "merge_heads", "causal_mask", "padding_mask", "block_mask")
KINDS = ("renamed", "comments", "reordered", "rewritten", "helper", "comprehension", "short answers",
         "reference module", "chain")

# Names a student reaches for, per thing named; a student keeps their choice in every exercise.
_WORDS = {
    "scores": ["scores", "S", "logits", "sc", "att", "raw", "s", "energy", "qk"],
    "weights": ["weights", "w", "probs", "A", "attn", "p", "alpha", "P"],
    "out": ["out", "output", "result", "res", "o", "y", "mixed", "ctx_out"],
    "d": ["d_k", "d", "dk", "dim", "head_dim", "depth", "size"],
    "top": ["m", "mx", "top", "biggest", "row_max", "c", "peak", "smax"],
    "exp": ["e", "exps", "ex", "num", "numer", "exp_s", "z"],
    "total": ["total", "denom", "norm", "sums", "s_sum", "Z", "tot"],
    "mask": ["m", "mask_", "M", "msk", "bias", "grid", "mat"],
    "pos": ["pos", "idx", "r", "ar", "positions", "k", "cols"],
    "heads": ["heads", "hs", "parts", "chunks", "pieces", "per_head", "outs"],
    "width": ["dh", "w", "d_head", "sub", "each", "hd", "k"],
}
_CHECK_WORDS = [("{x} must be", "got {v}"), ("bad {x}:", "{v}"), ("expected {x} to be", "not {v}"),
                ("invalid {x}", "({v})"), ("{x} should be", "but is {v}"), ("need {x}", "- {v}"),
                ("Error: {x}", "{v}"), ("{x}?", "have {v}"), ("wrong input, {x}", "{v}"), ("{x} required", "[{v}]")]
_COMMENTS = ["# numerically stable", "# divide by sqrt(d_k)", "# hide the future", "# rows sum to one",
             "# like in the lecture", "# broadcasting does the rest", "# shapes: (..., n, n)", "# fixme?",
             "# per head", "# -inf where not allowed", "# transpose the keys", "# see the chapter, section 4",
             "# vectorised", "# careful with all -inf rows"]


@dataclass
class Voice:
    """How one student writes: the same in every exercise."""
    rng: random.Random
    names: dict[str, str]
    checks: float        # how often they validate input
    words: tuple[str, str]
    comments: float
    keeps_marker: bool   # keeps the release's "# YOUR CODE HERE"
    methods: bool        # x.sum(...) rather than np.sum(x, ...)
    root: str            # how they write a square root: "np.sqrt({})", "math.sqrt({})", "{} ** 0.5"
    habits: tuple = ()   # small ways of their own of writing a line (_HABITS), each taken now and then

    def n(self, thing: str) -> str:
        return self.names[thing]

    def pick(self, *options):
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def sqrt(self, x: str) -> str:
        return self.root.format(x)

    def reduce(self, how: str, x: str, rest: str) -> str:
        return f"{x}.{how}({rest})" if self.methods else f"np.{how}({x}, {rest})"

    def fail(self, what: str, shown: str) -> str:
        opening, closing = self.words
        text = f"{opening.format(x=what)} {closing.format(v='{' + shown + '}')}"
        return f"raise ValueError(f{text!r})"

    def check(self, condition: str, what: str, shown: str) -> list[str]:
        return [f"if {condition}:", "    " + self.fail(what, shown)] if self.chance(self.checks) else []

    def comment(self) -> str:
        return "  " + self.rng.choice(_COMMENTS) if self.chance(self.comments) else ""


# Small ways a student writes a line, each equivalent on the exercise's arrays: (pattern, replacement).
_HABITS = [
    (r"axis=(-?\w+)(?=[,)])", r"\1"),                        # axis passed by position
    (r"(?<![\w.])0\.0\b", "0"),                              # 0 for 0.0
    (r"(?<![\w.])0\.0\b", "0."),
    (r"swapaxes\((\w+, )?-1, -2\)", r"swapaxes(\1-2, -1)"),    # the axes the other way round
    (r"(\w+) @ (W_\w)", r"np.dot(\1, \2)"),                   # np.dot for a matrix product with a weight
    (r"(\w+)\.shape\[-1\]", r"\1.shape[\1.ndim - 1]"),         # the last axis counted
    (r"(\w+)\.shape\[-1\]", r"np.size(\1, -1)"),
    (r"range\((\w+)\)", r"range(0, \1)"),
    (r"np\.zeros\((\([^()]*\))\)", r"np.zeros(\1, dtype=float)"),
    (r"np\.full\((\([^()]*\)), ", r"np.full(shape=\1, fill_value="),
    (r"-np\.inf", "float('-inf')"),
    (r"-np\.inf", "-math.inf"),
    (r"(\w+) \* (\w+)\b(?!\()", r"\2 * \1"),                # a product the other way round
    (r"^return (.+), (\w+)$", r"return (\1, \2)"),
    (r"^return ([^,]+)$", r"return np.asarray(\1)"),
    (r"np\.asarray\((\w+)\)", r"np.array(\1, copy=False)"),
    (r"is not None", "!= None"),
    (r"np\.where\(([^,]+), (-?[\w.()']+), (-?[\w.()']+)\)$", r"np.where(\1, \2, \3).astype(float)"),
    (r"keepdims=True", "keepdims=1"),
    (r"np\.exp\(", "np.e ** ("),
    (r"\.shape\[-2\]", ".shape[-2:][0]"),                     # the second last axis, another way
    (r"(\w+)\.shape\[-2\]", r"len(\1[..., 0])"),
    (r"(\w+)\.shape\[-3\]", r"\1.shape[\1.ndim - 3]"),
    (r"reshape\((\*\w+), ", r"reshape(tuple(\1) + ("),        # the new shape as one tuple
    (r"np\.concatenate\((\w+), axis=(-?\d)\)", r"np.concatenate(tuple(\1), axis=\2)"),
    (r"np\.expand_dims\((\w+), -3\)", r"\1[..., None, :, :]"),
    (r"^(\w+) = (\w+) @ (\w+)$", r"\1 = np.einsum('...ij,jk->...ik', \2, \3)"),
    (r"^(\w+), _ = attention\(", r"\1 = attention("),        # the pair kept, its first taken later
    (r"^(\w+) = (.+) / (.+)$", r"\1 = np.divide(\2, \3)"),
    (r"np\.where\(", "np.where(np.asarray("),
    (r"(?<=[(, ])-1\)$", "-1,)"),
    (r"keepdims=True\)", "keepdims=True, dtype=float)"),
    (r"^if (.+):$", r"if bool(\1):"),
    (r"np\.arange\((\w+)\)", r"np.arange(0, \1)"),
    (r"\[None, :\]", "[np.newaxis]"),
    (r"\[:, None\]", "[..., None]"),
    (r"dtype=float\b", "dtype=np.float64"),
    (r"np\.zeros_like\((\w+)\)", r"np.zeros(\1.shape)"),
    (r"\.sum\(\)", ".sum(axis=None)"),
]


def voice(rng: random.Random) -> Voice:
    names = {}
    for thing, words in _WORDS.items():
        names[thing] = rng.choice([w for w in words if w not in names.values()])
    return Voice(rng, names, rng.choice([0.1, 0.4, 0.8]), rng.choice(_CHECK_WORDS), rng.choice([0.0, 0.15, 0.4]),
                 rng.random() < 0.3, rng.random() < 0.5, rng.choice(["np.sqrt({})", "math.sqrt({})", "{} ** 0.5"]),
                 tuple(rng.sample(_HABITS, rng.randint(6, 16))))


def _in_own_words(line: str, v: Voice) -> str:
    """A line as this student writes it: each of their habits taken on about half the lines it fits, and
    now and then a way they do not usually write."""
    indent = line[:len(line) - len(line.lstrip())]
    text = line.strip()
    for pattern, replacement in (*v.habits, v.rng.choice(_HABITS)):
        if v.chance(0.5):
            changed = re.sub(pattern, replacement, text, count=1)
            if changed != text and _parses(changed):
                text = changed
    return indent + text


def _parses(line: str) -> bool:
    try:
        ast.parse(line if not line.endswith(":") else line + " pass")
    except SyntaxError:
        return line.startswith(("else", "elif", "except", "finally"))
    return True


# ---- six styles per exercise; each returns the body's lines (4-space indents inside blocks)

def _softmax(v: Voice, style: int) -> list[str]:
    top, e, total, p = v.n("top"), v.n("exp"), v.n("total"), v.n("weights")
    lines = v.pick([], ["S = np.asarray(S, dtype=float)"], ["S = np.array(S, dtype=np.float64)"])
    keep = "axis=axis, keepdims=True"
    if style == 0:
        return lines + [f"{top} = {v.reduce('max', 'S', keep)}", f"{top} = np.where(np.isneginf({top}), 0.0, {top})",
                        f"{e} = np.exp(S - {top}){v.comment()}", f"{total} = {v.reduce('sum', e, keep)}",
                        f"return np.divide({e}, {total}, out=np.zeros_like({e}), where={total} != 0)"]
    if style == 1:
        return lines + [f"{top} = {v.reduce('max', 'S', keep)}", f"{top}[~np.isfinite({top})] = 0",
                        f"lse = {top} + np.log({v.reduce('sum', f'np.exp(S - {top})', keep)})",
                        f"{p} = np.exp(S - lse)", f"return np.nan_to_num({p}, nan=0.0)"]
    if style == 2:
        return lines + ["T = np.moveaxis(S, axis, -1)", f"{p} = np.zeros_like(T, dtype=float)",
                        "for idx in np.ndindex(T.shape[:-1]):", "    row = T[idx]",
                        "    if np.all(row == -np.inf):", "        continue",
                        f"    {e} = np.exp(row - row.max()){v.comment()}", f"    {p}[idx] = {e} / {e}.sum()",
                        f"return np.moveaxis({p}, -1, axis)"]
    if style == 3:
        return lines + ["def one_row(row):", "    if np.isneginf(row).all():", "        return np.zeros_like(row)",
                        f"    {e} = np.exp(row - np.max(row))", f"    return {e} / np.sum({e})",
                        "return np.apply_along_axis(one_row, axis, S)"]
    if style == 4:
        return lines + ["finite = np.isfinite(S)", f"{top} = np.max(np.where(finite, S, -np.inf), {keep})",
                        f"{top} = np.where(np.isfinite({top}), {top}, 0)",
                        f"{e} = np.where(finite, np.exp(S - {top}), 0.0)", f"{total} = {v.reduce('sum', e, keep)}",
                        f"{total} = np.where({total} == 0, 1, {total}){v.comment()}", f"return {e} / {total}"]
    return lines + ["with np.errstate(invalid='ignore', over='ignore'):",
                    f"    {e} = np.exp(S - {v.reduce('max', 'S', keep)})",
                    f"    {p} = {e} / {v.reduce('sum', e, keep)}", f"{p}[np.isnan({p})] = 0.0", f"return {p}"]


def _scaled_scores(v: Voice, style: int) -> list[str]:
    d, s = v.n("d"), v.n("scores")
    lines = v.check("Q.shape[-1] != K.shape[-1]", "the last axes of Q and K equal", "Q.shape} and {K.shape")
    if style == 0:
        return lines + [f"return Q @ K.swapaxes(-1, -2) / {v.sqrt('Q.shape[-1]')}"]
    if style == 1:
        return lines + [f"{d} = Q.shape[-1]", f"{s} = np.matmul(Q, np.swapaxes(K, -2, -1))",
                        f"return {s} / {v.sqrt(d)}"]
    if style == 2:
        return lines + [f"return np.einsum('...id,...jd->...ij', Q, K) / {v.sqrt('K.shape[-1]')}"]
    if style == 3:
        return lines + [f"return raw_scores(Q, K) / {v.sqrt('np.shape(K)[-1]')}"]
    if style == 4:
        return lines + [f"Q = Q / {v.sqrt('Q.shape[-1]')}", "return Q @ np.moveaxis(K, -1, -2)"]
    return lines + ["Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)",
                    f"scale = 1.0 / {v.sqrt('Q.shape[-1]')}", f"return scale * (Q @ K.transpose(*range(K.ndim - 2), -1, -2))"]


def _attention(v: Voice, style: int) -> list[str]:
    s, w, out, d = v.n("scores"), v.n("weights"), v.n("out"), v.n("d")
    lines = v.pick([], ["Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)"],
                   ["Q = np.asarray(Q, dtype=float)", "K = np.asarray(K, dtype=float)", "V = np.asarray(V, dtype=float)"])
    lines += v.check("Q.shape[-1] != K.shape[-1]", "Q and K of one width", "Q.shape} {K.shape")
    lines += v.check("K.shape[-2] != V.shape[-2]", "K and V of one length", "K.shape} {V.shape")
    masked = v.pick([f"if mask is not None:", f"    {s} = {s} + mask"], [f"if mask is not None:", f"    {s} += mask"])
    if style == 0:
        return lines + [f"{s} = scaled_scores(Q, K)", *masked, f"{w} = softmax({s}, axis=-1)",
                        f"return {w} @ V, {w}"]
    if style == 1:
        return lines + [f"{d} = K.shape[-1]", f"{s} = np.einsum('...qd,...kd->...qk', Q, K) / {v.sqrt(d)}{v.comment()}",
                        *masked, f"{w} = softmax({s})", f"{out} = np.einsum('...qk,...kd->...qd', {w}, V)",
                        f"return {out}, {w}"]
    if style == 2:
        return lines + [f"{d} = Q.shape[-1]", f"{s} = Q @ np.swapaxes(K, -1, -2) / {v.sqrt(d)}", *masked,
                        f"{w} = np.exp({s} - {v.reduce('max', s, 'axis=-1, keepdims=True')})",
                        f"{w} = {w} / {v.reduce('sum', w, 'axis=-1, keepdims=True')}", f"{out} = {w} @ V",
                        f"return {out}, {w}"]
    if style == 3:
        return lines + [f"{s} = np.matmul(Q, np.swapaxes(K, -2, -1))", f"{s} = {s} / {v.sqrt('Q.shape[-1]')}",
                        f"{s} = {s} if mask is None else {s} + mask", f"{w} = softmax({s}, -1)",
                        f"{out} = np.matmul({w}, V){v.comment()}", f"return {out}, {w}"]
    if style == 4:
        return lines + [f"{s} = raw_scores(Q, K) / {v.sqrt('K.shape[-1]')}",
                        "if mask is not None:", f"    {s} = np.where(np.isneginf(mask), -np.inf, {s} + mask)",
                        f"{w} = softmax({s}, axis=-1)", f"return np.matmul({w}, V), {w}"]
    return lines + [f"{d} = Q.shape[-1]", f"{s} = (Q / {v.sqrt(d)}) @ K.swapaxes(-1, -2)",
                    f"{s} = {s} + (0.0 if mask is None else np.asarray(mask))", f"{w} = softmax({s}, axis=-1)",
                    f"{out} = {w} @ V", f"return ({out}, {w})"]


def _split_heads(v: Voice, style: int) -> list[str]:
    dh, parts = v.n("width"), v.n("heads")
    lines = v.pick([], ["M = np.asarray(M)"], ["M = np.asarray(M, dtype=float)"])
    lines += v.check("M.shape[-1] % n_heads != 0", "d divisible by n_heads", "M.shape}, {n_heads")
    if style == 0:
        return lines + [f"{dh} = M.shape[-1] // n_heads", f"return M.reshape(*M.shape[:-1], n_heads, {dh}).swapaxes(-2, -3)"]
    if style == 1:
        return lines + ["*batch, n, d = M.shape", "return np.moveaxis(M.reshape(*batch, n, n_heads, d // n_heads), -2, -3)"]
    if style == 2:
        return lines + [f"{dh} = M.shape[-1] // n_heads",
                        f"return np.stack([M[..., h * {dh}:(h + 1) * {dh}] for h in range(n_heads)], axis=-3)"]
    if style == 3:
        return lines + [f"{dh} = M.shape[-1] // n_heads", f"{parts} = []", "for h in range(n_heads):",
                        f"    {parts}.append(M[..., h * {dh}:(h + 1) * {dh}])", f"return np.stack({parts}, axis=-3)"]
    if style == 4:
        return lines + ["return np.stack(np.split(M, n_heads, axis=-1), axis=-3)"]
    return lines + ["n, d = M.shape[-2], M.shape[-1]", "new_shape = M.shape[:-2] + (n, n_heads, d // n_heads)",
                    "axes = list(range(len(new_shape)))", "axes[-3], axes[-2] = axes[-2], axes[-3]",
                    "return M.reshape(new_shape).transpose(axes)"]


def _merge_heads(v: Voice, style: int) -> list[str]:
    parts = v.n("heads")
    lines = v.pick([], ["H = np.asarray(H)"])
    lines += v.check("H.ndim < 3", "at least 3-D", "H.shape")
    if style == 0:
        return lines + ["*batch, h, n, d = H.shape", "return H.swapaxes(-2, -3).reshape(*batch, n, h * d)"]
    if style == 1:
        return lines + ["return np.concatenate([H[..., h, :, :] for h in range(H.shape[-3])], axis=-1)"]
    if style == 2:
        return lines + [f"{parts} = []", "for h in range(H.shape[-3]):", f"    {parts}.append(H[..., h, :, :])",
                        f"return np.concatenate({parts}, axis=-1)"]
    if style == 3:
        return lines + ["moved = np.moveaxis(H, -3, -2)", "return moved.reshape(moved.shape[:-2] + (-1,))"]
    if style == 4:
        return lines + ["return np.concatenate(list(np.moveaxis(H, -3, 0)), axis=-1)"]
    return lines + ["axes = list(range(H.ndim))", "axes[-3], axes[-2] = axes[-2], axes[-3]",
                    "T = np.transpose(H, axes)", "return T.reshape(*T.shape[:-2], T.shape[-2] * T.shape[-1])"]


def _multi_head_attention(v: Voice, style: int) -> list[str]:
    heads, out, dh, w = v.n("heads"), v.n("out"), v.n("width"), v.n("weights")
    source = v.pick("context", "src", "kv", "mem")
    lines = v.pick([f"{source} = X if context is None else context"],
                   [f"if context is None:", f"    {source} = X", "else:", f"    {source} = context"])
    lines += v.check("W_q.shape[1] % n_heads", "d_h divisible by n_heads", "W_q.shape")
    head_mask = "mask if mask is None else np.expand_dims(mask, -3)"
    qkv = [f"Q = X @ W_q", f"K = {source} @ W_k", f"V = {source} @ W_v"]
    if style == 0:
        return lines + qkv + [f"{heads}, _ = attention(split_heads(Q, n_heads), split_heads(K, n_heads), "
                              f"split_heads(V, n_heads), {head_mask})", f"return merge_heads({heads}) @ W_o"]
    if style == 1:
        return lines + qkv + [f"{dh} = Q.shape[-1] // n_heads", f"{heads} = []", "for h in range(n_heads):",
                              f"    cut = slice(h * {dh}, (h + 1) * {dh})",
                              f"    o, _ = attention(Q[..., cut], K[..., cut], V[..., cut], mask)",
                              f"    {heads}.append(o)", f"{out} = np.concatenate({heads}, axis=-1) @ W_o",
                              f"return {out}"]
    if style == 2:
        return lines + qkv + [f"{dh} = Q.shape[-1] // n_heads",
                              f"{heads} = [attention(Q[..., h * {dh}:(h + 1) * {dh}], K[..., h * {dh}:(h + 1) * {dh}], "
                              f"V[..., h * {dh}:(h + 1) * {dh}], mask)[0] for h in range(n_heads)]",
                              f"return np.concatenate({heads}, axis=-1) @ W_o"]
    if style == 3:
        return lines + [f"Q = np.einsum('...nd,de->...ne', X, W_q)", f"K = np.einsum('...md,de->...me', {source}, W_k)",
                        f"V = np.einsum('...md,de->...me', {source}, W_v)",
                        "Qh, Kh, Vh = (split_heads(M, n_heads) for M in (Q, K, V))",
                        f"{out}, {w} = attention(Qh, Kh, Vh, {head_mask})",
                        f"return np.einsum('...ne,eo->...no', merge_heads({out}), W_o)"]
    if style == 4:
        return lines + [f"{dh} = W_q.shape[1] // n_heads", f"{heads} = []", "for h in range(n_heads):",
                        f"    cols = slice(h * {dh}, (h + 1) * {dh})",
                        f"    q, k, val = X @ W_q[:, cols], {source} @ W_k[:, cols], {source} @ W_v[:, cols]",
                        f"    {heads}.append(attention(q, k, val, mask)[0])",
                        f"return np.concatenate({heads}, axis=-1) @ W_o"]
    return lines + qkv + ["*batch, n, d_h = Q.shape", f"m = {source}.shape[-2]",
                          "Qh = Q.reshape(*batch, n, n_heads, -1).swapaxes(-2, -3)",
                          "Kh = K.reshape(*batch, m, n_heads, -1).swapaxes(-2, -3)",
                          "Vh = V.reshape(*batch, m, n_heads, -1).swapaxes(-2, -3)",
                          f"{out}, _ = attention(Qh, Kh, Vh, {head_mask})",
                          f"{out} = {out}.swapaxes(-2, -3).reshape(*batch, n, d_h)", f"return {out} @ W_o"]


def _causal_mask(v: Voice, style: int) -> list[str]:
    m, pos = v.n("mask"), v.n("pos")
    lines = v.check("isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1", "n a positive integer", "n!r")
    if style == 0:
        return lines + ["return np.triu(np.full((n, n), -np.inf), k=1)"]
    if style == 1:
        return lines + [f"{pos} = np.arange(n)", f"return np.where({pos}[None, :] > {pos}[:, None], -np.inf, 0.0)"]
    if style == 2:
        return lines + [f"{m} = np.zeros((n, n))", "for i in range(n):", "    for j in range(i + 1, n):",
                        f"        {m}[i, j] = -np.inf", f"return {m}"]
    if style == 3:
        return lines + [f"{m} = np.tril(np.ones((n, n), dtype=bool))", f"return np.where({m}, 0.0, -np.inf)"]
    if style == 4:
        return lines + ["return np.fromfunction(lambda i, j: np.where(j > i, -np.inf, 0.0), (n, n))"]
    return lines + [f"{m} = np.zeros((n, n))", f"{m}[np.triu_indices(n, 1)] = -np.inf", f"return {m}"]


def _padding_mask(v: Voice, style: int) -> list[str]:
    m, pos = v.n("mask"), v.n("pos")
    lines = v.pick([], ["lengths = np.asarray(lengths)"], ["lengths = np.array(lengths, dtype=int)"])
    lines += v.check("np.any(lengths < 1) or np.any(lengths > n)", "lengths between 1 and n", "lengths")
    if style == 0:
        return lines + [f"{pos} = np.arange(n)", f"return np.where({pos}[None, :] >= lengths[:, None], -np.inf, 0.0)[:, None, :]"]
    if style == 1:
        return lines + [f"{m} = np.zeros((len(lengths), 1, n))", "for b, length in enumerate(lengths):",
                        f"    {m}[b, 0, length:] = -np.inf", f"return {m}"]
    if style == 2:
        return lines + [f"keep = np.arange(n) < np.asarray(lengths)[:, None]",
                        f"return np.expand_dims(np.where(keep, 0.0, -np.inf), 1)"]
    if style == 3:
        return lines + [f"rows = [[0.0 if j < length else -np.inf for j in range(n)] for length in lengths]",
                        "return np.array(rows)[:, None, :]"]
    if style == 4:
        return lines + [f"{m} = np.greater_equal.outer(np.arange(n), np.asarray(lengths)).T",
                        f"return np.where({m}, -np.inf, 0.0).reshape(len(lengths), 1, n)"]
    return lines + [f"{m} = np.full((len(lengths), n), -np.inf)", "for b in range(len(lengths)):",
                    f"    {m}[b, :lengths[b]] = 0.0", f"return {m}[:, np.newaxis, :]"]


def _block_mask(v: Voice, style: int) -> list[str]:
    m = v.n("mask")
    lines = v.pick([], ["group_sizes = np.asarray(group_sizes)"], ["sizes = np.asarray(group_sizes)"])
    sizes = "sizes" if lines and "sizes =" in lines[0] and lines[0].startswith("sizes") else "group_sizes"
    lines += v.check(f"np.any(np.asarray({sizes}) < 1)", "positive group sizes", sizes)
    if style == 0:
        return lines + [f"group = np.repeat(np.arange(len({sizes})), {sizes})",
                        f"return np.where(np.asarray(allowed)[np.ix_(group, group)], 0.0, -np.inf)"]
    if style == 1:
        return lines + [f"ends = np.cumsum({sizes})", "starts = ends - np.asarray(" + sizes + ")",
                        f"{m} = np.full((ends[-1], ends[-1]), -np.inf)", f"for a in range(len({sizes})):",
                        f"    for b in range(len({sizes})):", "        if allowed[a][b]:",
                        f"            {m}[starts[a]:ends[a], starts[b]:ends[b]] = 0.0", f"return {m}"]
    if style == 2:
        return lines + [f"big = np.repeat(np.repeat(np.asarray(allowed), {sizes}, axis=0), {sizes}, axis=1)",
                        "return np.where(big, 0.0, -np.inf)"]
    if style == 3:
        return lines + [f"group = np.concatenate([np.full(size, g) for g, size in enumerate({sizes})])",
                        "ok = np.asarray(allowed)[group][:, group]", "return np.where(ok, 0.0, -np.inf)"]
    if style == 4:
        return lines + ["group = []", f"for g, size in enumerate({sizes}):", "    group += [g] * int(size)",
                        "N = len(group)", f"{m} = np.zeros((N, N))", "for i in range(N):", "    for j in range(N):",
                        "        if not allowed[group[i]][group[j]]:", f"            {m}[i, j] = -np.inf",
                        f"return {m}"]
    return lines + ["return np.block([[np.full((p, q), 0.0 if allowed[a][b] else -np.inf) "
                    f"for b, q in enumerate({sizes})] for a, p in enumerate({sizes})])"]


STYLES = {"softmax": _softmax, "scaled_scores": _scaled_scores, "attention": _attention, "split_heads": _split_heads,
          "merge_heads": _merge_heads, "multi_head_attention": _multi_head_attention, "causal_mask": _causal_mask,
          "padding_mask": _padding_mask, "block_mask": _block_mask}


# Lines a student adds of their own before the answer proper: {a} is the first parameter.
_OWN = ["assert {a} is not None", "{a} = np.asarray({a})", "{a} = np.array({a}, dtype=float)",
        "assert np.ndim({a}) >= 1, 'empty input'", "if np.size({a}) == 0:\n    return np.zeros(np.shape({a}))",
        "print(np.shape({a}))", "{a} = {a} + 0.0", "assert np.all(np.isfinite({a}) | np.isinf({a}))",
        "ndim = np.ndim({a})", "shape = np.shape({a})"]


def honest_answer(exercise: str, v: Voice, stub: str) -> str:
    body = STYLES[exercise](v, v.rng.randrange(6))
    first = re.search(r"\((\w+)", stub)[1]
    if v.chance(0.4):
        body = [v.pick(*_OWN).format(a=first), *body]
    lines = [header(stub)] + (["    # YOUR CODE HERE"] if v.keeps_marker else [])
    for line in body:
        lines.append("    " + "\n    ".join(_in_own_words(part, v) for part in line.split("\n")))
        if v.chance(0.08):
            lines.append("")
    return "\n".join(lines) + "\n"


# ---- disguises

_NEW_NAMES = ["tmp", "val", "thing", "arr", "buf", "xx", "foo", "vec", "mat2", "aux", "data", "q2", "t1", "t2",
              "u", "zz", "holder", "piece", "calc", "my_var", "stuff", "step", "acc", "cur"]


def _bound(code: str) -> set[str]:
    """The names the code binds but its functions' parameters and names (what a copier renames)."""
    tree = ast.parse(code)
    kept = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    kept |= {a.arg for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) for a in node.args.args}
    stored = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return stored - kept


def renamed(code: str, rng: random.Random) -> str:
    """Every name the answer binds replaced by one of the copier's (words, not the source's style)."""
    names = sorted(_bound(code))
    free = [name for name in _NEW_NAMES if not re.search(rf"\b{name}\b", code)]
    fresh = rng.sample(free, len(names)) if len(names) <= len(free) else [f"v{i}_" for i in range(len(names))]
    for old, new in zip(names, fresh):
        code = re.sub(rf"(?<![.\w]){re.escape(old)}\b", new, code)
    return code


def recommented(code: str, rng: random.Random) -> str:
    """Comments dropped and written anew, the marker line gone, blank lines moved (the docstring kept)."""
    out, quoted = [], False
    for line in code.split("\n"):
        if quoted or '"""' in line:
            out.append(line)
            quoted ^= line.count('"""') % 2 == 1
            continue
        bare = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
        if not bare.strip() and line.strip():
            continue
        if bare.strip() and not bare.lstrip().startswith("def ") and rng.random() < 0.35:
            indent = bare[:len(bare) - len(bare.lstrip())]
            out.append(indent + "# " + rng.choice(["compute it", "here", "step", "as asked", "important", "see above"]))
        out.append(bare)
        if rng.random() < 0.15:
            out.append("")
    return "\n".join(out)


def _function_body(tree: ast.Module) -> list[ast.stmt]:
    return next(node for node in tree.body if isinstance(node, ast.FunctionDef)).body


def _names(node: ast.AST) -> tuple[set[str], set[str]]:
    reads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    writes = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    calls = {n.func.value.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.attr in ("append", "extend", "sort")}
    return reads, writes | calls


def _swappable(code: str) -> list[tuple[ast.stmt, ast.stmt]]:
    """Adjacent statements of the function's body that neither reads what the other writes (a check that
    raises may move; a return may not)."""
    body = [s for s in _function_body(ast.parse(code)) if not isinstance(s, ast.Expr)]
    found = []
    for first, second in zip(body, body[1:]):
        r1, w1 = _names(first)
        r2, w2 = _names(second)
        returns = any(isinstance(n, ast.Return) for s in (first, second) for n in ast.walk(s))
        if not returns and not (w1 & (r2 | w2)) and not (r1 & w2) and first.end_lineno + 1 == second.lineno:
            found.append((first, second))
    return found


def can_reorder(code: str) -> bool:
    return bool(_swappable(code))


def reordered(code: str, rng: random.Random) -> str:
    """One or two pairs of adjacent independent statements of the function's body swapped."""
    lines = code.split("\n")
    swappable = _swappable(code)
    chosen = rng.sample(swappable, min(2, len(swappable)))
    taken: set[int] = set()
    for first, second in sorted(chosen, key=lambda pair: -pair[0].lineno):
        if {first.lineno, second.lineno} & taken:
            continue
        taken |= {first.lineno, second.lineno}
        a = lines[first.lineno - 1:first.end_lineno]
        b = lines[second.lineno - 1:second.end_lineno]
        lines[first.lineno - 1:second.end_lineno] = b + a
    return "\n".join(lines)


# Equivalent spellings a copier might switch to: (pattern, replacement), one occurrence each.
_EQUIVALENT = [
    (r"(\b[\w.]+(?:\[[^\]]*\])?) @ ([\w.]+(?:\([^()]*\))?)", r"np.matmul(\1, \2)"),
    (r"np\.matmul\(([^(),]+), ([^(),]+)\)", r"\1 @ \2"),
    (r"np\.sqrt\(([^()]+)\)", r"(\1) ** 0.5"),
    (r"math\.sqrt\(([^()]+)\)", r"np.sqrt(\1)"),
    (r"(\w+) \+= (\w+)", r"\1 = \1 + \2"),
    (r"(\w+) = \1 \+ (\w+)$", r"\1 += \2"),
    (r"np\.swapaxes\((\w+), -1, -2\)", r"np.swapaxes(\1, -2, -1)"),
    (r"(\w+)\.swapaxes\(-1, -2\)", r"np.swapaxes(\1, -1, -2)"),
    (r"\[None, :\]", "[np.newaxis, :]"),
    (r"\[:, None\]", ".reshape(-1, 1)"),
    (r"-np\.inf", "float('-inf')"),
    (r"np\.zeros\(\((\w+), (\w+)\)\)", r"np.zeros([\1, \2])"),
    (r"(\w+)\.sum\(axis=(-?\w+), keepdims=True\)", r"np.sum(\1, axis=\2, keepdims=True)"),
    (r"np\.max\((\w+), axis=(-?\w+), keepdims=True\)", r"\1.max(axis=\2, keepdims=True)"),
    (r"range\((\w+)\.shape\[-3\]\)", r"range(np.shape(\1)[-3])"),
    (r"(\S+) / (\w+)$", r"\1 * (1.0 / \2)"),
    (r"axis=-1\)", "axis=(-1))"),
    (r"np\.where\(([^,()]+), 0\.0, -np\.inf\)", r"np.where(~(\1), -np.inf, 0.0)"),
]


def rewritten(code: str, rng: random.Random) -> str:
    """One or two expressions of the body written another, equivalent way."""
    head, _, body = code.partition('"""\n')  # the docstring's end: the body follows
    head, body = (head + '"""\n', body) if body else ("", code)
    done = 0
    for pattern, replacement in rng.sample(_EQUIVALENT, len(_EQUIVALENT)):
        changed = re.sub(pattern, replacement, body, count=1, flags=re.M)
        if changed != body:
            body, done = changed, done + 1
        if done == 2:
            break
    return head + body


def into_helper(code: str, rng: random.Random) -> str:
    """The function's body (after its first statement, or all of it) moved into a helper of the copier's
    own, defined before or after it, which the function calls with its parameters."""
    tree = ast.parse(code)
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef))
    lines = code.split("\n")
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    keep = 1 if len(body) > 2 and rng.random() < 0.5 else 0
    start = body[keep].lineno - 1
    params = [a.arg for a in function.args.args]
    helper_name = rng.choice(["_impl", "_compute", "helper", "_do_it", "_inner"])
    moved = lines[start:function.end_lineno]
    helper = [f"def {helper_name}({', '.join(params)}):", *moved]
    call = f"    return {helper_name}({', '.join(params)})"
    main = lines[:start] + [call]
    joined = helper + ["", ""] + main if rng.random() < 0.5 else main + ["", ""] + helper
    return "\n".join(joined + lines[function.end_lineno:])


def comprehended(code: str, rng: random.Random) -> str:
    """A loop that appends to a list made a list comprehension, or a comprehension written as such a loop."""
    lines = code.split("\n")
    for i in range(len(lines) - 2):
        start = re.match(r"(\s*)(\w+) = \[\]$", lines[i])
        loop = re.match(r"(\s*)for (.+) in (.+):$", lines[i + 1])
        if start and loop and i + 2 < len(lines):
            inner = lines[i + 2:]
            appended = re.match(rf"\s+{start[2]}\.append\((.*)\)$", inner[0]) if inner else None
            if appended and (len(inner) == 1 or not inner[1].startswith(loop[1] + "    ")):
                lines[i:i + 3] = [f"{start[1]}{start[2]} = [{appended[1]} for {loop[2]} in {loop[3]}]"]
                return "\n".join(lines)
            setup = []
            while inner and inner[0].startswith(loop[1] + "    ") and ".append(" not in inner[0]:
                setup.append(inner.pop(0))
            appended = re.match(rf"\s+{start[2]}\.append\((.*)\)$", inner[0]) if inner else None
            if appended and len(setup) == 1 and (found := re.match(r"\s+(\w+) = (.+)$", setup[0])):
                value = appended[1].replace(found[1], f"({found[2]})")
                lines[i:i + 3 + len(setup)] = [f"{start[1]}{start[2]} = [{value} for {loop[2]} in {loop[3]}]"]
                return "\n".join(lines)
    for i, line in enumerate(lines):
        comp = re.match(r"(\s*)(\w+) = \[(.+) for (\w+) in (range\(.+?\))\]$", line)
        if comp:
            lines[i:i + 1] = [f"{comp[1]}{comp[2]} = []", f"{comp[1]}for {comp[4]} in {comp[5]}:",
                              f"{comp[1]}    {comp[2]}.append({comp[3]})"]
            return "\n".join(lines)
        inline = re.match(r"(\s*)return np\.(stack|concatenate)\(\[(.+) for (\w+) in (range\(.+?\))\](.*)\)$", line)
        if inline:
            lines[i:i + 1] = [f"{inline[1]}pieces = []", f"{inline[1]}for {inline[4]} in {inline[5]}:",
                              f"{inline[1]}    pieces.append({inline[3]})",
                              f"{inline[1]}return np.{inline[2]}(pieces{inline[6]})"]
            return "\n".join(lines)
    return code


def has_loop_or_comprehension(code: str) -> bool:
    return comprehended(code, random.Random(0)) != code


# ---- the class

@dataclass
class Class:
    answers: dict[str, dict[str, str]]                 # student → exercise → answer cell
    planted: dict[str, set] = field(default_factory=dict)  # kind → {(exercise or "", (student, student))}
    reference: dict[str, str] = field(default_factory=dict)  # "reference module" copier → exercise
    untouched: set[tuple[str, str]] = field(default_factory=set)  # (student, exercise) left as released

    def copies(self) -> set[tuple[str, tuple[str, str]]]:
        """Every planted (exercise, pair) between two students (a chain: each link)."""
        return {(exercise, pair) for kind, found in self.planted.items() if kind != "reference module"
                for exercise, pair in found if exercise}


REFERENCE = "reference"  # the name of the reference's side of a "reference module" copy


def disguised_class(seed: int, stubs: dict[str, str], module: str, students: int = 60) -> Class:
    rng = random.Random(seed)
    ids = [f"p{i:03d}" for i in range(students)]
    answers, untouched = {}, set()
    for i, student in enumerate(ids):
        v = voice(random.Random(rng.random()))
        answers[student] = {}
        for exercise in EXERCISES:
            if i == students - 1 or v.chance(0.03):
                answers[student][exercise] = stubs[exercise]
                untouched.add((student, exercise))
            else:
                answers[student][exercise] = honest_answer(exercise, v, stubs[exercise])
    made = Class(answers, {kind: set() for kind in KINDS}, untouched=untouched)
    pool = [s for s in ids[:-1]]
    rng.shuffle(pool)

    def started(student: str, exercise: str) -> bool:
        return (student, exercise) not in untouched

    def plant(kind: str, exercise: str, source: str, target: str, *disguises) -> None:
        code = answers[source][exercise]
        for disguise in disguises:
            code = disguise(code, rng)
        answers[target][exercise] = code
        untouched.discard((target, exercise))
        made.planted[kind].add((exercise, tuple(sorted((source, target)))))

    def take(exercise: str | None = None, test=lambda code: True) -> str:
        for s in pool:
            if exercise is None or (started(s, exercise) and test(answers[s][exercise])):
                pool.remove(s)
                return s
        raise RuntimeError("no student left to take")

    for kind, disguise in (("renamed", None), ("comments", recommented), ("reordered", reordered),
                           ("rewritten", rewritten), ("helper", into_helper)):
        exercise = rng.choice(LONG)
        source = take(exercise, can_reorder if disguise is reordered else lambda code: True)
        plant(kind, exercise, source, take(), renamed, *([disguise] if disguise else []))
    looped = [e for e in EXERCISES if any(has_loop_or_comprehension(answers[s][e]) for s in pool)]
    exercise = rng.choice(looped)
    plant("comprehension", exercise, take(exercise, has_loop_or_comprehension), take(), comprehended, renamed)
    source, target = take(), take()
    for exercise in rng.sample([e for e in SHORT if started(source, e)], 4):
        plant("short answers", exercise, source, target, renamed, recommented)
    copier = take()
    exercise = rng.choice(("attention", "multi_head_attention", "padding_mask", "block_mask", "softmax", "split_heads"))
    answers[copier][exercise] = recommented(renamed(module_form(module, exercise, stubs[exercise]), rng), rng)
    untouched.discard((copier, exercise))
    made.planted["reference module"].add((exercise, (copier, REFERENCE)))
    made.reference[copier] = exercise
    exercise = rng.choice(LONG)
    first, second, third = take(exercise), take(), take()
    plant("chain", exercise, first, second, renamed, recommented)
    plant("chain", exercise, second, third, renamed, reordered)
    return made


# ---- a class of this generator as the report reads it, and what the report lists of it

def given_exercises() -> dict:
    """The generator's exercises as the report reads them: the release's stubs and hints, the reference
    module."""
    found = exercises(ROOT / "source" / "attention", ROOT / "assignments" / "attention",
                      ROOT / "solutions" / "attention.py")
    return {name: e for name, e in found.items() if name in EXERCISES}


def second_class(seed: int) -> Class:
    """The class of `seed`, written under the release's stubs, copying from the kit's reference module."""
    released = handed_in(ROOT / "assignments" / "attention", set(EXERCISES))
    return disguised_class(seed, released, (ROOT / "solutions" / "attention.py").read_text())


def pair_of(a: str, b: str) -> tuple[str, str]:
    """Two students (or a student and a form of the reference, any form named REFERENCE), in order."""
    a, b = (s if s.startswith("p") else REFERENCE for s in (a, b))
    return tuple(sorted((a, b)))


def listed_by_kit(given, answers, settings: Settings = Settings()) -> set:
    """The report's listing: its pairs, its pairs across exercises (exercise ""), its students alike the
    reference (which it compares in both forms itself); settings: the report's own unless given."""
    similarity = similar_answers(given, answers, settings)
    listed = {(e.name, p.students) for e in similarity.exercises for p in e.flagged}
    listed |= {(e.name, (p.students[0], REFERENCE)) for e in similarity.exercises for p in e.reference}
    listed |= {("", r.students) for r in similarity.repeated}
    return {(name, pair_of(*pair)) for name, pair in listed if pair[0] != pair[1]}


def judged(made: Class, listed: set) -> tuple[Counter, set]:
    """Planted copies found by kind (a chain: both links; short answers: the pair anywhere), and the honest
    pairs of students listed (a chain's two ends are no honest pair)."""
    pairs = {pair for _, pair in listed}
    found = Counter()
    for kind in KINDS:
        planted = made.planted[kind]
        if kind == "short answers":
            found[kind] += bool(planted) and next(iter(planted))[1] in pairs
        elif kind == "chain":
            found[kind] += planted <= listed
        else:
            found[kind] += bool(planted & listed)
    copies = {pair for each in made.planted.values() for _, pair in each}
    chain = {s for _, pair in made.planted["chain"] for s in pair}
    copies |= {tuple(sorted((a, b))) for a in chain for b in chain if a < b}
    return found, pairs - copies
