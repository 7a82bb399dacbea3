"""Every text searched for every sensitive surface of the corpus at once (Aho-Corasick).

A surface recognized for one person is a term wherever it is written, for everyone: otherwise a
name the model tagged in one review stays readable in every review where it missed it. The
surfaces of a whole corpus are far more than one person's (tens of thousands), so they go into
one automaton (ahocorasick-rs), built once per run, instead of the per-person needle lists of
find.py. benchmarks/search.py compares it with find.py (far slower on texts beyond ASCII, which
send it to a regular expression of all needles) and with pyahocorasick; ahocorasick-rs builds its
matches in Rust and lets go of the GIL, so that DuckDB's threads search at once.

Matching is whole-word and case-insensitive, and it ignores which non-word characters separate
the words: a needle and a text are both compared in their *key* form, lower case with every run
of non-word characters written as one space ("St. Louis", "st  louis" and "ST-LOUIS" all read
" st louis "). The key is padded with a space on both sides, and so is the text, so that an
automaton match can only begin and end at word boundaries: no match inside a word is ever
produced and then thrown away. Each match says whether it is written with a capital, for the
needles that count only there (corpus_needles.sql).
"""
from __future__ import annotations

import itertools

import ahocorasick_rs
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow_pack import MATCH_ARROW_TYPE, MATCH_SQL_TYPE, _ints, _list_of, _strings
from .find_read import _codes, _flags, _is_word
from .glue import GLUE_RUN, is_glue

# `capital`: every word of the match begins with a capital or a digit (corpus_needles.sql's cased
# needles count only there)
CORPUS_MATCH_SQL_TYPE = "STRUCT(start_pos INTEGER, end_pos INTEGER, needle VARCHAR, capital BOOLEAN)[]"
CORPUS_MATCH_ARROW_TYPE = pa.list_(pa.struct([("start_pos", pa.int32()), ("end_pos", pa.int32()),
                                              ("needle", pa.string()), ("capital", pa.bool_())]))

_ASCII_WORD = np.zeros(128, dtype=bool)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
    _ASCII_WORD[_c] = True
_ASCII_UPPER_OR_DIGIT = np.zeros(128, dtype=bool)
_ASCII_UPPER_OR_DIGIT[65:91] = True
_ASCII_UPPER_OR_DIGIT[48:58] = True
_ASCII_GLUE = np.array([is_glue(chr(c)) for c in range(128)])


def _lower(text: str) -> str:
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    # ("İ".lower() is two characters: such a character stays as it is, so offsets still agree)
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _key_form(text: str, original: np.ndarray, glue: list[tuple[int, int, bool]],
              lowered: np.ndarray | None = None) -> tuple[str, np.ndarray, np.ndarray]:
    """The text in key form, padded (" st louis "); for each of its characters but the pads the
    offset in `text` of the character it comes from; and, for each character of `text`, whether
    a word begins there with a letter that is not upper case. `original`: the text's _codes;
    `glue`: the text's glue_runs, each read as a space or as nothing ("Jo\u200bhn" is the word
    "john", "John\u200bSmith" two words). `lowered`: the _codes of _lower(text), where the caller
    has them (a part of a longer text is lowered as a part of it)."""
    read = np.ones(len(text), dtype=bool)
    for a, b, space in glue:
        # (a run kept as a space keeps its first character, a non-word character)
        read[a + space:b] = False
    at = np.flatnonzero(read)
    original = original[at]
    codes = (_codes(_lower(text)) if lowered is None else lowered)[at]
    word = _flags(codes, _ASCII_WORD, _is_word)
    # a word character, or the first of a run of non-word characters
    keep = word.copy()
    if len(keep):
        keep[0] = True
    keep[1:] |= word[:-1]
    kept = np.where(word, codes, 32)[keep].astype(np.uint32)
    begins = word.copy()
    begins[1:] &= ~word[:-1]
    lower = np.zeros(len(text), dtype=bool)
    lower[at] = begins & ~_flags(original, _ASCII_UPPER_OR_DIGIT, lambda c: c.isupper() or c.isdigit())
    return " " + kept.tobytes().decode("utf-32-le", "surrogatepass") + " ", at[keep], lower


