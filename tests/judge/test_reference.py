"""Behaviour of the reference solution itself: the answer key must be right
before anything is graded against it."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solutions import attention as ref

FAST = settings(max_examples=50, deadline=None)


@contextlib.contextmanager
def no_warnings_and_no_floating_point_errors(**errstate):
    """Any warning or floating-point error (all of them unless `errstate` says otherwise) raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(**(errstate or {"all": "raise"})):
            yield


def normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return scale * rng.standard_normal(shape)


seeds = st.integers(0, 2**32 - 1)
batch_shapes = st.lists(st.integers(1, 3), max_size=2).map(tuple)


# ---------------------------------------------------------------- blockwise attention


@FAST
@given(seed=seeds, batch=batch_shapes, shared_kv=st.booleans(),
       n_q=st.integers(1, 9), n_k=st.integers(1, 9), d_k=st.integers(1, 5), d_v=st.integers(1, 5),
       block_size=st.integers(1, 12), causal=st.booleans(), scale=st.floats(0.1, 5.0))
def test_does_blockwise_attention_equal_attention(seed, batch, shared_kv, n_q, n_k, d_k, d_v,
                                                   block_size, causal, scale):
    rng = np.random.default_rng(seed)
    # With shared_kv the keys and values have no batch dimensions and are broadcast.
    kv_batch = () if shared_kv else batch
    Q = normal(rng, *batch, n_q, d_k, scale=scale)
    K = normal(rng, *kv_batch, n_k, d_k, scale=scale)
    V = normal(rng, *kv_batch, n_k, d_v)
    # Key j is forbidden to query i when j > i, whatever n_q and n_k are.
    mask = ref.causal_mask(max(n_q, n_k))[:n_q, :n_k] if causal else None
    expected, _ = ref.attention(Q, K, V, mask)
    got = ref.blockwise_attention(Q, K, V, block_size=block_size, causal=causal)
    assert got.shape == expected.shape == (*batch, n_q, d_v)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_does_blockwise_attention_need_no_more_than_one_block():
    rng = np.random.default_rng(0)
    Q, K, V = normal(rng, 5, 3), normal(rng, 7, 3), normal(rng, 7, 2)
    np.testing.assert_allclose(ref.blockwise_attention(Q, K, V, block_size=1000),
                               ref.attention(Q, K, V)[0], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- softmax


@FAST
@given(seed=seeds, shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple),
       data=st.data(), scale=st.floats(0.0, 100.0))
def test_do_softmax_weights_sum_to_one_and_never_go_negative(seed, shape, data, scale):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    S = normal(np.random.default_rng(seed), *shape, scale=scale)
    W = ref.softmax(S, axis=axis)
    assert W.shape == S.shape
    assert (W >= 0).all()
    np.testing.assert_allclose(W.sum(axis=axis), 1.0, rtol=1e-12)


def test_is_softmax_stable_at_scores_of_ten_thousand():
    # Underflow to an exact 0 is the right answer for a score 2e4 below the top.
    with no_warnings_and_no_floating_point_errors(over="raise", invalid="raise", divide="raise"):
        top = ref.softmax(np.array([1e4, 1e4 - 1, -1e4]))
        bottom = ref.softmax(np.array([-1e4, -1e4 - 1, -1e4 - 2]))
    np.testing.assert_allclose(top, ref.softmax(np.array([1.0, 0.0, -2e4])), rtol=1e-12)
    np.testing.assert_allclose(bottom, ref.softmax(np.array([2.0, 1.0, 0.0])), rtol=1e-12)


def test_does_minus_infinity_give_a_weight_of_exactly_zero():
    W = ref.softmax(np.array([0.3, -np.inf, 1.2, -np.inf]))
    assert W[1] == 0.0 and W[3] == 0.0
    assert W.sum() == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_does_a_fully_masked_row_give_zeros_without_a_warning(dtype):
    S = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 1.0]], dtype=dtype)
    with no_warnings_and_no_floating_point_errors():
        W = ref.softmax(S)
    assert W.dtype == dtype
    assert (W[0] == 0).all()
    np.testing.assert_allclose(W[1], [1 / (1 + np.e), 0, np.e / (1 + np.e)], rtol=1e-6)


