"""What NER reads of a text (`ner.py`), and in which batches: a long text in pieces, without
the stretches that hold no entity but cost the model time and memory."""
from __future__ import annotations

import functools
import re

from rxanon_sql.common_words import FREQUENT_ZIPF, common_words

# spaCy refuses a text longer than nlp.max_length (1,000,000 characters) and its memory grows
# with the length of a doc, so a long text goes through NER in pieces cut at a line break or a
# space; the rule recognizers still see it whole.
MAX_PIECE = 100_000
# spaCy's tokenizer takes a run without white space apart one prefix or suffix at a time, copying
# the rest of the run each time: its work grows with the square of the run (5,000 emoji: 2 s,
# 50,000: 207 s and 1.1 GB). A longer run than MAX_RUN is cut into pieces, after a character that
# is no letter or digit where the run has one, so that words stay whole.
MAX_RUN = 100
_LONG_RUN = re.compile(rf"\S{{{MAX_RUN + 1},}}")
# A stretch of MAX_RUN characters or more without a letter or digit (a flood of emoji,
# punctuation or line breaks) holds no entity, but costs NER a token for each character or two:
# NER does not read it.
_UNREAD = re.compile(rf"[\W_]{{{MAX_RUN},}}")


def _runs_cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """text[start:end] as (start, end) pairs, cut inside every run without white space longer
    than MAX_RUN."""
    out = []
    for m in _LONG_RUN.finditer(text, start, end):
        at, stop = m.span()
        while stop - at > MAX_RUN:
            cut = at + MAX_RUN
            cut = next((i + 1 for i in range(cut - 1, at + MAX_RUN // 2, -1) if not text[i].isalnum()), cut)
            out.append((start, cut))
            start = at = cut
    out.append((start, end))
    return out


# A stretch of IDLE_RUN characters or more made only of the language's most frequent words in
# lower case, with anything but a letter or digit between them ("a a a ...", "a,a,a,...", "i am in
# it and so is she"): what the model tags in it
# ("a" as a PERSON) is a false positive, no name, yet each word costs NER a token (1 MB of
# "a a a ...": 73 s). NER does not read it either. (Real text has a rarer word, a capital or a
# digit well within IDLE_RUN characters: of the blog sample's 13,276 texts, none has such a stretch.)
IDLE_RUN = 500
_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=8)
def frequent_words(lang: str) -> frozenset[str]:
    return frozenset(common_words(lang, FREQUENT_ZIPF))


def _idle_cut(text: str, start: int, end: int, frequent: frozenset[str]) -> list[tuple[int, int]]:
    """text[start:end] less its stretches of frequent lower-case words (see _WORD)."""
    if end - start < IDLE_RUN or not frequent:
        return [(start, end)]
    out, idle_from, last_end = [], None, start
    for m in _WORD.finditer(text, start, end):
        word = m.group()
        if not (word.isalpha() and word.islower() and word in frequent):
            if idle_from is not None and last_end - idle_from >= IDLE_RUN:
                out.append((start, idle_from))
                start = m.start()
            idle_from = None
        elif idle_from is None:
            idle_from = m.start()
        last_end = m.end()
    if idle_from is not None and last_end - idle_from >= IDLE_RUN:
        out.append((start, idle_from))
        start = end
    if start < end:
        out.append((start, end))
    return [(a, b) for a, b in out if a < b]


def text_pieces(text: str | None, limit: int | None = None, frequent: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """(offset, piece) pairs covering what NER reads of a text (the text less its `_UNREAD`
    stretches and its stretches of `frequent` words); none for an empty or missing one."""
    limit = limit or MAX_PIECE
    if not text:
        return []
    read, at = [], 0
    for m in _UNREAD.finditer(text):
        read += _idle_cut(text, at, m.start(), frequent)
        at = m.end()
    read += _idle_cut(text, at, len(text), frequent)
    stretches = [p for a, b in read for p in _runs_cut(text, a, b)]
    out = []
    for start, stop in stretches:
        while start < stop:
            end = min(start + limit, stop)
            if end < stop:
                cut = max(text.rfind("\n", start + limit // 2, end), text.rfind(" ", start + limit // 2, end))
                if cut > start:
                    end = cut + 1
            out.append((start, text[start:end]))
            start = end
    return out


# A letter or digit, or a character that repairing mis-decoded text can make one of ("×©×¨" is
# "שר": Latin-1, the C1 controls and cp1252's letters and punctuation).
_MAY_NAME = re.compile(r"[^\W_]|[\x80-\u024f\u02c6\u02dc\u2013-\u2122]")


def can_hold_entity(text: str) -> bool:
    """Whether NER could find a span in the text that `TextRecognizer.spans` keeps: a span without a
    letter or digit, even repaired (`says_nothing_here`), says nothing and is dropped, so a
    piece without any ("...", ":( :(", a run of emoji) is not read (the blog sample: 46 of
    13,420 pieces)."""
    return _MAY_NAME.search(text) is not None


def batches(texts: list[str], size: int) -> list[list[str]]:
    """texts in runs of at most `size` texts and, unless one text is longer, MAX_PIECE characters:
    spaCy's memory grows with the characters of a batch (five pieces of 100,000 characters of
    names at once: 1.4 GB; one after another: 0.3 GB)."""
    out, chars = [], 0
    for t in texts:
        if not out or chars + len(t) > MAX_PIECE or len(out[-1]) >= size:
            out.append([])
            chars = 0
        out[-1].append(t)
        chars += len(t)
    return out
