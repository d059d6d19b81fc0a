"""Does autograde's exporter read and write a notebook as nbformat does, without its copies and repeated checks?
(kit/nbgrader_glue/autograde_exporter.py; the autograded notebooks of the example class, byte for byte, are
tests/nbgrader_glue/test_grading_outputs.py's.)"""

from __future__ import annotations

import nbformat
import pytest

from kit.nbgrader_glue.autograde_exporter import read_as_nbformat_does, written_as_nbformat_does
from tests.shared.course_copy import EXAMPLE

HANDED_IN = sorted(p for p in EXAMPLE.glob("*/attention/*.ipynb") if p.parts[-3] != "gus")  # gus's: not JSON


@pytest.mark.parametrize("path", HANDED_IN[::7], ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_a_notebook_is_written_as_nbformat_writes_it_and_read_back_as_nbformat_reads_it(path):
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    written = written_as_nbformat_does(nbformat.reads(text, as_version=4))  # changes the notebook it is given
    assert written == nbformat.writes(nb)
    assert read_as_nbformat_does(written, check=False) == nbformat.reads(written, as_version=4)


def test_a_notebook_that_cannot_be_read_fails_as_nbformat_fails_it():
    for text in ("{not json", "[]", '{"nbformat": 99, "nbformat_minor": 0, "cells": []}'):
        with pytest.raises(Exception) as theirs:
            nbformat.reads(text, as_version=4)
        with pytest.raises(type(theirs.value)):
            read_as_nbformat_does(text, check=False)
