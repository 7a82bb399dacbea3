"""Texts and needles in the form the Aho-Corasick search of udfs/find.py compares them in.

find.py's contract is the regular expression `(?<!\\w)tok1\\s+tok2…(?!\\w)`, case-insensitive
(its oracle: find_needles.alternation). An automaton compares strings exactly, so both sides are first
written in a *search form*:

- each character case-folded as `re.IGNORECASE` compares it (the simple lower case, and the
  few characters re equates beyond it: "ſ" and "s", "ı" and "i", "ς" and "σ"; _FOLD);
- each run of white space (str.isspace, as \\s and str.split read it) written as one space.

A text's search form keeps an offset map back to the text, and whether a match's neighbours are
word characters is checked on the original text (find.py). The automaton also reports matches
inside words (the "an" of "band"), which that check drops: on the blog texts a third more
matches than whole words alone, far cheaper than marking word boundaries in the search form.

ReadTexts joins the texts of one search (a slice of a UDF's rows) into one search form.
"""
from __future__ import annotations

import _sre
import re
from re._casefix import _EXTRA_CASES

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .glue import GLUE_RE2


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _flags(codes: np.ndarray, ascii_table: np.ndarray, test) -> np.ndarray:
    """ascii_table[code] for ASCII code points, test(chr(code)) for the others (each distinct
    code point tested once)."""
    # (one gather over the codes capped at 128, not a mask, a gather and a scatter: half the time)
    high = np.flatnonzero(codes >= 128)
    if not len(high):
        return ascii_table[codes]
    out = np.append(ascii_table[:128], False)[np.minimum(codes, 128)]
    distinct, inverse = np.unique(codes[high], return_inverse=True)
    out[high] = np.fromiter((test(chr(c)) for c in distinct), dtype=bool, count=len(distinct))[inverse]
    return out


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _fold_code(code: int) -> int:
    """The character re.IGNORECASE takes `code` for: the least of its class (its simple lower case
    and _EXTRA_CASES' equivalents)."""
    lower = _sre.unicode_tolower(code)
    return min((lower, *_EXTRA_CASES.get(lower, ())))


class _Fold(dict):
    """str.translate's table: each code point to its folded one, computed when first met."""

    def __missing__(self, code: int) -> int:
        self[code] = folded = _fold_code(code)
        return folded


_FOLD = _Fold()

_ASCII_FOLD = np.array([ord(chr(c).lower()) for c in range(128)] + [0], dtype=np.uint32)
_ASCII_WORD = np.array([_is_word(chr(c)) for c in range(128)] + [False])
_ASCII_SPACE = np.array([chr(c).isspace() for c in range(128)] + [False])
# ASCII lowered and its white space as spaces, by bytes.translate (every byte mapped in C)
_LOWER_SPACE = bytes(32 if chr(c).isspace() else ord(chr(c).lower()) for c in range(128)) + bytes(range(128, 256))
_RUNS = re.compile(b"  +")
# the white space of ASCII (str.isspace) for RE2
ASCII_SPACE_RE2 = "[\t-\r\x1c-\x20]+"


def needle_form(needle: str) -> str | None:
    """A needle's search form: folded and single-spaced; None for a needle without a character
    other than white space."""
    tokens = needle.translate(_FOLD).split()
    return " ".join(tokens) if tokens else None


def _char(code: int) -> tuple[int, bool, bool, bool]:
    """A code point beyond ASCII: its fold, whether it is a word character, white space, and
    whether its str.lower is not its fold (not one character, another one, or context-dependent
    as "Σ" is): there a match's norm, taken from the text's lower case, may differ from the
    needle's search form."""
    c = chr(code)
    folded = _FOLD[code]
    lower = c.lower()
    return folded, _is_word(c), c.isspace(), c == "\u03a3" or len(lower) != 1 or ord(lower) != folded


