"""The inputs every exercise is checked on, and the reference's answers to them.

`visible_cases` are the chapter's worked example: they ship with the student
release (``worked_example.npz``) and drive the check cell under each exercise.
`hidden_cases` use seeds that appear nowhere in the notebooks, other shapes,
float32 and float64, batches, extreme scores, masked rows and block sizes that
do not divide n, plus examples drawn by hypothesis (derandomised, so two
gradings give the same score). Expected values always come from
`solutions.attention`, never from a typed-in number.
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from autograder.judge import Seed, fresh_inputs
from autograder.mistakes import MISTAKES
from solutions import attention as ref
from solutions import check_yourself

FUNCTIONS = (
    "token_movement", "project_qkv", "raw_scores", "scaled_scores", "score_spread", "largest_weight",
    "softmax", "attention", "split_heads", "merge_heads", "multi_head_attention",
    "causal_mask", "padding_mask", "block_mask", "blockwise_attention",
    "projection_flops", "score_flops", "attention_share", "crossover_length", "score_grid_bytes",
    "attention_params",
    # The chapter's claims, each shown by computing (sections 2 to 7), and notebook 08's computed answers.
    "self_preference", "lead_share", "layer_counts", "pattern_count", "first_changed_output", "padding_leak",
    "mlp_flops", "grid_over_mlp", "hull_excess", "leaked_targets", "score_variance",
)
QUESTIONS = tuple(check_yourself.ANSWERS)
# Notebook 09's exercises on the explorer's model (cases in autograder/model_cases.py).
MODEL_FUNCTIONS = ("self_score", "previous_score", "start_score", "induction_score", "classify_head", "copy_score")
EXERCISES = FUNCTIONS + MODEL_FUNCTIONS + QUESTIONS

# What the foundation issue specifies for the functions, as the `checks` tags of
# hidden cases (tests/test_case_coverage.py maps each to the cases that check it).
BEHAVIOURS = {
    "float32": "float32 in gives float32 out",
    "batched": "any leading batch dimensions",
    "cross": "queries and keys of different lengths (n_q ≠ n_k)",
    "masked row": "a row whose every key is forbidden gives zero weights, no NaN",
    "1e4": "scores of size 1e4 give no overflow or NaN",
    "bad shape": "a ValueError for shapes that do not fit (mismatched inner sizes, d not divisible by n_heads)",
    "bad size": "a ValueError for a size or count below 1 (block size, tokens, width)",
}

# The robot layout of chapter section 6: picture, words, joint reading, actions.
ROBOT_GROUPS = [256, 12, 1, 8]
ROBOT_ALLOWED = [[True, True, False, False],
                 [True, True, False, False],
                 [True, True, True, False],
                 [True, True, True, True]]


def _tags(checks: str) -> list[str]:
    """"batched, float32" → ["batched", "float32"], each one of `BEHAVIOURS`."""
    tags = sorted(tag.strip() for tag in checks.split(","))
    unknown = set(tags) - set(BEHAVIOURS)
    if unknown:
        raise ValueError(f"unknown behaviours {sorted(unknown)}: name them in BEHAVIOURS")
    return tags


def _case(func: str, label: str, *args, raises: str | None = None, memory_limit_bytes: int | None = None,
          grid_bytes: int | None = None, seconds: float | None = None, checks: str = "", **kwargs) -> dict:
    """A case: inputs, plus the reference's answer and every known mistake's answer.

    memory_limit_bytes: the most the call may allocate at its peak (grid_bytes
    is the size of the full n_q × n_k grid, for the message).
    seconds: a longer time limit than the grader's default, for a large case.
    checks: the specified behaviours (`BEHAVIOURS`) this case checks, comma-separated.
    """
    case = {"func": func, "label": label, "args": list(args), "kwargs": kwargs}
    if checks:
        case["checks"] = _tags(checks)
    if seconds:
        case["seconds"] = seconds
    if memory_limit_bytes:
        case.update(memory_limit_bytes=memory_limit_bytes, grid_bytes=grid_bytes)
    if raises:
        case["raises"] = raises
        return case
    args, kwargs = fresh_inputs(case)
    case["expected"] = getattr(ref, func)(*args, **kwargs)
    variants = []
    for mistake in MISTAKES.get(func, ()):
        if mistake.variant is None:  # a mistake that shows in memory, not in values
            continue
        a, k = fresh_inputs(case)
        try:
            with np.errstate(all="ignore"):
                output = mistake.variant(*a, **k)
        except Exception:
            continue
        variants.append((mistake.name, mistake.section, mistake.explanation, output))
    case["variants"] = variants
    return case


def _question(name: str, label: str, *args, checks: str = "") -> dict:
    """A check-yourself case: the answer itself, or a function applied to args (see `_case`)."""
    answer = check_yourself.ANSWERS[name]
    if callable(answer):
        case = {"func": name, "label": label, "args": list(args), "kwargs": {}}
        if checks:
            case["checks"] = _tags(checks)
        case["expected"] = answer(*fresh_inputs(case)[0])
    else:
        case = {"func": name, "label": label, "args": None, "kwargs": {}, "expected": answer,
                "form": "letter" if isinstance(answer, str) else "count"}
    case["variants"] = []
    return case


# ---------------------------------------------------------------- the worked example


def worked_example():
    """The chapter's four tokens and matrices (seed 28, as its listing builds them)."""
    rng = np.random.default_rng(28)
    X = np.round(rng.normal(0, 0.9, (4, 4)), 1)
    W_q, W_k, W_v = (np.round(rng.normal(0, 0.6, (4, 4)), 1) for _ in range(3))
    return X, W_q, W_k, W_v


