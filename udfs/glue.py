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

# (generated from unicodedata 14.0, Python 3.11: Cf, and Cc without str.isspace)
GLUE_CLASS = ("\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e"
              "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
              "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
GLUE_RUN = re.compile(f"[{GLUE_CLASS}]+")


def is_glue(ch: str) -> bool:
    return GLUE_RUN.match(ch) is not None


def glue_runs(text: str) -> list[tuple[int, int, bool]]:
    """Each run of glue characters of the text as (start, end, stands for a space?)."""
    out = []
    for m in GLUE_RUN.finditer(text):
        a, b = m.span()
        out.append((a, b, a > 0 and b < len(text) and text[a - 1].isalpha() and text[b].isupper()))
    return out


class Cleaned(NamedTuple):
    """A text as recognition reads it, and for each of its characters the original characters
    it comes from (starts[i]:ends[i]); starts is None where the text is the original."""
    text: str
    starts: list[int] | None = None
    ends: list[int] | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters of the cleaned text's start:end (end > start)."""
        if self.starts is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


def clean(text: str) -> Cleaned:
    """The text without its glue characters, in NFC (see the module)."""
    runs = glue_runs(text)
    if not runs and (text.isascii() or unicodedata.is_normalized("NFC", text)):
        return Cleaned(text)
    chars, starts, ends = [], [], []
    pos = 0
    for a, b, space in [*runs, (len(text), len(text), False)]:
        chars.extend(text[pos:a])
        starts.extend(range(pos, a))
        ends.extend(range(pos + 1, a + 1))
        if space:
            chars.append(" ")
            starts.append(a)
            ends.append(b)
        pos = b
    cleaned = "".join(chars)
    if not unicodedata.is_normalized("NFC", cleaned):
        cleaned, starts, ends = _nfc(cleaned, starts, ends)
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
