"""Issue 6, part 3: the reference attention, naive and blockwise, against torch.

Every contender of one table runs in the same rounds, one after another, so a
change in the machine's load falls on all of them; a time is the best of the
rounds. Peak memory is tracemalloc's, in a separate call.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from typing import Callable, NamedTuple
from unittest import mock

import numpy as np

from benchmarks import machine
from solutions import attention as ref

D = 64
SIZES = (512, 2048, 8192)
DTYPES = (np.float64, np.float32)
BLOCK_SIZES = (32, 64, 128, 256, 512, 1024)

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # torch is an optional, benchmark-only dependency
    torch = None


class Timing(NamedTuple):
    best: float
    median: float
    runs: int


def attention_flops(n: int, causal: bool = False) -> float:
    """Multiply-and-add pairs of Q Kᵀ and P V, counted as 2 flops each: 4·n²·d (about half when causal)."""
    pairs = n * (n + 1) / 2 if causal else n * n
    return 4 * pairs * D


def inputs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V (n, D) in float64 holding float32 values, so both dtypes attend to the same numbers."""
    rng = np.random.default_rng([seed, n])
    return tuple(rng.standard_normal((n, D)).astype(np.float32).astype(np.float64) for _ in range(3))


def rounds(contenders: dict[str, Callable[[], np.ndarray]], repeats: int, patience: float | None = None,
           clock: Callable[[], float] = time.perf_counter):
    """Run every contender once per round; return its timings and its first output.

    With `patience`, a contender more than `patience` times slower than the
    fastest in the first round is not run again (its one time stands).
    """
    times = {name: [] for name in contenders}
    outputs = {}
    for round_ in range(repeats):
        if round_ == 1 and patience:
            fastest = min(t[0] for t in times.values())
            contenders = {name: run for name, run in contenders.items() if times[name][0] <= patience * fastest}
        for name, run in contenders.items():
            start = clock()
            result = run()
            times[name].append(clock() - start)
            outputs.setdefault(name, result)
            del result
    return {name: Timing(min(t), statistics.median(t), len(t)) for name, t in times.items()}, outputs


def peak_bytes(run: Callable[[], object]) -> int:
    """The most memory allocated at once during `run()`, as tracemalloc sees it."""
    gc.collect()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _torch_sdpa(Q, K, V, causal=False):
    # (batch, heads, n, d): with fewer dimensions torch falls back to its math path, which builds the n × n grid.
    q, k, v = (torch.from_numpy(a)[None, None] for a in (Q, K, V))
    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)[0, 0].numpy()


def torch_kernel(n: int = 256) -> str:
    """Which of torch's attention kernels `_torch_sdpa` runs on the CPU, as its profiler names it."""
    if torch is None:
        return "torch not installed"
    run = _torch_sdpa(*inputs(n))
    with torch.profiler.profile() as profile:
        run()
    names = {e.key for e in profile.key_averages() if "scaled_dot_product" in e.key}
    return ", ".join(sorted(names - {"aten::scaled_dot_product_attention"})) or "?"


def compare(sizes=SIZES, dtypes=DTYPES, repeats=None) -> tuple[list[dict], dict[str, float]]:
    """One row per (n, dtype, contender); and the best numpy matmul GFLOP/s per dtype.

    A 2048 × 2048 matmul takes part in every round as one more contender, so
    the peak that GFLOP/s are compared with is measured under the same load.
    """
    rows, matmul_peak = [], {}
    for n in sizes:
        reps = repeats or (5 if n <= 2048 else 3)
        Q64, K64, V64 = inputs(n)
        expected = None
        for dtype in dtypes:  # float64 first: its naive output is the reference
            Q, K, V = (a.astype(dtype) for a in (Q64, K64, V64))
            contenders = {"naive": lambda: ref.attention(Q, K, V)[0],
                          "blockwise": lambda: ref.blockwise_attention(Q, K, V)}
            if torch is not None:
                contenders["torch"] = _torch_sdpa(Q, K, V)
                contenders["torch"]()  # warm-up: the first call sets torch up
            contenders["matmul"], matmul_flops = machine.matmul(dtype)
            timings, outputs = rounds(contenders, reps)
            name = np.dtype(dtype).name
            matmul_peak[name] = max(matmul_peak.get(name, 0.0), matmul_flops / timings.pop("matmul").best / 1e9)
            if expected is None:
                expected = ref.attention(Q64, K64, V64)[0] if dtype != np.float64 else outputs["naive"]
            for name, timing in timings.items():
                peak = None if name == "torch" else peak_bytes(contenders[name])
                rows.append(dict(n=n, dtype=np.dtype(dtype).name, name=name, time=timing, peak=peak,
                                 diff=float(np.abs(outputs[name].astype(np.float64) - expected).max()),
                                 gflops=attention_flops(n) / timing.best / 1e9))
            del outputs
    return rows, matmul_peak


