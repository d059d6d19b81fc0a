"""The confined runner and the attacks on it (autograder/sandbox.py, grading_child.py, child.py, submission.py, stand_in_server.py, budget.py, bounded_pipe.py)."""