def visible_cases() -> list[dict]:
    from autograder.model_cases import model_cases
    return _worked_example_cases() + list(model_cases()[0])


def _worked_example_cases() -> list[dict]:
    X, W_q, W_k, W_v = worked_example()
    Q, K, V = ref.project_qkv(X, W_q, W_k, W_v)
    O, _ = ref.attention(Q, K, V)
    S = ref.scaled_scores(Q, K)
    last_key_forbidden = np.zeros((4, 4))
    last_key_forbidden[:, 3] = -np.inf
    W_o = np.round(np.random.default_rng(5).normal(0, 0.6, (4, 4)), 1)
    return [
        _case("token_movement", "the worked example before and after attention", X, O),
        _case("token_movement", "shapes that differ", X, O[:3], raises="ValueError"),
        _case("project_qkv", "the worked example", X, W_q, W_k, W_v),
        _case("project_qkv", "a W_v of the wrong height", X, W_q, W_k, W_v[:3], raises="ValueError"),
        _case("raw_scores", "the worked example", Q, K),
        _case("scaled_scores", "the worked example", Q, K),
        _case("score_spread", "head size 4, 2,000 samples", 4, 2000, Seed(4)),
        _case("score_spread", "head size 64, 2,000 samples", 64, 2000, Seed(64)),
        _case("largest_weight", "head size 64, 64 keys, raw", 64, 64, False, 500, Seed(1)),
        _case("largest_weight", "head size 64, 64 keys, scaled", 64, 64, True, 500, Seed(1)),
        _case("softmax", "the worked example's scaled scores", S),
        _case("softmax", "the worked example with the last key forbidden", S + last_key_forbidden),
        _case("softmax", "scores of ±1e4", np.array([[1e4, 0.0, -1e4], [3e3, 3e3, 1.0]])),
        _case("softmax", "a row whose keys are all forbidden", np.array([[0.5, -np.inf], [-np.inf, -np.inf]])),
        _case("attention", "the worked example", Q, K, V),
        _case("attention", "the worked example with the last key forbidden", Q, K, V, mask=last_key_forbidden),
        _case("attention", "cross-attention from 2 queries to the 4 tokens", Q[:2], K, V),
        _case("attention", "the worked example with queries and keys 100 times larger", 100 * Q, 100 * K, V),
        _case("split_heads", "the worked example's queries in 2 heads", Q, 2),
        _case("merge_heads", "2 heads of the worked example", ref.split_heads(Q, 2)),
        _case("multi_head_attention", "the worked example, 2 heads", X, W_q, W_k, W_v, W_o, 2),
        _case("multi_head_attention", "the worked example, 2 heads, causal", X, W_q, W_k, W_v, W_o, 2,
              mask=ref.causal_mask(4)),
        _case("causal_mask", "4 tokens", 4),
        _case("padding_mask", "lengths 4 and 2 in a grid of 4", np.array([4, 2]), 4),
        _case("block_mask", "the robot layout (256, 12, 1, 8 tokens)", np.array(ROBOT_GROUPS), np.array(ROBOT_ALLOWED)),
        _case("blockwise_attention", "the worked example, blocks of 3", Q, K, V, 3),
        _case("blockwise_attention", "the worked example, blocks of 2, causal", Q, K, V, 2, causal=True),
        _case("projection_flops", "512 tokens of width 768", 512, 768),
        _case("score_flops", "512 tokens of width 768", 512, 768),
        _case("attention_share", "512 tokens of width 768 (the chapter: 25.0%)", 512, 768),
        _case("crossover_length", "width 768 (the chapter: 1,536)", 768),
        _case("score_grid_bytes", "512 tokens, 12 heads, 2 bytes (the chapter: 6 MiB)", 512, 12),
        _case("attention_params", "width 768, 12 heads", 768, 12),
    ] + _claim_cases(X, W_q, W_k, W_v, W_o, Q, K, V, O)


