"""Everything that plugs into nbgrader, and everything that opens the gradebook.

- configure.py: `configure(c, course)`, the one call nbgrader_config.py makes;
- the grading run: grading_run.py (the students of one autograde and their
  reports), autograde.py (the converter), worker_pool.py and
  one_student_per_worker.py (students converted in forked worker processes),
  autograde_exporter.py (its notebooks neither copied nor checked again
  where nbconvert repeats it), preprocessors.py (nbgrader's autograde steps
  the kit adds), save_scores.py
  (the scores from the report into the gradebook, in SaveAutoGrades's place),
  overwrite_cells.py (OverwriteCells reading a notebook's cells once a run),
  late_penalties.py (a submission on time's penalties reset in one statement),
  timestamp.py and plain_files.py (a hand-in left out by name: a timestamp.txt
  that gives no time; links, pipes or devices);
- what a student wrote in markdown, shown as text in every page nbgrader
  renders: written_as_text.py;
- feedback, late policy and exports: feedback.py, get_grades.py (a student's
  grades for all their pages in three queries), feedback_page.py,
  feedback_exporter.py (the page's set-up once per process, no copies) with templates/ (the feedback page, and the
  formgrader's view of a submission), hand_in_notes.py (what became of a notebook not graded as handed in,
  on each page), unreadable_hand_in.py (a page per notebook of a hand-in none of
  whose notebooks can be read, saying why), late.py, export.py;
- the gradebook: reachable.py (it answers, or the command stops), engines.py
  (one engine per process), per_student.py (rows read once a student, or
  once a run), sqlite_wal.py (SQLite in WAL mode),
  locked_gradebook.py (how long a locked gradebook is waited for),
  gradebook_turns.py (SQLite writers take turns), lock.py (one grading run at
  a time);
- validate_guard.py: `nbgrader validate` refuses a student's hand-in (it runs
  code unconfined);
- whole_or_absent.py: a student's autograded folder and feedback pages whole,
  or finished by the next plain run.
"""

from kit.nbgrader_glue.configure import configure

__all__ = ["configure"]
