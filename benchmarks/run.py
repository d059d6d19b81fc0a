"""One command for the benchmarks of issue 6; writes benchmarks/REPORT.md.

    .venv/bin/python -m benchmarks.run            # everything (several minutes)
    .venv/bin/python -m benchmarks.run --quick    # n = 512 and 2048 only, for a look

Not a test: nothing here asserts a time. Every ratio compares figures measured
side by side in this one run, and every GFLOP/s is given as a fraction of the
numpy matmul peak measured in this run too.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: benchmarks/run.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from benchmarks import attention, machine

REPORT = Path(__file__).resolve().parent / "REPORT.md"
MIB = 1 << 20


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _s(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _mib(peak) -> str:
    return "not visible to tracemalloc" if peak is None else f"{peak / MIB:.1f} MiB"


def attention_section(rows, peak_gflops) -> tuple[str, dict]:
    """The side-by-side table, the ratios table, and the ratios for the goals."""
    body = _table(
        ["n", "dtype", "implementation", "time (best)", "median", "GFLOP/s", "of matmul peak",
         "peak memory", "max abs diff to naive float64"],
        [[r["n"], r["dtype"], r["name"], _s(r["time"].best), _s(r["time"].median), f"{r['gflops']:.1f}",
          f"{r['gflops'] / peak_gflops[r['dtype']]:.0%}", _mib(r["peak"]), f"{r['diff']:.1e}"] for r in rows])
    by = {(r["n"], r["dtype"], r["name"]): r for r in rows}
    ratios, goals = [], {}
    for n, dtype in dict.fromkeys((r["n"], r["dtype"]) for r in rows):
        naive, block, torch = (by.get((n, dtype, name)) for name in ("naive", "blockwise", "torch"))
        vs_naive = block["time"].best / naive["time"].best
        memory = naive["peak"] / block["peak"]
        vs_torch = block["time"].best / torch["time"].best if torch else None
        goals[n, dtype] = dict(vs_naive=vs_naive, memory=memory, vs_torch=vs_torch,
                               fraction=block["gflops"] / peak_gflops[dtype])
        ratios.append([n, dtype, f"{vs_naive:.2f}", f"{memory:.0f}",
                       "torch not installed" if vs_torch is None else f"{vs_torch:.2f}"])
    body += "\nRatios (below 1 is faster for the first two, above 1 is leaner for memory):\n\n"
    body += _table(["n", "dtype", "blockwise / naive time", "naive / blockwise peak memory",
                    "blockwise / torch time"], ratios)
    return body, goals


def goals_section(goals, sizes) -> str:
    lines = []
    for dtype in ("float64", "float32"):
        g = goals.get((8192, dtype))
        if g:
            lines.append(f"- peak memory at most naive/50 at n = 8192, {dtype}: naive/blockwise = "
                         f"{g['memory']:.0f} ({'met' if g['memory'] >= 50 else 'NOT met'})")
    if 8192 not in sizes:
        lines.append("- peak memory at n = 8192: not measured (--quick)")
    for (n, dtype), g in goals.items():
        if n >= 2048:
            lines.append(f"- time at most naive's at n = {n}, {dtype}: blockwise/naive = {g['vs_naive']:.2f} "
                         f"({'met' if g['vs_naive'] <= 1 else 'NOT met'})")
    for (n, dtype), g in goals.items():
        if dtype == "float64" and g["vs_torch"] is not None:
            lines.append(f"- within 1.3x of torch in float64 at n = {n}: blockwise/torch = {g['vs_torch']:.2f} "
                         f"({'met' if g['vs_torch'] <= 1.3 else 'NOT met'})")
    for (n, dtype), g in goals.items():
        lines.append(f"- blockwise at n = {n}, {dtype}: {g['fraction']:.0%} of the numpy matmul peak")
    return "\n".join(lines) + "\n"


def sweep_section(rows, peak_gflops) -> str:
    body = ""
    for case in dict.fromkeys((r["n"], r["dtype"]) for r in rows):
        part = [r for r in rows if (r["n"], r["dtype"]) == case]
        fastest = min(r["time"].best for r in part)
        fastest_cpu = min(r["cpu"].best for r in part)
        body += f"\nn = {case[0]}, {case[1]}:\n\n" + _table(
            ["block_size", "query rows per tile", "time (best)", "median", "vs fastest", "GFLOP/s",
             "of matmul peak", "one core, CPU time (best)", "vs fastest", "peak memory"],
            [[r["block_size"], r["rows"], _s(r["time"].best) + ("" if r["time"].runs > 1 else " (1 run)"),
              _s(r["time"].median), f"{r['time'].best / fastest:.2f}", f"{r['gflops']:.1f}",
              f"{r['gflops'] / peak_gflops[r['dtype']]:.0%}", _s(r["cpu"].best), f"{r['cpu'].best / fastest_cpu:.2f}",
              _mib(r["peak"])] for r in part])
    return body


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 512 and 2048 only, a shorter sweep")
    parser.add_argument("--out", type=Path, default=REPORT, help="where to write the report")
    parser.add_argument("--students", type=int, default=100, help="students graded on the kit's path")
    parser.add_argument("--plain-students", type=int, default=16,
                        help="of them, graded with plain nbgrader too (about ten seconds each)")
    parser.add_argument("--no-grading", action="store_true", help="leave out grading throughput (parts 2, 4, 5)")
    args = parser.parse_args(argv)
    sizes = (512, 2048) if args.quick else attention.SIZES
    sweep_cases = ((2048, np.float64),) if args.quick else ((2048, np.float64), (2048, np.float32),
                                                            (8192, np.float64))
    started, load_before = time.time(), machine.load_average()

    def say(what):
        print(f"[{time.time() - started:6.1f} s] {what}", file=sys.stderr, flush=True)

    say("numpy matmul peak")
    peak_before = {np.dtype(t).name: machine.matmul_gflops(t) for t in attention.DTYPES}
    say(f"attention at n = {sizes}")
    rows, peak_in_rounds = attention.compare(sizes)
    say("causal")
    causal = attention.causal(sizes=(2048,) if args.quick else (2048, 8192))
    say("one core each")
    single = attention.one_core(sizes=(2048,) if args.quick else (2048, 8192))
    say("block-size sweep")
    sweep = attention.sweep(sweep_cases)
    say("exp costs")
    exp = attention.exp_costs()
    # ---- Issue 6, parts 2, 4, 5: grading throughput (benchmarks/grading.py) and feedback speed go here.
    if args.no_grading:
        grading_md = "## Grading throughput\n\nNot run (--no-grading).\n"
    else:
        say("grading throughput")
        from benchmarks import grading

        measured = grading.measure(args.students, args.plain_students)
        say("feedback speed")
        measured["feedback"] = grading.feedback_speed()
        grading_md = grading.report(measured)
    say("numpy matmul peak, again")
    peak_after = {np.dtype(t).name: machine.matmul_gflops(t) for t in attention.DTYPES}
    peak = {k: max(peak_before[k], peak_after[k], peak_in_rounds[k]) for k in peak_before}

    attention_md, goals = attention_section(rows, peak)
    details = machine.details()
    details["torch attention kernel"] = attention.torch_kernel()
    md = ["# Benchmarks (issue 6)\n",
          f"Written by `{' '.join(['python -m benchmarks.run', *(sys.argv[1:] if argv is None else argv)])}` on "
          f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(started))}, in {time.time() - started:.0f} s. "
          "Not a test: figures of one run on one machine, compared only with each other.\n",
          "## Machine\n",
          _table(["", ""], [[k, v] for k, v in details.items()]
                 + [["load average (1, 5, 15 min) at start / end", f"{load_before} / {machine.load_average()}"]]),
          "\nA load average above the number of cores means other programs shared the machine: "
          "each time is the best of several rounds in which all contenders of a table take turns, "
          "so that the load falls on all of them.\n",
          "## numpy matmul peak (2048 × 2048, BLAS's default threads)\n",
          "Measured at the start, in every round of the attention table (as one more contender) and at the "
          "end; the best of all is the peak that every GFLOP/s below is a fraction of.\n",
          _table(["dtype", "at start", "in the attention rounds (best)", "at end", "peak used below"],
                 [[k, f"{peak_before[k]:.1f} GFLOP/s", f"{peak_in_rounds[k]:.1f} GFLOP/s",
                   f"{peak_after[k]:.1f} GFLOP/s", f"{peak[k]:.1f} GFLOP/s"] for k in peak]),
          f"\n## Attention, d = {attention.D}: naive reference, blockwise reference, torch\n",
          "`naive` is `solutions.attention.attention` (builds the n × n weights), `blockwise` is "
          "`solutions.attention.blockwise_attention` at its default block size, `torch` is "
          "`torch.nn.functional.scaled_dot_product_attention` on the CPU with torch's default threads. "
          "GFLOP/s counts 4·n²·d (the two products). Peak memory is tracemalloc's peak during one call; "
          "torch allocates in C++ outside Python's allocator, so tracemalloc cannot see its memory.\n",
          attention_md,
          "\n### Goals of issue 6, part 3\n",
          goals_section(goals, sizes)]
    if causal:
        md += ["\n### Causal (float64): blockwise skips the key blocks after each group's last query\n",
               _table(["n", "blockwise (best)", "torch is_causal (best)", "blockwise / torch",
                       "GFLOP/s (2·n²·d)", "max abs diff to torch"],
                      [[r["n"], _s(r["blockwise"].best), _s(r["torch"].best),
                        f"{r['blockwise'].best / r['torch'].best:.2f}", f"{r['gflops']:.1f}", f"{r['diff']:.1e}"]
                       for r in causal])]
    if single:
        md += ["\n### One core each, in CPU seconds\n",
               "blockwise made to see one core, torch with `torch.set_num_threads(1)`; CPU time counts only "
               "the time a thread ran, so this ratio holds even on a busy machine.\n",
               _table(["n", "dtype", "blockwise (best)", "torch (best)", "blockwise / torch",
                       "ns per score: blockwise", "torch"],
                      [[r["n"], r["dtype"], _s(r["blockwise"].best), _s(r["torch"].best),
                        f"{r['blockwise'].best / r['torch'].best:.2f}",
                        f"{r['blockwise'].best / r['n'] ** 2 * 1e9:.1f}", f"{r['torch'].best / r['n'] ** 2 * 1e9:.1f}"]
                       for r in single])]
    md += ["\n## Block-size sweep (blockwise, default is 128)\n",
           "The query tiles shrink as the blocks grow, so that one product, tile × block × 64, stays at "
           "2^18 multiply-adds: numpy's OpenBLAS runs a product below 2^19 on the calling thread and splits "
           "a larger one over threads of its own, which would compete with blockwise's threads (one per core). "
           "Wall time on a shared machine moves by tens of percent from run to run; the one-core CPU time "
           "(blockwise made to see one core) barely moves, and decides. "
           "A block size more than 4 times slower than the fastest in the first round is run only once.\n",
           sweep_section(sweep, peak),
           "\n## Where the float64 time goes: exp, one core\n",
           _table(["exp of", "ns per element"], [[k, f"{v:.2f}"] for k, v in exp.items()]),
           f"\nnumpy has AVX-512 here: {attention.numpy_has_avx512()}. Without it numpy computes a float64 exp "
           "one element at a time (float32 exp is vectorised with AVX2). At n = 8192 the 67 million "
           f"exponentials alone take {8192**2 * exp['numpy float64'] * 1e-9 / len(os.sched_getaffinity(0)):.2f} s "
           "of wall time spread over all cores.\n",
           "\n" + grading_md]
    text = "\n".join(md)
    args.out.write_text(text)
    print(text)
    say(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
