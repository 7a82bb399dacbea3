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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

MATCH_SQL_TYPE = "STRUCT(start_pos INTEGER, end_pos INTEGER, needle VARCHAR)[]"
MATCH_ARROW_TYPE = pa.list_(pa.struct([("start_pos", pa.int32()), ("end_pos", pa.int32()), ("needle", pa.string())]))
ITEMS_SQL_TYPE = "STRUCT(id BIGINT, text VARCHAR)[]"
TEXT_MATCH_SQL_TYPE = "STRUCT(id BIGINT, start_pos INTEGER, end_pos INTEGER, needle VARCHAR)[]"
TEXT_MATCH_ARROW_TYPE = pa.list_(pa.struct([("id", pa.int64()), ("start_pos", pa.int32()), ("end_pos", pa.int32()),
                                            ("needle", pa.string())]))


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


def find_all(text: str | None, needles) -> list[tuple[int, int, str]]:
    """Non-overlapping matches of the needles in text, as (start, end, needle)."""
    if not text or not needles:
        return []
    if text.isascii() and all(n.isascii() for n in needles):
        return _find_ascii(text, needles)
    return _search_regex(text, _pattern(tuple(needles)))


class Searcher:
    """All texts searched for one needle set: the set is prepared once, the alternation (for
    texts or needles beyond ASCII) only when first needed."""

    def __init__(self, needles):
        self.needles = tuple(n for n in needles if n is not None)
        self.ascii = all(n.isascii() for n in self.needles)
        self.prepared = _prepare(self.needles) if self.ascii else None
        self._pat = False

    def find(self, text: str | None) -> list[tuple[int, int, str]]:
        if not text or not self.needles:
            return []
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


def _matches_array(offsets, starts, ends, found, ids=None) -> pa.Array:
    # Built column by column (offsets and flat children): much cheaper than a list of dicts.
    arrow_type = MATCH_ARROW_TYPE if ids is None else TEXT_MATCH_ARROW_TYPE
    columns = [_ints(starts, "i", pa.int32()), _ints(ends, "i", pa.int32()), _strings(found)]
    if ids is not None:
        columns.insert(0, _ints(ids, "q", pa.int64()))
    values = pa.StructArray.from_arrays(columns, fields=list(arrow_type.value_type))
    return pa.ListArray.from_arrays(_ints(offsets, "i", pa.int32()), values, type=arrow_type)


def find_all_arrow(texts: pa.Array, needles: pa.Array) -> pa.Array:
    offsets, starts, ends, found = [0], [], [], []
    for text, ns in zip(texts.to_pylist(), needles.to_pylist()):
        for s, e, n in find_all(text, ns):
            starts.append(s)
            ends.append(e)
            found.append(n)
        offsets.append(len(starts))
    return _matches_array(offsets, starts, ends, found)


def search_arrow(texts: pa.Array, searcher: Searcher) -> pa.Array:
    """rx_find over texts with one fixed needle set."""
    offsets, starts, ends, found = [0], [], [], []
    for text in texts.to_pylist():
        for s, e, n in searcher.find(text):
            starts.append(s)
            ends.append(e)
            found.append(n)
        offsets.append(len(starts))
    return _matches_array(offsets, starts, ends, found)


_RUN = re.compile("[a-z0-9_\x01]+")


def _needle_info(needle: str, cache: dict):
    """How the index finds a needle: (case-folded single-spaced form, its first run of word
    characters, the run's offset, single token?, the needle is that run alone?, the second run
    or None, ASCII?), or None for a needle searched on its own (no word character in its first
    token, or a character that _asciify cannot stand for). Beyond ASCII the runs are those of
    the needle's _asciify copy, so that they match the runs of a text's copy."""
    if needle in cache:
        return cache[needle]
    info = None
    ascii_needle = needle.isascii()
    lowered = needle.lower()
    if "\x01" not in needle and "\x02" not in needle and len(lowered) == len(needle):
        folded = lowered if ascii_needle else _asciify(lowered)
        if folded is not None:
            tokens = folded.split()
            joined = " ".join(tokens)
            m = _RUN.match(tokens[0], _RUN.search(tokens[0]).start()) if _RUN.search(tokens[0]) else None
            if m is not None:
                runs = _RUN.findall(joined)
                single = len(tokens) == 1
                info = (" ".join(lowered.split()), m.group(0), m.start(), single,
                        ascii_needle and single and m.group(0) == joined, runs[1] if len(runs) > 1 else None,
                        ascii_needle)
    cache[needle] = info
    return info


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _texts_table(items: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array]:
    """The texts of all groups, flat: (group index, text id, text)."""
    structs = items.flatten()
    ids, texts = structs.flatten()
    return pc.list_parent_indices(items), ids, texts


