"""Inputs the notebooks' exercises share: the chapter's worked example and hidden draws.

The worked example is the chapter's own (seed 28, as its listing builds it);
hidden inputs are drawn from each exercise's own stream (spec.HIDDEN_SEED),
plus examples drawn by hypothesis (derandomised, so two gradings give the
same score). Hypothesis is imported only where a drawn example is built: a
notebook's kernel that checks an exercise without drawn examples never pays
for importing it (about 0.4 s).
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from solutions import attention as ref

f32, f64 = np.float32, np.float64


def worked_example():
    """The chapter's four tokens and matrices (seed 28, as its listing builds them)."""
    rng = np.random.default_rng(28)
    X = np.round(rng.normal(0, 0.9, (4, 4)), 1)
    W_q, W_k, W_v = (np.round(rng.normal(0, 0.6, (4, 4)), 1) for _ in range(3))
    return X, W_q, W_k, W_v


def widths_all_different() -> tuple[np.ndarray, ...]:
    """W_q, W_k, W_v (4, 14) and W_o (14, 6), drawn once (seed 37): beside the worked example's tokens of width 4,
    a layer of the visible cases where no two sizes tie (d = 4, d_h = 14, d_out = 6; 2 heads of 7)."""
    rng = np.random.default_rng(37)
    return (*(np.round(rng.normal(0, 0.5, (4, 14)), 1) for _ in range(3)), np.round(rng.normal(0, 0.3, (14, 6)), 1))


@cache
def worked() -> SimpleNamespace:
    """What the visible cases are built from: the worked example and the reference's results on it.

    X, W_q, W_k, W_v, W_o: (4, 4); Q, K, V = X W; O the attention output; S the
    scaled scores; last_key_forbidden: (4, 4) additive mask hiding 'cube'.
    """
    X, W_q, W_k, W_v = worked_example()
    Q, K, V = ref.project_qkv(X, W_q, W_k, W_v)
    O, _ = ref.attention(Q, K, V)
    last_key_forbidden = np.zeros((4, 4))
    last_key_forbidden[:, 3] = -np.inf
    W_o = np.round(np.random.default_rng(5).normal(0, 0.6, (4, 4)), 1)
    return SimpleNamespace(X=X, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o, Q=Q, K=K, V=V, O=O,
                           S=ref.scaled_scores(Q, K), last_key_forbidden=last_key_forbidden)


def normal_draws(rng):
    """n(*shape, dtype=float64, scale=1.0): standard normal numbers of that shape from `rng`."""
    return lambda *shape, dtype=f64, scale=1.0: normal(rng, shape, dtype, scale)


def normal(rng, shape, dtype=np.float64, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def property_examples(strategy, n: int) -> list:
    """n examples drawn by hypothesis, the same ones every run."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis.configuration import set_hypothesis_home_dir

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


def attention_inputs():
    """A hypothesis strategy: (Q, K, V) of drawn batch, lengths, widths, dtype and scale."""
    from hypothesis import strategies as st

    @st.composite
    def draw_inputs(draw):
        batch = draw(st.lists(st.integers(1, 3), max_size=2))
        n_q, n_k, d_k, d_v = (draw(st.integers(1, 9)) for _ in range(4))
        dtype = draw(st.sampled_from([np.float32, np.float64]))
        scale = draw(st.sampled_from([0.5, 1.0, 3.0]))
        seed = draw(st.integers(0, 2**31))
        rng = np.random.default_rng(seed)
        shapes = [(*batch, n_q, d_k), (*batch, n_k, d_k), (*batch, n_k, d_v)]
        return tuple(normal(rng, s, dtype, scale) for s in shapes)

    return draw_inputs()


def forbidding_row(n_q: int, n_k: int, row: int) -> np.ndarray:
    """(n_q, n_k) additive mask: query `row` may see no key; every other query sees the first half of the keys."""
    mask = np.zeros((n_q, n_k))
    mask[:, (n_k + 1) // 2:] = -np.inf
    mask[row] = -np.inf
    return mask
