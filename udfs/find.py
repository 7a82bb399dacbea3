"""Whole-word, case-insensitive search of known surfaces in a text, as an Arrow UDF.

Used to make every occurrence of a person's sensitive surface a term (so that a suppressed term
leaves no untagged copy behind), to find a tuple's own attribute values in its text, and by the
leak check of `verify`.

`rx_find(text, needles)` takes one text and its needles. `rx_find_texts(items, needles)` takes
a group of texts that share one needle set (a person's texts, as a list of `{id, text}`) and
returns the matches of all of them tagged with the text's id.

What a search finds is what the regular expression of find_needles.alternation finds (the oracle of the
tests): the needles longest first, then by code point, each `(?<!\\w)tok1\\s+tok2…(?!\\w)`,
case-insensitive; leftmost match first, at one position the needle that comes first. The search
itself is Aho-Corasick (ahocorasick-rs): all the needles of a batch of groups in one automaton,
over the search form of the texts (find_read.py); its overlapping matches are then cut to the
text's own group's needles, to whole words, and to the regular expression's choice, in numpy.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow_pack import (ITEMS_SQL_TYPE, MATCH_ARROW_TYPE, MATCH_SQL_TYPE, OWN_ITEMS_SQL_TYPE,  # noqa: F401 (the UDFs' types)
                         OWN_MATCH_ARROW_TYPE, OWN_MATCH_SQL_TYPE, TEXT_MATCH_ARROW_TYPE, TEXT_MATCH_SQL_TYPE, _ints,
                         _list_of, _matches_array)
from .find_needles import Needles, pattern, search_regex
from .find_read import ReadTexts
from .glue import Cleaned, clean, has_glue


def _resolve(start: np.ndarray, end: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """The regular expression's choice among matches (starts unique across texts): at one start
    the first needle in the alternation, then leftmost first, a match that starts inside the
    previous kept one dropped. Returns the indexes kept, by start."""
    order = np.lexsort((rank, start))
    first = np.ones(len(order), dtype=bool)
    first[1:] = start[order][1:] != start[order][:-1]
    order = order[first]
    start, end = start[order], end[order]
    # A match that starts after the end of all before it is kept; the matches after it that do
    # not are resolved one at a time.
    inside = np.zeros(len(order), dtype=bool)
    inside[1:] = start[1:] < np.maximum.accumulate(end)[:-1]
    keep = np.ones(len(order), dtype=bool)
    if inside.any():
        heads = np.zeros(len(order), dtype=bool)
        heads[:-1] = inside[1:] & ~inside[:-1]
        reach = 0
        for i in np.flatnonzero(inside | heads).tolist():
            if not inside[i] or start[i] >= reach:
                reach = end[i]
            else:
                keep[i] = False
    return order[keep]


def _search(read: ReadTexts, group_of_text: np.ndarray, table: Needles) -> tuple:
    """Each wanted text's matches of its group's needles: (text, start, end, norm), the text
    among read.texts, offsets in its characters, norms an Arrow array."""
    found = []                      # (text, start, end, norm) of each search below
    runs = _group_runs(read, group_of_text, table)
    if runs is not None:
        # each run of texts of one group that holds RUN_CHARS searched with the group's own
        # automaton; the shorter runs together, with an automaton of their groups' needles
        size = read.ends[[hi - 1 for _, hi in runs]] - read.starts[[lo for lo, _ in runs]]
        short = [run for run, chars in zip(runs, size.tolist()) if chars < RUN_CHARS]
        for (lo, hi), chars in zip(runs, size.tolist()):
            if chars < RUN_CHARS:
                continue
            texts = read.fast[lo:hi]
            automaton, forms = table.of_group(int(group_of_text[texts[0]]))
            if automaton is None:
                continue
            text, start, end, norm = _matches(read.part([(lo, hi)]), group_of_text[texts], table, automaton, forms)
            found.append((texts[text], start, end, norm))
        if short:
            pooled = read.part(short)
            texts = read.fast[pooled.at]
            automaton, forms = table.of_groups(np.unique(group_of_text[texts]))
            if automaton is not None:
                text, start, end, norm = _matches(pooled, group_of_text[texts], table, automaton, forms)
                found.append((texts[text], start, end, norm))
    elif read.any and len(table.form_of):
        # (an automaton of the needles of the texts' groups only: the others' matches are dropped)
        automaton, forms = table.of_groups(np.unique(group_of_text[read.fast]))
        if automaton is not None:
            text, start, end, norm = _matches(read, group_of_text[read.fast], table, automaton, forms)
            found.append((read.fast[text], start, end, norm))
    if len(read.apart):
        found.append(_search_apart(read, group_of_text, table))
    none = np.zeros(0, dtype=np.int64)
    text, start, end = (np.concatenate([none] + [f[i] for f in found]) for i in range(3))
    return text, start, end, pa.concat_arrays([f[3] for f in found]) if found else pa.array([], pa.string())


# A group's texts are searched with an automaton of the group's needles alone (Needles.of_group)
# where the batch's needles are at least this many times a group's, and its groups have this many
# texts on average: one search per group then costs more in calls than the matches it spares.
GROUP_SHARE = 4
GROUP_TEXTS = 8
# ... and where the group's texts hold this many characters: a search of its own costs about
# 0.1 ms in calls before its first match, and the corpus shape's persons of a few short posts
# (10,000 in its last fifth) made the leak check 2.5 times slower than one automaton for all of
# them (benchmarks/search.py --groups).
RUN_CHARS = 32_000


def _group_runs(read: ReadTexts, group_of_text: np.ndarray, table: Needles) -> list[tuple[int, int]] | None:
    """The runs (lo, hi) of read.fast whose texts share a group, where searching each run with its
    group's own automaton pays; None where one search of all texts does."""
    if not read.any or not len(table.form_of) or len(read.fast) < GROUP_TEXTS:
        return None
    groups = group_of_text[read.fast]
    cuts = np.flatnonzero(groups[1:] != groups[:-1]) + 1
    if len(read.fast) < GROUP_TEXTS * (len(cuts) + 1):
        return None
    present = np.unique(groups)
    per_group = np.searchsorted(table.pair_key, (present + 1) * table.n_forms) - \
        np.searchsorted(table.pair_key, present * table.n_forms)
    if len(table.form_of) < GROUP_SHARE * max(int(per_group.max()), 1):
        return None
    bounds = np.concatenate(([0], cuts, [len(read.fast)]))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def _matches(read: ReadTexts, group_of_fast: np.ndarray, table: Needles, automaton, form_of: np.ndarray) -> tuple:
    """The matches of read's joined search form (its texts read.fast, of groups group_of_fast) by
    `automaton`, whose patterns are the forms form_of: (text among read.fast, start, end, norm),
    offsets in the text's characters."""
    form = read.form
    hits = automaton.find_matches_as_indexes(form.data, overlapping=True)
    # (the tuples' numbers read one by one: np.array of a list of tuples took twice as long)
    pattern, m_start, m_end = np.fromiter(itertools.chain.from_iterable(hits), dtype=np.int64,
                                          count=3 * len(hits)).reshape(-1, 3).T
    pattern = form_of[pattern]
    start, end = form.original(m_start), form.original(m_end)
    text = np.searchsorted(read.starts, start, side="right") - 1
    rank = table.rank_of(group_of_fast[text], pattern)
    # whole words: no word character just before or just after (the texts' newlines are none)
    last = form.length - 1
    bounded = ~((start > 0) & form.word(np.maximum(start - 1, 0))) & \
        ~((end <= last) & form.word(np.minimum(end, last)))
    ok = np.flatnonzero((rank >= 0) & (end <= read.ends[text]) & bounded)
    kept = ok[_resolve(start[ok], end[ok], rank[ok])]
    text, start, end, pattern = text[kept], start[kept], end[kept], pattern[kept]
    # the norm: the needle's norm form, but in a text whose lower case is not its fold
    plain = read.plain[text]
    norm = table.norms.take(pa.array(pattern))
    if not plain.all():
        own = [" ".join(read.joined[s:e].lower().split()) for s, e in zip(start[~plain].tolist(), end[~plain].tolist())]
        norm = pc.replace_with_mask(norm, pa.array(~plain), pa.array(own, pa.string()))
    return text, start - read.starts[text], end - read.starts[text], norm


