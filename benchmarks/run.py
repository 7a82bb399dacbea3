"""Benchmarks of rxanon-sql: wall time, peak memory (RSS) and rows per second per stage.

    python benchmarks/run.py synthetic --persons 5000 --posts 5 --repeat 3
    python benchmarks/run.py floor                     # the RSS of the imports; 5,000 authors under lower DuckDB limits
    python benchmarks/run.py scaling --persons 2000 20000 200000 --repeat 3
    python benchmarks/run.py blogs --repeat 3          # ../shared/data/blogs/blog_relational_full.csv.gz
    python benchmarks/run.py cache                     # a second apply with other k, lambda runs no NER
    python benchmarks/run.py ner --posts 1500          # words/s: nlp.pipe vs the UDF with 1 and 2 processes
    python benchmarks/run.py adult --repeat 3          # relational Mondrian vs anonypy on UCI Adult
    python benchmarks/run.py spark --persons 1000 5000 # after NER: DuckDB vs a local Spark (pip install ".[spark]")
    python benchmarks/run.py partitioner --persons 5000 50000 --spark-persons 5000   # in memory vs SQL
    python benchmarks/run.py all

Every measurement runs in a fresh subprocess (its side: children.py), so that its peak RSS is its own. Per stage, the
peak is the process' high-water mark (VmHWM) since the start of that stage: the high-water mark
is reset through /proc/self/clear_refs when a stage starts. Inputs are built once into DuckDB
files under --workdir and reused. The synthetic and blog inputs have their NER cache pre-filled
by the generator (the terms it placed in the texts), so their runs do no NER; `cache` and `ner`
run spaCy for real. The timed runs of `synthetic`, `scaling` and `blogs` build every stage
(`apply(..., reuse=False)`); `synthetic` and `blogs` then time retuning: runs with other k and
lambda that keep the stages before partitioning (rxanon_sql/reuse.py). DuckDB runs with
`SET threads = 2` and `SET memory_limit` = --memory-limit. pandas, which the `bench` extra
installs for anonypy, is hidden from `apply` runs as it is absent from a plain install (pyarrow
would import it on its first conversion).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from children import ADULT, AFTER_NER, BLOGS, CHILDREN, STAGES, adult_database


# --- the parent: run children, take medians, print tables ------------------------------------------

def run_child(kind: str, spec: dict, script: str = __file__) -> dict:
    out = subprocess.run([sys.executable, script, "_child", kind, json.dumps(spec)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": "0"})
    if out.returncode:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"benchmark child {kind} failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def build(args, name: str, **spec) -> str:
    db = Path(args.workdir) / f"{name}.duckdb"
    if not db.exists():
        db.parent.mkdir(parents=True, exist_ok=True)
        tmp = db.with_suffix(".building")
        tmp.unlink(missing_ok=True)
        stats = run_child("build", {"db": str(tmp), **spec})
        tmp.rename(db)
        print(f"built {db}: {stats}", file=sys.stderr)
    return str(db)


def med(xs):
    return statistics.median(xs)


def stage_table(results: list[dict], rows: int, title: str) -> str:
    lines = [f"### {title}", "", f"median of {len(results)} runs; {rows:,} rows; DuckDB threads = 2", "",
             "| stage | wall s | peak RSS MB | rows/s |", "| --- | ---: | ---: | ---: |"]
    for s in STAGES:
        if s not in results[0]["timings"]:
            continue
        t = med([r["timings"][s] for r in results])
        p = med([r["peaks"][s] for r in results])
        lines.append(f"| {s} | {t:.3f} | {p:.0f} | {rows / t:,.0f} |" if t > 0 else f"| {s} | {t:.3f} | {p:.0f} | |")
    after = [sum(r["timings"][s] for s in AFTER_NER) for r in results]
    peak_after = med([max(r["peaks"][s] for s in AFTER_NER) for r in results])
    lines.append(f"| **after NER (terms … measures)** | **{med(after):.2f}** | **{peak_after:.0f}** | "
                 f"**{rows / med(after):,.0f}** |")
    lines.append(f"| whole `apply` | {med([r['wall'] for r in results]):.2f} | "
                 f"{med([r['peak_total'] for r in results]):.0f} | |")
    c, n = results[0]["counts"], results[0]["ncp"]
    lines += ["", f"{c['persons']:,} persons -> {c['partitions']:,} partitions in {c['levels']} levels; "
              f"NCP_A = {n[0]:.4f}, NCP_X = {n[1] if n[1] is None else round(n[1], 4)}, NCP = {n[2]:.4f}; "
              f"texts recognized: {c['texts_recognized']}", ""]
    return "\n".join(lines)


# Retuning after a full run: other k and lambda, the stages before partitioning kept (reuse.py).
RETUNES = ((10, 0.2), (3, 0.8), (5, 0.5))
RETUNED = ("join", "partitioning", "recoding_release", "measures")


def retune_table(args, db: str) -> str:
    """Runs with other k and lambda after the full runs, which recorded their source fingerprint."""
    lines = ["Retuning: `apply` again with another k and lambda; join, terms, linking and persons are kept from "
             "the run before (`join` here is the fingerprint scan and the parameters).", "",
             "| k | lambda | reused | join + partitioning + recoding + measures s | partitioning s | whole `apply` s "
             "| peak RSS MB |", "| ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    walls = []
    for k, lam in RETUNES:
        r = run_child("apply", {"db": db, "memory_limit": args.memory_limit, "k": k, "lam": lam, "reuse": True})
        walls.append(r["wall"])
        lines.append(f"| {k} | {lam} | {'yes' if r['reused'] else 'NO'} | {sum(r['timings'][s] for s in RETUNED):.2f} | "
                     f"{r['timings']['partitioning']:.2f} | {r['wall']:.2f} | {r['peak_total']:.0f} |")
    return "\n".join(lines + ["", f"median whole `apply` when retuning: {med(walls):.2f} s", ""])


def repeat_apply(args, db: str, **spec) -> list[dict]:
    return [run_child("apply", {"db": db, "memory_limit": args.memory_limit, **spec}) for _ in range(args.repeat)]


def cmd_synthetic(args) -> str:
    out = []
    for n in args.persons:
        db = build(args, f"synthetic_{n}x{args.posts}_s{args.seed}", persons=n, posts=args.posts, seed=args.seed)
        res = repeat_apply(args, db, k=5, lam=0.5)
        out.append(stage_table(res, n * args.posts, f"{n:,} generated authors x {args.posts} posts, k = 5, lambda = 0.5"))
        after = med([sum(r["timings"][s] for s in AFTER_NER) for r in res])
        peak = med([max(r["peaks"][s] for s in AFTER_NER) for r in res])
        out.append(f"after NER: {after:.2f} s = {230 / after:.0f}x faster than the original's 230 s "
                   f"(at 5,000 authors); peak {peak:.0f} MB vs 456 MB\n")
        out.append(retune_table(args, db))
    return "\n".join(out)


def cmd_spark(args) -> str:
    """The same generated data through both engines, NER cache filled (no NER in either run)."""
    lines = ["### DuckDB and a local Spark (rxanon_sql/engines/spark/), the same input", "",
             f"median of {args.repeat} runs each; k = 5, lambda = 0.5; Spark `local[2]`, its start not counted", "",
             "| authors | DuckDB after NER s | Spark after NER s | Spark / DuckDB | Spark statements | Spark s per "
             "statement | same partitions and NCP |", "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for n in args.persons:
        db = build(args, f"synthetic_{n}x{args.posts}_s{args.seed}", persons=n, posts=args.posts, seed=args.seed)
        duck = repeat_apply(args, db, k=5, lam=0.5)
        spark = [run_child("spark_apply", {"db": db, "k": 5, "lam": 0.5,
                                           "workdir": str(Path(args.workdir) / f"spark_{n}x{args.posts}")})
                 for _ in range(args.repeat)]
        d = med([sum(r["timings"][s] for s in AFTER_NER) for r in duck])
        sp = med([sum(r["timings"][s] for s in AFTER_NER) for r in spark])
        statements = spark[0]["statements"]
        # (NCP_A, NCP_X, NCP and the partition count, and Spark's release passed its check)
        same = all(r["ok"] for r in spark) and all(
            (x is None) == (y is None) and (x is None or abs(x - y) < 1e-9) for x, y in zip(spark[0]["ncp"], duck[0]["ncp"]))
        lines.append(f"| {n:,} | {d:.2f} | {sp:.2f} | {sp / d:.1f}x | {statements} | "
                     f"{med([r['wall'] for r in spark]) / statements:.2f} | {'yes' if same else 'NO'} |")
        lines.append("")
        lines.append("Spark by stage (median s): " + ", ".join(
            f"{s} {med([r['timings'][s] for r in spark]):.1f}" for s in STAGES if s in spark[0]["timings"]))
        lines.append(f"session start: {med([r['startup'] for r in spark]):.1f} s")
    return "\n".join(lines + ["", ner_engines(args)])


def cmd_partitioner(args) -> str:
    """The partitioning stage alone (a retuning run: the stages before it are kept), in memory
    and as SQL (anonymization.in_memory_rows = 0), on DuckDB and, for --spark-persons, on Spark."""
    lines = ["### The partitioner in memory and as SQL (partition_sql.py)", "",
             f"median of {args.repeat} runs each; k = 5, lambda = 0.5; DuckDB 2 threads; Spark `local[2]` (one run)", "",
             "| authors | per-person rows | engine | partitioner | partitioning s | peak RSS MB in it | same partitions |",
             "| ---: | ---: | --- | --- | ---: | ---: | --- |"]
    for n in args.persons:
        db = build(args, f"synthetic_{n}x{args.posts}_s{args.seed}", persons=n, posts=args.posts, seed=args.seed)
        run_child("apply", {"db": db, "memory_limit": args.memory_limit, "k": 5, "lam": 0.5})
        runs = {rows: repeat_apply(args, db, k=5, lam=0.5, reuse=True, in_memory_rows=rows) for rows in (None, 0)}
        first = runs[None][0]
        for rows, res in runs.items():
            lines.append(f"| {n:,} | {first['person_rows']:,} | DuckDB | {'in memory' if rows is None else 'SQL'} | "
                         f"{med([r['timings']['partitioning'] for r in res]):.2f} | "
                         f"{med([r['peaks']['partitioning'] for r in res]):.0f} | "
                         f"{'yes' if all(r['partitions'] == first['partitions'] for r in res) else 'NO'} |")
        if n in args.spark_persons:
            for rows in (None, 0):
                r = run_child("spark_apply", {"db": db, "k": 5, "lam": 0.5, "in_memory_rows": rows,
                                              "workdir": str(Path(args.workdir) / f"spark_{n}x{args.posts}")})
                lines.append(f"| {n:,} | {first['person_rows']:,} | Spark | {'in memory' if rows is None else 'SQL'} | "
                             f"{r['timings']['partitioning']:.2f} | | "
                             f"{'yes' if r['partitions'] == first['partitions'] else 'NO'} |")
    return "\n".join(lines + [""])


def ner_engines(args) -> str:
    """Real spaCy NER on the same texts: DuckDB's worker pool against Spark's Python workers
    (the stage `ner` of apply, each run on an empty cache)."""
    import shutil
    db = build(args, f"ner_{args.ner_persons}x5_s{args.seed}", persons=args.ner_persons, posts=5, seed=args.seed,
               prefill=False)
    lines = [f"### NER: {args.ner_persons * 5:,} posts of {args.ner_persons:,} generated authors, empty cache", "",
             "| engine | processes | NER s | texts/s |", "| --- | ---: | ---: | ---: |"]
    for workers in (1, 2):
        copy = Path(args.workdir) / "ner_copy.duckdb"
        shutil.copy(db, copy)
        r = run_child("apply", {"db": str(copy), "k": 5, "lam": 0.5, "workers": workers, "memory_limit": args.memory_limit})
        lines.append(f"| DuckDB | {workers} | {r['timings']['ner']:.1f} | {r['counts']['texts_recognized'] / r['timings']['ner']:.0f} |")
    for cores in (1, 2):
        r = run_child("spark_apply", {"db": db, "k": 5, "lam": 0.5, "seed_ner": False, "master": f"local[{cores}]",
                                      "workdir": str(Path(args.workdir) / f"spark_ner_{args.ner_persons}")})
        lines.append(f"| Spark `local[{cores}]` | {cores} | {r['timings']['ner']:.1f} | "
                     f"{r['counts']['texts_recognized'] / r['timings']['ner']:.0f} |")
    return "\n".join(lines + [""])


# DuckDB memory limits for `floor`: the default of the other benchmarks, then lower ones.
FLOOR_LIMITS = ("2GB", "256MB", "128MB", "96MB", "64MB")
# and one more run at the lowest limit that completes, with a search UDF that finds nothing
FLOOR_NO_MATCHES = "96MB"


def cmd_floor(args) -> str:
    n = args.persons[0]
    db = build(args, f"synthetic_{n}x{args.posts}_s{args.seed}", persons=n, posts=args.posts, seed=args.seed)
    specs = [{"memory_limit": m} for m in FLOOR_LIMITS] + [{"memory_limit": FLOOR_NO_MATCHES, "no_matches": True}]
    runs = [run_child("floor", {"db": db, "k": 5, "lam": 0.5, **spec}) for spec in specs]
    lines = [f"### Memory floor: what a run loads before it holds data, and {n:,} authors under lower DuckDB limits",
             "", "RSS of one process as it loads what `apply` needs (the first of the runs below):", "",
             "| step | RSS MB |", "| --- | ---: |"]
    lines += [f"| {name} | {mb:.0f} |" for name, mb in runs[0]["steps"]]
    lines += ["", "Then a full `apply` (k = 5, lambda = 0.5) in the same process, under each DuckDB `memory_limit`; "
              "DuckDB's own accounting (`duckdb_memory()`) at the end of the run, before the connection closes:", "",
              "| memory_limit | after NER s | peak RSS MB | RSS at the end MB | DuckDB holds at the end MB |",
              "| --- | ---: | ---: | ---: | --- |"]
    for spec, r in zip(specs, runs):
        run, limit = r["run"], spec["memory_limit"] + (", the search finds nothing" if spec.get("no_matches") else "")
        if "error" in run:
            lines.append(f"| {limit} | fails: {run['error'][:90]} | {r['peak_total']:.0f} | | |")
            continue
        held = ", ".join(f"{tag} {mb:.0f}" for tag, mb in sorted(run["duckdb_mb"].items(), key=lambda x: -x[1]) if mb >= 1)
        lines.append(f"| {limit} | {sum(run['timings'][s] for s in AFTER_NER):.2f} | {r['peak_total']:.0f} | "
                     f"{run['rss_end']:.0f} | {sum(run['duckdb_mb'].values()):.0f} ({held}) |")
    return "\n".join(lines) + "\n"


def cmd_scaling(args) -> str:
    lines = ["### Scaling (after NER, generated authors x 5 posts, k = 5, lambda = 0.5)", "",
             f"median of {args.repeat} runs", "",
             "| persons | posts | after NER s | partitioning s | peak RSS MB | rows/s | time ratio to previous |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    prev = prev_n = None
    for n in args.persons:
        db = build(args, f"synthetic_{n}x5_s{args.seed}", persons=n, posts=5, seed=args.seed)
        res = repeat_apply(args, db, k=5, lam=0.5)
        after = med([sum(r["timings"][s] for s in AFTER_NER) for r in res])
        part = med([r["timings"]["partitioning"] for r in res])
        peak = med([max(r["peaks"][s] for s in AFTER_NER) for r in res])
        ratio = f"{after / prev:.1f}x for {n / prev_n:.0f}x persons" if prev else ""
        lines.append(f"| {n:,} | {n * 5:,} | {after:.2f} | {part:.2f} | {peak:.0f} | {n * 5 / after:,.0f} | {ratio} |")
        prev, prev_n = after, n
    return "\n".join(lines) + "\n"


def cmd_blogs(args) -> str:
    if not BLOGS.exists():
        return f"(skipped: {BLOGS} not present)\n"
    # The date parser of this version rejects a few month names of the corpus ("Aprill", "lipiec"),
    # so dates with a non-English month name (7,746 posts, 1.1%) are left missing here.
    db = build(args, f"blogs_full_s{args.seed}", relational=str(BLOGS), seed=args.seed, foreign_dates=False)
    res = repeat_apply(args, db, k=5, lam=0.5)
    return stage_table(res, 681_288, "Blog Authorship Corpus shape: 19,320 persons, 681,288 posts (real attributes "
                       "and dates, 1.1% of dates missing, generated texts and terms), k = 5, lambda = 0.5") + "\n" + \
        retune_table(args, db)


def cmd_cache(args) -> str:
    (Path(args.workdir) / f"ner_{args.ner_persons}x5_s{args.seed}.duckdb").unlink(missing_ok=True)
    db = build(args, f"ner_{args.ner_persons}x5_s{args.seed}", persons=args.ner_persons, posts=5, seed=args.seed,
               prefill=False)
    first = run_child("apply", {"db": db, "k": 5, "lam": 0.5, "workers": args.workers, "memory_limit": args.memory_limit})
    second = run_child("apply", {"db": db, "k": 10, "lam": 0.2, "memory_limit": args.memory_limit})
    lines = ["### NER cache: two `apply` runs on the same texts (real spaCy NER)", "",
             "| run | k | lambda | texts recognized | NER s | whole apply s |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, r, k, lam in (("first", first, 5, 0.5), ("second", second, 10, 0.2)):
        lines.append(f"| {name} | {k} | {lam} | {r['counts']['texts_recognized']:,} | {r['timings']['ner']:.2f} | {r['wall']:.2f} |")
    return "\n".join(lines) + "\n"


def cmd_ner(args) -> str:
    base = {"persons": args.ner_persons, "posts": 5, "seed": args.seed}
    modes = [("plain `nlp.pipe` (batch 256)", 1, {"mode": "plain"})]
    for rules in (False, True):
        what = "spaCy NER + rule recognizers" if rules else "spaCy NER only"
        modes += [(f"`rx_ner` Arrow UDF, {what}", w, {"mode": "udf", "workers": w, "rules": rules}) for w in (1, 2)]
    # Round-robin over the modes, so that a change in the machine's load hits every mode alike.
    res: list[list[dict]] = [[] for _ in modes]
    for _ in range(args.repeat):
        for i, (_, _, spec) in enumerate(modes):
            res[i].append(run_child("ner", {**base, **spec}))
    plain = res[0]
    others = [r["others"] for rs in res for r in rs]
    lines = ["### NER throughput (words per second, generated posts)", "",
             f"{plain[0]['words']:,} words in {args.ner_persons * 5:,} posts; median of {args.repeat} runs, the modes "
             f"taken in turn; components: {', '.join(plain[0]['pipes'])}. Other processes kept {min(others):.1f} to "
             f"{max(others):.1f} (median {med(others):.1f}) of the {os.cpu_count()} CPUs busy during the runs. "
             "Words/s excludes loading the pipeline and starting the workers (start s); CPU words/s divides by the "
             "CPU time of the benchmark's processes (workers included); CPUs used is that CPU time over the wall "
             "time. The kernel shares the CPUs between sessions (sched_autogroup), not processes: while other "
             "sessions are busy, two workers get no more CPU than one process, and only an idle machine shows "
             "the speed-up in words/s.", "",
             "| how | processes | start s | words/s | vs plain nlp.pipe | CPUs used | CPU words/s | vs plain |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    p, pc = med([r["wps"] for r in plain]), med([r["words"] / r["cpu"] for r in plain])
    for (name, w, _), rs in zip(modes, res):
        u, uc = med([r["wps"] for r in rs]), med([r["words"] / r["cpu"] for r in rs])
        used = med([r["cpu"] / r["seconds"] for r in rs])
        lines.append(f"| {name} | {w} | {med([r['start'] for r in rs]):.1f} | {u:,.0f} | {u / p:.2f} | {used:.2f} | "
                     f"{uc:,.0f} | {uc / pc:.2f} |")
    return "\n".join(lines) + "\n"


def cmd_adult(args) -> str:
    if not ADULT.exists():
        return f"(skipped: {ADULT} not present)\n"
    db = adult_database(str(Path(args.workdir) / "adult.duckdb"))
    rx = [run_child("rx_adult", {"db": db, "k": 5, "memory_limit": args.memory_limit}) for _ in range(args.repeat)]
    try:
        import anonypy  # noqa: F401
        ap = [run_child("anonypy", {"k": 5}) for _ in range(args.repeat)]
    except ImportError:
        ap = None
    t_rx = med([r["wall"] for r in rx])
    lines = ["### Relational Mondrian on UCI Adult (30,162 rows, 8 quasi-identifiers, k = 5)", "",
             f"median of {args.repeat} runs; NCP = mean NCP_A over records, one formula for both", "",
             "| tool | seconds | partitions | NCP | peak RSS MB |", "| --- | ---: | ---: | ---: | ---: |",
             f"| rxanon-sql (whole `apply`) | {t_rx:.2f} | {rx[0]['counts']['partitions']:,} | "
             f"{rx[0]['ncp_same_formula']:.4f} | {med([r['peak_total'] for r in rx]):.0f} |"]
    if ap:
        t_ap = med([r["seconds"] for r in ap])
        lines.append(f"| anonypy 0.2 (`Mondrian.partition` only) | {t_ap:.2f} | {ap[0]['partitions']:,} | "
                     f"{ap[0]['ncp']:.4f} | {med([r['peak'] for r in ap]):.0f} |")
        lines += ["", f"rxanon-sql is {t_ap / t_rx:.1f}x faster; its NCP is "
                  f"{'lower or equal' if rx[0]['ncp_same_formula'] <= ap[0]['ncp'] + 1e-12 else 'HIGHER'}."]
    else:
        lines += ["", "anonypy is not installed (`pip install '.[bench]'`)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        print(json.dumps(CHILDREN[sys.argv[2]](json.loads(sys.argv[3])), default=str))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("synthetic", "floor", "scaling", "blogs", "cache", "ner", "adult", "spark", "partitioner", "all"))
    ap.add_argument("--persons", type=int, nargs="+", default=None)
    ap.add_argument("--posts", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ner-persons", type=int, default=300, help="authors (x5 posts) for `ner` and `cache`")
    ap.add_argument("--workers", type=int, default=2, help="NER worker processes for `cache`")
    ap.add_argument("--memory-limit", default="2GB", help="DuckDB memory_limit")
    ap.add_argument("--workdir", default="/tmp/rxanon-bench")
    ap.add_argument("--spark-persons", type=int, nargs="*", default=[], help="`partitioner`: these sizes on Spark too")
    args = ap.parse_args()
    todo = ["synthetic", "floor", "scaling", "blogs", "cache", "ner", "adult"] if args.what == "all" else [args.what]
    for what in todo:
        a = argparse.Namespace(**vars(args))
        if a.persons is None:
            a.persons = [2000, 20000, 200000] if what == "scaling" else [5000]
        start = time.perf_counter()
        print(globals()[f"cmd_{what}"](a))
        print(f"({what}: {time.perf_counter() - start:.0f} s)\n", file=sys.stderr)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
