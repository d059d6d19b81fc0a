"""Winnowed fingerprints of a token list (Schleimer, Wilkerson and Aiken's winnowing, as MOSS does it).

    fingerprints(tokens) → {hash: (first line, last line)}

Every run of K consecutive tokens (a k-gram) is hashed; of every W consecutive
hashes the smallest is kept (the rightmost, on a tie). So any shared run of at
least K + W − 1 tokens shares a fingerprint, and a shared run shorter than K
shares none. Hashes are stable across processes and runs (CRC-32 of each token,
then Python's hash of the tuple of those integers, which is not salted), so
fingerprints made in worker processes can be compared. The lines are those of
the k-gram's first and last token in the code as written.
"""

from __future__ import annotations

import zlib

from kit.report.normalise import Token

K = 10  # tokens in a k-gram: about one statement (`s = q @ k.T` is eight)
W = 6   # hashes in a window: a shared run of K + W − 1 = 15 tokens is always found

Fingerprints = dict[int, tuple[int, int]]


def fingerprints(tokens: list[Token], k: int = K, w: int = W) -> Fingerprints:
    codes = [zlib.crc32(text.encode()) for text, _ in tokens]
    lines = [line for _, line in tokens]
    hashes = [hash(tuple(codes[i:i + k])) for i in range(len(codes) - k + 1)]
    if not hashes:
        return {}
    chosen: set[int] = set()
    smallest = -1  # where the current window's rightmost smallest hash is
    for end in range(min(w, len(hashes)) - 1, len(hashes)):
        start = max(0, end - w + 1)
        if smallest < start:  # it left the window: look again
            smallest = start
            for i in range(start + 1, end + 1):
                if hashes[i] <= hashes[smallest]:
                    smallest = i
        elif hashes[end] <= hashes[smallest]:
            smallest = end
        chosen.add(smallest)
    found: Fingerprints = {}
    for i in sorted(chosen):
        span = lines[i:i + k]
        found.setdefault(hashes[i], (min(span), max(span)))
    return found
