"""Whether two databases hold the same release, row for row: the speed work must change no released
byte. Run `apply` with the version before and the version after on two copies of one database
(same configuration, k and lambda), then

    python benchmarks/identity.py BEFORE.duckdb AFTER.duckdb [--schema rx]

It compares, as multisets of rows with every column, the public release (rx.release), the audit of
what replaced what (rx.replacements), the audit with its keys (rx.audit) and the measures of the
texts (rx.utility, rx.utility_surfaces), and prints a table; it exits 1 if any differs.
benchmarks/original.py --same-release-as REF compares each of its runs in the same way.
"""
from __future__ import annotations

import argparse
import sys

import duckdb

TABLES = ("release", "replacements", "audit", "utility", "utility_surfaces")


def compare(before: str, after: str, schema: str = "rx") -> list[tuple[str, int, int, int]]:
    """Per table: rows before, rows after, rows that are in one and not the other (EXCEPT ALL
    both ways, NULLs equal)."""
    con = duckdb.connect()
    con.execute("ATTACH ? AS a (READ_ONLY)", [before])
    con.execute("ATTACH ? AS b (READ_ONLY)", [after])
    out = []
    for name in TABLES:
        a, b = f'a."{schema}"."{name}"', f'b."{schema}"."{name}"'
        n_a, n_b = (con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in (a, b))
        differing = con.execute(f"SELECT (SELECT count(*) FROM (FROM {a} EXCEPT ALL FROM {b})) + "
                                f"(SELECT count(*) FROM (FROM {b} EXCEPT ALL FROM {a}))").fetchall()[0][0]
        out.append((name, n_a, n_b, differing))
    con.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--schema", default="rx")
    args = ap.parse_args()
    rows = compare(args.before, args.after, args.schema)
    print("| table | rows before | rows after | rows differing |\n| --- | ---: | ---: | ---: |")
    for name, a, b, d in rows:
        print(f"| {args.schema}.{name} | {a} | {b} | {d} |")
    same = all(d == 0 and a == b for _, a, b, d in rows)
    print("identical" if same else "DIFFERENT")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