def _search_apart(read: ReadTexts, group_of_text: np.ndarray, table: Needles) -> tuple:
    """The wanted texts with glue characters, each read as _glue_aware reads it (as written, and
    its two cleaned readings), but each reading of all of them in one search of the batch's
    automaton: searched one text and one needle set at a time, the 350 glued texts of the blog
    sample took the leak check 6 of its 10 seconds. (The automaton finds what the regular
    expression finds: tests/test_acfind.py.)"""
    none = np.zeros(0, dtype=np.int64)
    apart = np.array([j for j in read.apart.tolist() if table.has_needles[int(group_of_text[j])]], dtype=np.int64)
    if not len(apart):
        return none, none, none, pa.array([], pa.string())
    texts = read.texts.take(pa.array(apart)).to_pylist()
    groups = group_of_text[apart]
    glued = [has_glue(t) for t in texts]
    found: list[set] = [set() for _ in texts]
    for i, reading in enumerate(([Cleaned(t) for t in texts], [clean(t) if g else Cleaned("") for t, g in zip(texts, glued)],
                                 [clean(t, spaces=True) if g else Cleaned("") for t, g in zip(texts, glued)])):
        strings = pa.array([r.text for r in reading], pa.string())
        wanted = pc.fill_null(pc.binary_length(strings), 0).to_numpy() > 0
        if i:
            # (the readings without glue, only for the groups with a needle that has none: the
            # sweep's needles all have glue)
            wanted &= table.has_plain_needles[groups]
        text, start, end, norm = _search(ReadTexts(strings, wanted, glue_apart=False), groups, table)
        for t, s, e, n in zip(text.tolist(), start.tolist(), end.tolist(), norm.to_pylist()):
            found[t].add((*reading[t].span(s, e), n))
    a_text, a_start, a_end, a_norm = [], [], [], []
    for t, matches in enumerate(found):
        # (as _glue_aware: of overlapping matches the leftmost stays, at one start the longest; a
        # text without glue has only its own reading's matches, which never overlap)
        reach = 0
        for s, e, n in sorted(matches, key=lambda m: (m[0], m[0] - m[1], m[2])):
            if s >= reach:
                a_text.append(int(apart[t]))
                a_start.append(s)
                a_end.append(e)
                a_norm.append(n)
                reach = e
    return (np.array(a_text, dtype=np.int64), np.array(a_start, dtype=np.int64), np.array(a_end, dtype=np.int64),
            pa.array(a_norm, pa.string()))