def key_arrow(norms: pa.Array) -> pa.Array:
    """rx_key(norm): a norm's key form (`key`), the same for every norm the automaton finds at
    one place ("web page", "web-page"); NULL for one without a word character."""
    return pa.array([None if found is None else (found[0] if found else None) for found in all_keys(norms)],
                    pa.string())


# The ASCII glue characters (keys() reads a needle with glue two ways) and the characters that are
# no word character, for RE2.
_ASCII_GLUE_RE2 = "[" + "".join(f"\\x{{{c:02X}}}" for c in range(128) if _ASCII_GLUE[c]) + "]"
_ASCII_NOT_WORD_RE2 = "[^A-Za-z0-9_]+"


def all_keys(norms) -> list[list[str] | None]:
    """keys(norm) of each norm (None for None). A norm of ASCII without glue, most of them, is
    lowered and its runs of non-word characters made one space by Arrow, all at once: keys()
    norm by norm was 1.2 s of the blog sample's 96,291 needles."""
    norms = pa.array(norms, pa.string()) if not isinstance(norms, (pa.Array, pa.ChunkedArray)) else norms
    if isinstance(norms, pa.ChunkedArray):
        norms = norms.combine_chunks()
    norms = norms.cast(pa.string())
    simple = pc.and_(pc.string_is_ascii(norms), pc.invert(pc.match_substring_regex(norms, _ASCII_GLUE_RE2)))
    simple = pc.fill_null(simple, False)
    core = pc.utf8_trim(pc.replace_substring_regex(pc.ascii_lower(norms), _ASCII_NOT_WORD_RE2, " "), " ")
    padded = pc.binary_join_element_wise(" ", pc.if_else(simple, core, pa.nulls(len(norms), pa.string())), " ", "")
    out = [None if c is None else ([c] if c != "  " else []) for c in padded.to_pylist()]
    for i in np.flatnonzero(~simple.to_numpy(zero_copy_only=False)).tolist():
        norm = norms[i].as_py()
        out[i] = None if norm is None else keys(norm)
    return out


def written_as_name(surfaces: pa.Array) -> pa.Array:
    """rx_written_as_name(surface): every word of the surface begins with an upper-case letter or
    a digit, as CorpusSearcher reads a match's `capital` ("Hope", "US", "New York"; not "hope",
    "I'm", "New york"). A needle of common words only counts there for a person who never had it
    tagged in another form (propagate.sql), and the leak check (leaks.sql) and the sweep read
    the released and original texts by the same test, so that what propagation leaves is what
    the check passes. (A surface as a match is cut from its text: beginning and ending with a
    word character, its first character begins a word there too.)"""
    parts = surfaces.to_pylist()
    if not parts:
        return pa.array([], pa.bool_())
    joined, starts, original, glue = _batch([p or "" for p in parts])
    lower = _key_form(joined, original, glue)[2]
    before = np.concatenate(([0], np.cumsum(lower)))
    capital = before[starts[1:] - 1] == before[starts[:-1]]
    return pa.array([None if p is None else bool(c) for p, c in zip(parts, capital.tolist())], pa.bool_())


def key(norm: str) -> str | None:
    """A needle's key form as a text without glue characters reads it; None when it has no word
    character."""
    found = keys(norm)
    return found[0] if found else None


def keys(norm: str) -> list[str]:
    """A needle's key forms (what _key_form makes of a text that writes it); none when it has no
    word character. A needle with glue characters, cut from a text as it was written, has two:
    its glue read as spaces and read as nothing ("jo\u200bhn smith": "jo hn smith" and "john
    smith"), since its lower case no longer tells which of them _key_form reads."""
    lowered = _lower(norm)
    forms = [lowered]
    if GLUE_RUN.search(lowered):
        forms.append(GLUE_RUN.sub("", lowered))
    out = []
    for form in forms:
        core = " ".join("".join(c if _is_word(c) else " " for c in form).split())
        if core and f" {core} " not in out:
            out.append(f" {core} ")
    return out


PIECE_CHARS = 100_000


