"""Does every nbgrader command start without work it never uses?

Each grading worker, each `nbgrader` command and the demo pay for what
`import nbgrader.apps` imports. rfc3987-syntax, pulled in by Jupyter's
packages, builds some forty grammars at import (1 to 2 s here); jsonschema
imports it from 4.24 on, so pyproject.toml keeps jsonschema below that.
"""

from __future__ import annotations

import subprocess
import sys


def test_starting_nbgrader_builds_no_IRI_grammar():
    loaded = subprocess.run([sys.executable, "-c", "import sys, nbgrader.apps, nbformat; print(*sorted(sys.modules))"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert "nbgrader.apps" in loaded
    assert "rfc3987_syntax" not in loaded and "lark" not in loaded
