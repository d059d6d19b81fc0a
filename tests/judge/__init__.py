"""The judge, the exercise registry, the hidden cases and the known mistakes (autograder/judge, autograder/exercises)."""
