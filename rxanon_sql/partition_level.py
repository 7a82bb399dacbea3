"""One level of the partitioner (partition.py): the candidate cuts of every open partition at
once, scored as the modified Mondrian scores them (relational and textual candidates, or GDF's),
and which persons lie left of each. Every count is a run of consecutive rows (partition.py keeps
the rows sorted by open partition), found by the run helpers below."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .partition import Inputs

# a candidate's cut_op and kind as codes (sql/partition.sql turns them into strings)
NO_CUT, LT, LE, HAS = 0, 1, 2, 3
RELATIONAL, TEXTUAL = 0, 1


def starts(*keys: np.ndarray) -> np.ndarray:
    """Where a run of equal consecutive key tuples starts (the keys are sorted)."""
    n = len(keys[0])
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
        for key in keys:
            change[1:] |= key[1:] != key[:-1]
    return np.flatnonzero(change)


def run_lengths(starts: np.ndarray, n: int) -> np.ndarray:
    return np.diff(np.append(starts, n))


def run_of(starts: np.ndarray, n: int) -> np.ndarray:
    """For each row, the index of its run."""
    marks = np.zeros(n, dtype=np.int64)
    marks[starts] = 1
    return np.cumsum(marks) - 1


def first_per_run(run: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Of `candidates` (sorted row indexes), the first one of each run they fall in."""
    r = run[candidates]
    return candidates[np.append(True, r[1:] != r[:-1])] if len(candidates) else candidates



@dataclass
class Candidates:
    """One level's candidates, one entry each."""
    seg: np.ndarray
    kind: np.ndarray        # RELATIONAL, TEXTUAL
    name: np.ndarray        # attribute position, or label id
    span: np.ndarray        # NaN: none (GDF)
    bias: np.ndarray
    priority: np.ndarray
    op: np.ndarray          # NO_CUT, LT, LE, HAS
    cut_value: np.ndarray   # NaN: none
    cut_term: np.ndarray    # term id, 0: none
    left: np.ndarray

    @staticmethod
    def concat(parts: list["Candidates"]) -> "Candidates":
        return Candidates(*(np.concatenate([getattr(p, f) for p in parts]) for f in Candidates.__dataclass_fields__))