# One text of fewer characters than this times the needles goes to the regular expression: an
# automaton's search of one text costs about 0.3 ms in numpy and Arrow calls before its first match.
REGEX_WORK = 100_000


def _search_one(text: str, table: Needles) -> list[tuple[int, int, str]]:
    """One text (as written, glue and all) against the needles of table's group 0."""
    read = ReadTexts(pa.array([text], pa.string()), np.ones(1, dtype=bool), glue_apart=False)
    _, start, end, norm = _search(read, np.zeros(1, dtype=np.int64), table)
    return list(zip(start.tolist(), end.tolist(), norm.to_pylist()))


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
    """All texts searched for one needle set, prepared once (the automaton when first needed)."""

    def __init__(self, needles):
        self.needles = tuple(n for n in needles if n is not None)

    @functools.cached_property
    def table(self) -> Needles:
        return Needles(pa.array([list(self.needles)], pa.list_(pa.string())))

    def find(self, text: str | None, glue: bool | None = None) -> list[tuple[int, int, str]]:
        if not text or not self.needles:
            return []
        return _glue_aware(text, self._find, glue)

    def _find(self, text: str) -> list[tuple[int, int, str]]:
        if not text:
            return []
        if len(text) * len(self.needles) < REGEX_WORK:
            return search_regex(text, pattern(self.needles))
        return _search_one(text, self.table)


@functools.lru_cache(maxsize=1024)
def _searcher(needles: tuple[str, ...]) -> Searcher:
    return Searcher(needles)


def find_all(text: str | None, needles, glue: bool | None = None) -> list[tuple[int, int, str]]:
    """Non-overlapping matches of the needles in text, as (start, end, needle)."""
    if not text or not needles:
        return []
    return _searcher(tuple(needles)).find(text, glue)


