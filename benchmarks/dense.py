"""One dense or hostile text: time and peak memory of `apply` as the one text of one person grows.

    python benchmarks/dense.py                      # 100 KB, 200 KB, 500 KB, 1 MB
    python benchmarks/dense.py --sizes 100 200      # KB
    python benchmarks/dense.py --content emoji --sizes 20 40 80 200   # 5k to 50k emoji, no space
    python benchmarks/dense.py --content mixed --sizes 1000
    python benchmarks/dense.py --content words --sizes 1000          # "a a a ..."

The database is the paper's running example (six persons, k = 2) plus a seventh person with a
single post of the given size (KB of UTF-8): `dense`, rxanon_sql.generate.dense_text, nothing
but names, places, companies, numbers and dates, thousands of them distinct; `emoji`, one run of
emoji without a space; `mixed`, `mixed_text` below; `words`, one-letter words ("a a a ..."). Each size is one fresh `apply` in a
subprocess (benchmarks/run.py's child_apply, so the peaks are measured the same way), with real
spaCy NER; NER and the terms stage are also shown apart, each with the peak RSS of the process
while it ran.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import duckdb

from run import run_child
from rxanon_sql.demo import CONFIG, write_demo_database
from rxanon_sql.generate import dense_text


# Runs without white space that spaCy's tokenizer splits one character at a time (emoji,
# punctuation), and runs it keeps whole (a base64 blob, CJK), between prose, JSON and markup.
def _blocks(seed: int) -> list[str]:
    prose = dense_text(20_000, seed)
    return [prose, "😀🎉👍🏽" * 2_500, "!?…*" * 5_000, "QUJDRGVmZ2hpams0NTY3" * 1_000, "東京都渋谷区" * 2_000,
            '{"name": "Ana Sousa", "mail": "ana@example.org"} ' * 200, '<a href="https://x.org/p">Ana Sousa</a> ' * 200,
            "0123456789" * 2_000]


def mixed_text(size: int, seed: int = 0) -> str:
    """About `size` bytes of UTF-8 of _blocks, cycled."""
    blocks, parts, n = _blocks(seed), [], 0
    while n < size:
        b = blocks[len(parts) % len(blocks)]
        parts.append(b + "\n")
        n += len(b.encode()) + 1
    return "".join(parts)


def content(kind: str, kb: int, seed: int) -> str:
    if kind == "emoji":
        return "😀" * (kb * 1000 // 4)
    if kind == "mixed":
        return mixed_text(kb * 1000, seed)
    if kind == "words":
        return "a " * (kb * 500)
    return dense_text(kb * 1000, seed)


def build(path: Path, kb: int, seed: int, kind: str = "dense") -> None:
    path.unlink(missing_ok=True)
    con = duckdb.connect(str(path))
    write_demo_database(con)
    con.execute("INSERT INTO authors VALUES (7, 'female', 31, 'Law', 'Libra')")
    con.execute("INSERT INTO posts VALUES (7, '2,March,2005', ?)", [content(kind, kb, seed)])
    con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 500, 1000], help="KB of the text")
    ap.add_argument("--content", choices=("dense", "emoji", "mixed", "words"), default="dense")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--memory-limit", default="8GB", help="DuckDB memory_limit")
    ap.add_argument("--workdir", default="/tmp/rxanon-dense")
    args = ap.parse_args()
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    print("| text | seconds | NER s | terms s | slowest other stage s | peak RSS MB | peak in NER MB | peak in terms MB "
          "| terms |")
    print("| ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for kb in args.sizes:
        db = Path(args.workdir) / f"{args.content}_{kb}.duckdb"
        build(db, kb, args.seed, args.content)
        r = run_child("apply", {"db": str(db), "config": CONFIG, "memory_limit": args.memory_limit})
        con = duckdb.connect(str(db), read_only=True)
        terms = con.execute("SELECT count(*) FROM rx.terms WHERE person = 7").fetchall()[0][0]
        con.close()
        t, p = r["timings"], r["peaks"]
        # (each stage resets the high-water mark, so the run's peak is the highest of theirs)
        peak = max([r["peak_total"], *p.values()])
        other = max((s for s in t if s not in ("ner", "terms")), key=t.get, default=None)
        print(f"| {kb} KB | {r['wall']:.1f} | {t.get('ner', 0):.1f} | {t.get('terms', 0):.1f} "
              f"| {other} {t.get(other, 0):.1f} | {peak:.0f} "
              f"| {p.get('ner', 0):.0f} | {p.get('terms', 0):.0f} | {terms:,} |", flush=True)


if __name__ == "__main__":
    main()