_NON_WORD_TO_NUL = np.array([c if chr(c) in _ASCII_WORD or c == 1 else 0 for c in range(256)], dtype=np.uint8)

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


def _runs(texts: pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Every run of word characters of the (ASCII, non-null) texts as (row, offset, run, the next
    run of the text), column
    by column: every non-word byte becomes NUL and the texts are cut at each NUL, so that a piece
    starts one character after the end of the previous one."""
    lowered = pc.ascii_lower(texts)
    _, offsets, data = lowered.buffers()
    n = len(lowered)
    first = lowered.offset
    bounds = np.frombuffer(offsets, dtype=np.int32)[first:first + n + 1]
    raw = np.frombuffer(data, dtype=np.uint8)
    cut = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(np.ascontiguousarray(bounds - bounds[0])),
                                                 pa.py_buffer(_NON_WORD_TO_NUL[raw[bounds[0]:bounds[-1]]])])
    pieces = pc.split_pattern(cut, "\x00")
    flat = pieces.flatten()
    rows = pc.list_parent_indices(pieces).to_numpy()
    step = pc.binary_length(flat).to_numpy().astype(np.int64) + 1
    begin = np.cumsum(step) - step
    starts_of_text = begin[pieces.offsets.to_numpy()[:-1]]
    start = begin - starts_of_text[rows]
    keep = step > 1
    rows, start, runs = rows[keep], start[keep], flat.filter(pa.array(keep))
    # the run after each run in the same text (NULL after the last)
    same = np.zeros(len(rows), dtype=bool)
    same[:-1] = rows[1:] == rows[:-1]
    following = pc.if_else(pa.array(same), runs.take(pa.array(np.minimum(np.arange(1, len(rows) + 1), max(len(rows) - 1, 0)))), None) \
        if len(rows) else runs
    return rows, start, runs, following


# Text (bytes) searched in one go. The column-wise search holds about 40 times its text in
# intermediates (every word a row, with its next word, in a join), and DuckDB hands a UDF 2,048
# rows at once: 2,048 blog authors are about 17 MB of text, 2,048 generated ones 2.4 MB (+97 MB
# RSS in one go, +34 MB in slices of 256 kB, and no slower).
SLICE_BYTES = 256 << 10


def find_texts_arrow(items: pa.Array, needles: pa.Array) -> pa.Array:
    """rx_find_texts: per row, a list of {id, text} and their needles; the matches of all the
    texts of the row, each with its text's id."""
    # (DuckDB takes every parameter of a UDF for an argument: no slice_bytes here)
    return find_texts_sliced(items, needles, SLICE_BYTES)


def find_texts_sliced(items: pa.Array, needles: pa.Array, slice_bytes: int) -> pa.Array:
    """find_texts_arrow, the texts searched in slices of about slice_bytes, cut between texts (a
    row's texts may fall into several slices): a text's matches depend on the text and its row's
    needles only."""
    if isinstance(items, pa.ChunkedArray):
        items = items.combine_chunks()
    if isinstance(needles, pa.ChunkedArray):
        needles = needles.combine_chunks()
    structs = items.flatten()
    sizes = pc.fill_null(pc.binary_length(structs.field("text")), 0).to_numpy().astype(np.int64)
    if sizes.sum() <= slice_bytes:
        return _find_texts(items, needles)
    n_groups = len(items)
    group = pc.list_parent_indices(items).to_numpy()
    group_start = np.searchsorted(group, np.arange(n_groups + 1))    # each row's first text
    ends = np.cumsum(sizes)
    counts = np.zeros(n_groups, dtype=np.int64)
    values = []
    lo = 0
    while lo < len(sizes):
        hi = max(int(np.searchsorted(ends, ends[lo] - sizes[lo] + slice_bytes, side="right")), lo + 1)
        g_lo, g_hi = int(group[lo]), int(group[hi - 1]) + 1
        offsets = np.clip(group_start[g_lo:g_hi + 1], lo, hi) - lo
        part = pa.ListArray.from_arrays(_ints(offsets, "i", pa.int32()), structs.slice(lo, hi - lo))
        found = _find_texts(part, needles.slice(g_lo, g_hi - g_lo))
        counts[g_lo:g_hi] += pc.list_value_length(found).to_numpy()
        values.append(found.flatten())
        lo = hi
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return pa.ListArray.from_arrays(_ints(offsets, "i", pa.int32()), pa.concat_arrays(values), type=TEXT_MATCH_ARROW_TYPE)


def _find_texts(items: pa.Array, needles: pa.Array) -> pa.Array:
    """find_texts_arrow on one slice.

    Column-wise: every text and needle is read through _asciify (the same length, ASCII), the
    texts' runs of word characters are joined with the needles' first run, or first two runs
    (pyarrow), a candidate whose needle is not one ASCII run alone is checked against the original
    text in Python, the needles _asciify cannot stand for are searched one by one, and the
    regular expression's choice (at one position the first needle in the alternation, then
    leftmost non-overlapping) is replayed by sorting. The few texts _asciify cannot stand for go
    through Searcher."""
    n_groups = len(items)
    valid = items.is_valid().to_pylist()
    needle_lists = needles.to_pylist()
    text_group, text_ids, texts = _texts_table(items)

    # Each needle set: the needles indexed by their first run of word characters, and the
    # others, each searched on its own in every text of the group.
    cache: dict = {}
    infos: list[tuple] = []                 # needle, joined, offset, single, simple, ASCII?
    key_group, key_run, key_next, key_ref = [], [], [], []
    extras: dict[int, list] = {}            # group -> [(pattern, needle length)]
    fast = bytearray(n_groups)              # 1: searched, 0: nothing to search
    for g, ns in enumerate(needle_lists):
        if not valid[g] or not ns:
            continue
        for n in {n for n in ns if n is not None and n.strip()}:
            fast[g] = 1
            info = _needle_info(n, cache)
            if info is None:
                extras.setdefault(g, []).append((_bounded(n), len(n), len(infos)))
                infos.append((n, None, 0, False, False, False))
                continue
            joined, key, offset, single, simple, second, ascii_needle = info
            key_group.append(g)
            key_run.append(key)
            key_next.append(second)
            key_ref.append(len(infos))
            infos.append((n, joined, offset, single, simple, ascii_needle))

    status = pc.take(pa.array(fast, pa.uint8()), text_group) if len(texts) else pa.array([], pa.uint8())
    usable = pc.and_(pc.is_valid(texts), pc.greater(pc.binary_length(pc.fill_null(texts, "")), 0))
    ascii_text = pc.fill_null(pc.string_is_ascii(texts), False)
    # (a text holding the word placeholder itself is searched on its own; the other one stands
    # for what it is, a character that is neither a word nor a space character)
    placeholders = pc.fill_null(pc.match_substring(texts, "\x01"), False)
    one_by_one = pc.and_(usable, pc.and_(pc.equal(status, 1), placeholders)).to_numpy(zero_copy_only=False).copy()
    indexed = pc.and_(usable, pc.and_(pc.equal(status, 1), pc.invert(placeholders)))
    fast_ascii = pc.indices_nonzero(pc.and_(indexed, ascii_text)).to_numpy()
    asciified, asciified_index = [], []
    for j in pc.indices_nonzero(pc.and_(indexed, pc.invert(ascii_text))).to_numpy().tolist():
        converted = _asciify(texts[j].as_py())
        if converted is None:
            one_by_one[j] = True
        else:
            asciified.append(converted)
            asciified_index.append(j)

    out_text, out_start, out_end, out_norm = [], [], [], []
    fast_index = np.concatenate((fast_ascii, np.array(asciified_index, dtype=np.int64))).astype(np.int64)
    if len(fast_index):
        fast_texts = pa.concat_arrays([texts.take(pa.array(fast_ascii)).cast(pa.string()), _strings(asciified)])
        rows, starts, run_strings, following = _runs(fast_texts)
        run_groups = text_group.to_numpy()[fast_index][rows]
        runs = pa.table({"g": run_groups, "run": run_strings, "next": following, "row": rows, "start": starts})
        keys = pa.table({"g": _ints(key_group, "q", pa.int64()), "run": _strings(key_run),
                         "next": pa.array(key_next, pa.string()), "ref": _ints(key_ref, "q", pa.int64())})
        # a needle of one run by that run; one of several by its first two (whatever stands
        # between them in a match holds no word character, so they are consecutive runs)
        one_run = pc.is_null(keys.column("next"))
        cand = pa.concat_tables([
            runs.drop_columns(["next"]).join(keys.filter(one_run).drop_columns(["next"]), ["g", "run"],
                                             join_type="inner", use_threads=False),
            runs.join(keys.filter(pc.invert(one_run)), ["g", "run", "next"], join_type="inner",
                      use_threads=False).select(["g", "run", "row", "start", "ref"])])
        c_row = cand.column("row").to_numpy()
        c_start = cand.column("start").to_numpy()
        c_ref = cand.column("ref").to_numpy()
        simple = np.array([info[4] for info in infos], dtype=bool)[c_ref]
        needle_len = np.array([len(info[0]) for info in infos], dtype=np.int64)
        joined_len = np.array([len(info[1] or "") for info in infos], dtype=np.int64)
        # A needle that is one run matches wherever that run stands, as a whole word.
        h_row = [c_row[simple]]
        h_start = [c_start[simple]]
        h_end = [c_start[simple] + joined_len[c_ref[simple]]]
        h_len = [needle_len[c_ref[simple]]]
        h_ref = [c_ref[simple]]
        other = np.flatnonzero(~simple)
        if len(other):
            originals = texts.take(pa.array(fast_index)).to_pylist()
            o_row, o_start, o_end, o_len, o_ref = [], [], [], [], []
            for row, start, ref in zip(c_row[other].tolist(), c_start[other].tolist(), c_ref[other].tolist()):
                needle, joined, offset, single, _, ascii_needle = infos[ref]
                s = start - offset
                if s < 0:
                    continue
                text = originals[row]
                if single and ascii_needle:
                    e = s + len(joined)
                    if text[s:e].lower() != joined:
                        continue
                else:
                    m = _one(needle).match(text, s)
                    if m is None:
                        continue
                    e = m.end()
                if (s > 0 and _is_word(text[s - 1])) or (e < len(text) and _is_word(text[e])):
                    continue
                o_row.append(row)
                o_start.append(s)
                o_end.append(e)
                o_len.append(len(needle))
                o_ref.append(ref)
            h_row.append(np.array(o_row, dtype=np.int64))
            h_start.append(np.array(o_start, dtype=np.int64))
            h_end.append(np.array(o_end, dtype=np.int64))
            h_len.append(np.array(o_len, dtype=np.int64))
            h_ref.append(np.array(o_ref, dtype=np.int64))
        if extras:
            # needles outside the index, on the original text: every start where one matches
            originals = texts.take(pa.array(fast_index)).to_pylist()
            fast_groups = text_group.to_numpy()[fast_index].tolist()
            x_row, x_start, x_end, x_len, x_ref = [], [], [], [], []
            for row, g in enumerate(fast_groups):
                for pat, n_len, ref in extras.get(g, ()):
                    text, i = originals[row], 0
                    while (m := pat.search(text, i)) is not None:
                        x_row.append(row)
                        x_start.append(m.start())
                        x_end.append(m.end())
                        x_len.append(n_len)
                        x_ref.append(ref)
                        i = m.start() + 1
            h_row.append(np.array(x_row, dtype=np.int64))
            h_start.append(np.array(x_start, dtype=np.int64))
            h_end.append(np.array(x_end, dtype=np.int64))
            h_len.append(np.array(x_len, dtype=np.int64))
            h_ref.append(np.array(x_ref, dtype=np.int64))
        row, start, end, length, ref = (np.concatenate(x).astype(np.int64) for x in (h_row, h_start, h_end, h_len, h_ref))
        # At one start the needle that comes first in the alternation: the longest, then the
        # smallest (by code points, as Python sorts strings).
        order = np.lexsort((ref, -length, start, row))
        row, start, end, length, ref = row[order], start[order], end[order], length[order], ref[order]
        first = np.ones(len(row), dtype=bool)
        first[1:] = (row[1:] != row[:-1]) | (start[1:] != start[:-1])
        tie = np.zeros(len(row), dtype=bool)
        tie[1:] = ~first[1:] & (length[1:] == length[:-1])
        for i in np.flatnonzero(tie & ~np.roll(tie, -1)).tolist():      # the last of each run of ties
            j = i
            while tie[j]:
                j -= 1
            best = min(range(j, i + 1), key=lambda x: infos[ref[x]][0])
            end[j], ref[j] = end[best], ref[best]
        row, start, end, ref = row[first], start[first], end[first], ref[first]
        # Leftmost first: a match that starts inside the previous kept one is dropped. Where no
        # two overlap, all are kept; texts with overlaps are resolved one match at a time.
        overlap = np.zeros(len(row), dtype=bool)
        overlap[1:] = (row[1:] == row[:-1]) & (start[1:] < end[:-1])
        keep = np.ones(len(row), dtype=bool)
        if overlap.any():
            last, pos = -1, 0
            for i in np.flatnonzero(np.isin(row, row[overlap])).tolist():
                if row[i] != last:
                    last, pos = row[i], 0
                if start[i] >= pos:
                    pos = end[i]
                else:
                    keep[i] = False
        row, start, end, ref = row[keep], start[keep], end[keep], ref[keep]
        simple_hit = np.array([info[4] for info in infos], dtype=bool)[ref]
        norms = [infos[r][1] for r in ref.tolist()]
        if not simple_hit.all():
            originals = texts.take(pa.array(fast_index)).to_pylist()
            for i in np.flatnonzero(~simple_hit).tolist():
                text = originals[row[i]]
                norms[i] = " ".join(text[start[i]:end[i]].lower().split())
        out_text = fast_index[row].tolist()
        out_start = start.tolist()
        out_end = end.tolist()
        out_norm = norms

    slow_index = np.flatnonzero(one_by_one).tolist()
    if slow_index:
        searchers: dict[int, Searcher] = {}
        groups = text_group.to_pylist()
        for j in slow_index:
            g = groups[j]
            if g not in searchers:
                searchers[g] = Searcher(needle_lists[g])
            for s_, e_, n_ in searchers[g].find(texts[j].as_py()):
                out_text.append(j)
                out_start.append(s_)
                out_end.append(e_)
                out_norm.append(n_)

    # Lists per group, texts in their order, matches by position.
    text_of = np.array(out_text, dtype=np.int64)
    order = np.lexsort((np.array(out_start, dtype=np.int64), text_of))
    text_of = text_of[order]
    counts = np.bincount(text_group.to_numpy()[text_of], minlength=n_groups) if len(order) else np.zeros(n_groups, np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    norms = [out_norm[i] for i in order.tolist()]
    return _matches_array(offsets, np.array(out_start, dtype=np.int32)[order], np.array(out_end, dtype=np.int32)[order],
                          norms, text_ids.take(pa.array(text_of)) if len(order) else pa.array([], pa.int64()))
