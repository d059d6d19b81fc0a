"""The course on a shared JupyterHub: `python -m kit.hub setup` (run as root) makes nbgrader's exchange
with the tightest permissions stock nbgrader's student commands work with (`exchange.py`) and gives
every account the students' view of nbgrader, the instructor theirs (`students.py`)."""
