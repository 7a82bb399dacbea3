"""Whole-word, case-insensitive search of known surfaces in a text, as an Arrow UDF.

Used to make every occurrence of a person's sensitive surface a term (so that a suppressed term
leaves no untagged copy behind), to find a tuple's own attribute values in its text, and by the
leak check of `verify`.

`rx_find(text, needles)` takes one text and its needles. `rx_find_texts(items, needles)` takes
a group of texts that share one needle set (a person's texts, as a list of `{id, text}`) and
returns the matches of all of them tagged with the text's id: the needle set then crosses into
Python, and is prepared, once per group instead of once per text (the blog corpus has hundreds
of surfaces per author and 35 posts per author).
"""
from __future__ import annotations

import functools
import re
from array import array
from itertools import accumulate
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .glue import GLUE_RE2, clean, has_glue

MATCH_SQL_TYPE = "STRUCT(start_pos INTEGER, end_pos INTEGER, needle VARCHAR)[]"
MATCH_ARROW_TYPE = pa.list_(pa.struct([("start_pos", pa.int32()), ("end_pos", pa.int32()), ("needle", pa.string())]))
ITEMS_SQL_TYPE = "STRUCT(id BIGINT, text VARCHAR)[]"
TEXT_MATCH_SQL_TYPE = "STRUCT(id BIGINT, start_pos INTEGER, end_pos INTEGER, needle VARCHAR)[]"
TEXT_MATCH_ARROW_TYPE = pa.list_(pa.struct([("id", pa.int64()), ("start_pos", pa.int32()), ("end_pos", pa.int32()),
                                            ("needle", pa.string())]))
# rx_find_texts_own: each text with needles of its own besides its group's (the number of a needle
# set); a match says whose
OWN_ITEMS_SQL_TYPE = "STRUCT(id BIGINT, text VARCHAR, own INTEGER)[]"
OWN_MATCH_SQL_TYPE = "STRUCT(id BIGINT, start_pos INTEGER, end_pos INTEGER, needle VARCHAR, own BOOLEAN)[]"
OWN_MATCH_ARROW_TYPE = pa.list_(pa.struct(list(TEXT_MATCH_ARROW_TYPE.value_type) + [("own", pa.bool_())]))


def _alternation(needles) -> re.Pattern | None:
    # Longest first, so that "new york city" wins over "new york" at the same position.
    parts = [r"\s+".join(map(re.escape, n.split())) for n in sorted(set(needles), key=lambda n: (-len(n), n)) if n.strip()]
    if not parts:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _pattern(needles: tuple[str, ...]) -> re.Pattern | None:
    return _alternation(needles)


_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@functools.lru_cache(maxsize=65536)
def _one(needle: str) -> re.Pattern:
    return re.compile(r"\s+".join(map(re.escape, needle.split())), re.IGNORECASE)


_WORD_RUN = re.compile(r"[a-z0-9_]+")


@functools.lru_cache(maxsize=65536)
def _starts(needle: str) -> re.Pattern:
    """_one at every position of a text in one scan: group 1 is what _one(needle).match(text, p)
    matches at each p where it matches."""
    return re.compile(r"(?=(" + r"\s+".join(map(re.escape, needle.split())) + "))", re.IGNORECASE)


@functools.lru_cache(maxsize=65536)
def _bounded(needle: str) -> re.Pattern:
    """One needle as the alternation would match it, whole words (Unicode), at any position."""
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, needle.split())) + r"(?!\w)", re.IGNORECASE)


def _prepare(needles) -> tuple[dict, tuple, frozenset]:
    """The needles in the alternation's order (longest first, then by name), indexed by their
    first run of word characters: (index, needles without a word character, the index's keys).
    An entry is (rank, needle, its case-folded single-spaced form, single token?, offset of the run)."""
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
    return index, tuple(rest), frozenset(index)


@functools.lru_cache(maxsize=1024)
def _prepared(needles: tuple[str, ...]):
    return _prepare(needles)


def _search_ascii(text: str, prepared) -> list[tuple[int, int, str]]:
    """find_all for an ASCII text and ASCII needles, without one big alternation per needle set
    (whose cost grows with the needles). A match's first run of word characters is a whole run of
    the text (the match is bounded by non-word characters and the needle fixes the characters
    around the run), so the needles whose first run is among the text's runs are the only
    candidates (a set intersection, in C), and each is checked where it would start. The regular
    expression's choice is then replayed: leftmost match first, and at one position the needle
    that comes first in the alternation."""
    index, rest, keys = prepared
    lowered = text.lower()
    n_text = len(text)
    hits: dict[int, tuple[int, int]] = {}        # start -> (rank of the needle, end)

    def consider(rank, s, e):
        if (s > 0 and text[s - 1] in _ASCII_WORD) or (e < n_text and text[e] in _ASCII_WORD):
            return
        if s not in hits or hits[s][0] > rank:
            hits[s] = (rank, e)

    if keys:
        for key in keys.intersection(_WORD_RUN.findall(lowered)):
            entries, width = index[key], len(key)
            p = lowered.find(key)
            while p >= 0:
                q = p + width
                # only where the key is a whole run of the text
                if (p == 0 or lowered[p - 1] not in _ASCII_WORD) and (q == n_text or lowered[q] not in _ASCII_WORD):
                    for rank, needle, joined, single, offset in entries:
                        s = p - offset
                        if s < 0:
                            continue
                        if single:
                            if lowered.startswith(joined, s):
                                consider(rank, s, s + len(joined))
                        else:
                            m = _one(needle).match(text, s)
                            if m is not None:
                                consider(rank, s, m.end())
                p = lowered.find(key, q)
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


