"""Adversarial submissions: code that tries to forge, crash or stall its own grading.

- fixtures/*.py: student code, spliced into the solved notebooks by build.py;
  each file's docstring states the outcome it must get, and its `Loses:`
  line names the exercises (or single graded cells) that must score zero;
- build.py: the splicing, and the notebook-level fixtures (edited, deleted or
  duplicated locked cells, changed metadata and checksums, wrong notebooks)
  made by editing the solved notebooks' JSON;
- processes.py: ending a grading that a fixture stalled, children included;
- compare_plain_nbgrader.py: the same fixtures through plain `nbgrader
  autograde` and through the kit's path, side by side (a script, not a test).

tests/confinement/test_adversarial.py grades every fixture through `grade_submission` (and again as an
ordinary account: tests/confinement/unprivileged.py); the grading runs, the cluster, the grading service and
the corpus's submissions (tests/shared/corpus_submissions.py, the splicing) use them too: shared.
"""
