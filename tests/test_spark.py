"""The pipeline on Spark (rxanon_sql/engines/spark/): the demo's release on a local Spark equals
DuckDB's table by table; verify and export read a Spark release; a run killed before its commit
leaves the previous release as it was; a rerun with another lambda does no NER and keeps the
stages before partitioning.

Runs where pyspark (`pip install ".[spark]"`) and Java are present; skips otherwise."""
import decimal
import math
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from unittest import mock

import duckdb
import pytest
from click.testing import CliRunner

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
if shutil.which("java") is None:
    pytest.skip("no java on PATH: Spark cannot start", allow_module_level=True)

# (one worker runs them all: one Spark session, started once)
pytestmark = pytest.mark.xdist_group("spark")

from benchmarks.privacy import SETS  # noqa: E402
from helpers import rx_tables  # noqa: E402
from rxanon_sql.cli import main  # noqa: E402
from rxanon_sql.config import load_config  # noqa: E402
from rxanon_sql.demo import CONFIG, write_demo_database  # noqa: E402
from rxanon_sql.partition import partition  # noqa: E402
from rxanon_sql.pipeline import apply  # noqa: E402
from rxanon_sql.engines.spark import MANIFEST, open_release  # noqa: E402
from rxanon_sql.sqlrun import mark_owned  # noqa: E402

# (tiny tables: compiling generated code and re-planning cost more than running)
SMALL = {"spark.sql.shuffle.partitions": "1", "spark.default.parallelism": "1",
         "spark.sql.codegen.wholeStage": "false", "spark.sql.adaptive.enabled": "false"}

# rxanon-sql salts the order of tag numbers and release rows afresh for each run
SALT = "5a1t" * 8


@contextmanager
def fixed_salt():
    with mock.patch("secrets.token_hex", lambda n=16: SALT[:2 * n]):
        yield