class CorpusSearcher:
    """needles: norms. Norms of the same key ("good-bye", "good bye") are one key of the automaton,
    and each of its matches is reported once for every one of them."""

    def __init__(self, needles):
        index: dict[str, int] = {}
        self.norms: list[list[str]] = []
        # (a needle with two keys, both found at one place of a text with glue, is reported once)
        self.glued = False
        needles = list(needles)
        for norm, found in zip(needles, all_keys(needles)):
            found = found if norm else []
            self.glued |= len(found) > 1
            for k in found:
                if k in index:
                    self.norms[index[k]].append(norm)
                else:
                    index[k] = len(self.norms)
                    self.norms.append([norm])
        self.empty = not self.norms
        self._keys = list(index)
        # the norms of each key as one Arrow array, key i's from first[i] (a match becomes one row
        # per norm of its key without a Python loop over the matches)
        self._count = np.fromiter(map(len, self.norms), dtype=np.int64, count=len(self.norms))
        self._first = np.concatenate(([0], np.cumsum(self._count)))[:-1]
        flat = [norm for norms in self.norms for norm in norms]
        self._flat = _strings(flat)
        # the norms listed more than once (two keys of a norm with glue): the only rows a match can
        # repeat at one place
        ids: dict[str, int] = {}
        self._norm_id = np.fromiter((ids.setdefault(norm, len(ids)) for norm in flat), dtype=np.int64, count=len(flat))
        self._twice = np.bincount(self._norm_id, minlength=len(ids))[self._norm_id] > 1
        self.automaton = None if self.empty else ahocorasick_rs.AhoCorasick(self._keys)

    # The automaton cannot be pickled: an engine that ships the UDF to its workers (Spark) sends
    # the keys, and each worker builds the automaton again.
    def __getstate__(self):
        return {**self.__dict__, "automaton": None}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.automaton = None if self.empty else ahocorasick_rs.AhoCorasick(self._keys)

    def search(self, texts: list[str | None]) -> tuple[np.ndarray, ...]:
        """Every whole-word match in all texts, overlapping ones too: (index of the text, start,
        end, needle number, capitalised?), by text and start. `capitalised`: every word of the
        match begins with an upper-case letter or a digit. (Which of overlapping matches stays
        is decided in SQL, after the matches a person does not count are gone: resolve_matches.sql.)"""
        # In pieces of about PIECE_CHARS characters: a search holds some 44 bytes per character
        # of what it reads (60 MB for DuckDB's 2,048 rows of blog posts), and DuckDB may run one
        # on each of its threads at once. A text's matches depend on that text alone.
        size = np.fromiter((len(t) + 1 if t else 1 for t in texts), dtype=np.int64, count=len(texts))
        if size.sum() <= PIECE_CHARS:
            return self._search(texts)
        ends = np.searchsorted(np.cumsum(size), np.arange(PIECE_CHARS, size.sum() + PIECE_CHARS, PIECE_CHARS))
        cuts = np.unique(np.concatenate(([0], np.minimum(ends + 1, len(texts))))).tolist()
        found = [self._search(texts[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
        for (text, *_), a in zip(found, cuts[:-1]):
            text += a
        return tuple(np.concatenate(column) for column in zip(*found))

    def _search(self, texts: list[str | None]) -> tuple[np.ndarray, ...]:
        none = np.zeros(0, dtype=np.int64)
        if self.empty or not any(texts):
            return none, none, none, none, none.astype(bool)
        joined, starts_of, original, glue = _batch([t or "" for t in texts])
        lowered = _codes(_lower(joined))
        form, origin, lower = _key_form(joined, original, glue, lowered)
        found = [self._matches(form, origin)]
        if not all(space for _, _, space in glue):
            # Glue between two lower-case letters is read as nothing ("jo\u200bhn"), as
            # recognition reads it, and as a space as well ("john\x00smith"): which of them the
            # writer meant, case does not tell. Only the texts with such glue read otherwise, so
            # only they are read again (the batch again took most of the blog sample's search).
            found.append(self._glued_again(joined, original, lowered, glue, starts_of))
            both = np.concatenate(found, axis=1)
            # (distinct and in the order np.unique(axis=1) gave: by needle, start, end)
            order = np.lexsort((both[2], both[1], both[0]))
            both = both[:, order]
            first = np.ones(both.shape[1], dtype=bool)
            first[1:] = (both[:, 1:] != both[:, :-1]).any(axis=0)
            found = [both[:, first]]
        needle, start, end = found[0]
        if not len(needle):
            return none, none, none, none, none.astype(bool)
        text = np.searchsorted(starts_of, start, side="right") - 1
        ok = end <= starts_of[text + 1] - 1      # not across two texts of the batch
        text, start, end, needle = text[ok], start[ok], end[ok], needle[ok]
        order = np.lexsort((-(end - start), start))
        text, start, end, needle = text[order], start[order], end[order], needle[order]
        before = np.concatenate(([0], np.cumsum(lower)))
        capital = before[end] == before[start]
        return text, start - starts_of[text], end - starts_of[text], needle, capital

    def _glued_again(self, joined: str, original: np.ndarray, lowered: np.ndarray, glue: list[tuple[int, int, bool]],
                     starts_of: np.ndarray) -> np.ndarray:
        """The matches of every glue run read as a space, in the texts of the batch that hold a run
        read otherwise (rows needle, start, end, offsets in `joined`). A text's key form depends on
        the text alone, and a match across two texts is dropped by the caller either way."""
        runs = np.array([(a, b) for a, b, space in glue if not space], dtype=np.int64).reshape(-1, 2)
        texts = np.unique(np.searchsorted(starts_of, runs[:, 0], side="right") - 1)
        # those texts joined by newlines as the batch joins them; `shift`: what each adds to an
        # offset in the join to make it one in `joined`
        lo, hi = starts_of[texts], starts_of[texts + 1] - 1
        width = hi - lo + 1
        at = np.concatenate(([0], np.cumsum(width)))[:-1]
        shift = lo - at
        part = "\n".join(joined[a:b] for a, b in zip(lo.tolist(), hi.tolist()))
        cut = np.concatenate([np.arange(a, b + 1) for a, b in zip(lo.tolist(), hi.tolist())])[:len(part)]
        spans = np.array([(a, b) for a, b, _ in glue], dtype=np.int64).reshape(-1, 2)
        where = np.searchsorted(starts_of, spans[:, 0], side="right") - 1
        inside = np.isin(where, texts)
        moved = spans[inside] - shift[np.searchsorted(texts, where[inside])][:, None]
        form, origin, _ = _key_form(part, original[cut], [(a, b, True) for a, b in moved.tolist()], lowered[cut])
        found = self._matches(form, origin)
        # (a match stays within a text of the join or is dropped by the caller, which sees it
        # cross the newline after it in `joined` too)
        found[1:] += shift[np.searchsorted(at, found[1], side="right") - 1]
        return found

    def _matches(self, form: str, origin: np.ndarray) -> np.ndarray:
        """The automaton's matches in a key form: rows needle, start, end (offsets in the text)."""
        hits = self.automaton.find_matches_as_indexes(form, overlapping=True)
        if not hits:
            return np.zeros((3, 0), dtype=np.int64)
        # (the tuples' numbers read one by one: np.array of the list of tuples took twice as long)
        needle, begin, stop = np.fromiter(itertools.chain.from_iterable(hits), dtype=np.int64,
                                          count=3 * len(hits)).reshape(-1, 3).T
        # the match's first and last word characters in the form, less the leading pad
        return np.stack((needle, origin[begin], origin[stop - 3] + 1))

    def arrow(self, texts: pa.Array) -> pa.Array:
        """rx_find_corpus(text): the matches of each text."""
        text, start, end, needle, capital = self.search(texts.to_pylist())
        # one row per norm of the matched key
        per_key = self._count[needle] if len(needle) else np.zeros(0, dtype=np.int64)
        text, start, end, capital = (np.repeat(a, per_key) for a in (text, start, end, capital))
        # each match's norms: first[key], first[key] + 1, ... (its place among its key's rows added)
        row = np.arange(len(text), dtype=np.int64)
        flat = np.repeat(self._first[needle] - (np.cumsum(per_key) - per_key), per_key) + row \
            if len(needle) else row
        if self.glued:
            first = np.ones(len(flat), dtype=bool)
            seen: set[tuple] = set()
            for i in np.flatnonzero(self._twice[flat]).tolist():
                m = (int(text[i]), int(start[i]), int(end[i]), int(self._norm_id[flat[i]]))
                first[i] = m not in seen
                seen.add(m)
            text, start, end, capital, flat = (a[first] for a in (text, start, end, capital, flat))
        offsets = np.zeros(len(texts) + 1, dtype=np.int32)
        np.cumsum(np.bincount(text, minlength=len(texts)), out=offsets[1:])
        columns = [_ints(start, "i", pa.int32()), _ints(end, "i", pa.int32()),
                   self._flat.take(pa.array(flat)), pa.array(capital, pa.bool_())]
        return _list_of(offsets, columns, CORPUS_MATCH_ARROW_TYPE)


def _batch(parts: list[str]) -> tuple[str, np.ndarray, np.ndarray, list[tuple[int, int, bool]]]:
    """The texts as one string, separated by a newline (a non-word character), with the offset
    of each in it (and the end), its _codes and its glue runs."""
    starts = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) + 1 for p in parts], out=starts[1:])
    joined = "\n".join(parts)
    original = _codes(joined)
    glued = _flags(original, _ASCII_GLUE, is_glue)
    return joined, starts, original, _glue_runs(joined, glued) if glued.any() else []


