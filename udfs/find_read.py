"""Texts and needles in the form the Aho-Corasick search of udfs/find.py compares them in.

find.py's contract is the regular expression `(?<!\\w)tok1\\s+tok2…(?!\\w)`, case-insensitive
(its oracle: find._alternation). An automaton compares strings exactly, so both sides are first
written in a *search form*:

- each character case-folded as `re.IGNORECASE` compares it (the simple lower case, and the
  few characters re equates beyond it: "ſ" and "s", "ı" and "i", "ς" and "σ"; _FOLD);
- each run of white space (str.isspace, as \\s and str.split read it) written as one space;
- a marker (\\x03) at every boundary between a word character and another, and before a first
  and after a last word character, so that a needle that begins (ends) with a word character
  can only match where a word begins (ends): the automaton never reports the "an" inside "band".

A search form keeps an offset map back to the original text. Whether a match's neighbours are
word characters is then checked on the original (find.py), which makes the rule exact for
needles that begin or end with a non-word character too.
"""
from __future__ import annotations

import _sre
import re
from re._casefix import _EXTRA_CASES

import numpy as np


MARK = 3
_BOUNDARY = re.compile(r"\b")


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _flags(codes: np.ndarray, ascii_table: np.ndarray, test) -> np.ndarray:
    """ascii_table[code] for ASCII code points, test(chr(code)) for the others (each distinct
    code point tested once)."""
    out = np.zeros(len(codes), dtype=bool)
    low = codes < 128
    out[low] = ascii_table[codes[low]]
    if not low.all():
        high = codes[~low]
        distinct, inverse = np.unique(high, return_inverse=True)
        out[~low] = np.fromiter((test(chr(c)) for c in distinct), dtype=bool, count=len(distinct))[inverse]
    return out


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _fold_code(code: int) -> int:
    """The character re.IGNORECASE takes `code` for: one of its class (its simple lower case and
    _EXTRA_CASES' equivalents), a word character where the class holds one. (The class of "ι"
    holds U+0345, a combining mark and no word character: the only class that mixes the two,
    which is why a text holding U+0345 is searched by the regular expression, see LONE_MARK.)"""
    lower = _sre.unicode_tolower(code)
    members = (lower, *_EXTRA_CASES.get(lower, ()))
    words = [m for m in members if _is_word(chr(m))]
    return min(words or members)


class _Fold(dict):
    """str.translate's table: each code point to its folded one, computed when first met."""

    def __missing__(self, code: int) -> int:
        self[code] = folded = _fold_code(code)
        return folded


_FOLD = _Fold()
LONE_MARK = 0x345

_ASCII_FOLD = np.array([ord(chr(c).lower()) for c in range(128)], dtype=np.uint32)
_ASCII_WORD = np.array([_is_word(chr(c)) for c in range(128)])
_ASCII_SPACE = np.array([chr(c).isspace() for c in range(128)])


# Characters a text is searched by the regular expression for: the marker itself (a glue
# character, which a needle may hold) and the one character whose fold is a word character while
# it is not one (see _fold_code). A needle that holds the marker is left out of the automaton:
# only such texts can hold it.
APART = "\x03\u0345"


def needle_form(needle: str) -> tuple[str, str | None] | None:
    """A needle's (norm form, search form): folded and single-spaced, then with markers (None for
    a needle holding the marker); None for a needle without a character other than white space."""
    tokens = needle.translate(_FOLD).split()
    if not tokens:
        return None
    form = " ".join(tokens)
    return form, None if "\x03" in form else _BOUNDARY.sub("\x03", form)


def _fold(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Folded code points and whether each is a word character (of the folded one, which is the
    original's but for U+0345)."""
    out = np.empty(len(codes), dtype=np.uint32)
    low = codes < 128
    out[low] = _ASCII_FOLD[codes[low]]
    if not low.all():
        high = codes[~low]
        distinct, inverse = np.unique(high, return_inverse=True)
        out[~low] = np.fromiter((_FOLD[int(c)] for c in distinct), dtype=np.uint32, count=len(distinct))[inverse]
    return out, _flags(out, _ASCII_WORD, _is_word)


def special_chars(codes: np.ndarray) -> np.ndarray:
    """Where a character's str.lower is not its fold (not one character, another one, or
    context-dependent as "Σ" is): there a match's norm, taken from the text's lower case, may
    differ from the needle's norm form."""
    def special(c: str) -> bool:
        lower = c.lower()
        return c == "\u03a3" or len(lower) != 1 or ord(lower) != _FOLD[ord(c)]
    return _flags(codes, np.zeros(128, dtype=bool), special)


class SearchForm:
    """The search form of a string (several texts joined by a newline): `text` (str), and for each
    of its characters the offset of the original character it stands for (-1 for a marker);
    `word`: whether each original character is a word character."""

    def __init__(self, original: str):
        codes = _codes(original)
        self.codes = codes
        self.word = _flags(codes, _ASCII_WORD, _is_word)
        folded, word = _fold(codes)
        space = _flags(codes, _ASCII_SPACE, str.isspace)
        # a run of white space is its first character, as a space
        keep = np.ones(len(codes), dtype=bool)
        keep[1:] = ~(space[1:] & space[:-1])
        at = np.flatnonzero(keep)
        kept = np.where(space, 32, folded)[at]
        kept_word = word[at]
        # markers before each character where word-ness changes, and after the last if a word
        edges = np.ones(len(at) + 1, dtype=bool)
        edges[1:-1] = kept_word[1:] != kept_word[:-1]
        if len(at):
            edges[0], edges[-1] = kept_word[0], kept_word[-1]
        else:
            edges[0] = False
        marks = np.flatnonzero(edges)
        self.text = np.insert(kept, marks, MARK).astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
        self.origin = np.insert(at, marks, -1)