def _claim_cases(X, W_q, W_k, W_v, W_o, Q, K, V, O) -> list[dict]:
    """The visible cases of the exercises on the chapter's claims, on its own example and numbers."""
    cube_is_padding = ref.padding_mask(np.array([3]), 4)
    _, weights = ref.attention(Q, K, V)
    _, padded_weights = ref.attention(Q, K, V, cube_is_padding[0])
    last_hidden = np.ones((4, 4), dtype=bool)
    last_hidden[:, 3] = False
    O_masked, _ = ref.attention(Q, K, V, np.where(last_hidden, 0.0, -np.inf))
    rng = np.random.default_rng(12)
    pairs = {d_k: (rng.standard_normal((400, d_k)), rng.standard_normal((400, d_k))) for d_k in (4, 64)}
    return [
        _case("self_preference", "the worked example's tokens against themselves, X Xᵀ", X @ X.T),
        _case("self_preference", "the worked example's queries against its keys, Q Kᵀ", Q @ K.T),
        _case("lead_share", "leads of 0, 1 and 4 (the chapter: 0.500, 0.731, 0.982)", np.array([0.0, 1.0, 4.0])),
        _case("lead_share", "leads of +1000 and −1000 (a hard match)", np.array([1000.0, -1000.0])),
        _case("layer_counts", "512 tokens of width 768, 12 heads (the chapter: 393,216 / 262,144 / 3,145,728)",
              512, 768, 12),
        _case("pattern_count", "12 layers of 12 heads (the chapter: 144)", 12, 12),
        _case("first_changed_output", "the worked example, token 2 changed, causal mask", X, W_q, W_k, W_v, 2,
              mask=ref.causal_mask(4)),
        _case("first_changed_output", "the worked example, token 2 changed, no mask", X, W_q, W_k, W_v, 2),
        _case("padding_leak", "'cube' as padding, no mask (the chapter: 'up' puts 0.681 on it)",
              weights[None], np.array([3])),
        _case("padding_leak", "'cube' as padding, with the padding mask", padded_weights[None], np.array([3])),
        _case("mlp_flops", "512 tokens of width 768", 512, 768),
        _case("grid_over_mlp", "512 tokens of width 768 (short: the MLP dominates)", 512, 768),
        _case("grid_over_mlp", "32,768 tokens of width 768 (long: the grid dominates)", 32768, 768),
        _case("hull_excess", "the worked example's outputs", O, V),
        _case("hull_excess", "the worked example with 'cube' hidden from every query", O_masked, V, last_hidden),
        _case("hull_excess", "the outputs multiplied by W_o (no longer a mix of V)", O @ W_o, V),
        _case("hull_excess", "unmasked outputs, though 'cube' was hidden (a mask left out)", O, V, last_hidden),
        _case("leaked_targets", "the causal mask of 4 tokens", ref.causal_mask(4)),
        _case("leaked_targets", "no mask on 4 tokens", np.zeros((4, 4))),
        _case("score_variance", "400 pairs at head size 4", *pairs[4]),
        _case("score_variance", "400 pairs at head size 64", *pairs[64]),
    ]