def _glue_runs(text: str, glued: np.ndarray) -> list[tuple[int, int, bool]]:
    """glue.glue_runs(text), from the text's glue characters already flagged: its regular
    expression walks every character of the batch in Python."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], glued.astype(np.int8), [0]))))
    n = len(text)
    return [(a, b, a > 0 and b < n and text[a - 1].isalpha() and text[b].isupper())
            for a, b in zip(edges[::2].tolist(), edges[1::2].tolist())]


# (rx_resolve takes a text's clusters of matches as rx_find returns them, and returns matches)
RESOLVE_ITEMS_SQL_TYPE = MATCH_SQL_TYPE
RESOLVE_CLUSTERS_SQL_TYPE = f"{MATCH_SQL_TYPE}[]"


def _best_first(m: dict) -> tuple:
    """The order in which rx_resolve keeps matches: the longest, then the earliest, then by needle."""
    return m["start_pos"] - m["end_pos"], m["start_pos"], m["needle"]


def _apart(a: dict, b: dict) -> bool:
    return a["end_pos"] <= b["start_pos"] or b["end_pos"] <= a["start_pos"]


def _bare_word(m: dict, kept: list[dict], text: str) -> bool:
    """Whether a word character of match m lies outside every kept match."""
    covered = [(k["start_pos"], k["end_pos"]) for k in kept if not _apart(m, k)]
    return any(text[i].isalnum() and not any(a <= i < b for a, b in covered)
               for i in range(m["start_pos"], m["end_pos"]))


def resolve_arrow(clusters: pa.Array, texts: pa.Array) -> pa.Array:
    """rx_resolve(clusters, text): of each cluster of a text's overlapping matches, those a greedy
    choice keeps: the longest first (then the earliest, then by needle), and every other that
    overlaps none kept before it. (Dropping each match that some better one overlaps, in SQL, left
    text bare where the better one lost in turn: "EDITOR" lost to "EDITOR STATUS OR HER", which
    lost to "STATUS OR HER FAVORITE", and "EDITOR" stayed.)
    A dropped match that reaches a word no kept one covers is widened over the kept ones it
    overlaps, and takes their place with the needle of the longest: "RITA MENDES THE MEETING" lost
    to "MENDES THE MEETING MOVED", and "RITA" stayed readable, although the run that holds it
    singled its writer out. (Cut down to its bare part, the piece would be judged as a term of its
    own surface, and "RITA" could be kept as a word the class shares.) Returns the matches kept in
    all of the text's clusters."""
    out = []
    for cluster_list, text in zip(clusters.to_pylist(), texts.to_pylist()):
        chosen: list[dict] = []
        for cluster in cluster_list:
            kept: list[dict] = []
            dropped: list[dict] = []
            for m in sorted(cluster, key=_best_first):
                (kept if all(_apart(m, k) for k in kept) else dropped).append(m)
            while bare := next((d for d in dropped if _bare_word(d, kept, text)), None):
                dropped.remove(bare)
                over = [k for k in kept if not _apart(bare, k)]
                widest = min(over, key=_best_first)
                kept = [k for k in kept if _apart(bare, k)] + [{
                    "start_pos": min(bare["start_pos"], *(k["start_pos"] for k in over)),
                    "end_pos": max(bare["end_pos"], *(k["end_pos"] for k in over)),
                    "needle": widest["needle"]}]
            chosen.extend(kept)
        out.append(chosen)
    return pa.array(out, type=MATCH_ARROW_TYPE)

