"""NCP_A on UCI Adult with and without ARX's generalization hierarchies (attributes.X.hierarchy).

    python benchmarks/hierarchies.py                 # k = 5, the 30,162 rows of ../shared/data/adult
    python benchmarks/hierarchies.py --k 2 5 10

Both runs have the same partitions (Mondrian cuts on the values; a hierarchy changes recoding and
NCP only), so the table shows what recoding to a hierarchy's nodes costs against ranges and
value sets: per attribute, NCP = the values of D* that the shown value stands for / the distinct
values of D* (0 for one value), averaged over the records. The last column gives the same runs
under ARX's normalised loss, (values under the node - 1) / (distinct values - 1), for comparison.
"""
from __future__ import annotations

import argparse
import tempfile
import time
import tomllib
from pathlib import Path

import duckdb

from children import ADULT_QIS as QIS, adult_database
from rxanon_sql.config import parse_config
from rxanon_sql.pipeline import apply

ADULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "adult"

# The mean over records of ARX's normalised loss per attribute, then over the attributes (numeric
# without a hierarchy: its range's share, as in NCP).
ARX_LOSS = """
SELECT avg(loss) FROM (
    SELECT p.person, avg(CASE WHEN a.kind = 'numeric' AND NOT a.hierarchy THEN (r.hi - r.lo) / d.width
                              WHEN d.n_distinct > 1 THEN (r.covered - 1) / (d.n_distinct - 1) ELSE 0 END) AS loss
    FROM rx.partitions AS p
    JOIN rx.recoded_values AS r ON r.partition_id = p.partition_id
    JOIN rx.attributes AS a ON a.attribute = r.attribute
    JOIN rx.domain AS d ON d.kind = 'relational' AND d.name = r.attribute
    GROUP BY p.person
)
"""


def config(k: int, hierarchies: bool):
    lines = ['[source]', 'relations = ["adult"]', 'person = "id"', 'insensitive = ["salary-class"]']
    for c in QIS:
        lines += [f'[attributes."{c}"]', f'type = "{"numeric" if c == "age" else "nominal"}"']
        if hierarchies:
            lines.append(f'hierarchy = "adult_hierarchy_{c}.csv"')
    lines += ['[anonymization]', f'k = {k}', 'lambda = 1.0']
    return parse_config(tomllib.loads("\n".join(lines)), base=ADULT)


def measure(db: str, k: int, hierarchies: bool) -> dict:
    con = duckdb.connect(db)
    start = time.perf_counter()
    report = apply(con, config(k, hierarchies), reuse=True)
    seconds = time.perf_counter() - start
    out = {"seconds": seconds, "reused": report.reused, "classes": report.verdict.classes,
           "smallest": report.verdict.smallest, "ok": report.verdict.ok,
           "ncp_a": con.execute("SELECT ncp_a FROM rx.ncp").fetchall()[0][0],
           "arx": con.execute(ARX_LOSS).fetchall()[0][0],
           "partitions": report.counts["partitions"],
           "attributes": dict(con.execute("SELECT attribute, ncp FROM rx.ncp_attributes").fetchall())}
    con.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--k", type=int, nargs="+", default=[5])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        db = adult_database(str(Path(work) / "adult.duckdb"))
        con = duckdb.connect(db)
        rows = con.execute("SELECT count(*) FROM adult").fetchall()[0][0]
        con.close()
        print(f"### UCI Adult ({rows:,} rows, 8 quasi-identifiers, lambda = 1): NCP_A with and without "
              "ARX's hierarchies\n")
        print("| k | recoding | partitions | classes | smallest | seconds | NCP_A | ARX loss | "
              + " | ".join(QIS) + " |")
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in QIS) + " |")
        for k in args.k:
            for hierarchies in (False, True):
                m = measure(db, k, hierarchies)
                assert m["ok"], m
                name = "hierarchies" if hierarchies else "ranges and sets"
                print(f"| {k} | {name} | {m['partitions']:,} | {m['classes']:,} | {m['smallest']} | "
                      f"{m['seconds']:.1f}{' (reused)' if m['reused'] else ''} | {m['ncp_a']:.4f} | {m['arx']:.4f} | "
                      + " | ".join(f"{m['attributes'][c]:.3f}" for c in QIS) + " |")


if __name__ == "__main__":
    main()
