"""Benchmarks of the kit (issue 6). Not tests: nothing here asserts a time.

`python -m benchmarks.run` measures everything side by side in one run and
writes `benchmarks/REPORT.md`.
"""
