"""Whole-word, case-insensitive search of known surfaces in a text, as an Arrow UDF.

Used to make every occurrence of a person's sensitive surface a term (so that a suppressed term
leaves no untagged copy behind), to find a tuple's own attribute values in its text, and by the
leak check of `verify`.
"""
from __future__ import annotations

import functools
import re

import pyarrow as pa

MATCH_SQL_TYPE = "STRUCT(start_pos INTEGER, end_pos INTEGER, needle VARCHAR)[]"
MATCH_ARROW_TYPE = pa.list_(pa.struct([("start_pos", pa.int32()), ("end_pos", pa.int32()), ("needle", pa.string())]))


@functools.lru_cache(maxsize=4096)
def _pattern(needles: tuple[str, ...]) -> re.Pattern | None:
    # Longest first, so that "new york city" wins over "new york" at the same position.
    parts = [r"\s+".join(map(re.escape, n.split())) for n in sorted(set(needles), key=lambda n: (-len(n), n)) if n.strip()]
    if not parts:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@functools.lru_cache(maxsize=65536)
def _one(needle: str) -> re.Pattern:
    return re.compile(r"\s+".join(map(re.escape, needle.split())), re.IGNORECASE)


@functools.lru_cache(maxsize=16384)
def _prepared(needles: tuple[str, ...]) -> tuple[tuple[int, str, str, bool], ...]:
    """The needles in the alternation's order (longest first, then by name), each with its
    rank, its case-folded single-spaced form and whether it is a single token."""
    order = sorted({n for n in needles if n.strip()}, key=lambda n: (-len(n), n))
    out = []
    for rank, needle in enumerate(order):
        tokens = needle.lower().split()
        out.append((rank, needle, " ".join(tokens), len(tokens) == 1))
    return tuple(out)


def _find_ascii(text: str, needles) -> list[tuple[int, int, str]]:
    """find_all for an ASCII text and ASCII needles, without one big alternation per needle set
    (whose compiling and scanning cost grows with the needles): each needle that occurs in the
    text is located with a substring search, and the regular expression's choice is replayed:
    leftmost match first, and at one position the needle that comes first in the alternation."""
    lowered = text.lower()
    folded = None
    hits: dict[int, tuple[int, int]] = {}        # start -> (rank of the needle, end)
    n_text = len(text)
    for rank, needle, joined, single in _prepared(tuple(needles)):
        if single:
            i = lowered.find(joined)
            if i < 0:
                continue
            spans = []
            while i >= 0:
                spans.append((i, i + len(joined)))
                i = lowered.find(joined, i + 1)
        else:
            if folded is None:
                folded = " ".join(lowered.split())
            if joined not in folded:
                continue
            pat, spans, i = _one(needle), [], 0
            while (m := pat.search(text, i)) is not None:
                spans.append((m.start(), m.end()))
                i = m.start() + 1
        for s, e in spans:
            if (s > 0 and text[s - 1] in _ASCII_WORD) or (e < n_text and text[e] in _ASCII_WORD):
                continue
            if s not in hits or hits[s][0] > rank:
                hits[s] = (rank, e)
    if not hits:
        return []
    out, pos = [], 0
    for s in sorted(hits):
        if s >= pos:
            e = hits[s][1]
            out.append((s, e, " ".join(text[s:e].lower().split())))
            pos = e
    return out


def find_all(text: str | None, needles) -> list[tuple[int, int, str]]:
    """Non-overlapping matches of the needles in text, as (start, end, needle)."""
    if not text or not needles:
        return []
    if text.isascii() and all(n.isascii() for n in needles):
        return _find_ascii(text, needles)
    pat = _pattern(tuple(needles))
    if pat is None:
        return []
    # Map the matched surface back to its needle by the same normalisation the SQL uses for norm.
    return [(m.start(), m.end(), " ".join(m.group(0).lower().split())) for m in pat.finditer(text)]


def find_all_arrow(texts: pa.Array, needles: pa.Array) -> pa.Array:
    # Built column by column (offsets and flat children): much cheaper than a list of dicts.
    offsets, starts, ends, found = [0], [], [], []
    for text, ns in zip(texts.to_pylist(), needles.to_pylist()):
        for s, e, n in find_all(text, ns):
            starts.append(s)
            ends.append(e)
            found.append(n)
        offsets.append(len(starts))
    values = pa.StructArray.from_arrays(
        [pa.array(starts, pa.int32()), pa.array(ends, pa.int32()), pa.array(found, pa.string())],
        fields=list(MATCH_ARROW_TYPE.value_type))
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values, type=MATCH_ARROW_TYPE)
