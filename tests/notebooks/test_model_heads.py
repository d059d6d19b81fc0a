"""The explorer's model: did training make the heads the chapter describes?

Every measure is a mean over held-out sequences (`model.heads.profile`):
spans of random words, written twice, that training never drew.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from model import grammar, heads
from model.reference import REFERENCE, WEIGHTS, run, trained, untrained
from model.transformer import HEADS, LAYERS, WeightsMismatch, forward, load, shapes
from solutions import attention as ref

SELF, PREVIOUS, START, INDUCTION = range(4)
@pytest.fixture(scope="module")
def shipped():
    return heads.profile(trained())


@pytest.fixture(scope="module")
def uniform():
    """(4,) the measures of attention spread evenly over every visible token, on the same sequences."""
    def even(n):
        return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return np.mean([[heads.self_score(even(len(t))), heads.previous_score(even(len(t))),
                     heads.start_score(even(len(t))), heads.induction_score(even(len(t)), t)]
                    for t in heads.held_out()], axis=0)


def test_are_the_shipped_weights_small_and_do_they_hold_the_vocabulary_and_the_training_log():
    assert WEIGHTS.stat().st_size < 1_000_000
    model = trained()
    assert model.vocab == grammar.VOCAB and model.vocab[0] == "<s>"
    assert all(a.dtype == np.float32 for a in model.params.values())
    assert len(model.loss) >= 1000 and model.loss[-100:].mean() < model.loss[:100].mean() - 1


def test_does_a_head_attend_to_the_previous_token(shipped):
    assert shipped[..., PREVIOUS].max() > 0.5


def test_does_a_head_attend_to_the_token_itself(shipped):
    assert shipped[..., SELF].max() > 0.5


def test_does_an_induction_head_look_at_the_token_after_the_earlier_copy(shipped):
    assert shipped[..., INDUCTION].max() > 0.5


def test_is_layer_0_head_0_the_chapters_self_reading_head():
    assert heads.kinds(trained())[0][0] == "self"


def test_do_random_weights_of_the_same_shapes_attend_almost_evenly(uniform):
    random = heads.profile(untrained(0))
    assert random.shape == (LAYERS, HEADS, 4)
    assert np.abs(random - uniform).max() < 0.03, np.round(random - uniform, 3)


def test_do_weight_rows_add_up_to_one_with_nothing_after_the_token():
    result = run(trained(), grammar.encode("<s> the cat sat on the mat .".split()))
    assert result.weights.shape == (LAYERS, HEADS, 8, 8)
    np.testing.assert_allclose(result.weights.sum(axis=-1), 1, atol=1e-6)
    assert (np.triu(result.weights, k=1) == 0).all()


# ---------------------------------------------------------------- refusing a file that does not fit


def _stored(**changes) -> dict:
    with np.load(WEIGHTS) as f:
        arrays = {k: f[k] for k in f.files}
    arrays.update(changes)
    return {k: v for k, v in arrays.items() if v is not None}


@pytest.mark.parametrize("changes, message", [
    ({"layer1.W_q": np.zeros((64, 32), np.float32)}, "layer1.W_q has shape (64, 32), expected (64, 64)"),
    ({"layer0.W_out": None}, "layer0.W_out is missing"),
    ({"vocab": np.array(["<s>", "the", "cat"])}, "the vocabulary is not the model's: 3 words instead of"),
    ({"vocab": np.array([grammar.VOCAB[0], grammar.VOCAB[2], grammar.VOCAB[1], *grammar.VOCAB[3:]])},
     "token 1: ',' instead of '.'"),
    ({"vocab": None}, "no vocabulary"),
    ({"W_extra": np.zeros(3, np.float32)}, "unexpected arrays ['W_extra']"),
    ({"embed": np.full(shapes(len(grammar.VOCAB))["embed"], np.nan, np.float32)}, "embed must hold finite"),
], ids=["shape", "missing", "vocabulary size", "vocabulary order", "no vocabulary", "extra", "nan"])
def test_is_a_mismatched_file_refused_with_a_message_naming_the_problem(tmp_path, changes, message):
    path = tmp_path / "weights.npz"
    np.savez(path, **_stored(**changes))
    with pytest.raises(WeightsMismatch, match="does not fit this model") as refused:
        trained(path)
    assert message in str(refused.value)


def test_does_the_students_loader_accept_the_shipped_file_without_knowing_the_grammar():
    assert load(WEIGHTS).vocab == grammar.VOCAB


# ---------------------------------------------------------------- reproducibility


def test_does_retraining_from_the_seed_find_the_same_kinds_of_heads(tmp_path):
    if importlib.util.find_spec("torch") is None:
        message = "retraining needs torch's CPU build: pip install -e '.[train]'"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must install it", pytrace=False)
        pytest.skip(message)
    path = tmp_path / "retrained.npz"
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "model.train", "--out", str(path)],
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    print(f"retrained in {time.perf_counter() - began:.0f} s")
    retrained = trained(path)
    # The same kinds in every layer; a head near a threshold may change sides
    # (two threads add up in an order of their own, so runs differ in the last bits).
    assert [set(layer) for layer in heads.kinds(retrained)] == [set(layer) for layer in heads.kinds(trained())]
    table = heads.profile(retrained)
    assert table[..., PREVIOUS].max() > 0.5 and table[..., INDUCTION].max() > 0.5 and table[..., SELF].max() > 0.5
    assert heads.kinds(retrained)[0][0] == "self"


# ---------------------------------------------------------------- what a head does, by removing it


def _removing(head: int):
    """A layer's attention with `head` taken out (the reference's ablate_head), for `forward`'s `replaced`."""
    return lambda X, W_q, W_k, W_v, W_o, n_heads, mask=None: ref.ablate_head(X, W_q, W_k, W_v, W_o, n_heads, head,
                                                                             mask)


def _copying(model, sequences, replaced=None) -> float:
    return float(np.mean([heads.copy_score(forward(model, tokens, REFERENCE, replaced).logits, tokens)
                          for tokens in sequences]))


def test_does_a_replaced_layer_change_nothing_when_it_is_the_same_attention():
    tokens = grammar.encode("<s> the cat sat on the mat . the cat sat on the mat".split())
    plain = run(trained(), tokens)
    same = forward(trained(), tokens, REFERENCE, {1: ref.multi_head_attention})
    assert np.array_equal(plain.logits, same.logits) and np.array_equal(plain.weights, same.weights)


def test_does_removing_the_induction_head_cost_the_copying_most_among_layer_1s_heads():
    model, sequences = trained(), heads.held_out(count=20)
    induction = int(np.argmax(heads.profile(model, count=20)[1, :, INDUCTION]))  # layer 1's most induction-like head
    without = [_copying(model, sequences, {1: _removing(head)}) for head in range(HEADS)]
    assert int(np.argmin(without)) == induction, np.round(without, 2)
    assert without[induction] < _copying(model, sequences) - 0.3, np.round(without, 2)