class Level:
    """The scoring of one level: the candidates of every open partition, and for each row whether
    it lies left of its own partition's candidate cut on its attribute (values, keys)."""

    def __init__(self, d: Inputs, size: np.ndarray, seg_of_person: np.ndarray):
        self.d, self.size, self.k, self.seg_of_person = d, size, d.k, seg_of_person
        # (GDF cuts on terms only)
        self.value_left = np.zeros(len(d.values.seg), dtype=bool)
        self.key_left = np.zeros(len(d.keys.seg), dtype=bool)
        self.relational_left = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def relational(self) -> Candidates:
        """Per open partition and attribute with values there: the span, and the cut. Numeric and
        date: left are the persons whose key is below the median of the keys. Nominal and
        ordinal: left are the persons holding one of the first floor(n/2) of the n distinct
        values, in value order or (nominal, with nominal_order = 'frequency') by the persons
        holding them, ties in value order."""
        d, A = self.d, len(self.d.attributes)
        v, m = d.values, len(d.values.seg)
        g = v.seg * A + v.what
        gs = starts(g)
        group_of_row = run_of(gs, m)
        group = g[gs]                    # (partition, attribute) of each run
        seg, att = group // A, group % A
        width = v.value[gs + run_lengths(gs, m) - 1] - v.value[gs]
        # the distinct values of a group (each run holds its persons: person_values is distinct)
        vs = starts(g, v.value)
        value_of_row = run_of(vs, m)
        value_group = group_of_row[vs]
        n_distinct = np.bincount(value_group, minlength=len(gs))
        span = np.where(d.numeric[att], np.divide(width, d.width[att], out=np.zeros(len(gs)), where=d.width[att] > 0),
                        n_distinct / np.maximum(d.attribute_distinct[att], 1))
        op, cut, left = np.full(len(gs), NO_CUT), np.full(len(gs), np.nan), np.zeros(len(gs), dtype=np.int64)

        rank = np.arange(len(vs)) - value_of_row[gs][value_group]      # from 0, in value order
        if d.order == "frequency":
            holders = np.where(d.nominal[att[value_group]], run_lengths(vs, m), 0)
            by_holders = np.empty_like(rank)
            by_holders[np.lexsort((rank, -holders, value_group))] = rank
            rank = by_holders
        half = n_distinct // 2
        self.value_left = ((rank < half[value_group]) & d.ranked[att[value_group]])[value_of_row]
        ranked = d.ranked[att] & (half >= 1)
        op[ranked], cut[ranked] = LE, half[ranked]
        holds = np.zeros(d.n_persons * A, dtype=bool)
        holds[v.person[self.value_left] * A + v.what[self.value_left]] = True
        held = np.flatnonzero(holds)
        held_at = np.searchsorted(group, self.seg_of_person[held // A] * A + held % A)
        left += np.bincount(held_at, minlength=len(gs))

        kr, km = d.keys, len(d.keys.seg)
        kg = kr.seg * A + kr.what
        ks = starts(kg)
        count = run_lengths(ks, km)
        lo, hi = kr.value[ks + (count - 1) // 2], kr.value[ks + count // 2]
        median = np.where(count % 2 == 1, lo, (lo + hi) / 2)
        key_group = run_of(ks, km)
        self.key_left = kr.value < median[key_group]
        at = np.searchsorted(group, kg[ks])
        op[at], cut[at] = LT, median
        left[at] += np.bincount(key_group[self.key_left], minlength=len(ks))
        # who is left of each candidate, as (candidate, person) pairs (for the sensitive attributes)
        self.relational_left = (np.concatenate([held_at, at[key_group[self.key_left]]]),
                                np.concatenate([held // A, kr.person[self.key_left]]))
        bias = d.attribute_bias[att]
        return Candidates(seg, np.full(len(gs), RELATIONAL), att, span, bias, (span + d.lam + bias) / 2,
                           op, cut, np.zeros(len(gs), dtype=np.int64), left)

    def _term_groups(self):
        """Runs of (partition, term): their partition, term, label and document frequency, and
        whether a presence cut on the term is allowable."""
        t = self.d.terms
        ts = starts(t.seg, t.what)
        seg, term = t.seg[ts], t.what[ts]
        df = run_lengths(ts, len(t.seg))
        size = self.size[seg]
        allowable = (df >= self.k) & (df <= size - self.k)
        return seg, term, self.d.term_label[term], df, size, allowable

    def textual(self) -> Candidates:
        """Per open partition and label: the presence cut on the label's term whose document
        frequency is closest to |P|/2 among the allowable ones (ties: larger df, then term id)."""
        d = self.d
        seg, term, label, df, size, allowable = self._term_groups()
        ls = starts(seg, label)
        lrun = run_of(ls, len(seg))
        score = np.abs(2 * df - size) * (d.n_persons + 1) + (size - df)
        left, pick = self._pick(score, allowable, ls, lrun, df, term)
        lseg, llabel = seg[ls], label[ls]
        span = run_lengths(ls, len(seg)) / d.label_distinct[llabel]
        w = 1 - d.lam
        n = len(ls)
        return Candidates(lseg, np.full(n, TEXTUAL), llabel, span, d.label_bias[llabel],
                           (span + w + d.label_bias[llabel]) / 2, np.full(n, HAS), np.full(n, np.nan), pick, left)

    def gdf(self) -> Candidates:
        """GDF (paper 000, Algorithm 2): per open partition, the presence cut on its most frequent
        term among the allowable ones (ties: term id, which follows label, then norm)."""
        seg, term, label, df, size, allowable = self._term_groups()
        ss = starts(seg)
        left, pick = self._pick(size - df, allowable, ss, run_of(ss, len(seg)), df, term)
        has = pick > 0
        n = int(has.sum())
        return Candidates(seg[ss][has], np.full(n, TEXTUAL), self.d.term_label[pick[has]], np.full(n, np.nan),
                           np.zeros(n), left[has].astype(np.float64), np.full(n, HAS), np.full(n, np.nan),
                           pick[has], left[has])

    def left_members(self, c: Candidates) -> tuple[np.ndarray, np.ndarray]:
        """(candidate, person) for every person left of a candidate cut (relational candidates
        come first in `c`, as relational() gave them; textual ones hold their term)."""
        t, n_terms = self.d.terms, len(self.d.term_label)
        textual = np.flatnonzero((c.kind == TEXTUAL) & (c.cut_term > 0))
        key = c.seg[textual] * n_terms + c.cut_term[textual]
        order = np.argsort(key)
        row_key = t.seg.astype(np.int64) * n_terms + t.what
        at = np.minimum(np.searchsorted(key[order], row_key), max(len(key) - 1, 0))
        hit = np.flatnonzero(key[order][at] == row_key) if len(key) else np.zeros(0, dtype=np.int64)
        cand, person = self.relational_left
        return np.concatenate([cand, textual[order][at[hit]]]), np.concatenate([person, t.person[hit]])

    @staticmethod
    def _pick(score, allowable, starts, run, df, term):
        """Per run of term groups, the allowable one of least score (ties: the first): its df and term."""
        score = np.where(allowable, score, np.iinfo(np.int64).max)
        left = np.zeros(len(starts), dtype=np.int64)
        pick = np.zeros(len(starts), dtype=np.int64)
        if len(score):
            best = np.minimum.reduceat(score, starts)
            hit = first_per_run(run, np.flatnonzero(allowable & (score == best[run])))
            left[run[hit]], pick[run[hit]] = df[hit], term[hit]
        return left, pick