# ---------------------------------------------------------------- hidden inputs

HIDDEN_SEED = 80_417  # appears nowhere in the notebooks


def _normal(rng, shape, dtype=np.float64, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _property_examples(strategy, n: int) -> list:
    """n examples drawn by hypothesis, the same ones every run."""
    drawn = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(strategy)
    def collect(example):
        drawn.append(example)

    # Hypothesis keeps a cache folder; inside a student's notebook folder it would
    # land in the release or a submission, so it goes to the temporary folder.
    set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "attention-kit-hypothesis")
    collect()
    return drawn[:n]


@st.composite
def _attention_inputs(draw):
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    n_q, n_k, d_k, d_v = (draw(st.integers(1, 9)) for _ in range(4))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    scale = draw(st.sampled_from([0.5, 1.0, 3.0]))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    shapes = [(*batch, n_q, d_k), (*batch, n_k, d_k), (*batch, n_k, d_v)]
    return tuple(_normal(rng, s, dtype, scale) for s in shapes)


def _forbidding_row(n_q: int, n_k: int, row: int) -> np.ndarray:
    """(n_q, n_k) additive mask: query `row` may see no key; every other query sees the first half of the keys."""
    mask = np.zeros((n_q, n_k))
    mask[:, (n_k + 1) // 2:] = -np.inf
    mask[row] = -np.inf
    return mask


def _hidden(func: str) -> list[dict]:
    rng = np.random.default_rng([HIDDEN_SEED, FUNCTIONS.index(func)])
    f32, f64 = np.float32, np.float64
    n = lambda *shape, dtype=f64, scale=1.0: _normal(rng, shape, dtype, scale)  # noqa: E731
    cases: list[dict] = []
    add = lambda label, *args, **kwargs: cases.append(_case(func, label, *args, **kwargs))  # noqa: E731

    if func == "token_movement":
        add("a batch (2, 5, 3) in float64", n(2, 5, 3), n(2, 5, 3), checks="batched")
        add("7 tokens of width 6 in float32", n(7, 6, dtype=f32), n(7, 6, dtype=f32), checks="float32")
        add("shapes that differ", n(3, 4), n(4, 4), raises="ValueError", checks="bad shape")
    elif func == "project_qkv":
        add("a batch (2, 5, 6), d_k = 3, d_v = 4", n(2, 5, 6), n(6, 3), n(6, 3), n(6, 4), checks="batched")
        add("float32, 9 tokens of width 8", *(n(9, 8, dtype=f32) if i == 0 else n(8, 8, dtype=f32) for i in range(4)),
            checks="float32")
        add("a W_q that does not fit X", n(5, 6), n(5, 3), n(6, 3), n(6, 3), raises="ValueError", checks="bad shape")
    elif func in ("raw_scores", "scaled_scores"):
        add("3 queries against 7 keys, d_k = 5", n(3, 5), n(7, 5), checks="cross")
        add("a batch (2, 3) in float32, d_k = 16", n(2, 3, 4, 16, dtype=f32), n(2, 3, 6, 16, dtype=f32),
            checks="batched, float32, cross")
        add("mismatched d_k", n(3, 5), n(3, 4), raises="ValueError", checks="bad shape")
    elif func == "score_spread":
        for d_k in (9, 256):
            add(f"head size {d_k}, 3,000 samples", d_k, 3000, Seed(HIDDEN_SEED + d_k))
        add("head size 0", 0, 100, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size")
    elif func == "largest_weight":
        for d_k, scaled in ((16, False), (256, True), (1024, False)):
            add(f"head size {d_k}, 32 keys, {'scaled' if scaled else 'raw'}", d_k, 32, scaled, 200,
                Seed(HIDDEN_SEED + d_k))
        add("no keys", 16, 0, True, 10, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size")
    elif func == "softmax":
        add("a batch (2, 3, 5, 7) in float32", n(2, 3, 5, 7, dtype=f32, scale=3), checks="batched, float32")
        add("scores near ±1e4", n(4, 6, scale=1e4), checks="1e4")
        masked = n(5, 6)
        masked[1, 2:] = -np.inf
        masked[3, :] = -np.inf
        add("rows with forbidden keys and one fully forbidden row", masked, checks="masked row")
        add("along axis 0", n(6, 3), axis=0)
        add("a single row of 9", n(9))
    elif func == "attention":
        add("cross-attention: 3 queries, 7 keys, d_k = 5, d_v = 2", n(3, 5), n(7, 5), n(7, 2), checks="cross")
        add("a batch (2, 4) in float32", n(2, 4, 6, 8, dtype=f32), n(2, 4, 6, 8, dtype=f32), n(2, 4, 6, 3, dtype=f32),
            checks="batched, float32")
        add("a causal mask on 6 tokens", n(6, 4), n(6, 4), n(6, 4), mask=ref.causal_mask(6))
        add("a padding mask broadcast over a batch of 3", n(3, 5, 4), n(3, 5, 4), n(3, 5, 2),
            mask=ref.padding_mask(np.array([5, 3, 1]), 5))
        add("large scores", n(4, 8, scale=40), n(5, 8, scale=40), n(5, 3))
        add("scores near ±1e4", n(4, 8, scale=100), n(5, 8, scale=100), n(5, 3), checks="1e4")
        add("a mask that forbids every key of query 1", n(3, 4), n(5, 4), n(5, 2), mask=_forbidding_row(3, 5, 1),
            checks="masked row, cross")
        add("K and V of different lengths", n(3, 4), n(5, 4), n(6, 4), raises="ValueError", checks="bad shape")
    elif func == "split_heads":
        add("width 12 in 3 heads, batch 2", n(2, 5, 12), 3, checks="batched")
        add("width 8 in 4 heads, float32", n(7, 8, dtype=f32), 4, checks="float32")
        add("width 10 in 4 heads", n(3, 10), 4, raises="ValueError", checks="bad shape")
    elif func == "merge_heads":
        add("3 heads of 4, batch 2", n(2, 3, 5, 4), checks="batched")
        add("4 heads of 2, float32", n(4, 7, 2, dtype=f32), checks="float32")
        add("2 dimensions, no heads axis", n(5, 4), raises="ValueError", checks="bad shape")
    elif func == "multi_head_attention":
        W = lambda d, e, dtype=f64: n(d, e, dtype=dtype, scale=d ** -0.5)  # noqa: E731
        add("width 12, 3 heads, batch 2", n(2, 6, 12), W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3,
            checks="batched")
        add("float32, width 8, 4 heads, causal", n(5, 8, dtype=f32), *(W(8, 8, f32) for _ in range(4)), 4,
            mask=ref.causal_mask(5), checks="float32")
        add("cross-attention: 3 tokens read 7, 2 heads", n(3, 8), W(8, 8), W(8, 8), W(8, 8), W(8, 8), 2,
            context=n(7, 8), checks="cross")
        add("cross-attention with a mask that forbids every key of token 2", n(4, 8), W(8, 8), W(8, 8), W(8, 8),
            W(8, 8), 2, mask=_forbidding_row(4, 6, 2), context=n(6, 8), checks="masked row, cross")
        add("scores near ±1e4, 2 heads", n(4, 8), n(8, 8, scale=30), n(8, 8, scale=30), W(8, 8), W(8, 8), 2,
            checks="1e4")
        add("padding mask over a batch of 2", n(2, 5, 8), W(8, 8), W(8, 8), W(8, 8), W(8, 8), 2,
            mask=ref.padding_mask(np.array([5, 2]), 5))
        add("width 10 in 4 heads", n(3, 10), W(10, 10), W(10, 10), W(10, 10), W(10, 10), 4, raises="ValueError",
            checks="bad shape")
    elif func == "causal_mask":
        add("1 token", 1)
        add("9 tokens", 9)
        add("0 tokens", 0, raises="ValueError", checks="bad size")
    elif func == "padding_mask":
        add("lengths 3, 7, 1 in a grid of 7", np.array([3, 7, 1]), 7)
        add("one sequence of full length 5", np.array([5]), 5)
        add("a length of 0", np.array([3, 0]), 4, raises="ValueError", checks="bad size")
        add("lengths as a (2, 1) column", np.array([[3], [2]]), 4, raises="ValueError", checks="bad shape")
    elif func == "block_mask":
        add("three groups, each may see itself and earlier groups", np.array([2, 3, 1]),
            np.array([[True, False, False], [True, True, False], [True, True, True]]))
        add("two groups that only see each other", np.array([3, 2]), np.array([[False, True], [True, False]]))
        add("an allowed table of 2 groups for 3", np.array([2, 3, 1]), np.ones((2, 2), dtype=bool), raises="ValueError",
            checks="bad shape")
        add("a group of 0 tokens", np.array([2, 0]), np.ones((2, 2), dtype=bool), raises="ValueError", checks="bad size")
    elif func == "blockwise_attention":
        add("blocks of 4 over 10 keys (4 does not divide 10)", n(7, 5), n(10, 5), n(10, 3), 4, checks="cross")
        add("a batch (2,) in float32, blocks of 3, causal", n(2, 8, 4, dtype=f32), n(2, 8, 4, dtype=f32),
            n(2, 8, 6, dtype=f32), 3, causal=True, checks="batched, float32")
        add("large scores, blocks of 2", n(5, 8, scale=30), n(9, 8, scale=30), n(9, 2), 2)
        add("scores near ±1e4, blocks of 3", n(5, 8, scale=100), n(9, 8, scale=100), n(9, 2), 3, checks="1e4, cross")
        add("one block of all 6 keys", n(6, 4), n(6, 4), n(6, 4), 64)
        add("K and V of different lengths", n(3, 4), n(5, 4), n(6, 4), 2, raises="ValueError", checks="bad shape")
        add("a block size of 0", n(3, 4), n(3, 4), n(3, 4), 0, raises="ValueError", checks="bad size")
        tokens = 4096
        add(f"{tokens:,} tokens in blocks of 64, with its memory measured", n(tokens, 8), n(tokens, 8), n(tokens, 8),
            64, memory_limit_bytes=tokens * tokens * 8 // 2, grid_bytes=tokens * tokens * 8, seconds=60)
    elif func in ("projection_flops", "score_flops", "attention_share"):
        for tokens, width in ((100, 64), (4096, 1024), (7, 3)):
            add(f"{tokens} tokens of width {width}", tokens, width)
        add("0 tokens", 0, 64, raises="ValueError", checks="bad size")
    elif func == "crossover_length":
        add("width 4096", 4096)
        add("width 64", 64)
        add("width 0", 0, raises="ValueError", checks="bad size")
    elif func == "score_grid_bytes":
        add("1,000 tokens, 16 heads, 4 bytes", 1000, 16, 4)
        add("300 tokens, 8 heads (2 bytes)", 300, 8)
        add("0 heads", 300, 0, raises="ValueError", checks="bad size")
    elif func == "attention_params":
        add("width 512, 8 heads", 512, 8)
        add("width 96, 3 heads", 96, 3)
        add("width 100 in 3 heads", 100, 3, raises="ValueError", checks="bad shape")
        add("0 heads", 96, 0, raises="ValueError", checks="bad size")
    elif func == "self_preference":
        tokens = n(6, 5)
        add("6 tokens against themselves (symmetric)", tokens @ tokens.T)
        add("7 queries against 7 keys", n(7, 4) @ n(7, 4).T)
        repeated = tokens[[0, 1, 1, 2, 3]]
        add("a token written twice (its two rows tie)", repeated @ repeated.T)
        favours_itself = n(6, 6)
        favours_itself[np.arange(6), np.arange(6)] = favours_itself.max(axis=1) + 0.1
        add("6 queries that each score their own key highest (columns need not)", favours_itself)
        add("one token", n(1, 1))
        add("a grid that is not square", n(3, 4), raises="ValueError")
    elif func == "lead_share":
        add("leads from −6 to 6", np.linspace(-6, 6, 13))
        add("a grid of leads in float32", n(3, 4, dtype=f32, scale=3))
        add("leads of ±1e4 and ±40", np.array([1e4, -1e4, 40.0, -40.0]))
        add("a single lead of 2.5", np.float64(2.5))
    elif func == "layer_counts":
        add("1,024 tokens of width 1,024, 16 heads", 1024, 1024, 16)
        add("7 tokens of width 6, 3 heads", 7, 6, 3)
        add("width 10 in 4 heads", 5, 10, 4, raises="ValueError")
    elif func == "pattern_count":
        add("2 layers of 4 heads (the explorer's model)", 2, 4)
        add("32 layers of 32 heads", 32, 32)
        add("0 layers", 0, 4, raises="ValueError")
    elif func == "first_changed_output":
        W = lambda: n(6, 6, scale=0.5)  # noqa: E731
        add("token 3 of 7 changed, causal mask", n(7, 6), W(), W(), W(), 3, mask=ref.causal_mask(7))
        add("token 5 of 6 changed, no mask", n(6, 6), W(), W(), W(), 5)
        add("the last real token of 4 changed under a padding mask of length 4 in 6",
            n(6, 6), W(), W(), W(), 3, mask=ref.padding_mask(np.array([4]), 6)[0])
        add("a padding token changed under a padding mask (nothing real may see it)",
            n(6, 6), W(), W(), W(), 5, mask=ref.padding_mask(np.array([4]), 6)[0])
        add("a mask that lets each token see one token ahead", n(6, 6), W(), W(), W(), 4,
            mask=np.triu(np.full((6, 6), -np.inf), k=2))
        add("token 0 changed, causal mask", n(5, 6), W(), W(), W(), 0, mask=ref.causal_mask(5))
        add("a position past the end", n(4, 6), W(), W(), W(), 4, raises="ValueError")
    elif func == "padding_leak":
        X = n(3, 8, 4)
        Q, K, V = (X @ n(4, 4) for _ in range(3))
        lengths = np.array([8, 5, 2])
        _, unmasked = ref.attention(Q, K, V)
        _, masked = ref.attention(Q, K, V, ref.padding_mask(lengths, 8))
        add("lengths 8, 5, 2, no mask: the short sequences leak most", unmasked, lengths)
        add("lengths 8, 5, 2, with the padding mask", masked, lengths)
        _, causal = ref.attention(Q, K, V, ref.causal_mask(8))
        add("a causal mask alone: real tokens never see the padding after them", causal, lengths)
        _, off_by_one = ref.attention(Q, K, V, ref.padding_mask(np.minimum(lengths + 1, 8), 8))
        add("a padding mask off by one", off_by_one, lengths)
        add("float32 weights", unmasked.astype(f32), lengths)
        add("a length of 0", unmasked, np.array([8, 0, 2]), raises="ValueError")
    elif func == "mlp_flops":
        for tokens, width in ((100, 64), (4096, 1024), (7, 3)):
            add(f"{tokens} tokens of width {width}", tokens, width)
    elif func == "grid_over_mlp":
        for tokens, width in ((3072, 768), (100_000, 4096), (8, 512)):
            add(f"{tokens} tokens of width {width}", tokens, width)
    elif func == "hull_excess":
        V = n(6, 3)
        weights = ref.softmax(n(5, 6, scale=2))
        add("attention outputs on 6 value rows", weights @ V, V)
        allowed = np.tril(np.ones((6, 6), dtype=bool))
        causal = ref.softmax(n(6, 6, scale=2) + ref.causal_mask(6))
        add("causal outputs: row i may see value rows 0 … i", causal @ V, V, allowed)
        add("outputs that read rows the mask forbids (unmasked weights, causal allowed)",
            ref.softmax(n(6, 6, scale=2)) @ V, V, allowed)
        add("outputs of weights that do not add up to one", np.exp(n(5, 6)) @ V, V)
        add("outputs with negative weights", (n(5, 6) - 0.5) @ V, V, None)
        add("float32 outputs", (weights @ V).astype(f32), V.astype(f32))
        add("a query that may see nothing", weights @ V, V, np.zeros((5, 6), dtype=bool), raises="ValueError")
    elif func == "leaked_targets":
        add("the causal mask of 9 tokens", ref.causal_mask(9))
        add("no mask on 7 tokens", np.zeros((7, 7)))
        add("a mask that lets each token see one token ahead", np.triu(np.full((6, 6), -np.inf), k=2))
        add("a causal mask that also forbids the token itself", np.triu(np.full((6, 6), -np.inf), k=0))
        add("a causal mask written the wrong way round", ref.causal_mask(6).T.copy())
        group_mask = ref.block_mask(np.array([2, 3, 1]), np.array([[True, True, False], [True, True, False],
                                                                   [True, True, True]]))
        add("a group mask of 6 tokens (two groups see each other)", group_mask)
        add("a mask that is not square", np.zeros((3, 4)), raises="ValueError")
    elif func == "score_variance":
        for d_k in (16, 256):
            add(f"300 pairs at head size {d_k}", n(300, d_k), n(300, d_k))
        add("Q and K of different shapes", n(5, 4), n(5, 3), raises="ValueError")

    if func in ("attention", "blockwise_attention"):
        for Q, K, V in _property_examples(_attention_inputs(), 6):
            args = (Q, K, V) if func == "attention" else (Q, K, V, 3)
            add(f"a drawn example: Q {Q.shape}, K {K.shape}, V {V.shape}, {Q.dtype}", *args)
    return cases


def _hidden_question(name: str) -> list[dict]:
    if name == "equal_scores":
        rng = np.random.default_rng([HIDDEN_SEED, 99])
        return [_question(name, "value rows (5, 3)", _normal(rng, (5, 3))),
                _question(name, "a batch (2, 4, 6)", _normal(rng, (2, 4, 6)), checks="batched"),
                _question(name, "value rows (4, 3) in float32", _normal(rng, (4, 3), np.float32), checks="float32")]
    return [_question(name, "your answer")]


@lru_cache(maxsize=None)
def hidden_cases(func: str) -> tuple[dict, ...]:
    """The hidden cases of one exercise (computed once per process)."""
    if func in MODEL_FUNCTIONS:
        from autograder.model_cases import model_cases
        return tuple(model_cases()[1][func])
    if func in QUESTIONS:
        return tuple(_hidden_question(func))
    if func not in FUNCTIONS:
        raise KeyError(f"no exercise called {func!r}")
    return tuple(_hidden(func))
