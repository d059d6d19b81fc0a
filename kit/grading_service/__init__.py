"""Grading on hand-in, on a hub: feedback a minute after Submit (README: Grading on hand-in).

`python -m kit.grading_service` runs as the instructor's account, started and
restarted by the hub as a managed service (`python -m kit.hub setup
--hub-config`, kit/hub/managed_service.py). It takes each hand-in as it
arrives in the exchange and runs README's own loop for it: the kit's collect
and its checks, the confined grader with each student's budget, the kit's
feedback pages, released to their student alone; so the grades it shows are
the instructor's loop's. Course policy in course.toml `[service]`.

- arrivals.py: the hand-ins that arrived whole, whose, on time or not;
- limit.py: when a student's next graded feedback may come;
- turns.py: whose hand-in the next round takes (one per student, first come first served);
- journal.py: the record of every hand-in and round, whole or absent (SQLite);
- rounds.py: one round: collect, autograde, generate_feedback, release_feedback for its students;
- notice.py: the page a hand-in over the limit gets;
- outcome.py: what a round did with a hand-in;
- processes.py: the round's process, ended whole;
- service.py: the loop, the log;
- __main__.py: the command line (run, status).
"""