def _find_ascii(text: str, needles) -> list[tuple[int, int, str]]:
    return _search_ascii(text, _prepared(tuple(needles)))


def _search_regex(text: str, pat: re.Pattern | None) -> list[tuple[int, int, str]]:
    if pat is None:
        return []
    # Map the matched surface back to its needle by the same normalisation the SQL uses for norm.
    return [(m.start(), m.end(), " ".join(m.group(0).lower().split())) for m in pat.finditer(text)]


def find_all(text: str | None, needles, glue: bool | None = None) -> list[tuple[int, int, str]]:
    """Non-overlapping matches of the needles in text, as (start, end, needle)."""
    if not text or not needles:
        return []
    return _glue_aware(text, lambda t: _find_all(t, needles), glue)


def _find_all(text: str, needles) -> list[tuple[int, int, str]]:
    if text.isascii() and all(n.isascii() for n in needles):
        return _find_ascii(text, needles)
    return _search_regex(text, _pattern(tuple(needles)))


def _glue_aware(text: str, search, glue: bool | None = None) -> list[tuple[int, int, str]]:
    """search(text), and for a text with glue characters (glue.py) also search of its two
    cleaned readings (glue as recognition reads it, and every run as a space), their matches
    mapped back to the text: "John\u200bSmith" and "Jo\u00adhn Smith" are "john smith".
    The text as written is searched as well, for a needle that holds the glue itself. Of
    overlapping matches the leftmost stays, at one start the longest. `glue`: whether the text
    holds glue, where the caller knows."""
    if not (has_glue(text) if glue is None else glue):
        return search(text)
    found = set(search(text))
    for reading in (clean(text), clean(text, spaces=True)):
        found.update((*reading.span(s, e), n) for s, e, n in search(reading.text))
    out, reach = [], 0
    for s, e, n in sorted(found, key=lambda m: (m[0], m[0] - m[1], m[2])):
        if s >= reach:
            out.append((s, e, n))
            reach = e
    return out


class Searcher:
    """All texts searched for one needle set: the set is prepared once, the alternation (for
    texts or needles beyond ASCII) only when first needed."""

    def __init__(self, needles):
        self.needles = tuple(n for n in needles if n is not None)
        self.ascii = all(n.isascii() for n in self.needles)
        self.prepared = _prepare(self.needles) if self.ascii else None
        self._pat = False

    def find(self, text: str | None, glue: bool | None = None) -> list[tuple[int, int, str]]:
        if not text or not self.needles:
            return []
        return _glue_aware(text, self._find, glue)

    def _find(self, text: str) -> list[tuple[int, int, str]]:
        if self.ascii and text.isascii():
            return _search_ascii(text, self.prepared)
        if self._pat is False:
            self._pat = _alternation(self.needles)
        return _search_regex(text, self._pat)


def _ints(values, typecode: str, arrow_type: pa.DataType) -> pa.Array:
    # From a buffer, not pa.array(list): pa.array checks for pandas objects, which imports pandas
    # (about 45 MB and half a second) into a run that has no other use for it.
    if isinstance(values, pa.Array):
        return values.cast(arrow_type)
    buf = np.ascontiguousarray(values, dtype=np.dtype(typecode)) if isinstance(values, np.ndarray) else array(typecode, values)
    return pa.Array.from_buffers(arrow_type, len(buf), [None, pa.py_buffer(buf)])


def _strings(values: list[str]) -> pa.Array:
    encoded = [v.encode() for v in values]
    offsets = array("i", accumulate(map(len, encoded), initial=0))
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def _list_of(offsets, columns: list[pa.Array], arrow_type: pa.DataType) -> pa.Array:
    # Built column by column (offsets and flat children): much cheaper than a list of dicts.
    values = pa.StructArray.from_arrays(columns, fields=list(arrow_type.value_type))
    return pa.ListArray.from_arrays(_ints(offsets, "i", pa.int32()), values, type=arrow_type)


def _matches_array(offsets, starts, ends, found: list[str]) -> pa.Array:
    return _list_of(offsets, [_ints(starts, "i", pa.int32()), _ints(ends, "i", pa.int32()), _strings(found)],
                    MATCH_ARROW_TYPE)


def _glued(texts: pa.Array) -> np.ndarray:
    """Which texts hold glue characters, tested by RE2 at once."""
    return pc.fill_null(pc.match_substring_regex(texts, GLUE_RE2), False).to_numpy(zero_copy_only=False)


def cut_arrow(texts: pa.Array, starts: pa.Array, ends: pa.Array) -> pa.Array:
    """rx_cut(text, starts, ends): the pieces text[start:end] of each text (offsets in characters
    from 0, cut as Python slices cut). DuckDB's substring of a text that a join or an unnest has
    carried to each of its spans copied the whole text once per span: a dense text of n
    characters with n / 17 spans took time and memory in n squared (2.6 GB at 200 KB). Here each
    text crosses into Python once, and each piece costs its own length."""
    offsets, pieces = [0], []
    for text, s, e in zip(texts.to_pylist(), starts.to_pylist(), ends.to_pylist()):
        if text is not None and s is not None and e is not None:
            pieces.extend(text[max(a or 0, 0):b or 0] for a, b in zip(s, e))
        offsets.append(len(pieces))
    return pa.ListArray.from_arrays(_ints(offsets, "i", pa.int32()), _strings(pieces))


