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


def _find_ascii(text: str, needles) -> list[tuple[int, int, str]]:
    """find_all for an ASCII text, without one big alternation per needle set (whose compiling and
    scanning cost grows with the needles): each needle that occurs in the text is located with a
    substring search, and the regular expression's choice is replayed: leftmost match first, and
    at one position the needle that comes first in the alternation (longest, then by name)."""
    lowered = text.lower()
    folded = " ".join(lowered.split())
    order = sorted({n for n in needles if n.strip()}, key=lambda n: (-len(n), n))
    hits: dict[int, tuple[int, int]] = {}        # start -> (rank of the needle, end)
    n_text = len(text)
    for rank, needle in enumerate(order):
        if not needle.isascii():
            continue                              # cannot match ASCII text under case folding... almost; see find_all
        tokens = needle.lower().split()
        if " ".join(tokens) not in folded:
            continue
        if len(tokens) == 1:
            token = tokens[0]
            starts = []
            i = lowered.find(token)
            while i >= 0:
                starts.append((i, i + len(token)))
                i = lowered.find(token, i + 1)
        else:
            pat, starts, i = _one(needle), [], 0
            while (m := pat.search(text, i)) is not None:
                starts.append((m.start(), m.end()))
                i = m.start() + 1
        for s, e in starts:
            if (s > 0 and text[s - 1] in _ASCII_WORD) or (e < n_text and text[e] in _ASCII_WORD):
                continue
            if s not in hits or hits[s][0] > rank:
                hits[s] = (rank, e)
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