def test_does_attention_give_a_fully_masked_query_a_zero_output_without_a_warning():
    rng = np.random.default_rng(1)
    Q, K, V = normal(rng, 2, 3), normal(rng, 4, 3), normal(rng, 4, 5)
    mask = np.zeros((2, 4))
    mask[0] = -np.inf
    with no_warnings_and_no_floating_point_errors():
        out, weights = ref.attention(Q, K, V, mask)
    assert (out[0] == 0).all() and (weights[0] == 0).all()


def test_is_the_softmax_of_a_single_score_one():
    assert ref.softmax(np.float64(3.0)) == 1.0
    assert ref.softmax(np.float64(-np.inf)) == 0.0


# ---------------------------------------------------------------- heads


@FAST
@given(seed=seeds, batch=batch_shapes, n=st.integers(1, 6), n_heads=st.integers(1, 4), d_k=st.integers(1, 4))
def test_do_split_heads_and_merge_heads_undo_each_other(seed, batch, n, n_heads, d_k):
    M = normal(np.random.default_rng(seed), *batch, n, n_heads * d_k)
    H = ref.split_heads(M, n_heads)
    assert H.shape == (*batch, n_heads, n, d_k)
    np.testing.assert_array_equal(ref.merge_heads(H), M)
    np.testing.assert_array_equal(ref.split_heads(ref.merge_heads(H), n_heads), H)


def test_does_head_m_own_columns_m_dk_to_m_plus_one_dk():
    n, n_heads, d_k = 3, 4, 2
    M = np.arange(n * n_heads * d_k, dtype=float).reshape(n, n_heads * d_k)
    H = ref.split_heads(M, n_heads)
    for m in range(n_heads):
        np.testing.assert_array_equal(H[m], M[:, m * d_k:(m + 1) * d_k])


def test_is_multi_head_attention_with_one_head_plain_attention_then_w_o():
    rng = np.random.default_rng(2)
    X = normal(rng, 5, 6)
    W_q, W_k, W_v, W_o = normal(rng, 6, 4), normal(rng, 6, 4), normal(rng, 6, 3), normal(rng, 3, 7)
    out, _ = ref.attention(X @ W_q, X @ W_k, X @ W_v)
    np.testing.assert_allclose(ref.multi_head_attention(X, W_q, W_k, W_v, W_o, 1), out @ W_o, rtol=1e-12)


def test_is_multi_head_attention_each_head_on_its_own_columns_joined_by_w_o():
    rng = np.random.default_rng(3)
    n_heads, d_k, d_v = 3, 2, 4
    X = normal(rng, 5, 8)
    W_q, W_k, W_v = normal(rng, 8, n_heads * d_k), normal(rng, 8, n_heads * d_k), normal(rng, 8, n_heads * d_v)
    W_o = normal(rng, n_heads * d_v, 8)
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    heads = [ref.attention(Q[:, m * d_k:(m + 1) * d_k], K[:, m * d_k:(m + 1) * d_k],
                           V[:, m * d_v:(m + 1) * d_v])[0] for m in range(n_heads)]
    np.testing.assert_allclose(ref.multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads),
                               np.concatenate(heads, axis=-1) @ W_o, rtol=1e-12)


# ---------------------------------------------------------------- cross-attention and masks


@pytest.mark.parametrize("batch", [(), (2,)])
def test_does_cross_attention_give_one_row_per_asking_token(batch):
    rng = np.random.default_rng(4)
    n, m, d, d_out = 2, 7, 6, 5
    X, context = normal(rng, *batch, n, d), normal(rng, *batch, m, d)
    W_q, W_k, W_v, W_o = normal(rng, d, 4), normal(rng, d, 4), normal(rng, d, 4), normal(rng, 4, d_out)
    out = ref.multi_head_attention(X, W_q, W_k, W_v, W_o, 2, context=context)
    assert out.shape == (*batch, n, d_out)
    Q, K, V = X @ W_q, context @ W_k, context @ W_v
    _, weights = ref.attention(Q, K, V)
    assert weights.shape == (*batch, n, m)
    masked = ref.multi_head_attention(X, W_q, W_k, W_v, W_o, 2, mask=np.zeros((n, m)), context=context)
    np.testing.assert_allclose(masked, out, rtol=1e-12)