class SearchForm:
    """The search form of a string (several texts joined by a newline) as UTF-8 `data` for the
    automaton; `original(offsets)` maps offsets in data back to the string, `word(offsets)` tells
    whether the string's characters there are word characters; `special`: the offsets of the
    characters whose lower case is not their fold (_char)."""

    def __init__(self, original: str):
        self.length = len(original)
        if original.isascii():
            raw = original.encode("ascii")
            self._word = None
            self._raw = np.frombuffer(raw, dtype=np.uint8)
            self.special = np.zeros(0, dtype=np.int64)
            folded = raw.translate(_LOWER_SPACE)
            # runs of spaces (start, end), each read as its first
            runs = np.array([m.span() for m in _RUNS.finditer(folded)], dtype=np.int64).reshape(-1, 2)
            self.data = _RUNS.sub(b" ", folded) if len(runs) else folded
            self._chars = None
        else:
            codes = _codes(original)
            capped = np.minimum(codes, 128)
            folded = _ASCII_FOLD[capped]
            self._word = _ASCII_WORD[capped]
            space = _ASCII_SPACE[capped]
            high = np.flatnonzero(capped == 128)
            distinct, inverse = np.unique(codes[high], return_inverse=True)
            fold, word, white, special = (np.array(v) for v in zip(*map(_char, distinct.tolist())))
            folded[high] = fold[inverse]
            self._word[high] = word[inverse]
            space[high] = white[inverse]
            self.special = high[special[inverse]]
            folded[space] = 32
            repeated = np.flatnonzero(space[1:] & space[:-1]) + 1
            starts = repeated[np.flatnonzero(np.diff(repeated, prepend=-2) != 1)] if len(repeated) else repeated
            ends = np.append(repeated[np.flatnonzero(np.diff(repeated) != 1)], repeated[-1:]) + 1
            runs = np.stack((starts - 1, ends), axis=1) if len(repeated) else np.zeros((0, 2), dtype=np.int64)
            kept = np.delete(folded, repeated) if len(repeated) else folded
            self.data = kept.tobytes().decode("utf-32-le", "surrogatepass").encode("utf-8")
            # the first byte of each character of data
            width = 1 + (kept >= 0x80) + (kept >= 0x800) + (kept >= 0x10000)
            self._chars = np.concatenate(([0], np.cumsum(width)))
        # offsets in the collapsed string: each run's space there, and the characters dropped up
        # to and with it
        dropped = runs[:, 1] - runs[:, 0] - 1
        self._run_at = runs[:, 0] - (np.cumsum(dropped) - dropped)
        self._shift = np.concatenate(([0], np.cumsum(dropped)))

    def original(self, offsets: np.ndarray) -> np.ndarray:
        """Offsets in data (at characters' first bytes, or at its end) as offsets in the string."""
        if self._chars is not None:
            offsets = np.searchsorted(self._chars, offsets)
        return offsets + self._shift[np.searchsorted(self._run_at, offsets, side="left")]

    def word(self, offsets: np.ndarray) -> np.ndarray:
        """Whether the string's characters at offsets (all within it) are word characters."""
        if self._word is None:
            return _ASCII_WORD[self._raw[offsets]]
        return self._word[offsets]


def _glued(texts: pa.Array) -> np.ndarray:
    """Which texts hold glue characters, tested by RE2 at once."""
    return pc.fill_null(pc.match_substring_regex(texts, GLUE_RE2), False).to_numpy(zero_copy_only=False)


class ReadTexts:
    """The texts of a slice read for searching: those wanted, joined by newlines into one search
    form (fast, text fast[i] from starts[i] in the joined original); the others that are wanted
    (apart: with glue characters, which find._glue_aware reads as recognition does) are searched one
    by one."""

    def __init__(self, texts: pa.Array, wanted: np.ndarray, glue_apart: bool = True):
        self.texts = texts
        apart = np.zeros(len(texts), dtype=bool)
        if glue_apart:
            apart |= _glued(texts)
        self.apart = np.flatnonzero(wanted & apart)
        self.fast = np.flatnonzero(wanted & ~apart)
        chosen = texts.take(pa.array(self.fast)).to_pylist() if len(self.fast) else []
        self._join(chosen, np.fromiter(map(len, chosen), dtype=np.int64, count=len(chosen)))

    def _join(self, pieces: list[str], lengths: np.ndarray) -> None:
        """joined: the pieces, each one text or a run of texts already joined by newlines, joined
        by newlines; `lengths`: those of the texts, in order."""
        self.starts = np.concatenate(([0], np.cumsum(lengths + 1)))[:-1]
        self.ends = self.starts + lengths
        self.joined = "\n".join(pieces)
        self.any = len(lengths) > 0

    def part(self, runs: list[tuple[int, int]]) -> ReadTexts:
        """The texts of the runs fast[lo:hi] read on their own, cut from this reading's joined
        string (text i of the part is the i-th of the runs' texts): taken from the Arrow array
        and joined again, each of the 18,000 runs of one person's texts of the corpus shape's leak
        check cost 0.1 ms more."""
        part = object.__new__(ReadTexts)
        part.texts = None
        part.apart = np.zeros(0, dtype=np.int64)
        # (`at`: the part's texts' places in this reading's fast)
        part.at = at = np.concatenate([np.arange(lo, hi) for lo, hi in runs]) if len(runs) > 1 else np.arange(*runs[0])
        part.fast = np.arange(len(at), dtype=np.int64)
        part._join([self.joined[int(self.starts[lo]):int(self.ends[hi - 1])] for lo, hi in runs],
                   self.ends[at] - self.starts[at])
        return part

    # (made when first read: where each group's texts are searched with the group's own automaton,
    # find._search reads them in a form of their own, and this one of all of them was made for nothing)
    @functools.cached_property
    def form(self) -> SearchForm | None:
        return SearchForm(self.joined) if self.any else None

    @functools.cached_property
    def plain(self) -> np.ndarray:
        return np.bincount(np.searchsorted(self.starts, self.form.special, side="right") - 1,
                           minlength=len(self.fast)) == 0