def find_all_arrow(texts: pa.Array, needles: pa.Array) -> pa.Array:
    offsets, starts, ends, found = [0], [], [], []
    for text, ns, glue in zip(texts.to_pylist(), needles.to_pylist(), _glued(texts).tolist()):
        for s, e, n in find_all(text, ns, glue):
            starts.append(s)
            ends.append(e)
            found.append(n)
        offsets.append(len(starts))
    return _matches_array(offsets, starts, ends, found)


def search_arrow(texts: pa.Array, searcher: Searcher) -> pa.Array:
    """rx_find over texts with one fixed needle set."""
    offsets, starts, ends, found = [0], [], [], []
    for text, glue in zip(texts.to_pylist(), _glued(texts).tolist()):
        for s, e, n in searcher.find(text, glue):
            starts.append(s)
            ends.append(e)
            found.append(n)
        offsets.append(len(starts))
    return _matches_array(offsets, starts, ends, found)


_RUN = re.compile("[a-z0-9_\x01]+")


_NOT_INDEXED = (True, False, "", "", 0, "", False, False, False)
_BLANK = (False,) + _NOT_INDEXED[1:]


@functools.lru_cache(maxsize=1 << 14)
def _needle_info(needle: str) -> tuple:
    """How the index finds a needle: (searched?, indexed?, case-folded single-spaced form, its
    first run of word characters, the run's offset, the second run or "", several tokens?, the
    needle is its first run alone?, ASCII?). A blank needle is not searched; one with no word
    character in its first token, or a character that _asciify cannot stand for, is searched on
    its own. Beyond ASCII the runs are those of the needle's _asciify copy, so that they match
    the runs of a text's copy."""
    if not needle.strip():
        return _BLANK
    ascii_needle = needle.isascii()
    lowered = needle.lower()
    if "\x01" in needle or "\x02" in needle or len(lowered) != len(needle):
        return _NOT_INDEXED
    folded = lowered if ascii_needle else _asciify(lowered)
    if folded is None:
        return _NOT_INDEXED
    tokens = folded.split()
    joined = " ".join(tokens)
    m = _RUN.search(tokens[0])
    if m is None:
        return _NOT_INDEXED
    runs = _RUN.findall(joined)
    single = len(tokens) == 1
    return (True, True, " ".join(lowered.split()), m.group(0), m.start(), runs[1] if len(runs) > 1 else "", not single,
            ascii_needle and single and m.group(0) == joined, ascii_needle)


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


# Bytes of the lowered _asciify copies: word characters (the placeholder \x01 stands for one)
# and white space (which \s matches: str.isspace, as for str.split).
_WORD_BYTE = np.array([chr(c) in _ASCII_WORD or c == 1 for c in range(256)])
_SPACE_BYTE = np.array([chr(c).isspace() for c in range(256)])
# The same test for bytes.translate, which maps or deletes every byte in C: np.take through
# _WORD_BYTE widens each byte to an index first, and took half of _word_runs.
_WORD_TABLE = _WORD_BYTE.astype(np.uint8).tobytes()
_NOT_WORD = bytes(np.flatnonzero(~_WORD_BYTE).astype(np.uint8))

# An ASCII needle matches only ASCII characters of a text, except for these four, which Python's
# case-insensitive matching equates with i, i, s and k.
_FOLDS_TO_ASCII = frozenset("\u0130\u0131\u017f\u212a")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _placeholder(m: re.Match) -> str:
    c = m.group(0)
    return "\x01" if c.isalnum() else " " if c.isspace() else "\x02"


def _asciify(text: str) -> str | None:
    """The text with each non-ASCII character replaced by one that behaves alike for ASCII
    needles: a word character (\\x01, which no needle contains), white space, or another
    character (\\x02); None where a character folds to an ASCII letter."""
    if not _FOLDS_TO_ASCII.isdisjoint(text):
        return None
    return _NON_ASCII.sub(_placeholder, text)