def _value(v):
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 9)
    if isinstance(v, decimal.Decimal):
        return round(float(v), 9)
    if isinstance(v, dict):
        return tuple(sorted((k, _value(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(_value(x) for x in v)
    return v


def _rows(result) -> list[tuple]:
    return sorted((tuple(_value(v) for v in row) for row in result), key=repr)


def _compared(duck) -> list[str]:
    # runs: timings and versions; reusable: a fingerprint of the source by each engine's row hash
    return sorted(set(rx_tables(duck)) - {"runs", "reusable"})


def _differing(spark, duck) -> list[str]:
    """The tables of DuckDB's rx schema whose rows the Spark release does not hold alike."""
    return [n for n in _compared(duck) if _rows(spark.execute(f'SELECT * FROM rx."{n}"').fetchall())
            != _rows(duck.execute(f'SELECT * FROM rx."{n}"').fetchall())]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo's relations as Parquet files, its configuration, and its release on Spark."""
    folder = tmp_path_factory.mktemp("spark")
    duck = duckdb.connect()
    write_demo_database(duck)
    for name in ("authors", "posts"):
        duck.execute(f"COPY {name} TO '{folder / name}.parquet'")
    (folder / "demo.toml").write_text(CONFIG)
    inputs = {"authors": str(folder / "authors.parquet"), "posts": str(folder / "posts.parquet")}
    with mock.patch.dict("rxanon_sql.engines.spark.session.SESSION_CONF", SMALL), fixed_salt():
        con = open_release(str(folder / "release"), "local[1]", inputs)
        report = apply(con, load_config(str(folder / "demo.toml")))
    assert report.verdict.ok
    yield folder, inputs, con
    con.spark.stop()        # (the next module's session starts with its own settings)


def test_the_demo_release_on_spark_equals_duckdb_table_by_table(demo):
    folder, _, spark = demo
    duck = duckdb.connect()
    write_demo_database(duck)
    with fixed_salt():
        apply(duck, load_config(str(folder / "demo.toml")))
    assert len(_compared(duck)) > 50
    assert _differing(spark, duck) == []


def _cli(*args):
    with mock.patch.dict("rxanon_sql.engines.spark.session.SESSION_CONF", SMALL):
        return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_export_checks_and_writes_a_spark_release(demo, tmp_path):
    # (export makes verify's check before it writes: verify's own run is in the next test)
    folder, _, _ = demo
    out = tmp_path / "release.parquet"
    r = _cli("export", str(folder / "release"), str(out), "--engine", "spark", "--spark-master", "local[1]")
    assert r.exit_code == 0, r.output
    exported = duckdb.sql(f"SELECT * FROM '{out}'").fetchall()
    assert len(exported) == 9 and not any("Pedro" in str(row) for row in exported)


def test_verify_names_a_folder_without_a_release(tmp_path):
    r = _cli("verify", str(tmp_path), "--engine", "spark", "--spark-master", "local[1]")
    assert r.exit_code == 2
    assert "holds no release" in r.output


# A killed run is a process of its own (SIGKILL takes the process), started with the settings
# for tiny tables the tests' sessions have (SMALL): codegen and adaptive planning would cost it
# more than its rows.
KILLED = ("import sys; from unittest import mock; from rxanon_sql.cli import main\n"
          "with mock.patch.dict('rxanon_sql.engines.spark.session.SESSION_CONF', {small!r}):\n"
          "    sys.argv[0] = 'rxanon-sql'; main()")


def _killed_at_commit(release, folder, inputs, *settings):
    """Runs apply on the release in a process that kills itself at its commit point; returns the
    table folders that run left behind."""
    manifest = (release / MANIFEST).read_bytes()
    args = [sys.executable, "-c", KILLED.format(small=SMALL), "apply", str(release), "--engine", "spark",
            "--spark-master", "local[1]", "--config", str(folder / "demo.toml"), *settings, "--quiet",
            *[f"--input={n}={p}" for n, p in inputs.items()]]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=tempfile.gettempdir(),
                       env={**os.environ, "RXANON_SQL_FAULT": "commit"})
    assert r.returncode == -9, r.stderr[-2000:]
    assert (release / MANIFEST).read_bytes() == manifest
    # the killed run's tables are left behind, unread; the next session that writes deletes them
    left = set(os.listdir(release / "tables")) - set(_manifest_tables(release))
    assert left
    r = _cli("verify", str(release), "--engine", "spark", "--spark-master", "local[1]")
    assert r.exit_code == 0, r.output
    assert "k = 2: 3 equivalence classes" in r.output
    return left


def _rerun_keeps_the_stages_before_partitioning(release, folder, inputs, left):
    """A rerun with another lambda: no NER, and join to persons kept (the demo guards rare tokens,
    whose terms depend on k); the killed run's tables are gone."""
    r = _cli("apply", str(release), "--engine", "spark", "--spark-master", "local[1]", "--config",
             str(folder / "demo.toml"), "--lambda", "0.3", "--quiet", *[f"--input={n}={p}" for n, p in inputs.items()])
    assert r.exit_code == 0, r.output
    assert "0 texts recognized" in r.output and "were kept" in r.output
    assert "k = 2:" in r.output
    assert sorted(os.listdir(release / "tables")) == sorted(set(_manifest_tables(release)))
    assert not left & set(os.listdir(release / "tables"))


def test_a_run_killed_before_its_commit_leaves_the_release_as_it_was(demo, tmp_path):
    """The killed run retunes (lambda 0.3): it writes every table from partitioning on, then the
    manifest would name them. The next session that writes the release deletes the tables it
    left. (The slow test below kills a run that rebuilds from the join on, k=3, and reruns after
    it; which tables a run writes anew is one mechanism, a new folder per table, store.py.)"""
    from rxanon_sql.engines.spark import SparkConnection
    folder, inputs, spark = demo
    release = tmp_path / "release"
    shutil.copytree(folder / "release", release)
    left = _killed_at_commit(release, folder, inputs, "--lambda", "0.3")
    SparkConnection(spark.spark, str(release)).close()
    assert sorted(os.listdir(release / "tables")) == sorted(set(_manifest_tables(release)))
    assert not left & set(os.listdir(release / "tables"))


@pytest.mark.slow
def test_a_rebuilding_run_killed_before_its_commit_leaves_the_release_as_it_was(demo, tmp_path):
    """As the test above, with a killed run that rebuilds join to persons as well (k=3, which the
    rare-token guard's terms depend on), and a rerun after it that keeps the stages before
    partitioning. (Slow: a second whole run on Spark, 2 to 5 minutes; the test above covers the
    kill, the manifest and the clean-up by default.)"""
    folder, inputs, _ = demo
    release = tmp_path / "release"
    shutil.copytree(folder / "release", release)
    left = _killed_at_commit(release, folder, inputs, "--k", "3")
    _rerun_keeps_the_stages_before_partitioning(release, folder, inputs, left)


def test_a_second_writer_of_a_release_folder_is_refused_and_a_reader_is_not(demo):
    from rxanon_sql.errors import EngineError
    from rxanon_sql.engines.spark import SparkConnection
    folder, _, spark = demo             # (the fixture's session is still open, and writing)
    with pytest.raises(EngineError, match="is being written by another run"):
        SparkConnection(spark.spark, str(folder / "release"))
    reader = SparkConnection(spark.spark, str(folder / "release"), read_only=True)
    reader.close()


def _manifest_tables(release):
    import json
    return json.loads((release / MANIFEST).read_text())["tables"].values()


def test_an_input_that_cannot_be_read_is_named(demo, tmp_path):
    folder, _, _ = demo
    r = _cli("apply", str(tmp_path / "release"), "--engine", "spark", "--spark-master", "local[1]", "--config",
             str(folder / "demo.toml"), "--input", "authors=/nonexistent.parquet")
    assert r.exit_code == 2
    assert "--input authors=/nonexistent.parquet: no such file or folder" in r.output


def test_an_input_named_like_a_view_of_the_release_is_refused(demo, tmp_path):
    # (rx.persons is the view rx__persons: an input of that name would stand in for the release's table)
    folder, inputs, _ = demo
    r = _cli("apply", str(tmp_path / "release"), "--engine", "spark", "--spark-master", "local[1]", "--config",
             str(folder / "demo.toml"), "--input", f"authors={inputs['authors']}", "--input",
             f"rx__persons={inputs['posts']}")
    assert r.exit_code == 2
    assert "--input rx__persons: a name with '__'" in r.output
    assert not (tmp_path / "release").exists()


def _release_with_ner_cache(folder, inputs):
    """A Spark release whose NER cache is the input ner_seed (DuckDB's), committed, so that a
    run on it does no NER."""
    spark = open_release(str(folder), "local[2]", inputs)
    spark.execute("CREATE SCHEMA rx")
    spark.execute("CREATE TABLE rx.ner_cache AS SELECT * FROM ner_seed")
    mark_owned(spark, "rx")         # (only its marker makes the schema rxanon-sql's)
    spark.execute("COMMIT")
    return spark


@pytest.mark.slow
def test_generated_authors_on_spark_equal_duckdb_table_by_table(tmp_path):
    """2,000 generated authors (10,000 posts), NER cache filled by the generator on both sides."""
    from rxanon_sql.config import parse_config
    from rxanon_sql.generate import config_text, generate, prefill_generated
    import tomllib
    duck = duckdb.connect(str(tmp_path / "gen.duckdb"))
    generate(duck, 2000, 5, seed=3, entities=True)
    prefill_generated(duck)
    inputs = {n: str(tmp_path / f"{n}.parquet") for n in ("authors", "posts", "ner_seed")}
    for n in ("authors", "posts"):
        duck.execute(f"COPY {n} TO '{inputs[n]}'")
    duck.execute(f"COPY rx.ner_cache TO '{inputs['ner_seed']}'")
    cfg = parse_config(tomllib.loads(config_text(1)))
    with mock.patch.dict("rxanon_sql.engines.spark.session.SESSION_CONF", {"spark.sql.shuffle.partitions": "2"}), fixed_salt():
        spark = _release_with_ner_cache(tmp_path / "release", inputs)
        assert apply(spark, cfg).verdict.ok
        apply(duck, cfg)
    differ = _differing(spark, duck)
    spark.spark.stop()
    assert differ == []


@pytest.mark.slow
def test_the_sql_partitioner_on_spark_gives_the_in_memory_partitions(demo, tmp_path):
    """The levels as SQL (anonymization.in_memory_rows = 0) run by Spark, against DuckDB's
    in-memory partitioner on the same run's inputs. (Slow: 20 to 40 s on the worker that holds
    the suite's longest module. The default run checks the SQL levels on DuckDB,
    tests/test_partition_sql.py, and the Spark rewrites of their statements, here and in
    tests/test_spark_dialect.py.)"""
    folder, inputs, _ = demo
    # (a copy, opened afresh: the session is shared, and the CLI tests replaced its views)
    shutil.copytree(folder / "release", tmp_path / "release")
    with mock.patch.dict("rxanon_sql.engines.spark.session.SESSION_CONF", SMALL):
        spark = open_release(str(tmp_path / "release"), "local[1]", inputs)
    duck = duckdb.connect()
    write_demo_database(duck)
    cfg = load_config(str(folder / "demo.toml"))
    apply(duck, cfg)
    tables = ("partitions", "splits", "split_candidates", "partition_tree")
    for strategy in ("mondrian", "gdf"):
        for con in (spark, duck):
            con.execute("UPDATE rx.params SET strategy = ?", [strategy])
        partition(duck, cfg.with_overrides(strategy=strategy))
        assert partition(spark, cfg.with_overrides(strategy=strategy, in_memory_rows=0)) == 2
        assert [t for t in tables if _rows(spark.execute(f"SELECT * FROM rx.{t}").fetchall())
                != _rows(duck.execute(f"SELECT * FROM rx.{t}").fetchall())] == []
    spark.close()


# (the sample, its loading and its configuration as benchmarks/privacy.py reads them)
BLOGS = SETS["blogs"]


@pytest.mark.slow
@pytest.mark.skipif(not BLOGS["file"].exists(), reason="the blog sample is not beside the checkout")
def test_blog_sample_on_spark_equals_duckdb_table_by_table(tmp_path):
    """300 bloggers of the Blog Authorship Corpus (13,360 posts, 14 MB). spaCy runs once, on
    DuckDB; Spark starts from its NER cache. Spark partitions in SQL, DuckDB in memory."""
    import tomllib
    from rxanon_sql.config import parse_config
    cfg = parse_config(tomllib.loads(BLOGS["config"]))
    duck = duckdb.connect(str(tmp_path / "blogs.duckdb"))
    duck.execute(BLOGS["load"].format(file=BLOGS["file"]))
    inputs = {"posts": str(tmp_path / "posts.parquet"), "ner_seed": str(tmp_path / "ner_seed.parquet")}
    duck.execute(f"COPY posts TO '{inputs['posts']}'")
    with fixed_salt():
        assert apply(duck, cfg).verdict.ok
    duck.execute(f"COPY rx.ner_cache TO '{inputs['ner_seed']}'")
    with mock.patch.dict("rxanon_sql.engines.spark.session.SESSION_CONF", {"spark.sql.shuffle.partitions": "2"}), fixed_salt():
        spark = _release_with_ner_cache(tmp_path / "release", inputs)
        report = apply(spark, cfg.with_overrides(in_memory_rows=0))
    assert report.verdict.ok and report.counts["texts_recognized"] == 0
    differ = _differing(spark, duck)
    spark.spark.stop()
    assert differ == []
