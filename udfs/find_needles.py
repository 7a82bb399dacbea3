"""The needles of a search (`find.py`): the regular expression that is its oracle (the needles
longest first, then by code point, each a run of words between word boundaries, case-insensitive)
and the needle sets of a batch of groups prepared for the automaton."""
from __future__ import annotations

import functools
import re

import ahocorasick_rs
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .find_read import ASCII_SPACE_RE2, needle_form
from .glue import GLUE_RE2


def alternation(needles) -> re.Pattern | None:
    # Longest first, so that "new york city" wins over "new york" at the same position.
    parts = [r"\s+".join(map(re.escape, n.split())) for n in sorted(set(needles), key=lambda n: (-len(n), n)) if n.strip()]
    if not parts:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def pattern(needles: tuple[str, ...]) -> re.Pattern | None:
    return alternation(needles)


def search_regex(text: str, pat: re.Pattern | None) -> list[tuple[int, int, str]]:
    if pat is None:
        return []
    # Map the matched surface back to its needle by the same normalisation the SQL uses for norm.
    return [(m.start(), m.end(), " ".join(m.group(0).lower().split())) for m in pat.finditer(text)]


# A group's automaton searches a few kilobytes (a person's texts), once: built as a contiguous NFA
# it costs a third of the DFA that ahocorasick-rs picks for a few dozen patterns, and searches
# about as fast (benchmarks/search.py).
GROUP_AUTOMATON = ahocorasick_rs.Implementation.ContiguousNFA


