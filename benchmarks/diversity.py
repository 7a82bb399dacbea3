"""Sensitive attributes on UCI Adult: k = 5 with salary-class sensitive, without l, with l = 2,
and with l = 2 and t = 0.2, against anonypy's Mondrian with the same l (docs/privacy.md,
"Sensitive attributes"; docs/benchmarks.md).

    python benchmarks/diversity.py --repeat 3

Prints a Markdown table: seconds (rxanon-sql: the whole `apply` with its check, and the
partitioning stage; anonypy: `Mondrian.partition`), partitions, NCP (mean NCP_A over records, one
formula for both, from benchmarks/run.py), the fewest distinct salary classes in a class and the
largest EMD of a class from the whole dataset, and whether `verify` passes. anonypy's t-closeness
is left out: its `is_t_close` compares with a variable it overwrote (anonypy 0.2), so its t means
nothing; its l is distinct l-diversity, as ours.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import children as bench  # noqa: E402  (the Adult frame, the NCP formula, apply in a child)
import run  # noqa: E402  (starting a child, the median)

SETTINGS = [(None, None), (2, None), (2, 0.2)]


def _config(l, t, hierarchies: bool = False) -> str:
    # (a hierarchy by its absolute path: the child's configuration has no folder of its own)
    attributes = "".join(f'[attributes."{c}"]\ntype = "{"numeric" if c == "age" else "nominal"}"\n'
                         + (f'hierarchy = "{bench.ADULT.parent / f"adult_hierarchy_{c}.csv"}"\n' if hierarchies else "")
                         for c in bench.ADULT_QIS)
    text = bench.ADULT_CONFIG.format(k=5, attributes=attributes + '[attributes."salary-class"]\ntype = "sensitive"\n')
    text = text.replace('insensitive = ["salary-class"]\n', "")
    return text + (f"l = {l}\n" if l else "") + (f"t = {t}\n" if t else "")


def child_rx(spec: dict) -> dict:
    import duckdb
    out = bench.child_apply({**spec, "config": _config(spec["l"], spec["t"], spec.get("hierarchies", False))})
    con = duckdb.connect(spec["db"], read_only=True)
    groups = con.execute("SELECT p.partition_id FROM adult AS a JOIN rx.partitions AS p ON p.person = a.id "
                         "ORDER BY a.id").fetchnumpy()["partition_id"]
    out["fewest"], out["farthest"] = con.execute("SELECT min(distinct_values), max(distance) FROM rx.diversity").fetchall()[0]
    con.close()
    from rxanon_sql.verify import verify
    con = duckdb.connect(spec["db"], read_only=True)
    out["verify"] = verify(con, residual=False).ok
    con.close()
    out["ncp_same_formula"] = bench._ncp_a(bench._adult_frame(), groups)
    return out


def child_anonypy(spec: dict) -> dict:
    import numpy as np
    from anonypy import mondrian
    df = bench._adult_frame()
    start = time.perf_counter()
    parts = mondrian.Mondrian(df, list(bench.ADULT_QIS), "salary-class").partition(k=5, l=spec["l"] or 0)
    seconds = time.perf_counter() - start
    groups = np.empty(len(df), dtype=np.int64)
    for i, p in enumerate(parts):
        groups[df.index.get_indexer(p)] = i
    q = df["salary-class"].value_counts(normalize=True)
    per = df.groupby(groups)["salary-class"].value_counts(normalize=True).unstack(fill_value=0)
    farthest = float((per - q[per.columns]).abs().sum(axis=1).max() / 2)
    return {"seconds": seconds, "partitions": len(parts), "ncp": bench._ncp_a(df, groups),
            "fewest": int(df.groupby(groups)["salary-class"].nunique().min()), "farthest": farthest}


CHILDREN = {"rx": child_rx, "anonypy": child_anonypy}


def run_child(kind: str, spec: dict) -> dict:
    return run.run_child(kind, spec, script=__file__)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        print(json.dumps(CHILDREN[sys.argv[2]](json.loads(sys.argv[3])), default=str))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--workdir", default=tempfile.gettempdir())
    ap.add_argument("--hierarchies", action="store_true",
                    help="recode to ARX's Adult hierarchies (beside adult.csv); anonypy, which has none, is left out")
    args = ap.parse_args()
    if not bench.ADULT.exists():
        raise SystemExit(f"{bench.ADULT} not present")
    db = bench.adult_database(str(Path(args.workdir) / "adult_diversity.duckdb"))
    lines = ["### Sensitive salary-class on UCI Adult (30,162 rows, 8 quasi-identifiers, k = 5)"
             + (", ARX's hierarchies" if args.hierarchies else ""), "",
             f"median of {args.repeat} runs; NCP = mean NCP_A over records, "
             + ("rx.ncp's, with the hierarchies' nodes" if args.hierarchies else "one formula for both")
             + "; fewest = least "
             "distinct salary classes in a class; farthest = largest EMD of a class from the whole (equal distance)", "",
             "| tool | l | t | seconds | partitioning s | partitions | NCP | fewest | farthest | verify |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for l, t in SETTINGS:
        rx = [run_child("rx", {"db": db, "k": 5, "l": l, "t": t, "hierarchies": args.hierarchies})
              for _ in range(args.repeat)]
        lines.append(f"| rxanon-sql (whole `apply`) | {l or '-'} | {t or '-'} | {run.med([r['wall'] for r in rx]):.2f} | "
                     f"{run.med([r['timings']['partitioning'] for r in rx]):.2f} | {rx[0]['counts']['partitions']:,} | "
                     f"{rx[0]['ncp'][0] if args.hierarchies else rx[0]['ncp_same_formula']:.4f} | {rx[0]['fewest']} | {rx[0]['farthest']:.3f} | "
                     f"{'passes' if all(r['verify'] for r in rx) else 'FAILS'} |")
        if t is None and not args.hierarchies:
            ap_runs = [run_child("anonypy", {"l": l}) for _ in range(args.repeat)]
            a = ap_runs[0]
            lines.append(f"| anonypy 0.2 (`Mondrian.partition` only) | {l or '-'} | - | "
                         f"{run.med([r['seconds'] for r in ap_runs]):.2f} | | {a['partitions']:,} | {a['ncp']:.4f} | "
                         f"{a['fewest']} | {a['farthest']:.3f} | |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
