"""rx_repaired(text): mis-decoded text read as what it says.

UTF-8 text that was decoded as cp1252 or Latin-1 writes "I’m" as "Iâ€™m" or "Iâ\\x80\\x99m"; the
word pattern of the SQL files cuts that into "Iâ" and "m", and a piece such as "Iâ" looked like
a name ("Iâ" of a PERSON "Iâ€™m Princeton" became a name needle, 624 replacements on the blog
sample). corpus_needles.sql reads the terms through this function: a term that says only the
language's most frequent words once repaired names no one, and a word of a term that is not a
word of its repaired form is no name part. The repair is ftfy's (`fix_text`); ASCII text is
returned as it is. The stored text is never changed.
"""
from __future__ import annotations

import pyarrow as pa
from ftfy import fix_text


def repaired(text: str | None) -> str | None:
    if text is None or text.isascii():
        return text
    return fix_text(text)


def repaired_arrow(texts: pa.Array) -> pa.Array:
    return pa.array([repaired(t) for t in texts.to_pylist()], pa.string())
