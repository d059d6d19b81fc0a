"""What a copy keeps that its statements do not tell: its comments and where its blank lines fall.

    traces(source, lines) → {statement: marks}   lines: statement → the lines it was written on (similarity.Answer)
    evidence(first, second, holding, writers, others, smoothing) → nats

The statements of an answer leave out comments and layout (normalise.py), so that rewriting them hides
nothing. But a copier who renames, reorders or moves code into a helper often leaves them as they were,
and two students writing alike by chance rarely also comment the same line in the same words, or leave a
blank line after the same statement. So each comment (its words, case and spacing aside) and each blank
line is a mark on the statement it follows or is written on, and a pair sharing marks is the more
unusual: for each shared mark, −log of the share of the others who wrote that statement and marked it so
(smoothed as chance.py smooths). A mark one of the two has and the other has not costs nothing: a copier
rewrites comments freely, and honest answers differ in them anyway. Marks of the given code (the stub's
"# YOUR CODE HERE") are no evidence and are left out by the caller.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import tokenize

Marks = dict[int, int]  # a mark → the statement it is on


def _key(*parts: object) -> int:
    text = "\x1f".join(map(str, parts)).encode(errors="surrogatepass")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def traces(source: str, lines: dict[int, frozenset[int]]) -> Marks:
    """The comments and blank lines of `source`, each as a mark on the statement written on its line, or
    else the last statement before it."""
    on, last = {}, []
    for statement, written in lines.items():
        for line in written:
            on.setdefault(line, statement)
        if written:
            last.append((max(written), statement))
    last.sort()

    def statement_at(line: int) -> int:
        if line in on:
            return on[line]
        before = [s for end, s in last if end < line]
        return before[-1] if before else 0

    marks: Marks = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                words = " ".join(re.findall(r"\w+", tok.string.lower()))
                if words:
                    at = statement_at(tok.start[0])
                    marks[_key("#", words, at)] = at
            elif tok.type == tokenize.NL and not tok.line.strip():
                at = statement_at(tok.start[0])
                marks[_key("", at)] = at
    except (tokenize.TokenError, IndentationError, SyntaxError, RecursionError, MemoryError):
        pass  # what came before the error still counts
    return marks


def evidence(first: Marks, second: Marks, holding: dict, writers: dict, others: int, smoothing: float) -> float:
    """Nats for the marks `first` and `second` share: for each, −log of the share of the others who wrote
    its statement and marked it so. holding: mark → students, writers: statement → students, one bit each."""
    total = 0.0
    for mark, statement in first.items():
        if second.get(mark) == statement:
            held = (holding.get(mark, 0) & others).bit_count()
            wrote = (writers[statement] & others).bit_count() if statement in writers else others.bit_count()
            total -= math.log((held + smoothing) / (max(wrote, held) + 1))
    return total
