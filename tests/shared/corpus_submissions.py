"""Corpus files of student code (tests/shared/corpus/*/*.py) as submission folders.

A corpus file defines some exercise functions; its submission is the solved
instructor notebooks with those functions' answer cells replaced, by the one
splicer the adversarial fixtures use too (tests/shared/adversarial/build.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.shared.adversarial.build import SOLVED, cells_of, make_submission, splice

__all__ = ["CORPUS", "SOLVED", "cells_of", "make_submission", "mistake_name", "splice"]

CORPUS = Path(__file__).resolve().parent / "corpus"


def mistake_name(corpus_file: Path) -> str:
    """The mistake a corpus file makes, from its docstring 'Mistake: <name>.'"""
    doc = ast.get_docstring(ast.parse(corpus_file.read_text())) or ""
    return doc.removeprefix("Mistake: ").rstrip(".")
