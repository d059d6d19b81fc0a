"""Is an answer imported from the student's own module read as the code that was graded?"""

from __future__ import annotations

from kit.report.imported import definitions, with_imports_resolved

MODULE = '''import numpy as np

SCALE = 2.0


def _shift(x):
    return x - x.max(axis=-1, keepdims=True)


def softmax(S, axis=-1):
    e = np.exp(_shift(S) * SCALE / SCALE)
    return e / e.sum(axis=axis, keepdims=True)


def unused():
    return 1


class Helper:
    def go(self):
        return softmax
'''


def test_the_imported_function_comes_with_what_it_uses_of_its_module_in_the_modules_order():
    assert definitions(MODULE, {"softmax"}).split("\n\n\n") == [
        "SCALE = 2.0", MODULE.split("\n\n\n")[1].strip(), MODULE.split("\n\n\n")[2].strip()]
    assert "unused" in definitions(MODULE, {"*"}) and "class Helper" in definitions(MODULE, {"*"})
    assert definitions("def broken(:\n", {"broken"}) == "" and definitions(MODULE, {"absent"}) == ""


def test_the_lines_that_import_are_replaced_and_the_rest_of_the_cell_kept():
    modules = {"my_helpers": MODULE}
    for cell in ("from my_helpers import softmax\n", "import my_helpers\nsoftmax = my_helpers.softmax\n",
                 "from my_helpers import softmax as mine\n\nsoftmax = mine\n"):
        assert with_imports_resolved(cell, modules) == definitions(MODULE, {"softmax"}) + "\n"
    shared = with_imports_resolved("import my_helpers; softmax = 1\n", modules)  # a line two statements share
    assert shared.startswith("import my_helpers; softmax = 1\n")
    cell = "from my_helpers import _shift\n\n\ndef softmax(S, axis=-1):\n    return _shift(S)\n"
    assert with_imports_resolved(cell, modules) == (
        "def softmax(S, axis=-1):\n    return _shift(S)\n\n\n" + definitions(MODULE, {"_shift"}) + "\n")


def test_a_cell_that_imports_nothing_of_the_students_is_left_as_it_is():
    for cell in ("from numpy import exp\nsoftmax = exp\n", "def softmax(S):\n    return S\n", "def (:\n"):
        assert with_imports_resolved(cell, {"my_helpers": MODULE}) == cell
    assert with_imports_resolved("from my_helpers import softmax\n", {}) == "from my_helpers import softmax\n"