def test_does_padding_leave_the_real_tokens_of_a_batch_unchanged():
    rng = np.random.default_rng(5)
    b, n, d, n_heads = 3, 6, 4, 2
    lengths = np.array([6, 2, 4])
    X = normal(rng, b, n, d)
    W_q, W_k, W_v, W_o = (normal(rng, d, d) for _ in range(4))
    mask = ref.padding_mask(lengths, n)
    assert mask.shape == (b, 1, n)
    out = ref.multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=mask)
    assert out.shape == (b, n, d)
    for i, length in enumerate(lengths):
        alone = ref.multi_head_attention(X[i, :length], W_q, W_k, W_v, W_o, n_heads)
        np.testing.assert_allclose(out[i, :length], alone, rtol=1e-12, atol=1e-12)


def test_does_a_causal_mask_forbid_exactly_the_later_tokens():
    mask = ref.causal_mask(4)
    assert mask.dtype == np.float64
    np.testing.assert_array_equal(np.isneginf(mask), np.arange(4)[None, :] > np.arange(4)[:, None])
    assert (mask[np.isfinite(mask)] == 0).all()


def test_does_a_block_mask_follow_the_allowed_table():
    allowed = np.array([[True, False], [True, True]])
    mask = ref.block_mask([2, 1], allowed)
    expected = np.array([[0, 0, -np.inf], [0, 0, -np.inf], [0, 0, 0]])
    np.testing.assert_array_equal(mask, expected)


# ---------------------------------------------------------------- dtypes


def _float32_cases():
    rng = np.random.default_rng(6)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    X, W = f32(2, 3, 4), f32(4, 4)
    Q, K, V = f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 6)
    return {
        "token_movement": lambda: ref.token_movement(X, f32(2, 3, 4)),
        "project_qkv": lambda: ref.project_qkv(X, W, W, W),
        "raw_scores": lambda: ref.raw_scores(Q, K),
        "scaled_scores": lambda: ref.scaled_scores(Q, K),
        "softmax": lambda: ref.softmax(f32(3, 4)),
        "attention": lambda: ref.attention(Q, K, V),
        "attention with a float64 mask": lambda: ref.attention(Q, K, V, ref.padding_mask(np.array([2, 5]), 5)),
        "split_heads": lambda: ref.split_heads(X, 2),
        "merge_heads": lambda: ref.merge_heads(f32(2, 3, 4, 2)),
        "multi_head_attention": lambda: ref.multi_head_attention(X, W, W, W, W, 2),
        "multi_head_attention with a causal mask": lambda: ref.multi_head_attention(
            X, W, W, W, W, 2, mask=ref.causal_mask(3)),
        "blockwise_attention": lambda: ref.blockwise_attention(Q, K, V, block_size=2),
        "blockwise_attention, causal": lambda: ref.blockwise_attention(Q, K, V, block_size=2, causal=True),
        "source_shares": lambda: ref.source_shares(ref.softmax(f32(2, 3, 4)), np.array([0, 1, 1, 0])),
    }


@pytest.mark.parametrize("case", list(_float32_cases()))
def test_does_float32_in_give_float32_out(case):
    result = _float32_cases()[case]()
    for part in (result if isinstance(result, tuple) else (result,)):
        assert isinstance(part, np.ndarray) and part.dtype == np.float32, f"{case}: got {part.dtype}"


def test_is_integer_input_computed_in_float64():
    X = np.arange(12).reshape(3, 4)
    out, weights = ref.attention(X, X, X)
    assert out.dtype == weights.dtype == np.float64
    assert ref.softmax(np.array([1, 2, 3])).dtype == np.float64


# ---------------------------------------------------------------- bad input

_ok = np.ones((3, 4))
_w = np.ones((4, 4))

