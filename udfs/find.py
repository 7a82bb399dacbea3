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


def find_all(text: str | None, needles) -> list[tuple[int, int, str]]:
    """Non-overlapping matches of the needles in text, as (start, end, needle)."""
    if not text or not needles:
        return []
    pat = _pattern(tuple(needles))
    if pat is None:
        return []
    # Map the matched surface back to its needle by the same normalisation the SQL uses for norm.
    return [(m.start(), m.end(), " ".join(m.group(0).lower().split())) for m in pat.finditer(text)]


def find_all_arrow(texts: pa.Array, needles: pa.Array) -> pa.Array:
    out = []
    for text, ns in zip(texts.to_pylist(), needles.to_pylist()):
        out.append([{"start_pos": s, "end_pos": e, "needle": n} for s, e, n in find_all(text, ns)])
    return pa.array(out, type=MATCH_ARROW_TYPE)
