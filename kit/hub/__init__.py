"""The course on a shared JupyterHub: `python -m kit.hub setup` (run as root) makes nbgrader's exchange
with the tightest permissions stock nbgrader's student commands work with, following no link
(`exchange.py`), says whether its file system keeps per-account quotas (`quota.py`), and gives every
account the students' view of nbgrader, the instructor theirs (`students.py`), and, with --hub-config, the
grading service as the hub's managed service (`managed_service.py`); `python -m kit.hub students` makes the
Python every account's server runs, with nothing of the course (`students_env.py`)."""
