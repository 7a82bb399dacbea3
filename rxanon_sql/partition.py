"""The partitioning stage: the modified Mondrian with lambda and bias, or GDF (paper 000,
Algorithms 1 and 2; docs/how-it-works.md).

Level-synchronous and vectorized: each pass of the loop in `partition` is one Mondrian level,
which scores the candidate cuts of every open partition at once and applies the chosen ones.
There is no loop over partitions or persons. The level runs on numpy arrays read once from the
person-centric tables (persons.sql), and `sql/partition.sql` writes the result back:
`rx.partitions` (person -> partition_id), `rx.splits` (one row per cut made),
`rx.split_candidates` (every candidate scored) and `rx.partition_tree`.

(In SQL a level took 12 statements, whose planning cost DuckDB more than running them: 5,000
authors took 1.4 s over 16 levels. partition_sql.py keeps those levels for data beyond memory.)

The rows of each table stay sorted by open partition, and within one by a fixed order (values
by attribute and value, keys by attribute and key, terms by term id). A cut moves each row to
its side by a stable sort, which keeps that order. So every count, distinct count, median and
document frequency of a level is a run of consecutive rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np

from .config import Config
from .diversity import TOLERANCE, check_dataset, load_values
from .errors import ConfigError
from .partition_sql import TEMPORARY, index_persons, partition_levels, per_person_rows
from .sqlrun import drop_temporary, run_file, table

NUMERIC_KINDS = ("numeric", "date")
RANKED_KINDS = ("nominal", "ordinal")
# a candidate's cut_op and kind as codes (sql/partition.sql turns them into strings)
NO_CUT, LT, LE, HAS = 0, 1, 2, 3
RELATIONAL, TEXTUAL = 0, 1
CELLS = 2 ** 22         # value counts held at once by the check of l and t (32 MB)


class _Rows:
    """A table's rows of the open partitions: person index, attribute or term, value (None for
    terms), and the open partition (its index in the level's list), sorted by partition, then by
    `what` and `value`."""

    def __init__(self, person: np.ndarray, what: np.ndarray, value: np.ndarray | None, seg: np.ndarray | None = None):
        self.person, self.what, self.value = person.astype(np.int32), what.astype(np.int32), value
        self.seg = np.zeros(len(person), dtype=np.int32) if seg is None else seg

    def take(self, order: np.ndarray, seg: np.ndarray) -> "_Rows":
        return _Rows(self.person[order], self.what[order], None if self.value is None else self.value[order], seg)


def _starts(*keys: np.ndarray) -> np.ndarray:
    """Where a run of equal consecutive key tuples starts (the keys are sorted)."""
    n = len(keys[0])
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
        for key in keys:
            change[1:] |= key[1:] != key[:-1]
    return np.flatnonzero(change)


def _run_lengths(starts: np.ndarray, n: int) -> np.ndarray:
    return np.diff(np.append(starts, n))


def _run_of(starts: np.ndarray, n: int) -> np.ndarray:
    """For each row, the index of its run."""
    marks = np.zeros(n, dtype=np.int64)
    marks[starts] = 1
    return np.cumsum(marks) - 1


def _first_per_run(run: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Of `candidates` (sorted row indexes), the first one of each run they fall in."""
    r = run[candidates]
    return candidates[np.append(True, r[1:] != r[:-1])] if len(candidates) else candidates


class _Inputs:
    """The person-centric view (persons.sql) as arrays, with the run's parameters."""

    def __init__(self, con: duckdb.DuckDBPyConnection, s: str):
        def q(sql: str) -> dict:
            # (strings as lists: pyarrow imports pandas to convert numpy's arrays of objects)
            return {c: x.tolist() if x.dtype == object else x for c, x in con.execute(sql).fetchnumpy().items()}

        t = {name: table(name, s).sql("duckdb") for name in (
            "params", "attributes", "labels", "domain", "person_values", "person_keys",
            "person_terms", "term_ids")}
        self.k, self.lam, self.strategy, self.order = con.execute(
            f"SELECT k, lam, strategy, nominal_order FROM {t['params']}").fetchall()[0]
        a = q(f"SELECT a.attribute, a.kind, a.bias, coalesce(d.width, 0) AS width, coalesce(d.n_distinct, 0) AS n "
              f"FROM {t['attributes']} AS a LEFT JOIN {t['domain']} AS d ON d.kind = 'relational' "
              f"AND d.name = a.attribute ORDER BY a.position")
        self.attributes = a["attribute"]
        self.numeric = np.isin(a["kind"], NUMERIC_KINDS)
        self.ranked = np.isin(a["kind"], RANKED_KINDS)
        self.nominal = np.isin(a["kind"], ["nominal"])
        self.attribute_bias, self.width, self.attribute_distinct = a["bias"], a["width"], a["n"]
        # labels and terms by their ids (persons.sql numbers both from 1)
        lab = q(f"SELECT d.label_id, d.name, d.n_distinct, coalesce(l.bias, 0) AS bias FROM {t['domain']} AS d "
                f"LEFT JOIN {t['labels']} AS l ON l.label = d.name WHERE d.kind = 'textual'")
        n_labels = int(lab["label_id"].max(initial=0)) + 1
        self.labels: list = [None] * n_labels
        self.label_distinct, self.label_bias = np.ones(n_labels), np.zeros(n_labels)
        for i, name, n, b in zip(lab["label_id"], lab["name"], lab["n_distinct"], lab["bias"]):
            self.labels[i], self.label_distinct[i], self.label_bias[i] = name, n, b
        # a name's rank among all names, attributes' and labels' (they sort as DuckDB sorts strings)
        names = sorted([(a, RELATIONAL, i) for i, a in enumerate(self.attributes)] +
                       [(lab, TEXTUAL, i) for i, lab in enumerate(self.labels) if lab is not None],
                       key=lambda x: x[0].encode())
        self.name_rank = np.zeros((2, max(len(self.attributes), n_labels)), dtype=np.int64)
        for r, (_, kind, i) in enumerate(names):
            self.name_rank[kind, i] = r
        terms = q(f"SELECT term_id, label_id FROM {t['term_ids']}")
        self.term_label = np.zeros(int(terms["term_id"].max(initial=0)) + 1, dtype=np.int64)
        self.term_label[terms["term_id"]] = terms["label_id"]

        self.n_persons = index_persons(con, s)
        rows = "AS v JOIN person_index AS p ON p.person = v.person"
        position = f"JOIN {t['attributes']} AS a ON a.attribute = v.attribute"
        v = q(f"SELECT p.idx, a.position, v.num FROM {t['person_values']} {rows} {position} ORDER BY a.position, v.num")
        kk = q(f"SELECT p.idx, a.position, v.key FROM {t['person_keys']} {rows} {position} "
               f"WHERE v.key IS NOT NULL ORDER BY a.position, v.key")
        pt = q(f"SELECT p.idx, v.term_id FROM {t['person_terms']} {rows} ORDER BY v.term_id")
        self.values = _Rows(v["idx"], v["position"], v["num"])
        self.keys = _Rows(kk["idx"], kk["position"], kk["key"])
        self.terms = _Rows(pt["idx"], pt["term_id"], None)


@dataclass
class _Candidates:
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
    def concat(parts: list["_Candidates"]) -> "_Candidates":
        return _Candidates(*(np.concatenate([getattr(p, f) for p in parts]) for f in _Candidates.__dataclass_fields__))


class _Level:
    """The scoring of one level: the candidates of every open partition, and for each row whether
    it lies left of its own partition's candidate cut on its attribute (values, keys)."""

    def __init__(self, d: _Inputs, size: np.ndarray, seg_of_person: np.ndarray):
        self.d, self.size, self.k, self.seg_of_person = d, size, d.k, seg_of_person
        # (GDF cuts on terms only)
        self.value_left = np.zeros(len(d.values.seg), dtype=bool)
        self.key_left = np.zeros(len(d.keys.seg), dtype=bool)
        self.relational_left = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def relational(self) -> _Candidates:
        """Per open partition and attribute with values there: the span, and the cut. Numeric and
        date: left are the persons whose key is below the median of the keys. Nominal and
        ordinal: left are the persons holding one of the first floor(n/2) of the n distinct
        values, in value order or (nominal, with nominal_order = 'frequency') by the persons
        holding them, ties in value order."""
        d, A = self.d, len(self.d.attributes)
        v, m = d.values, len(d.values.seg)
        g = v.seg * A + v.what
        gs = _starts(g)
        group_of_row = _run_of(gs, m)
        group = g[gs]                    # (partition, attribute) of each run
        seg, att = group // A, group % A
        width = v.value[gs + _run_lengths(gs, m) - 1] - v.value[gs]
        # the distinct values of a group (each run holds its persons: person_values is distinct)
        vs = _starts(g, v.value)
        value_of_row = _run_of(vs, m)
        value_group = group_of_row[vs]
        n_distinct = np.bincount(value_group, minlength=len(gs))
        span = np.where(d.numeric[att], np.divide(width, d.width[att], out=np.zeros(len(gs)), where=d.width[att] > 0),
                        n_distinct / np.maximum(d.attribute_distinct[att], 1))
        op, cut, left = np.full(len(gs), NO_CUT), np.full(len(gs), np.nan), np.zeros(len(gs), dtype=np.int64)

        rank = np.arange(len(vs)) - value_of_row[gs][value_group]      # from 0, in value order
        if d.order == "frequency":
            holders = np.where(d.nominal[att[value_group]], _run_lengths(vs, m), 0)
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
        ks = _starts(kg)
        count = _run_lengths(ks, km)
        lo, hi = kr.value[ks + (count - 1) // 2], kr.value[ks + count // 2]
        median = np.where(count % 2 == 1, lo, (lo + hi) / 2)
        key_group = _run_of(ks, km)
        self.key_left = kr.value < median[key_group]
        at = np.searchsorted(group, kg[ks])
        op[at], cut[at] = LT, median
        left[at] += np.bincount(key_group[self.key_left], minlength=len(ks))
        # who is left of each candidate, as (candidate, person) pairs (for the sensitive attributes)
        self.relational_left = (np.concatenate([held_at, at[key_group[self.key_left]]]),
                                np.concatenate([held // A, kr.person[self.key_left]]))
        bias = d.attribute_bias[att]
        return _Candidates(seg, np.full(len(gs), RELATIONAL), att, span, bias, (span + d.lam + bias) / 2,
                           op, cut, np.zeros(len(gs), dtype=np.int64), left)

    def _term_groups(self):
        """Runs of (partition, term): their partition, term, label and document frequency, and
        whether a presence cut on the term is allowable."""
        t = self.d.terms
        ts = _starts(t.seg, t.what)
        seg, term = t.seg[ts], t.what[ts]
        df = _run_lengths(ts, len(t.seg))
        size = self.size[seg]
        allowable = (df >= self.k) & (df <= size - self.k)
        return seg, term, self.d.term_label[term], df, size, allowable

    def textual(self) -> _Candidates:
        """Per open partition and label: the presence cut on the label's term whose document
        frequency is closest to |P|/2 among the allowable ones (ties: larger df, then term id)."""
        d = self.d
        seg, term, label, df, size, allowable = self._term_groups()
        ls = _starts(seg, label)
        lrun = _run_of(ls, len(seg))
        score = np.abs(2 * df - size) * (d.n_persons + 1) + (size - df)
        left, pick = self._pick(score, allowable, ls, lrun, df, term)
        lseg, llabel = seg[ls], label[ls]
        span = _run_lengths(ls, len(seg)) / d.label_distinct[llabel]
        w = 1 - d.lam
        n = len(ls)
        return _Candidates(lseg, np.full(n, TEXTUAL), llabel, span, d.label_bias[llabel],
                           (span + w + d.label_bias[llabel]) / 2, np.full(n, HAS), np.full(n, np.nan), pick, left)

    def gdf(self) -> _Candidates:
        """GDF (paper 000, Algorithm 2): per open partition, the presence cut on its most frequent
        term among the allowable ones (ties: term id, which follows label, then norm)."""
        seg, term, label, df, size, allowable = self._term_groups()
        ss = _starts(seg)
        left, pick = self._pick(size - df, allowable, ss, _run_of(ss, len(seg)), df, term)
        has = pick > 0
        n = int(has.sum())
        return _Candidates(seg[ss][has], np.full(n, TEXTUAL), self.d.term_label[pick[has]], np.full(n, np.nan),
                           np.zeros(n), left[has].astype(np.float64), np.full(n, HAS), np.full(n, np.nan),
                           pick[has], left[has])

    def left_members(self, c: _Candidates) -> tuple[np.ndarray, np.ndarray]:
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
            hit = _first_per_run(run, np.flatnonzero(allowable & (score == best[run])))
            left[run[hit]], pick[run[hit]] = df[hit], term[hit]
        return left, pick


def _stable_split(rows: _Rows, side: np.ndarray, new_seg: np.ndarray) -> _Rows:
    """The rows moved to their side of their partition's cut: new_seg[2 * seg + side] is the
    side's index among the next level's open partitions (-1: closed, its rows are dropped). The
    sort is stable, so the rows keep their order within each side."""
    target = new_seg[rows.seg * 2 + side]
    kept = np.flatnonzero(target >= 0)
    # (numpy sorts 16-bit keys by radix sort, in half the time)
    key = target[kept].astype(np.uint16) if len(new_seg) <= 2 ** 16 else target[kept]
    order = kept[np.argsort(key, kind="stable")]
    return rows.take(order, target[order])


def partition(con: duckdb.DuckDBPyConnection, cfg: Config) -> int:
    """Partition D*; returns the number of levels. In memory up to anonymization.in_memory_rows
    per-person rows, else as SQL on the engine (partition_sql.py), with the same result."""
    rows = per_person_rows(con, cfg.schema)
    if rows <= cfg.in_memory_rows:
        return _partition_in_memory(con, cfg)
    if cfg.l is not None or cfg.t is not None:
        raise ConfigError(f"anonymization.{'l' if cfg.l is not None else 't'} needs the in-memory partitioner, but the "
                          f"persons have {rows:,} values, keys and terms, more than anonymization.in_memory_rows = "
                          f"{cfg.in_memory_rows:,}")
    index_persons(con, cfg.schema)
    _diversity(con, cfg, 0)
    try:
        levels = partition_levels(con, cfg)
        run_file(con, "partition", cfg.schema)
    finally:
        drop_temporary(con, *TEMPORARY)
    return levels


def _partition_in_memory(con: duckdb.DuckDBPyConnection, cfg: Config) -> int:
    d = _Inputs(con, cfg.schema)
    n, k = d.n_persons, d.k
    diverse = _diversity(con, cfg, n)
    final = np.ones(n, dtype=np.int64)                  # each person's partition id
    opened = n >= 2 * k                                 # a partition of at least 2k persons may be cut
    seg_of_person = np.full(n, 0 if opened else -1, dtype=np.int64)
    pid = np.array([1] if opened else [], dtype=np.int64)   # the open partitions, in id order
    size = np.array([n] if opened else [], dtype=np.int64)
    top, level, out = 1, 0, []
    while len(pid):
        scoring = _Level(d, size, seg_of_person)
        c = scoring.gdf() if d.strategy == "gdf" else _Candidates.concat([scoring.relational(), scoring.textual()])
        allowable = (c.left >= k) & (size[c.seg] - c.left >= k)
        if diverse is not None:
            allowable &= diverse.allows(allowable, c.seg, *scoring.left_members(c), seg_of_person)
        # in each partition the allowable candidate of highest priority (ties: name, then kind)
        ok = np.flatnonzero(allowable)
        ok = ok[np.lexsort((c.kind[ok], d.name_rank[c.kind[ok], c.name[ok]], -c.priority[ok], c.seg[ok]))]
        chosen = ok[np.append(True, c.seg[ok][1:] != c.seg[ok][:-1])] if len(ok) else ok
        cseg = c.seg[chosen]
        is_cut = np.zeros(len(pid), dtype=bool)
        is_cut[cseg] = True
        chosen_mask = np.zeros(len(c.seg), dtype=bool)
        chosen_mask[chosen] = True
        # the sides of the r-th cut partition (in id order) get ids top + 2r - 1 and top + 2r
        left_id = np.zeros(len(c.seg), dtype=np.int64)
        left_id[chosen] = top + 2 * np.arange(1, len(chosen) + 1) - 1
        top += 2 * len(chosen)
        out.append(dict(level=np.full(len(c.seg), level), partition_id=pid[c.seg], size=size[c.seg], kind=c.kind,
                        name=c.name, span=c.span, bias=c.bias, priority=c.priority, op=c.op, cut_value=c.cut_value,
                        cut_term=c.cut_term, left=c.left, allowable=allowable,
                        chosen=chosen_mask, left_id=left_id))

        # who goes left: the tests that counted the candidates' left sides
        on_attribute = _cut_on(c, chosen, RELATIONAL, c.name, len(pid))
        on_term = _cut_on(c, chosen, TEXTUAL, c.cut_term, len(pid))
        goes_left = np.zeros(n, dtype=bool)
        for rows, left in ((d.values, scoring.value_left), (d.keys, scoring.key_left)):
            goes_left[rows.person[left & (on_attribute[rows.seg] == rows.what)]] = True
        goes_left[d.terms.person[on_term[d.terms.seg] == d.terms.what]] = True

        # the sides, by slot 2 * partition + (0 left, 1 right); those of at least 2k persons stay open
        side_size = np.zeros(2 * len(pid), dtype=np.int64)
        side_size[2 * cseg], side_size[2 * cseg + 1] = c.left[chosen], size[cseg] - c.left[chosen]
        side_id = np.zeros(2 * len(pid), dtype=np.int64)
        side_id[2 * cseg], side_id[2 * cseg + 1] = left_id[chosen], left_id[chosen] + 1
        still_open = np.flatnonzero(side_size >= 2 * k)
        new_seg = np.full(2 * len(pid), -1, dtype=np.int32)
        new_seg[still_open] = np.arange(len(still_open))

        members = np.flatnonzero(seg_of_person >= 0)
        slot = 2 * seg_of_person[members] + ~goes_left[members]
        cut = is_cut[seg_of_person[members]]
        final[members[cut]] = side_id[slot[cut]]
        if not np.array_equal(np.bincount(slot[cut], minlength=2 * len(pid)), side_size):
            raise AssertionError("a cut moved other persons than its candidate counted")
        person_side = np.zeros(n, dtype=np.int64)
        person_side[members] = slot % 2
        seg_of_person[:] = -1
        seg_of_person[members] = np.where(cut, new_seg[slot], -1)
        d.values, d.keys, d.terms = (_stable_split(r, person_side[r.person], new_seg) for r in (d.values, d.keys, d.terms))
        pid, size = side_id[still_open], side_size[still_open]
        level += 1
    _write(con, cfg, d, out, final)
    return level


def _cut_on(c: _Candidates, chosen: np.ndarray, kind: int, what: np.ndarray, n_open: int) -> np.ndarray:
    """Per open partition, the attribute or term its chosen cut is on, if of that kind (-1: none)."""
    out = np.full(n_open, -1, dtype=np.int64)
    mine = chosen[c.kind[chosen] == kind]
    out[c.seg[mine]] = what[mine]
    return out


CANDIDATE_TYPES = {
    "level": np.int32, "partition_id": np.int64, "size": np.int64, "kind": np.int8, "name": np.int32,
    "span": np.float64, "bias": np.float64, "priority": np.float64, "op": np.int8, "cut_value": np.float64,
    "cut_term": np.int64, "left": np.int64, "allowable": bool, "chosen": bool, "left_id": np.int64}


def _write(con: duckdb.DuckDBPyConnection, cfg: Config, d: _Inputs, out: list[dict], final: np.ndarray) -> None:
    """The result tables, by sql/partition.sql from the candidates of every level and each
    person's partition. (DuckDB scans the numpy arrays as they are.)"""
    candidates = {f: np.concatenate([level[f] for level in out]).astype(t) if out else np.zeros(0, t)
                  for f, t in CANDIDATE_TYPES.items()}
    candidates["has_span"] = ~np.isnan(candidates["span"])
    con.register("partition_candidates", candidates)
    con.register("partition_assignment", {"idx": np.arange(d.n_persons, dtype=np.int32), "partition_id": final})
    try:
        run_file(con, "partition", cfg.schema)
    finally:
        con.unregister("partition_candidates")
        con.unregister("partition_assignment")


def _diversity(con: duckdb.DuckDBPyConnection, cfg: Config, n_persons: int) -> "_Diverse | None":
    """rx.sensitive_values from rx.dataset, and the check of l and t when either is set."""
    if not cfg.sensitive:
        return None
    load_values(con, cfg, table("dataset", cfg.schema))
    try:
        con.execute(f"CREATE OR REPLACE TABLE {table('sensitive_values', cfg.schema).sql('duckdb')} AS "
                    f"SELECT person, attribute, value, rank, ordered FROM sensitive_values ORDER BY attribute, rank, person")
        check_dataset(con, cfg)
        return _Diverse(con, cfg, n_persons) if cfg.l is not None or cfg.t is not None else None
    finally:
        drop_temporary(con, "sensitive_source", "sensitive_values", "sensitive_domain")


class _Diverse:
    """Distinct l-diversity and t-closeness of a set of persons, for many sets at once: each set
    is a row of value counts (persons holding each value of each sensitive attribute), over the
    values of all attributes side by side in rank order (sql/sensitive_values.sql)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, cfg: Config, n_persons: int):
        # each value of each attribute numbered from 0, the attributes' values side by side
        con.execute("CREATE OR REPLACE TEMP TABLE sensitive_ids AS SELECT attribute, rank, q, ordered, "
                    "CAST(row_number() OVER (ORDER BY attribute, rank) - 1 AS BIGINT) AS value_id FROM sensitive_domain")
        self.q = con.execute("SELECT q FROM sensitive_ids ORDER BY value_id").fetchnumpy()["q"]
        self.blocks = [(lo, hi, ordered) for lo, hi, ordered in con.execute(
            "SELECT min(value_id), max(value_id) + 1, bool_or(ordered) FROM sensitive_ids GROUP BY attribute").fetchall()]
        self.width, self.l, self.t = len(self.q), cfg.l, cfg.t
        v = con.execute("SELECT p.idx, i.value_id FROM sensitive_values AS v JOIN person_index AS p ON p.person = v.person "
                        "JOIN sensitive_ids AS i ON i.attribute = v.attribute AND i.rank = v.rank "
                        "ORDER BY p.idx").fetchnumpy()
        drop_temporary(con, "sensitive_ids")
        self.value = v["value_id"]
        self.start = np.searchsorted(v["idx"], np.arange(n_persons + 1))

    def counts(self, owner: np.ndarray, person: np.ndarray, n: int) -> np.ndarray:
        """Per owner (0..n-1), the counts of the values of the persons paired with it."""
        deg = self.start[person + 1] - self.start[person]
        rows = np.repeat(self.start[person] - np.cumsum(deg) + deg, deg) + np.arange(deg.sum())
        return np.bincount(np.repeat(owner, deg) * self.width + self.value[rows],
                           minlength=n * self.width).reshape(n, self.width)

    def ok(self, counts: np.ndarray) -> np.ndarray:
        good = np.ones(len(counts), dtype=bool)
        for lo, hi, ordered in self.blocks:
            block = counts[:, lo:hi]
            if self.l is not None:
                good &= (block > 0).sum(axis=1) >= self.l
            if self.t is not None:
                diff = block / np.maximum(block.sum(axis=1, keepdims=True), 1) - self.q[lo:hi]
                distance = (np.abs(np.cumsum(diff, axis=1)).sum(axis=1) / max(hi - lo - 1, 1) if ordered
                            else np.abs(diff).sum(axis=1) / 2)
                good &= distance <= self.t + TOLERANCE
        return good

    def allows(self, allowable: np.ndarray, seg: np.ndarray, cand: np.ndarray, person: np.ndarray,
               seg_of_person: np.ndarray) -> np.ndarray:
        """Of the candidates `allowable` by k, those whose both sides meet l and t. The counts take
        a row of every sensitive value per candidate and per partition, and a numeric attribute
        may have thousands of values: so they are made for CELLS cells at a time, in as many
        chunks of candidates as that takes (one on UCI Adult)."""
        out = np.zeros(len(allowable), dtype=bool)
        idx = np.flatnonzero(allowable)
        slot = np.full(len(allowable), -1, dtype=np.int64)
        slot[idx] = np.arange(len(idx))
        pair_slot = slot[cand]
        members = np.flatnonzero(seg_of_person >= 0)
        step = max(1, CELLS // self.width)
        for lo in range(0, len(idx), step):
            part = idx[lo:lo + step]
            segs, seg_row = np.unique(seg[part], return_inverse=True)
            at = np.minimum(np.searchsorted(segs, seg_of_person[members]), len(segs) - 1)
            inside = segs[at] == seg_of_person[members]
            total = self.counts(at[inside], members[inside], len(segs))
            mine = (pair_slot >= lo) & (pair_slot < lo + len(part))
            left = self.counts(pair_slot[mine] - lo, person[mine], len(part))
            out[part] = self.ok(left) & self.ok(total[seg_row] - left)
        return out
