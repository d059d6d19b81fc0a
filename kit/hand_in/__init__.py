"""The hand-in on a shared exchange: what `nbgrader collect` takes, and who may read feedback.

nbgrader's own collect trusts the exchange: it follows symbolic links with the
instructor's rights, believes the student id a folder's name claims, and stops
the whole class at one odd file. Here, plugged in through nbgrader's
ExchangeFactory (nbgrader_config.py), so that the command and the formgrader's
Collect button both use them:

- tree.py: a hand-in read from a folder its owner can still change, checked
  from its metadata first, every file opened without following a link;
- accounts.py: which account may hand in for a student id;
- secret.py: the submission secret feedback is named by, read and checked;
- collect.py: TrustedCollect, nbgrader's collect taking only what it can trust,
  with a summary of what it refused and why (kept for the class report);
- acl.py: POSIX access lists, so that a file can be read by one other account;
- feedback.py: OwnerOnlyReleaseFeedback, each feedback page readable by its
  student's account alone, no student's pages stopping the rest;
- exchange_root.py: an exchange not made yet, named with what makes it;
- page.py: the pages the kit writes itself, not from a graded notebook (a
  notice over the limit, an unreadable hand-in's), and their folder, written whole.
"""
