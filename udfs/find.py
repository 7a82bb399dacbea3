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


_WORD_RUN = re.compile(r"[a-z0-9_]+")


@functools.lru_cache(maxsize=65536)
def _prepared(needles: tuple[str, ...]):
    """The needles in the alternation's order (longest first, then by name), indexed by their
    first run of word characters: (index, needles without a word character). An entry is
    (rank, needle, its case-folded single-spaced form, single token?, offset of the run)."""
    order = sorted({n for n in needles if n.strip()}, key=lambda n: (-len(n), n))
    index: dict[str, list] = {}
    rest = []
    for rank, needle in enumerate(order):
        tokens = needle.lower().split()
        joined = " ".join(tokens)
        m = _WORD_RUN.search(tokens[0])
        if m is None:
            rest.append((rank, needle, joined, len(tokens) == 1, 0))
        else:
            index.setdefault(m.group(0), []).append((rank, needle, joined, len(tokens) == 1, m.start()))
    return index, tuple(rest)


def _find_ascii(text: str, needles) -> list[tuple[int, int, str]]:
    """find_all for an ASCII text and ASCII needles, without one big alternation per needle set
    (whose cost grows with the needles). A match's first run of word characters is a whole run of
    the text (the match is bounded by non-word characters and the needle fixes the characters
    around the run), so the text's runs are looked up among the needles' first runs and each
    candidate is checked where it would start. The regular expression's choice is then replayed:
    leftmost match first, and at one position the needle that comes first in the alternation."""
    index, rest = _prepared(tuple(needles))
    lowered = text.lower()
    n_text = len(text)
    hits: dict[int, tuple[int, int]] = {}        # start -> (rank of the needle, end)

    def consider(rank, s, e):
        if (s > 0 and text[s - 1] in _ASCII_WORD) or (e < n_text and text[e] in _ASCII_WORD):
            return
        if s not in hits or hits[s][0] > rank:
            hits[s] = (rank, e)

    if index:
        for run in _WORD_RUN.finditer(lowered):
            for rank, needle, joined, single, offset in index.get(run.group(0), ()):
                s = run.start() - offset
                if s < 0:
                    continue
                if single:
                    if lowered.startswith(joined, s):
                        consider(rank, s, s + len(joined))
                else:
                    m = _one(needle).match(text, s)
                    if m is not None:
                        consider(rank, s, m.end())
    for rank, needle, joined, single, _ in rest:
        if single:
            i = lowered.find(joined)
            while i >= 0:
                consider(rank, i, i + len(joined))
                i = lowered.find(joined, i + 1)
        else:
            pat, i = _one(needle), 0
            while (m := pat.search(text, i)) is not None:
                consider(rank, m.start(), m.end())
                i = m.start() + 1
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