def causal(sizes=(2048, 8192), repeats=3) -> list[dict]:
    """Blockwise with causal=True against torch's is_causal=True (float64)."""
    rows = []
    if torch is None:
        return rows
    for n in sizes:
        Q, K, V = inputs(n)
        contenders = {"blockwise": lambda: ref.blockwise_attention(Q, K, V, causal=True),
                      "torch": _torch_sdpa(Q, K, V, causal=True)}
        timings, outputs = rounds(contenders, repeats)
        rows.append(dict(n=n, blockwise=timings["blockwise"], torch=timings["torch"],
                         diff=float(np.abs(outputs["blockwise"] - outputs["torch"]).max()),
                         gflops=attention_flops(n, causal=True) / timings["blockwise"].best / 1e9))
    return rows


def sweep(cases=((2048, np.float64), (2048, np.float32), (8192, np.float64)), block_sizes=BLOCK_SIZES,
          repeats=3, patience=4.0) -> list[dict]:
    """Blockwise at every block size: wall time on all cores, and CPU time on one core.

    All sizes of one case run in the same rounds; a size `patience` times
    slower than the fastest in the first round runs only once. The one-core CPU
    time barely moves with the machine's load, so it decides between sizes that
    the wall times cannot tell apart.
    """
    rows = []
    for n, dtype in cases:
        Q, K, V = (a.astype(dtype) for a in inputs(n))
        contenders = {bs: (lambda bs=bs: ref.blockwise_attention(Q, K, V, block_size=bs)) for bs in block_sizes}
        wall, _ = rounds(contenders, repeats, patience)
        with mock.patch("os.cpu_count", return_value=1):
            cpu, _ = rounds(contenders, repeats, patience, clock=time.process_time)
        for bs in block_sizes:
            rows.append(dict(n=n, dtype=np.dtype(dtype).name, block_size=bs, time=wall[bs], cpu=cpu[bs],
                             peak=peak_bytes(contenders[bs]), gflops=attention_flops(n) / wall[bs].best / 1e9,
                             rows=ref._tile_rows(n, min(bs, n), D)))
    return rows


def one_core(sizes=(2048, 8192), dtypes=DTYPES, repeats=3) -> list[dict]:
    """Blockwise and torch confined to one thread each, timed in CPU seconds.

    CPU time counts only the time a thread ran, so this comparison holds on a
    busy machine; blockwise is confined by making it see one core (it starts
    one thread per core that `os.cpu_count()` reports).
    """
    rows = []
    if torch is None:
        return rows
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with mock.patch("os.cpu_count", return_value=1):
            for n in sizes:
                for dtype in dtypes:
                    Q, K, V = (a.astype(dtype) for a in inputs(n))
                    timings, _ = rounds({"blockwise": lambda: ref.blockwise_attention(Q, K, V),
                                         "torch": _torch_sdpa(Q, K, V)}, repeats, clock=time.process_time)
                    rows.append(dict(n=n, dtype=np.dtype(dtype).name, blockwise=timings["blockwise"],
                                     torch=timings["torch"]))
    finally:
        torch.set_num_threads(threads)
    return rows


def exp_costs(size: int = 1 << 16, repeats: int = 50) -> dict[str, float]:
    """Nanoseconds per element of exp on one core: numpy's, and torch's with one thread."""
    x = -np.abs(np.random.default_rng(0).standard_normal(size)) * 5
    runs = {}
    for dtype in DTYPES:
        a = x.astype(dtype)
        out = np.empty_like(a)
        runs[f"numpy {a.dtype}"] = lambda a=a, out=out: np.exp(a, out=out)
        if torch is not None:
            runs[f"torch {a.dtype}"] = lambda a=torch.from_numpy(a), out=torch.from_numpy(out): torch.exp(a, out=out)
    threads = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(1)
    try:
        timings, _ = rounds(runs, repeats)
    finally:
        if torch is not None:
            torch.set_num_threads(threads)
    return {name: timing.best / size * 1e9 for name, timing in timings.items()}


def numpy_has_avx512() -> bool | None:
    """numpy computes float64 exp with SIMD only on AVX-512; None if numpy won't say."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:
        return None
    return bool(__cpu_features__.get("AVX512F"))

