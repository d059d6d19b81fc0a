"""nbgrader's glue and the grading runs (kit/nbgrader_glue, the main command, the cluster)."""
