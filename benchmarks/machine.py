"""What the benchmark ran on, and the machine's own matmul speed in the same run."""

from __future__ import annotations

import os
import platform
import time

import numpy as np

# Environment variables that change which OpenBLAS kernel runs (see the report).
BLAS_ENVIRONMENT = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def blas() -> list[str]:
    """One line per BLAS or OpenMP library loaded, as threadpoolctl reports it."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return ["threadpoolctl is not installed (pip install threadpoolctl): the BLAS kernel is not known"]
    lines = []
    for lib in threadpool_info():
        kernel = lib.get("architecture") or lib.get("corename") or "?"
        lines.append(f"{lib['internal_api']} {lib.get('version')} ({lib['user_api']}, kernel {kernel}, "
                     f"{lib['num_threads']} threads, {lib['filepath'].rsplit('/', 1)[-1]})")
    return lines


def details() -> dict[str, str]:
    torch_version = "not installed"
    try:
        import torch

        torch_version = f"{torch.__version__}, {torch.get_num_threads()} threads"
    except ImportError:
        pass
    env = ", ".join(f"{name}={os.environ[name]}" for name in BLAS_ENVIRONMENT if name in os.environ)
    return {
        "CPU": cpu_model(),
        "cores": f"{os.cpu_count()} (usable by this process: {len(os.sched_getaffinity(0))})",
        "Python": platform.python_version(),
        "numpy": np.__version__,
        "BLAS (threadpoolctl)": "; ".join(blas()),
        "torch": torch_version,
        "BLAS environment": env or "none of " + ", ".join(BLAS_ENVIRONMENT) + " set",
    }


def load_average() -> str:
    return "{:.2f}, {:.2f}, {:.2f}".format(*os.getloadavg())


def matmul(dtype, n: int = 2048):
    """A run of numpy's n × n matmul (BLAS's default threads), and its flops (2n³)."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
    out = np.empty_like(a)
    return (lambda: np.matmul(a, b, out=out)), 2 * n**3


def matmul_gflops(dtype, n: int = 2048, repeats: int = 5) -> float:
    """numpy's n × n matmul in GFLOP/s, best of `repeats`."""
    run, flops = matmul(dtype, n)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return flops / best / 1e9
