"""What the class got wrong: a report for the instructor after a grading run.

`python -m kit.report attention` (or `make report`, or the last step of
`make demo`) writes ``reports/<assignment>/index.html`` and prints a short
summary. It reads nbgrader's gradebook (through nbgrader's API, at the URL
nbgrader's configuration gives) and the ``grading_report.json`` the grader
wrote beside each student's autograded notebooks; it never runs student code.

    sections.py  which chapter section each exercise follows
    collect.py   gradebook + grading reports → `ClassResults`
    charts.py    the three charts (matplotlib, the notebooks' figure style)
    answers.py   the answer cells handed in, and each exercise's reference (in each form) and given code
    canonical.py one spelling for code written several equivalent ways (helpers inlined, loops as comprehensions)
    normalise.py an answer's code as tokens renaming, comments and reordering do not change
    chance.py    how unusual two answers alike are, by the class's own frequencies
    traces.py    what a copy kept beyond its statements: its comments and where its blank lines fall
    renaming.py  what renaming leaves: names changed where the class's writers of those statements name alike, or to words
                 no one else in the class binds
    similarity.py    answers unusually alike: pairs per exercise, across exercises, alike the reference
    similar_results.py  what it found: each exercise's pairs and distribution, the pairs alike across them
    similar_view.py  what the page shows of them (labels, code in the anonymous page, the distribution)
    similar.html.j2  the similarity section of the page
    page.py      one self-contained HTML page (charts inline, no external files)
    summary.py   the text summary for the terminal
    build.py     nbgrader's configuration → the page and the summary
    __main__.py  the command line
"""
