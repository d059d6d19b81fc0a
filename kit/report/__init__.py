"""What the class got wrong: a report for the instructor after a grading run.

`python -m kit.report attention` (or `make report`, or the last step of
`make demo`) writes ``reports/<assignment>/index.html`` and prints a short
summary. It reads nbgrader's gradebook (through nbgrader's API, at the URL
nbgrader's configuration gives) and the ``grading_report.json`` the grader
wrote beside each student's autograded notebooks; it never runs student code.

    sections.py  which chapter section each exercise follows
    collect.py   gradebook + grading reports → `ClassResults`
    charts.py    the three charts (matplotlib, the notebooks' figure style)
    answers.py   the answer cells handed in, and each exercise's reference and given code
    normalise.py an answer's code as tokens renaming, comments and reordering do not change
    fingerprints.py  winnowed fingerprints of those tokens
    similarity.py    answers unusually alike: pairs per exercise, across exercises, the reference's copies
    similar_view.py  what the page shows of them (labels and code in the anonymous page)
    page.py      one self-contained HTML page (charts inline, no external files)
    summary.py   the text summary for the terminal
    build.py     nbgrader's configuration → the page and the summary
    __main__.py  the command line
"""
