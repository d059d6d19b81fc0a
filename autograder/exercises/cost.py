"""Notebook 07, cost: the work and memory of attention against the projections and the MLP."""

from __future__ import annotations

from autograder.exercises.spec import Exercise, Mistake, case
from solutions import attention as ref

NOTEBOOK = "07_cost"


def chapter_layer_visible():
    return [case("512 tokens of width 768", 512, 768)]


def sizes_hidden(rng):
    """projection_flops, score_flops and attention_share."""
    return [case(f"{tokens} tokens of width {width}", tokens, width)
            for tokens, width in ((100, 64), (4096, 1024), (7, 3))] + [
        case("0 tokens", 0, 64, raises="ValueError", checks="bad size")]


def attention_share_visible():
    return [case("512 tokens of width 768 (the chapter: 25.0%)", 512, 768)]


def crossover_length_visible():
    return [case("width 768 (the chapter: 1,536)", 768)]


def crossover_length_hidden(rng):
    return [case("width 4096", 4096), case("width 64", 64), case("width 0", 0, raises="ValueError", checks="bad size")]


def mlp_flops_hidden(rng):
    return [case(f"{tokens} tokens of width {width}", tokens, width) for tokens, width in ((100, 64), (4096, 1024), (7, 3))]


def grid_over_mlp_visible():
    return [case("512 tokens of width 768 (short: the MLP dominates)", 512, 768),
            case("32,768 tokens of width 768 (long: the grid dominates)", 32768, 768)]


def grid_over_mlp_hidden(rng):
    return [case(f"{tokens} tokens of width {width}", tokens, width)
            for tokens, width in ((3072, 768), (100_000, 4096), (8, 512))]


def score_grid_bytes_visible():
    return [case("512 tokens, 12 heads, 2 bytes (the chapter: 6 MiB)", 512, 12)]


def score_grid_bytes_hidden(rng):
    return [case("1,000 tokens, 16 heads, 4 bytes", 1000, 16, 4),
            case("300 tokens, 8 heads (2 bytes)", 300, 8),
            case("0 heads", 300, 0, raises="ValueError", checks="bad size")]


def attention_params_visible():
    return [case("width 768, 12 heads", 768, 12)]


def attention_params_hidden(rng):
    return [case("width 512, 8 heads", 512, 8),
            case("width 96, 3 heads", 96, 3),
            case("width 100 in 3 heads", 100, 3, raises="ValueError", checks="bad shape"),
            case("0 heads", 96, 0, raises="ValueError", checks="bad size")]


EXERCISES = (
    Exercise("projection_flops", ref.projection_flops, sizes_hidden, chapter_layer_visible, stream=15, mistakes=(
        Mistake("factor 4 missing", 7, "There are four projections (Q, K, V and the output), each n·d².",
                lambda n, d: n * d * d),
    )),
    Exercise("score_flops", ref.score_flops, sizes_hidden, chapter_layer_visible, stream=16, mistakes=(
        Mistake("factor 2 missing", 7, "The grid is paid twice: once for the scores Q Kᵀ, once for mixing the values.",
                lambda n, d: n * n * d),
    )),
    Exercise("attention_share", ref.attention_share, sizes_hidden, attention_share_visible, stream=17,
             built_on=("projection_flops", "score_flops"), mistakes=(
        Mistake("factor 2 missing", 7, "Scores and mixing cost 2·n²·d together.",
                lambda n, d: n * n * d / (n * n * d + 4 * n * d * d)),
        Mistake("factor 4 missing", 7, "The projections cost 4·n·d² (four matrices).",
                lambda n, d: 2 * n * n * d / (2 * n * n * d + n * d * d)),
        Mistake("ratio instead of share", 7, "The share is grid / (grid + projections), not grid / projections.",
                lambda n, d: 2 * n * n * d / (4 * n * d * d)),
    )),
    Exercise("crossover_length", ref.crossover_length, crossover_length_hidden, crossover_length_visible, stream=18,
             built_on=("projection_flops", "score_flops", "attention_share"), mistakes=(
        Mistake("factor 2 missing", 7, "Setting 4·n·d² = 2·n²·d gives n = 2d.", lambda d: 4 * d),
    )),
    Exercise("mlp_flops", ref.mlp_flops, mlp_flops_hidden, chapter_layer_visible, stream=27, mistakes=(
        Mistake("inner width d instead of 4d", 7, "The MLP widens each token to 4·d and back: 2 · n · d · 4d.",
                lambda n, d: 2 * n * d * d),
        Mistake("one of the two matrices", 7, "There are two matrices, d → 4d and 4d → d: 8·n·d² in all.",
                lambda n, d: 4 * n * d * d),
    )),
    Exercise("grid_over_mlp", ref.grid_over_mlp, grid_over_mlp_hidden, grid_over_mlp_visible, stream=28,
             built_on=("score_flops", "mlp_flops"), mistakes=(
        Mistake("ratio inverted", 7, "Divide the grid's work by the MLP's, not the other way round.",
                lambda n, d: 4 * d / n),
        Mistake("factor 2 missing", 7, "The grid is paid twice, scores and mixing: 2·n²·d.",
                lambda n, d: n * n * d / (8 * n * d * d)),
    )),
    Exercise("score_grid_bytes", ref.score_grid_bytes, score_grid_bytes_hidden, score_grid_bytes_visible, stream=19,
             mistakes=(
        Mistake("in MB instead of bytes", 7, "Return bytes; 1 MB = 10⁶ bytes but 1 MiB = 1,048,576 bytes.",
                lambda n, h, b=2: n * n * h * b / 1e6),
        Mistake("in MiB instead of bytes", 7, "Return bytes, not MiB (1 MiB = 1,048,576 bytes).",
                lambda n, h, b=2: n * n * h * b / 2**20),
        Mistake("heads forgotten", 7, "Every head has a score grid of its own.", lambda n, h, b=2: n * n * b),
    )),
    Exercise("attention_params", ref.attention_params, attention_params_hidden, attention_params_visible, stream=20,
             mistakes=(
        Mistake("output projection forgotten", 5, "W_o is d × d too: 4·d² in all.", lambda d, h: 3 * d * d),
        Mistake("divided by the number of heads", 5, "Cutting into heads does not change the count: 4·d².",
                lambda d, h: 4 * d * d // h),
    )),
)