class Needles:
    """The needle sets of a batch (needles: one list per group), prepared once: the distinct
    search forms in one automaton, and for each (group, search form) the form's place in the
    group's alternation (the best place of the group's needles of that form)."""

    def __init__(self, needles: pa.Array):
        self._source = needles
        if isinstance(needles, pa.ChunkedArray):
            needles = needles.combine_chunks()
        self.sets = needles
        encoded = needles.flatten().dictionary_encode()
        distinct = encoded.dictionary
        n = len(distinct)
        # The place in the alternation: longest first, then by code points (the order of UTF-8
        # bytes, as Python sorts strings).
        rank = np.empty(n, dtype=np.int64)
        by = pa.table({"length": pc.negate(pc.utf8_length(distinct)), "needle": distinct})
        rank[pc.sort_indices(by, sort_keys=[("length", "ascending"), ("needle", "ascending")]).to_numpy()] = np.arange(n)
        # the search forms: of ASCII needles by Arrow, of the others by needle_form
        forms = pc.utf8_trim(pc.replace_substring_regex(pc.ascii_lower(distinct), ASCII_SPACE_RE2, " "), " ")
        other = np.flatnonzero(~pc.string_is_ascii(distinct).to_numpy(zero_copy_only=False))
        if len(other):
            mask = np.zeros(n, dtype=bool)
            mask[other] = True
            forms = pc.replace_with_mask(forms, pa.array(mask), pa.array(
                [needle_form(x) or "" for x in distinct.take(pa.array(other)).to_pylist()], pa.string()))
        searched = pc.not_equal(forms, "").to_numpy(zero_copy_only=False)
        encoded_forms = forms.dictionary_encode()
        self.norms = encoded_forms.dictionary
        pattern = encoded_forms.indices.to_numpy().astype(np.int64)
        patterns = self.norms.cast(pa.binary()).to_pylist()
        # (the automaton's numbers of the forms: "" is no pattern)
        self.form_of = np.flatnonzero(np.fromiter(map(bool, patterns), dtype=bool, count=len(patterns)))
        self.n_forms = max(len(self.norms), 1)
        group = pc.list_parent_indices(needles).to_numpy().astype(np.int64)
        needle = pc.fill_null(encoded.indices, -1).to_numpy().astype(np.int64)
        keep = needle >= 0
        keep[keep] = searched[needle[keep]]
        self.has_needles = np.bincount(group[keep], minlength=len(needles)) > 0
        group, needle = group[keep], needle[keep]
        # (the groups with a needle free of glue characters: a needle with glue matches only where
        # its glue is written, never in a reading of a text without its glue, find._search_apart)
        glued = pc.fill_null(pc.match_substring_regex(distinct, GLUE_RE2), False).to_numpy(zero_copy_only=False)
        self.has_plain_needles = np.bincount(group[~glued[needle]], minlength=len(needles)) > 0
        key = group * self.n_forms + pattern[needle]
        order = np.lexsort((rank[needle], key))
        key, best = key[order], rank[needle][order]
        first = np.ones(len(key), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        self.pair_key, self.pair_rank = key[first], best[first]
        self._patterns = patterns
        self._groups: dict[int, tuple] = {}
        self._sets: dict[bytes, tuple] = {}

    # (built when first searched with: where each group's texts are searched by the group's own
    # automaton, find._group_runs, the automaton of every group's needles is never read; the leak
    # check of the blog sample built it for 0.3 s and used it for nothing)
    @functools.cached_property
    def automaton(self):
        """The automaton of all the batch's search forms (None without any)."""
        return ahocorasick_rs.BytesAhoCorasick([self._patterns[i] for i in self.form_of.tolist()]) \
            if len(self.form_of) else None

    def of_groups(self, groups: np.ndarray) -> tuple:
        """The automaton of the needles of `groups` (distinct group numbers) and its patterns'
        forms (or None, None); the batch's automaton where they are half its groups or more. (The
        texts a search reads apart, those with glue, are of a few groups: the leak check of the blog
        sample built the automaton of all 300 persons' needles for the glued texts of 70.)"""
        if 2 * len(groups) >= np.count_nonzero(self.has_needles):
            return self.automaton, self.form_of
        key = groups.tobytes()
        if key not in self._sets:
            lo = np.searchsorted(self.pair_key, groups * self.n_forms)
            hi = np.searchsorted(self.pair_key, (groups + 1) * self.n_forms)
            forms = np.unique(np.concatenate([self.pair_key[a:b] for a, b in zip(lo.tolist(), hi.tolist())]
                                             + [np.zeros(0, dtype=np.int64)]) % self.n_forms)
            self._sets[key] = (ahocorasick_rs.BytesAhoCorasick([self._patterns[f] for f in forms.tolist()]), forms) \
                if len(forms) else (None, None)
        return self._sets[key]

    def of_group(self, g: int) -> tuple:
        """The automaton of group g's own needles and its patterns' forms (or None, None): a batch's
        automaton of every group's needles reports, in each text, the matches of all of them, which
        are then thrown away but for the text's own group's (on the leak check of the blog sample,
        5.4 million matches of which 6,708 counted)."""
        if g not in self._groups:
            lo, hi = np.searchsorted(self.pair_key, [g * self.n_forms, (g + 1) * self.n_forms])
            forms = self.pair_key[lo:hi] - g * self.n_forms
            # (only the last group's is kept: a group's texts are searched in one run, or in two
            # where a slice ends inside them (find_texts_sliced), one after the other; every
            # group's kept held 0.6 GB in one call of the leak check on the blog corpus shape)
            self._groups = {g: (ahocorasick_rs.BytesAhoCorasick([self._patterns[f] for f in forms.tolist()],
                                                                implementation=GROUP_AUTOMATON), forms)
                            if len(forms) else (None, None)}
        return self._groups[g]

    def __reduce__(self):
        # (the automaton cannot be pickled: an engine that ships a UDF to its workers, Spark,
        # sends the needles, and each worker builds the automaton again)
        return Needles, (self._source,)

    def rank_of(self, group: np.ndarray, form: np.ndarray) -> np.ndarray:
        """The place of each (group, form) in the group's alternation, -1 where the group has no
        needle of that form."""
        key = group * self.n_forms + form
        at = np.minimum(np.searchsorted(self.pair_key, key), max(len(self.pair_key) - 1, 0))
        if not len(self.pair_key):
            return np.full(len(key), -1, dtype=np.int64)
        return np.where(self.pair_key[at] == key, self.pair_rank[at], -1)
