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

import duckdb
import numpy as np

from .config import Config
from .errors import ConfigError
from .partition_diversity import prepare as prepare_sensitive
from .partition_level import RELATIONAL, TEXTUAL, Candidates, Level
from .partition_sql import TEMPORARY, index_persons, partition_levels, per_person_rows
from .sqlrun import drop_temporary, run_file, table

NUMERIC_KINDS = ("numeric", "date")
RANKED_KINDS = ("nominal", "ordinal")


class Rows:
    """A table's rows of the open partitions: person index, attribute or term, value (None for
    terms), and the open partition (its index in the level's list), sorted by partition, then by
    `what` and `value`."""

    def __init__(self, person: np.ndarray, what: np.ndarray, value: np.ndarray | None, seg: np.ndarray | None = None):
        self.person, self.what, self.value = person.astype(np.int32), what.astype(np.int32), value
        self.seg = np.zeros(len(person), dtype=np.int32) if seg is None else seg

    def take(self, order: np.ndarray, seg: np.ndarray) -> "Rows":
        return Rows(self.person[order], self.what[order], None if self.value is None else self.value[order], seg)


class Inputs:
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
        self.values = Rows(v["idx"], v["position"], v["num"])
        self.keys = Rows(kk["idx"], kk["position"], kk["key"])
        self.terms = Rows(pt["idx"], pt["term_id"], None)


def _stable_split(rows: Rows, side: np.ndarray, new_seg: np.ndarray) -> Rows:
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
    prepare_sensitive(con, cfg, 0)
    try:
        levels = partition_levels(con, cfg)
        run_file(con, "partition", cfg.schema)
    finally:
        drop_temporary(con, *TEMPORARY)
    return levels


def _partition_in_memory(con: duckdb.DuckDBPyConnection, cfg: Config) -> int:
    d = Inputs(con, cfg.schema)
    n, k = d.n_persons, d.k
    diverse = prepare_sensitive(con, cfg, n)
    final = np.ones(n, dtype=np.int64)                  # each person's partition id
    opened = n >= 2 * k                                 # a partition of at least 2k persons may be cut
    seg_of_person = np.full(n, 0 if opened else -1, dtype=np.int64)
    pid = np.array([1] if opened else [], dtype=np.int64)   # the open partitions, in id order
    size = np.array([n] if opened else [], dtype=np.int64)
    top, level, out = 1, 0, []
    while len(pid):
        scoring = Level(d, size, seg_of_person)
        c = scoring.gdf() if d.strategy == "gdf" else Candidates.concat([scoring.relational(), scoring.textual()])
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


def _cut_on(c: Candidates, chosen: np.ndarray, kind: int, what: np.ndarray, n_open: int) -> np.ndarray:
    """Per open partition, the attribute or term its chosen cut is on, if of that kind (-1: none)."""
    out = np.full(n_open, -1, dtype=np.int64)
    mine = chosen[c.kind[chosen] == kind]
    out[c.seg[mine]] = what[mine]
    return out


CANDIDATE_TYPES = {
    "level": np.int32, "partition_id": np.int64, "size": np.int64, "kind": np.int8, "name": np.int32,
    "span": np.float64, "bias": np.float64, "priority": np.float64, "op": np.int8, "cut_value": np.float64,
    "cut_term": np.int64, "left": np.int64, "allowable": bool, "chosen": bool, "left_id": np.int64}


def _write(con: duckdb.DuckDBPyConnection, cfg: Config, d: Inputs, out: list[dict], final: np.ndarray) -> None:
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