def _word_runs(raw: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """Every run of word characters of the texts (raw, text i at bounds[i]:bounds[i + 1]) as its
    start in raw and its string: a view of raw's word characters alone, which the runs
    tile in order."""
    data = raw.tobytes()
    word = np.frombuffer(data.translate(_WORD_TABLE), dtype=bool)
    padded = np.zeros(len(raw) + 2, dtype=bool)
    padded[1:-1] = word
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    starts, ends = edges[0::2], edges[1::2]
    # a run that goes on into the next text is two runs
    inner = bounds[1:-1]
    cut = inner[word[inner - 1] & word[inner]]
    if len(cut):
        starts = np.insert(starts, np.searchsorted(starts, cut), cut)
        ends = np.insert(ends, np.searchsorted(ends, cut), cut)
    offsets = np.zeros(len(starts) + 1, dtype=np.int32)
    np.cumsum(ends - starts, out=offsets[1:])
    runs = pa.Array.from_buffers(pa.string(), len(starts), [None, pa.py_buffer(offsets), pa.py_buffer(data.translate(None, _NOT_WORD))])
    return starts, runs


def _equal_pairs(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with left[i] == right[j]."""
    # (a hash lookup: np.searchsorted of many values is about ten times slower)
    order = np.argsort(right, kind="stable")
    ordered = right[order]
    values = _distinct(ordered)
    first = np.searchsorted(ordered, values)
    count = np.diff(np.append(first, len(ordered)))
    at = pc.fill_null(pc.index_in(left, value_set=pa.array(values)), -1).to_numpy()
    i = np.flatnonzero(at >= 0)
    at = at[i]
    n = count[at]
    i = np.repeat(i, n)
    return i, order[np.repeat(first[at] - (np.cumsum(n) - n), n) + np.arange(len(i))]


def _distinct(values: np.ndarray) -> np.ndarray:
    # (np.unique hashes first: several times slower on 100,000 integers)
    values = np.sort(values)
    return values[np.flatnonzero(np.diff(values, prepend=values[:1] - 1))]


def _string_bytes(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A string array's offsets (int64, from its first string) and the bytes they point into."""
    _, offsets, data = strings.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int32)[strings.offset:strings.offset + len(strings) + 1]
    raw = np.frombuffer(data, dtype=np.uint8)[bounds[0]:bounds[-1]] if data is not None else np.zeros(0, dtype=np.uint8)
    return bounds.astype(np.int64) - bounds[0], raw


# Needles of printable ASCII and plain spaces (nearly all) are prepared by Arrow, in columns;
# _needle_info prepares the others. For such a needle, str.lower and str.split are ASCII lowering
# and splitting at spaces, and its word runs are those of _RUN.
_PLAIN = r"^[ -~]*$"
_FIRST_RUN = r"^(?P<before>[^ a-z0-9_]*)(?P<run>[a-z0-9_]+)"
_SECOND_RUN = r"^[^ a-z0-9_]*[a-z0-9_]+[^a-z0-9_]+(?P<run>[a-z0-9_]+)"


def _needle_columns(distinct: pa.Array) -> tuple:
    """_needle_info of each needle, as columns: (searched, indexed, forms, first runs, offsets,
    second runs, multi, simple, ascii); booleans and offsets as numpy, strings as Arrow."""
    joined = pc.replace_substring_regex(pc.utf8_trim(pc.ascii_lower(distinct), " "), " +", " ")
    first = pc.extract_regex(joined, _FIRST_RUN)
    indexed = pc.is_valid(first)
    empty = pa.scalar("", pa.string())
    run = pc.if_else(indexed, pc.struct_field(first, "run"), empty)
    offset = pc.if_else(indexed, pc.utf8_length(pc.struct_field(first, "before")), 0)
    second = pc.fill_null(pc.struct_field(pc.extract_regex(joined, _SECOND_RUN), "run"), empty)
    multi = pc.and_(indexed, pc.match_substring(joined, " "))
    columns = [pc.not_equal(joined, empty), indexed, pc.if_else(indexed, joined, empty), run, offset,
               pc.if_else(indexed, second, empty), multi, pc.and_(pc.and_not(indexed, multi), pc.equal(run, joined)),
               indexed]
    other = np.flatnonzero(~pc.match_substring_regex(distinct, _PLAIN).to_numpy(zero_copy_only=False))
    if len(other):
        mask = np.zeros(len(distinct), dtype=bool)
        mask[other] = True
        infos = list(zip(*map(_needle_info, distinct.take(pa.array(other)).to_pylist())))
        columns = [pc.replace_with_mask(c, pa.array(mask), pa.array(list(v), type=c.type))
                   for c, v in zip(columns, infos)]
    return tuple(c if c.type == pa.string() else c.to_numpy(zero_copy_only=False) for c in columns)


class _Needles:
    """The needles of all rows: each distinct needle prepared once, in columns by its index in
    distinct, and the distinct (row, needle) pairs to search, by row."""

    def __init__(self, needles: pa.Array):
        encoded = needles.flatten().dictionary_encode()
        self._distinct = encoded.dictionary
        n = len(encoded.dictionary)
        searched, self.indexed, self.forms, first_runs, self.offset, second_runs, self.multi, self.simple, \
            self.ascii = _needle_columns(encoded.dictionary)
        self.offset = self.offset.astype(np.int64)
        group = pc.list_parent_indices(needles).to_numpy().astype(np.int64)
        needle = pc.fill_null(encoded.indices, -1).to_numpy().astype(np.int64)
        keep = needle >= 0
        keep[keep] = searched[needle[keep]]
        pairs = _distinct(group[keep] * n + needle[keep])
        self.pair_group, self.pair_needle = pairs // max(n, 1), pairs % max(n, 1)
        # The place in the alternation: longest first, then by code points (the order of UTF-8
        # bytes, as Python sorts strings).
        self.rank = np.empty(n, dtype=np.int64)
        by = pa.table({"length": pc.negate(pc.utf8_length(encoded.dictionary)), "needle": encoded.dictionary})
        self.rank[pc.sort_indices(by, sort_keys=[("length", "ascending"), ("needle", "ascending")]).to_numpy()] = np.arange(n)
        self.form_start, self.form_bytes = _string_bytes(self.forms)
        self.form_len = np.diff(self.form_start)
        # the runs numbered ("" is no run: the second of a needle of one run, or of one not indexed)
        runs = pa.concat_arrays([first_runs, second_runs]).dictionary_encode()
        self.runs = runs.dictionary
        number = np.where(pc.equal(self.runs, "").to_numpy(zero_copy_only=False), -1, np.arange(len(self.runs)))
        self.first_run, self.second_run = np.split(number[runs.indices.to_numpy()].astype(np.int64), [n])

    @functools.cached_property
    def distinct(self) -> list[str]:
        """The needles as Python strings (for the few searched by regular expression)."""
        return self._distinct.to_pylist()

    def pairs(self, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """The pairs of rows first to stop, their rows counted from first."""
        lo, hi = np.searchsorted(self.pair_group, [first, stop])
        return self.pair_group[lo:hi] - first, self.pair_needle[lo:hi]


# Text (bytes) searched in one go, to bound the intermediates (columns per run of word
# characters of the texts): DuckDB hands a UDF 2,048 rows at once, 2,048 blog authors are about
# 17 MB of text, 2,048 generated ones 2.4 MB. On 15 MB of blog texts: +274 MB RSS in one go,
# +45 MB in slices of 1 MB, +42 MB in slices of 256 kB, which take 1.2 times as long (a slice
# costs a few ms besides its text).
SLICE_BYTES = 1 << 20

# A needle's candidates in one text are checked by one scan of the text where there is one for
# every SCAN_CHARS characters or fewer (_search): a scan takes 15 to 40 ns per character, a
# check at one candidate about 1.5 us with the loop around it.
SCAN_CHARS = 50


def find_texts_arrow(items: pa.Array, needles: pa.Array) -> pa.Array:
    """rx_find_texts: per row, a list of {id, text} and their needles; the matches of all the
    texts of the row, each with its text's id."""
    # (DuckDB takes every parameter of a UDF for an argument: no slice_bytes here)
    return find_texts_sliced(items, needles, SLICE_BYTES)


def find_texts_own(sets: pa.Array):
    """rx_find_texts_own over the needle sets `sets` (sets[i - 1] holds the needles of set i): as
    rx_find_texts, where each text also names a set of needles of its own ({id, text, own}, own
    a set's number, 0 or NULL for none), searched in the same pass over the texts; a match of a
    text's own needles has `own` set. The two searches are apart: a match of one never hides one
    of the other. (The sets are prepared once, not sent with every text: a list per text cost
    DuckDB more to group and to hand over than the search of its needles.)"""
    chunks = sets.chunks if isinstance(sets, pa.ChunkedArray) else [sets]
    sets = pa.concat_arrays([pa.array([[]], pa.list_(pa.string())), *(c.cast(pa.list_(pa.string())) for c in chunks)])
    own = (sets, _Needles(sets))

    def find_texts_own_arrow(items: pa.Array, needles: pa.Array) -> pa.Array:
        return find_texts_sliced(items, needles, SLICE_BYTES, own)
    return find_texts_own_arrow


def find_texts_sliced(items: pa.Array, needles: pa.Array, slice_bytes: int, own: tuple | None = None) -> pa.Array:
    """find_texts_arrow (find_texts_own: with own, the sets and their _Needles), the texts
    searched in slices of about slice_bytes, cut between texts (a row's texts may fall into
    several slices): a text's matches depend on the text and its needles only."""
    if isinstance(items, pa.ChunkedArray):
        items = items.combine_chunks()
    if isinstance(needles, pa.ChunkedArray):
        needles = needles.combine_chunks()
    structs = items.flatten()
    table = _Needles(needles)
    if own is not None:
        own_set = pc.fill_null(structs.field("own"), 0).to_numpy().astype(np.int64)
    sizes = pc.fill_null(pc.binary_length(structs.field("text")), 0).to_numpy().astype(np.int64)
    n_groups = len(items)
    group = pc.list_parent_indices(items).to_numpy()
    ends = np.cumsum(sizes)
    counts = np.zeros(n_groups, dtype=np.int64)
    parts = []
    lo = 0
    while lo < len(sizes):
        hi = max(int(np.searchsorted(ends, ends[lo] - sizes[lo] + slice_bytes, side="right")), lo + 1)
        g_lo, g_hi = int(group[lo]), int(group[hi - 1]) + 1
        text_group = group[lo:hi] - g_lo
        part = structs.slice(lo, hi - lo)
        # the searches: (each text's group, the needles per group from the first group on, their
        # _Needles, the first group); a text's group is its row, in the second its own set
        searches = [(text_group, needles.slice(g_lo, g_hi - g_lo), table, g_lo)]
        if own is not None:
            searches.append((own_set[lo:hi], *own, 0))
        found = _find_texts(part, text_group, searches)
        counts[g_lo:g_hi] += np.bincount(found[0], minlength=g_hi - g_lo)
        parts.append(found[1:] if own is not None else found[1:5])
        lo = hi
    arrow_type = TEXT_MATCH_ARROW_TYPE if own is None else OWN_MATCH_ARROW_TYPE
    if not parts:
        return pa.array([[]] * n_groups, type=arrow_type)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return _list_of(offsets, [pa.concat_arrays(c) for c in zip(*parts)], arrow_type)


def _find_texts(structs: pa.Array, group_of_text: np.ndarray, searches: list) -> tuple:
    """The matches in one slice of texts ({id, text}, text i of group group_of_text[i]), in the
    slice's text order and by position: (group, id, start, end, needle, own). A search is (its
    group of each text, the needles per group from its first group on, its _Needles, its first
    group); the texts are read once for all searches, and what each finds is resolved on its
    own (leftmost, then first in the alternation). The second search's matches are `own`."""
    text_ids, texts = structs.field("id"), structs.field("text").cast(pa.string())
    nonempty = pc.fill_null(pc.binary_length(texts), 0).to_numpy() > 0
    pairs = [_pairs(table, first, len(needles)) for _, needles, table, first in searches]
    wanted = np.zeros(len(texts), dtype=bool)
    for (text_group, _, _, _), p in zip(searches, pairs):
        wanted |= p.has_needles[text_group] & nonempty
    read = _ReadTexts(texts, wanted)
    run_ids = read.run_ids([table.runs.take(pa.array(p.keys)) for (_, _, table, _), p in zip(searches, pairs)]) \
        if len(read.fast_index) else [None] * len(searches)
    found = [_search(read, text_group, needles, table, p, run_id)
             for (text_group, needles, table, _), p, run_id in zip(searches, pairs, run_ids)]
    # Matches by text, in order, and by position (a start is less than its text's length in
    # bytes); at one position the first search's match first.
    text_of, start, end = (np.concatenate([f[i] for f in found]) for i in range(3))
    own = np.repeat(np.arange(len(found)) > 0, [len(f[0]) for f in found])
    order = np.lexsort((own, start, read.text_bounds[text_of]))
    norms = pa.concat_arrays([f[3] for f in found]).take(pa.array(order))
    text_of = text_of[order]
    return (group_of_text[text_of], text_ids.take(pa.array(text_of)), _ints(start[order], "i", pa.int32()),
            _ints(end[order], "i", pa.int32()), norms, pa.array(own[order]))


class _ReadTexts:
    """The texts of a slice read for searching. Every text and needle is read through _asciify
    (the same length, ASCII): the wanted texts it can stand for (fast_index) are lowered into
    one byte string (raw, text fast_index[i] at bounds[i]:bounds[i + 1]) and cut into runs of
    word characters; the few others (one_by_one) go through Searcher."""

    def __init__(self, texts: pa.Array, wanted: np.ndarray):
        self.texts = texts
        ascii_text = pc.fill_null(pc.string_is_ascii(texts), False).to_numpy(zero_copy_only=False)
        # (a text holding the word placeholder itself, or glue characters, which Searcher reads
        # as recognition does, is searched on its own; the other placeholder stands for what it
        # is, a character that is neither a word nor a space character)
        self.text_bounds, text_bytes = _string_bytes(texts)
        placeholders = _glued(texts).copy()
        placeholders[np.searchsorted(self.text_bounds, np.flatnonzero(text_bytes == 1), side="right") - 1] = True
        self.one_by_one = wanted & placeholders
        fast_ascii = np.flatnonzero(wanted & ~placeholders & ascii_text)
        asciified, asciified_index = [], []
        for j in np.flatnonzero(wanted & ~placeholders & ~ascii_text).tolist():
            converted = _asciify(texts[j].as_py())
            if converted is None:
                self.one_by_one[j] = True
            else:
                asciified.append(converted)
                asciified_index.append(j)
        self.fast_index = np.concatenate((fast_ascii, np.array(asciified_index, dtype=np.int64))).astype(np.int64)
        if not len(self.fast_index):
            return
        if not asciified and len(fast_ascii) == len(texts):
            # (every text, in order: the common case, without two copies of the texts)
            lowered = pc.ascii_lower(texts)
        else:
            lowered = pc.ascii_lower(pa.concat_arrays([texts.take(pa.array(fast_ascii)), _strings(asciified)]))
        self.bounds, self.raw = _string_bytes(lowered)
        self.run_start, self.run_strings = _word_runs(self.raw, self.bounds)
        self.run_row = np.repeat(np.arange(len(self.bounds) - 1), np.diff(np.searchsorted(self.run_start, self.bounds)))

    def run_ids(self, key_sets: list[pa.Array]) -> list[np.ndarray]:
        """Per set of keys (strings), each run's index among them, or -1: one hash lookup of the
        runs for all sets."""
        union = pa.concat_arrays(key_sets).unique() if len(key_sets) > 1 else key_sets[0]
        at = pc.fill_null(pc.index_in(self.run_strings, value_set=union), -1).to_numpy()
        if len(key_sets) == 1:
            return [at]
        out = []
        for keys in key_sets:
            local = np.append(pc.fill_null(pc.index_in(union, value_set=keys), -1).to_numpy(), -1)
            out.append(local[at])
        return out


class _Pairs(NamedTuple):
    """The (group, needle) pairs of a slice's groups (groups counted from the slice's first),
    whether each group has a needle, which pairs are indexed, the indexed pairs' needles, the runs
    (numbers in table.runs) those needles are found by (first_run; second_run, or -1 for a needle
    of one run), and those runs distinct and sorted (keys)."""
    group: np.ndarray
    needle: np.ndarray
    has_needles: np.ndarray
    indexed: np.ndarray
    indexed_needle: np.ndarray
    first_run: np.ndarray
    second_run: np.ndarray
    keys: np.ndarray


def _pairs(table: "_Needles", first: int, n_groups: int) -> _Pairs:
    group, needle = table.pairs(first, first + n_groups)
    indexed = table.indexed[needle]
    p_needle = needle[indexed]
    p_first, p_second = table.first_run[p_needle], table.second_run[p_needle]
    return _Pairs(group, needle, np.bincount(group, minlength=n_groups) > 0, indexed, p_needle, p_first, p_second,
                  _distinct(np.concatenate((p_first, p_second[p_second >= 0]))))


def _search(read: _ReadTexts, group_of_text: np.ndarray, needles: pa.Array, table: "_Needles", pairs: _Pairs,
            run_id) -> tuple:
    """One search over read's texts: each text's matches of its group's needles (pairs), as
    (text, start, end, needle's norm); run_id: each run's number among pairs.keys, or None where
    no text is read column-wise.

    Column-wise: the texts' runs of word characters are paired with the needles' first run, or
    first two runs, a candidate whose ASCII needle is not one run alone is compared byte by byte
    with the lowered text (the regular expression on the original text decides only where white
    space other than one space may stand for a space of the needle, or where the needle is
    beyond ASCII), the needles _asciify cannot stand for are searched one by one, and the regular
    expression's choice (at one position the first needle in the alternation, then leftmost
    non-overlapping) is replayed by sorting."""
    pair_group, pair_needle, has_needles, pair_indexed, keys = pairs.group, pairs.needle, pairs.has_needles, \
        pairs.indexed, pairs.keys
    texts = read.texts
    none = np.zeros(0, dtype=np.int64)
    # Matches as (text, start, end, norm): the norm indexes table.forms (the needle's folded
    # form, where the text holds exactly that form), or, from len(table.forms) on, text_norms
    # (taken from the text).
    out_text, out_start, out_end, out_norm = [none], [none], [none], [none]
    text_norms: list[str] = []
    n_distinct = len(table.forms)
    if run_id is not None:
        fast_index, bounds, raw = read.fast_index, read.bounds, read.raw
        # A needle of one run is found by that run, one of several by its first two (whatever
        # stands between them in a match holds no word character, so they are consecutive runs).
        # The needles' runs are numbered among those of the slice's needles.
        fast_groups = group_of_text[fast_index]
        p_needle, p_first, p_second = pairs.indexed_needle, pairs.first_run, pairs.second_run
        two = p_second >= 0
        n_keys = max(len(keys), 1)
        p_code = pair_group[pair_indexed] * n_keys + np.searchsorted(keys, p_first)
        p_second = np.searchsorted(keys, p_second[two])
        run_start, run_row = read.run_start, read.run_row
        known = np.flatnonzero(run_id >= 0)
        known_row = run_row[known]
        following = np.minimum(known + 1, len(run_id) - 1)
        next_id = np.where((following > known) & (run_row[following] == known_row), run_id[following], -1)
        r_code = fast_groups[known_row] * n_keys + run_id[known]
        i1, j1 = _equal_pairs(r_code, p_code[~two])
        has_next = np.flatnonzero(next_id >= 0)
        i2, j2 = _equal_pairs(r_code[has_next] * n_keys + next_id[has_next], p_code[two] * n_keys + p_second)
        c_known = np.concatenate((i1, has_next[i2]))
        c_needle = np.concatenate((p_needle[~two][j1], p_needle[two][j2]))
        c_row = known_row[c_known]
        c_start = run_start[known[c_known]] - table.offset[c_needle]          # in raw
        c_end = c_start + table.form_len[c_needle]
        c_begin, c_stop = bounds[c_row], bounds[c_row + 1]

        # A needle that is one run matches wherever that run stands, as a whole word.
        simple = table.simple[c_needle]
        h_row, h_start, h_end, h_needle = [c_row[simple]], [c_start[simple]], [c_end[simple]], [c_needle[simple]]
        # Another ASCII needle: its folded form, compared with the lowered text at once for all
        # candidates; then a word character on neither side.
        ascii_needle = table.ascii[c_needle]
        check = np.flatnonzero(~simple & ascii_needle & (c_start >= c_begin) & (c_end <= c_stop))
        verify = [np.flatnonzero(~ascii_needle)]
        if len(check):
            length = table.form_len[c_needle[check]]
            first = np.cumsum(length) - length
            within = np.arange(int(length.sum())) - np.repeat(first, length)
            seen = raw[np.repeat(c_start[check], length) + within]
            differ = seen != table.form_bytes[np.repeat(table.form_start[c_needle[check]], length) + within]
            # where the first difference is white space in the text, \s+ may stand for more than
            # one space of the needle: the regular expression decides
            differing = np.flatnonzero(differ)
            segment = np.searchsorted(first, differing, side="right") - 1
            at = np.flatnonzero(np.diff(segment, prepend=-1))
            segment = segment[at]
            verify.append(check[segment[_SPACE_BYTE[seen[differing[at]]] & table.multi[c_needle[check[segment]]]]])
            matched = np.delete(check, segment)
            s, e = c_start[matched], c_end[matched]
            bounded = ~((s > c_begin[matched]) & _WORD_BYTE[raw[np.maximum(s - 1, 0)]]) & \
                ~((e < c_stop[matched]) & _WORD_BYTE[raw[np.minimum(e, len(raw) - 1)]])
            matched = matched[bounded]
            h_row.append(c_row[matched])
            h_start.append(c_start[matched])
            h_end.append(c_end[matched])
            h_needle.append(c_needle[matched])

        # The rest on the original text, with the regular expression: candidates of needles
        # beyond ASCII or with white space to decide, and the needles outside the index (every
        # start where one matches, in every text of the group).
        verify = np.concatenate(verify)
        extras: dict[int, list] = {}
        for g, n in zip(pair_group[~pair_indexed].tolist(), pair_needle[~pair_indexed].tolist()):
            extras.setdefault(g, []).append((_bounded(table.distinct[n]), n))
        extra_rows = np.flatnonzero(np.isin(fast_groups, list(extras))) if extras else none
        wanted = _distinct(np.concatenate((c_row[verify], extra_rows)))
        originals = dict(zip(wanted.tolist(), texts.take(pa.array(fast_index[wanted])).to_pylist()))
        o_row, o_start, o_end, o_needle = [], [], [], []

        def found(row, s, e, n):
            o_row.append(row)
            o_start.append(s)
            o_end.append(e)
            o_needle.append(n)
            text_norms.append(" ".join(originals[row][s:e].lower().split()))

        def verified(row, start, e, n):
            text = originals[row]
            if not ((start > 0 and _is_word(text[start - 1])) or (e < len(text) and _is_word(text[e]))):
                found(row, start, e, n)

        # A needle with candidates all over a text is matched at all of them by one scan of the
        # text (a letter beyond ASCII alone, in a long text beyond ASCII: on 300 real blog
        # authors, whose texts hold mojibake, 656,028 candidates and 9,651 matches), the others
        # one by one.
        v_row, v_start, v_needle = c_row[verify], c_start[verify] - c_begin[verify], c_needle[verify]
        kept = v_start >= 0
        v_row, v_start, v_needle = v_row[kept], v_start[kept], v_needle[kept]
        nd = max(n_distinct, 1)
        pair = v_row * nd + v_needle
        distinct_pairs, inverse, counts = np.unique(pair, return_inverse=True, return_counts=True)
        scanned = counts * SCAN_CHARS >= np.diff(bounds)[distinct_pairs // nd]
        many = scanned[inverse]
        for row, start, n in zip(v_row[~many].tolist(), v_start[~many].tolist(), v_needle[~many].tolist()):
            m = _one(table.distinct[n]).match(originals[row], start)
            if m is not None:
                verified(row, start, m.end(), n)
        if many.any():
            # every place a scanned needle matches, keyed by (pair, start), and the candidates
            # looked up among them
            stride = int(bounds[-1]) + 1
            s_key, s_end = [], []
            for code in distinct_pairs[scanned].tolist():
                row, n = divmod(code, nd)
                for m in _starts(table.distinct[n]).finditer(originals[row]):
                    s_key.append(code * stride + m.start())
                    s_end.append(m.end(1))
            i, j = _equal_pairs(pair[many] * stride + v_start[many], np.array(s_key, dtype=np.int64))
            for row, start, e, n in zip(v_row[many][i].tolist(), v_start[many][i].tolist(), np.array(s_end)[j].tolist(),
                                        v_needle[many][i].tolist()):
                verified(row, start, e, n)
        for row in extra_rows.tolist():
            text = originals[row]
            for pat, n in extras[int(fast_groups[row])]:
                i = 0
                while (m := pat.search(text, i)) is not None:
                    found(row, m.start(), m.end(), n)
                    i = m.start() + 1
        o_row = np.array(o_row, dtype=np.int64)
        h_row.append(o_row)
        h_start.append(np.array(o_start, dtype=np.int64) + bounds[o_row])
        h_end.append(np.array(o_end, dtype=np.int64) + bounds[o_row])
        h_norm = h_needle + [np.arange(len(o_row)) + n_distinct]
        h_needle.append(np.array(o_needle, dtype=np.int64))
        row, start, end, needle, norm = (np.concatenate(x).astype(np.int64) for x in (h_row, h_start, h_end, h_needle, h_norm))

        # At one start the needle that comes first in the alternation (starts are positions
        # in raw, unique across texts).
        order = np.argsort(start * max(n_distinct, 1) + table.rank[needle])
        row, start, end, norm = row[order], start[order], end[order], norm[order]
        first = np.ones(len(row), dtype=bool)
        first[1:] = start[1:] != start[:-1]
        row, start, end, norm = row[first], start[first], end[first], norm[first]
        # Leftmost first: a match that starts inside the previous kept one is dropped. A match
        # that starts after the end of all before it is kept; the matches after it that do not
        # are resolved one at a time.
        inside = np.zeros(len(row), dtype=bool)
        inside[1:] = start[1:] < np.maximum.accumulate(end)[:-1]
        keep = np.ones(len(row), dtype=bool)
        if inside.any():
            heads = np.zeros(len(row), dtype=bool)
            heads[:-1] = inside[1:] & ~inside[:-1]
            for i in np.flatnonzero(inside | heads).tolist():
                if not inside[i] or start[i] >= reach:
                    reach = end[i]
                else:
                    keep[i] = False
        row = row[keep]
        out_text.append(fast_index[row])
        out_start.append(start[keep] - bounds[row])
        out_end.append(end[keep] - bounds[row])
        out_norm.append(norm[keep])

    slow_index = [j for j in np.flatnonzero(read.one_by_one).tolist() if has_needles[group_of_text[j]]]
    if slow_index:
        searchers: dict[int, Searcher] = {}
        s_text, s_start, s_end = [], [], []
        for j in slow_index:
            g = int(group_of_text[j])
            if g not in searchers:
                searchers[g] = Searcher(needles[g].as_py())
            for s_, e_, n_ in searchers[g].find(texts[j].as_py()):
                s_text.append(j)
                s_start.append(s_)
                s_end.append(e_)
                text_norms.append(n_)
        out_text.append(np.array(s_text, dtype=np.int64))
        out_start.append(np.array(s_start, dtype=np.int64))
        out_end.append(np.array(s_end, dtype=np.int64))
        out_norm.append(np.arange(len(text_norms) - len(s_text), len(text_norms), dtype=np.int64) + n_distinct)

    text_of, start, end, norm = (np.concatenate(x).astype(np.int64) for x in (out_text, out_start, out_end, out_norm))
    norms = (pa.concat_arrays([table.forms, _strings(text_norms)]) if text_norms else table.forms).take(pa.array(norm))
    return text_of, start, end, norms
