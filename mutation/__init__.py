"""Mutation testing of the graders: is every exercise's grading as strong as its text?

Each exercise's reference (and the private helpers it calls) is mutated with
cosmic-ray's operators and the kit's own few (operators.py); each mutant is
graded as a student's answer by the kit's own grading engine, in process
(mutants are trusted code: autograder.grade.exercise_problems on the
registry's cases); a mutant must lose the exercise's hidden points, or be
recorded as equivalent in one reviewed line with its reason (equivalent.txt).

- operators.py   the operators, and where grading can see a change;
- mutants.py     the mutants of one exercise, each an answer to grade;
- grading.py     a mutant graded: killed by the visible check, the hidden cases, or neither;
- reviewed.py    the reviewed equivalent mutants (equivalent.txt) and the survivors still open (open.txt);
- record.py      what one exercise's mutants gave, and the fingerprint of what they were made from;
- report.py      REPORT.md from results.json, beside the first run's survivors (before.json);
- __main__.py    `make mutants`: grade them and write REPORT.md and results.json.

tests/judge/test_mutants.py reads what `make mutants` wrote, and grades the mutants of the
exercises a change touched since.
"""