def _per_text(texts: pa.Array, group_of_text: np.ndarray, table: Needles) -> pa.Array:
    """rx_find's list of matches for each text, text i searched for group group_of_text[i]."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    texts = texts.cast(pa.string())
    wanted = pc.fill_null(pc.binary_length(texts), 0).to_numpy() > 0
    wanted &= table.has_needles[group_of_text]
    text, start, end, norm = _search(ReadTexts(texts, wanted), group_of_text, table)
    order = np.lexsort((start, text))
    offsets = np.concatenate(([0], np.cumsum(np.bincount(text, minlength=len(texts)))))
    return _matches_array(offsets, start[order], end[order], norm.take(pa.array(order)))


def find_all_arrow(texts: pa.Array, needles: pa.Array) -> pa.Array:
    """rx_find(text, needles): each text with its own needles."""
    if isinstance(needles, pa.ChunkedArray):
        needles = needles.combine_chunks()
    return _per_text(texts, np.arange(len(texts), dtype=np.int64), Needles(needles.cast(pa.list_(pa.string()))))


def search_arrow(texts: pa.Array, searcher: Searcher) -> pa.Array:
    """rx_find over texts with one fixed needle set."""
    return _per_text(texts, np.zeros(len(texts), dtype=np.int64), searcher.table)


# Text (bytes) searched in one go, to bound the intermediates (a few arrays per character of
# the texts): DuckDB hands a UDF 2,048 rows at once, 2,048 blog authors are about 17 MB of text.
SLICE_BYTES = 1 << 20


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
    own = (sets, Needles(sets))

    def find_texts_own_arrow(items: pa.Array, needles: pa.Array) -> pa.Array:
        return find_texts_sliced(items, needles, SLICE_BYTES, own)
    return find_texts_own_arrow


def find_texts_sliced(items: pa.Array, needles: pa.Array, slice_bytes: int, own: tuple | None = None) -> pa.Array:
    """find_texts_arrow (find_texts_own: with own, the sets and their Needles), the texts
    searched in slices of about slice_bytes, cut between texts (a row's texts may fall into
    several slices): a text's matches depend on the text and its needles only."""
    if isinstance(items, pa.ChunkedArray):
        items = items.combine_chunks()
    if isinstance(needles, pa.ChunkedArray):
        needles = needles.combine_chunks()
    structs = items.flatten()
    table = Needles(needles.cast(pa.list_(pa.string())))
    searches = [table] if own is None else [table, own[1]]
    own_set = pc.fill_null(structs.field("own"), 0).to_numpy().astype(np.int64) if own is not None else None
    texts = structs.field("text").cast(pa.string())
    sizes = pc.fill_null(pc.binary_length(texts), 0).to_numpy().astype(np.int64)
    n_groups = len(items)
    group = pc.list_parent_indices(items).to_numpy().astype(np.int64)
    ends = np.cumsum(sizes)
    parts = []
    lo = 0
    while lo < len(sizes):
        hi = max(int(np.searchsorted(ends, ends[lo] - sizes[lo] + slice_bytes, side="right")), lo + 1)
        groups_of_text = [group[lo:hi]] + ([own_set[lo:hi]] if own is not None else [])
        parts.append(_find_texts(structs.slice(lo, hi - lo), texts.slice(lo, hi - lo), groups_of_text, searches)
                     + (group[lo:hi],))
        lo = hi
    arrow_type = TEXT_MATCH_ARROW_TYPE if own is None else OWN_MATCH_ARROW_TYPE
    if not parts:
        return pa.array([[]] * n_groups, type=arrow_type)
    counts = np.zeros(n_groups, dtype=np.int64)
    columns = []
    for text_of, *found, group_of in parts:
        counts += np.bincount(group_of[text_of], minlength=n_groups)
        columns.append(found if own is not None else found[:4])
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return _list_of(offsets, [pa.concat_arrays(c) for c in zip(*columns)], arrow_type)


def _find_texts(structs: pa.Array, texts: pa.Array, groups_of_text: list[np.ndarray], tables: list[Needles]) -> tuple:
    """The matches in one slice of texts, in the slice's text order and by position: (text, id,
    start, end, needle, own). Per search, its group of each text and its Needles; the texts are
    read once for all searches, and what each finds is resolved on its own. The second search's
    matches are `own`."""
    nonempty = pc.fill_null(pc.binary_length(texts), 0).to_numpy() > 0
    wanted = np.zeros(len(texts), dtype=bool)
    for group_of_text, table in zip(groups_of_text, tables):
        wanted |= table.has_needles[group_of_text] & nonempty
    read = ReadTexts(texts, wanted)
    found = [_search(read, group_of_text, table) for group_of_text, table in zip(groups_of_text, tables)]
    # Matches by text, in order, and by position; at one position the first search's match first.
    text_of, start, end = (np.concatenate([f[i] for f in found]) for i in range(3))
    own = np.repeat(np.arange(len(found)) > 0, [len(f[0]) for f in found])
    order = np.lexsort((own, start, text_of))
    norms = pa.concat_arrays([f[3] for f in found]).take(pa.array(order))
    text_of = text_of[order]
    return (text_of, structs.field("id").take(pa.array(text_of)), _ints(start[order], "i", pa.int32()),
            _ints(end[order], "i", pa.int32()), norms, pa.array(own[order]))