BAD_INPUT = {
    # name of the case: (call, a word the message must contain)
    "token_movement, shapes differ": (lambda: ref.token_movement(_ok, np.ones((3, 5))), "O"),
    "project_qkv, W_q rows differ from d": (lambda: ref.project_qkv(_ok, np.ones((5, 4)), _w, _w), "W_q"),
    "project_qkv, W_v rows differ from d": (lambda: ref.project_qkv(_ok, _w, _w, np.ones((3, 4))), "W_v"),
    "project_qkv, W_q and W_k widths differ": (lambda: ref.project_qkv(_ok, _w, np.ones((4, 2)), _w), "W_k"),
    "project_qkv, X is 1-D": (lambda: ref.project_qkv(np.ones(4), _w, _w, _w), "X"),
    "raw_scores, d_k differs": (lambda: ref.raw_scores(_ok, np.ones((3, 5))), "K"),
    "scaled_scores, d_k differs": (lambda: ref.scaled_scores(_ok, np.ones((3, 5))), "K"),
    "attention, K and V rows differ": (lambda: ref.attention(_ok, _ok, np.ones((2, 4))), "V"),
    "attention, mask of the wrong shape": (lambda: ref.attention(_ok, _ok, _ok, np.zeros((2, 2))), "mask"),
    "attention, boolean mask": (lambda: ref.attention(_ok, _ok, _ok, np.ones((3, 3), bool)), "mask"),
    "attention, Q holds strings": (lambda: ref.attention(np.array([["a"]]), _ok, _ok), "Q"),
    "softmax, axis out of range": (lambda: ref.softmax(_ok, axis=2), "axis"),
    "split_heads, width not divisible": (lambda: ref.split_heads(np.ones((3, 6)), 4), "n_heads"),
    "split_heads, zero heads": (lambda: ref.split_heads(_ok, 0), "n_heads"),
    "merge_heads, 2-D input": (lambda: ref.merge_heads(_ok), "H"),
    "multi_head_attention, width not divisible": (
        lambda: ref.multi_head_attention(_ok, _w, _w, _w, _w, 3), "n_heads"),
    "multi_head_attention, W_o of the wrong height": (
        lambda: ref.multi_head_attention(_ok, _w, _w, _w, np.ones((3, 4)), 2), "W_o"),
    "multi_head_attention, context of the wrong width": (
        lambda: ref.multi_head_attention(_ok, _w, _w, _w, _w, 2, context=np.ones((5, 6))), "context"),
    "multi_head_attention, mask of the wrong shape": (
        lambda: ref.multi_head_attention(_ok, _w, _w, _w, _w, 2, mask=np.zeros((3, 2))), "mask"),
    "causal_mask, n = 0": (lambda: ref.causal_mask(0), "n"),
    "padding_mask, length beyond n": (lambda: ref.padding_mask(np.array([2, 5]), 4), "length"),
    "padding_mask, length 0": (lambda: ref.padding_mask(np.array([0]), 4), "length"),
    "padding_mask, float lengths": (lambda: ref.padding_mask(np.array([2.0]), 4), "lengths"),
    "block_mask, zero-sized group": (lambda: ref.block_mask([2, 0], np.ones((2, 2), bool)), "group_sizes"),
    "block_mask, allowed of the wrong shape": (lambda: ref.block_mask([2, 1], np.ones((3, 3), bool)), "allowed"),
    "source_shares, source of the wrong length": (lambda: ref.source_shares(_w, np.array([0, 1, 1])), "source"),
    "source_shares, a negative id": (lambda: ref.source_shares(_w, np.array([0, -1, 1, 1])), "source"),
    "source_shares, float ids": (lambda: ref.source_shares(_w, np.array([0.0, 1.0, 1.0, 0.0])), "source"),
    "source_shares, n_sources below an id": (lambda: ref.source_shares(_w, np.array([0, 2, 1, 0]), 2),
                                             "n_sources"),
    "source_shares, 1-D weights": (lambda: ref.source_shares(np.ones(4), np.array([0, 1, 1, 0])), "weights"),
    "blockwise_attention, block_size 0": (lambda: ref.blockwise_attention(_ok, _ok, _ok, block_size=0),
                                          "block_size"),
    "blockwise_attention, d_k differs": (lambda: ref.blockwise_attention(_ok, np.ones((3, 5)), _ok), "K"),
    "blockwise_attention, K and V rows differ": (lambda: ref.blockwise_attention(_ok, _ok, np.ones((2, 4))), "V"),
    "score_spread, d_k = 0": (lambda: ref.score_spread(0, 10, np.random.default_rng(0)), "d_k"),
    "score_spread, n_samples = 0": (lambda: ref.score_spread(4, 0, np.random.default_rng(0)), "n_samples"),
    "largest_weight, n_keys = 0": (lambda: ref.largest_weight(4, 0, True, 10, np.random.default_rng(0)), "n_keys"),
    "largest_weight, n_trials = 0": (lambda: ref.largest_weight(4, 8, True, 0, np.random.default_rng(0)),
                                     "n_trials"),
    "projection_flops, n = 0": (lambda: ref.projection_flops(0, 768), "n"),
    "score_flops, d = -1": (lambda: ref.score_flops(128, -1), "d"),
    "attention_share, n = 1.5": (lambda: ref.attention_share(1.5, 768), "n"),
    "crossover_length, W_o does not fit": (lambda: ref.crossover_length(*[np.eye(6)] * 3, np.eye(4)), "W_o"),
    "crossover_length, an empty W_v": (lambda: ref.crossover_length(np.eye(3), np.eye(3), np.ones((3, 0)),
                                                                    np.ones((0, 3))), "W_v"),
    "score_grid_bytes, n_heads = 0": (lambda: ref.score_grid_bytes(512, 0), "n_heads"),
    "score_grid_bytes, bytes_per_number = 0": (lambda: ref.score_grid_bytes(512, 12, 0), "bytes_per_number"),
    "attention_params, d_h not divisible": (lambda: ref.attention_params(*[np.eye(6)] * 4, 4), "n_heads"),
    "attention_params, W_o does not fit": (lambda: ref.attention_params(*[np.eye(6)] * 3, np.eye(4), 2), "W_o"),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_does_bad_input_raise_a_value_error_naming_the_argument(case):
    call, argument = BAD_INPUT[case]
    with pytest.raises(ValueError, match=rf"\b{argument}\b"):
        call()


# ---------------------------------------------------------------- the chapter's claims, as the exercises measure them


@FAST
@given(seed=seeds, n=st.integers(1, 8), d=st.integers(1, 6), data=st.data())
def test_does_changing_a_token_leave_every_earlier_output_unchanged_under_a_causal_mask(seed, n, d, data):
    rng = np.random.default_rng(seed)
    j = data.draw(st.integers(0, n - 1))
    X, W_q, W_k, W_v = normal(rng, n, d), normal(rng, d, d), normal(rng, d, d), normal(rng, d, d)
    assert ref.first_changed_output(X, W_q, W_k, W_v, j, ref.causal_mask(n)) >= j
    if j > 0:  # without a mask, the first output (which sees every token) moves
        assert ref.first_changed_output(X, W_q, W_k, W_v, j) == 0


@FAST
@given(seed=seeds, n_q=st.integers(1, 7), n_k=st.integers(1, 7), d_v=st.integers(1, 4), scale=st.floats(0.1, 30))
def test_does_every_attention_output_lie_in_the_box_of_the_values_it_may_see(seed, n_q, n_k, d_v, scale):
    rng = np.random.default_rng(seed)
    allowed = rng.random((n_q, n_k)) < 0.6
    allowed[np.arange(n_q), rng.integers(0, n_k, n_q)] = True
    V = normal(rng, n_k, d_v)
    O, _ = ref.attention(normal(rng, n_q, 3, scale=scale), normal(rng, n_k, 3, scale=scale), V,
                         np.where(allowed, 0.0, -np.inf))
    assert (ref.hull_excess(O, V, allowed) <= 1e-12).all()


@FAST
@given(seed=seeds, n=st.integers(2, 8), d=st.integers(1, 6))
def test_is_x_xt_symmetric_with_one_token_of_every_pair_scoring_itself_above_the_other(seed, n, d):
    X = normal(np.random.default_rng(seed), n, d)
    S = X @ X.T
    assert ref.self_preference(S)[0] == 0.0
    i, j = np.triu_indices(n, k=1)
    assert ((S[i, i] >= S[i, j]) | (S[j, j] >= S[j, i])).all()


def test_does_a_growing_lead_turn_the_soft_lookup_into_a_hard_match():
    shares = ref.lead_share(np.array([0.0, 1.0, 4.0, 10.0, 1000.0]))
    assert shares[0] == 0.5 and (np.diff(shares) > 0).all() and shares[-1] == 1.0


def test_does_a_padding_mask_leave_no_weight_on_padding_while_no_mask_leaks_only_where_there_is_padding():
    rng = np.random.default_rng(0)
    Q, K, V = (normal(rng, 3, 6, 4) for _ in range(3))
    lengths = np.array([6, 4, 1])
    _, masked = ref.attention(Q, K, V, ref.padding_mask(lengths, 6))
    _, unmasked = ref.attention(Q, K, V)
    assert (ref.padding_leak(masked, lengths) == 0).all()
    leak = ref.padding_leak(unmasked, lengths)
    assert leak[0] == 0 and (leak[1:] > 0).all()


def test_does_only_a_block_mask_take_the_answers_weight_off_the_web_page():
    rng = np.random.default_rng(1)
    X, W_q, W_k, W_v = normal(rng, 7, 4), normal(rng, 4, 4), normal(rng, 4, 4), normal(rng, 4, 4)
    sizes, source = np.array([3, 2, 2]), np.repeat([0, 1, 2], [3, 2, 2])
    Q, K, V = ref.project_qkv(X, W_q, W_k, W_v)
    _, weights = ref.attention(Q, K, V, ref.causal_mask(7))
    shares = ref.source_shares(weights, source)
    np.testing.assert_allclose(shares.sum(axis=-1), 1.0)
    assert (shares[5:, :2] > 0).all()  # the answer reads the instructions and the page
    allowed = np.array([[True, False, False], [True, True, False], [True, False, True]])
    _, blocked = ref.attention(Q, K, V, ref.causal_mask(7) + ref.block_mask(sizes, allowed))
    blocked_shares = ref.source_shares(blocked, source)
    assert (blocked_shares[5:, 1] == 0).all() and (blocked_shares[5:, 0] > 0).all()
    assert ref.source_shares(weights, source, 5)[..., 3:].max() == 0
    assert ref.source_shares(np.zeros((2, 3)), np.array([0, 1, 1])).max() == 0


def test_does_a_causal_mask_leak_no_target_while_no_mask_leaks_all_but_the_last():
    X = np.random.default_rng(9).standard_normal((9, 4))
    assert ref.leaked_targets(X, ref.causal_mask(9)) == 0
    assert ref.leaked_targets(X, np.zeros((9, 9))) == 8
    assert ref.leaked_targets(X, ref.causal_mask(9).T.copy()) == 8  # the mirror image shows every target
    assert ref.leaked_targets(X[:1], np.zeros((1, 1))) == 0  # one token has no target


def test_does_the_unscaled_gradient_through_softmax_vanish_as_the_head_size_grows_while_the_scaled_one_holds():
    """The chapter's reason for √d_k (section 3), computed: the size of softmax's Jacobian over random scores."""
    def gradient_size(d_k: int, scaled: bool) -> float:
        rng = np.random.default_rng(4)
        q, k = rng.standard_normal((200, d_k)), rng.standard_normal((200, 64, d_k))
        s = np.einsum("td,tkd->tk", q, k) / (np.sqrt(d_k) if scaled else 1.0)
        return float(np.linalg.norm(ref.softmax_jacobian(s), axis=(-2, -1)).mean())

    raw = [gradient_size(d, False) for d in (64, 256, 1024, 4096)]
    scaled = [gradient_size(d, True) for d in (64, 256, 1024, 4096)]
    assert all(a > b for a, b in zip(raw, raw[1:])) and raw[-1] < scaled[-1] / 3
    assert max(scaled) - min(scaled) < 0.1 * max(scaled)


def test_is_the_softmax_jacobian_the_finite_difference_of_softmax():
    s = np.random.default_rng(0).standard_normal((3, 5))
    step = 1e-6 * np.eye(5)
    numeric = np.stack([(ref.softmax(s + step[j]) - ref.softmax(s - step[j])) / 2e-6 for j in range(5)], axis=-1)
    np.testing.assert_allclose(ref.softmax_jacobian(s), numeric, atol=1e-8)


def test_does_gradient_size_vanish_unscaled_and_hold_scaled_as_the_head_size_grows():
    """Question 8.7's table: the raw gradient size falls towards 0 as d_k grows, the scaled one stays put."""
    rng = np.random.default_rng(4)
    sizes = [ref.gradient_size(rng.standard_normal((200, d)), rng.standard_normal((200, 64, d)))
             for d in (64, 256, 1024)]
    raw, scaled = zip(*sizes)
    assert raw[0] > raw[1] > raw[2] and raw[2] < scaled[2] / 2
    assert max(scaled) - min(scaled) < 0.1 * max(scaled)
    with pytest.raises(ValueError, match="K"):
        ref.gradient_size(np.zeros((1, 4)), np.zeros((6, 5, 4)))
