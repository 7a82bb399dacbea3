"""Sensitive attributes while partitioning: a cut is allowable only if both its sides keep
distinct l-diversity and t-closeness (docs/privacy.md, "Sensitive attributes"). The values and
the check of the whole dataset are diversity.py's; here they are counted per candidate side, for
every candidate of a level at once."""
from __future__ import annotations

import duckdb
import numpy as np

from .config import Config
from .diversity import TOLERANCE, check_dataset, load_values
from .sqlrun import drop_temporary, table

CELLS = 2 ** 22         # value counts held at once by the check of l and t (32 MB)


def prepare(con: duckdb.DuckDBPyConnection, cfg: Config, n_persons: int) -> "Diverse | None":
    """rx.sensitive_values from rx.dataset, and the check of l and t when either is set."""
    if not cfg.sensitive:
        return None
    load_values(con, cfg, table("dataset", cfg.schema))
    try:
        con.execute(f"CREATE OR REPLACE TABLE {table('sensitive_values', cfg.schema).sql('duckdb')} AS "
                    f"SELECT person, attribute, value, rank, ordered FROM sensitive_values ORDER BY attribute, rank, person")
        check_dataset(con, cfg)
        return Diverse(con, cfg, n_persons) if cfg.l is not None or cfg.t is not None else None
    finally:
        drop_temporary(con, "sensitive_source", "sensitive_values", "sensitive_domain")


class Diverse:
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
