"""Glue characters: the invisible characters a hostile text hides a name with ("Met
John\\u200bSmith", "We saw Mary\\x00Jones", "Jo\\u00adhn"). They are the format characters
(Unicode Cf: zero-width spaces and joiners, the soft hyphen, the byte order mark, bidi controls)
and the control characters that are not white space (Cc but tab, line breaks and the other
characters Python's str.isspace takes for white space, which spaCy and the rules already read as
white space). Around them the model and the rules see a word they do not know and tag nothing.

Recognition and the corpus-wide term search therefore read a *cleaned* text: each run of glue
characters is dropped, except between a letter and an upper-case letter, where it most likely
stood for a space ("John\\u200bSmith" -> "John Smith"; "Jo\\u200bhn" -> "John"); then the text is
put in Unicode NFC. What they find is mapped back to the original text, so a span covers the
original characters, the glue inside it included.
"""
from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

import numpy as np

# (generated from unicodedata 14.0, Python 3.11: Cf, and Cc without str.isspace)
_RANGES = ((0x00, 0x08), (0x0E, 0x1B), (0x7F, 0x84), (0x86, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
           (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F),
           (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
           (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
           (0xE0001, 0xE0001), (0xE0020, 0xE007F))
GLUE_RUN = re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _RANGES) + "]+")
# The same class for RE2 (DuckDB, Arrow): a vectorized test of many texts at once, far cheaper
# per character than Python's re.
GLUE_RE2 = "[" + "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in _RANGES) + "]"
# The glue characters of ASCII, and the other bytes (deleted by bytes.translate, which tells an
# ASCII text holds none in C).
_ASCII_GLUE = bytes(c for a, b in _RANGES for c in range(a, b + 1) if c < 128)
_NOT_ASCII_GLUE = bytes(c for c in range(256) if c not in _ASCII_GLUE)


def is_glue(ch: str) -> bool:
    return GLUE_RUN.match(ch) is not None


def has_glue(text: str) -> bool:
    if text.isascii():
        return bool(text.encode().translate(None, _NOT_ASCII_GLUE))
    return GLUE_RUN.search(text) is not None


def glue_runs(text: str, spaces: bool = False) -> list[tuple[int, int, bool]]:
    """Each run of glue characters of the text as (start, end, stands for a space?); `spaces`:
    every run stands for one."""
    out = []
    for m in GLUE_RUN.finditer(text):
        a, b = m.span()
        out.append((a, b, spaces or (a > 0 and b < len(text) and text[a - 1].isalpha() and text[b].isupper())))
    return out


class Cleaned(NamedTuple):
    """A text as recognition reads it, and for each of its characters the original characters
    it comes from (starts[i]:ends[i]); starts is None where the text is the original."""
    text: str
    starts: np.ndarray | None = None
    ends: np.ndarray | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters of the cleaned text's start:end (end > start)."""
        if self.starts is None:
            return start, end
        return int(self.starts[start]), int(self.ends[end - 1])


def clean(text: str, spaces: bool = False) -> Cleaned:
    """The text without its glue characters, in NFC (see the module); `spaces`: each run of glue
    read as a space."""
    if text.isascii() and not has_glue(text):
        return Cleaned(text)
    runs = glue_runs(text, spaces)
    if not runs and unicodedata.is_normalized("NFC", text):
        return Cleaned(text)
    # (the origins as arrays, not lists of a Python int per character: the leak check reads the
    # blog sample's 604 glued texts, 1.7 million characters, twice cleaned at once, and the lists
    # held about 160 MB and took seconds to fill)
    keep = np.ones(len(text), dtype=bool)
    parts, pos = [], 0
    room = np.zeros(len(runs), dtype=bool)
    for i, (a, b, space) in enumerate(runs):
        parts.append(text[pos:a])
        keep[a + space:b] = False
        if space:
            parts.append(" ")
            room[i] = True
        pos = b
    parts.append(text[pos:])
    cleaned = "".join(parts)
    starts = np.flatnonzero(keep)
    ends = starts + 1
    if room.any():
        # (a run read as a space keeps its first character's place, and spans the whole run)
        at = np.array([a for a, _, _ in runs], dtype=np.int64)[room]
        ends[np.searchsorted(starts, at)] = np.array([b for _, b, _ in runs], dtype=np.int64)[room]
    if not unicodedata.is_normalized("NFC", cleaned):
        cleaned, o_starts, o_ends = _nfc(cleaned, starts.tolist(), ends.tolist())
        starts, ends = np.array(o_starts, dtype=np.int64), np.array(o_ends, dtype=np.int64)
    return Cleaned(cleaned, starts, ends)


def _nfc(text: str, starts: list[int], ends: list[int]) -> tuple[str, list[int], list[int]]:
    """NFC of the text, with the origins carried along: the text is cut where composing the
    parts apart gives what composing them together does, and each character of a part's NFC
    comes from all of the part (a composed "é" from both "e" and U+0301)."""
    out, o_starts, o_ends = [], [], []
    first = 0

    def flush(stop: int) -> None:
        part = unicodedata.normalize("NFC", text[first:stop])
        out.append(part)
        o_starts.extend([starts[first]] * len(part))
        o_ends.extend([ends[stop - 1]] * len(part))

    for i in range(1, len(text)):
        c = text[i]
        if unicodedata.combining(c) == 0:
            part = text[first:i]
            if unicodedata.normalize("NFC", part + c) == unicodedata.normalize("NFC", part) + unicodedata.normalize("NFC", c):
                flush(i)
                first = i
    if text:
        flush(len(text))
    return "".join(out), o_starts, o_ends
