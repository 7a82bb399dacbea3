"""The SQL partitioner (rxanon_sql/partition_sql.py) against the in-memory one: the same four
tables, row for row, on the demo, on generated authors and on random datasets (hypothesis)."""
from __future__ import annotations

import dataclasses

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import RANDOM_CONFIG, build, build_random, config_from, datasets, demo_config, rows
from rxanon_sql.demo import write_demo_database
from rxanon_sql.errors import ConfigError
from rxanon_sql.generate import config_text, generate, prefill_cache
from rxanon_sql.partition import partition
from rxanon_sql.partition_sql import TEMPORARY
from rxanon_sql.pipeline import apply

TABLES = ("partitions", "splits", "split_candidates", "partition_tree")


def result(con):
    return {t: sorted(rows(con, f"SELECT * FROM rx.{t}"), key=repr) for t in TABLES}


def both_partitioners(con, cfg):
    """The four tables by the in-memory partitioner, then by SQL, on the run's own inputs."""
    partition(con, cfg)
    in_memory = result(con)
    levels = partition(con, dataclasses.replace(cfg, in_memory_rows=0))
    return in_memory, result(con), levels


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("strategy", ["mondrian", "gdf"])
def test_demo(lam, strategy):
    con = duckdb.connect()
    write_demo_database(con)
    cfg = demo_config(lam=lam, strategy=strategy)
    apply(con, cfg)
    in_memory, in_sql, levels = both_partitioners(con, cfg)
    assert in_sql == in_memory
    assert levels >= 1 and len(in_sql["splits"]) >= 1


@pytest.fixture(scope="module")
def authors():
    con = duckdb.connect()
    generate(con, 600, 3, seed=11, entities=True)
    cfg = config_from(config_text(), k=4)
    prefill_cache(con, cfg)
    apply(con, cfg)
    return con, cfg


@pytest.mark.parametrize("settings", [dict(lam=0.9, nominal_order="frequency"), dict(strategy="gdf"), dict(k=2, lam=0.3)])
def test_generated_authors(authors, settings):
    """Many levels, every attribute kind of the generator (numeric age, nominal gender, topic
    and sign, the posts' dates) and its terms."""
    con, cfg = authors
    cfg = cfg.with_overrides(**settings)
    con.execute("UPDATE rx.params SET k = ?, lam = ?, strategy = ?, nominal_order = ?",
                [cfg.k, cfg.lam, cfg.strategy, cfg.nominal_order])
    in_memory, in_sql, levels = both_partitioners(con, cfg)
    assert in_sql == in_memory
    assert levels >= 5 and len(in_sql["splits"]) >= 40


# (tests/test_properties.py runs the same datasets through the in-memory partitioner 25 times)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), lam=st.floats(0, 1), strategy=st.sampled_from(["mondrian", "gdf"]),
       nominal_order=st.sampled_from(["value", "frequency"]))
def test_random_datasets(data, lam, strategy, nominal_order):
    k, people = data
    con = build(people)
    cfg = config_from(RANDOM_CONFIG, k=k, lam=lam, strategy=strategy, nominal_order=nominal_order)
    apply(con, cfg)
    in_memory, in_sql, _ = both_partitioners(con, cfg)
    assert in_sql == in_memory


def test_a_whole_run_on_the_sql_partitioner_verifies():
    con = duckdb.connect()
    write_demo_database(con)
    report = apply(con, demo_config(in_memory_rows=0))
    assert report.verdict.ok
    left = rows(con, "SELECT table_name FROM duckdb_tables() WHERE temporary AND list_contains(?, table_name)",
                [list(TEMPORARY)])
    assert left == []


def test_l_and_t_beyond_memory_are_refused_in_one_line():
    con = duckdb.connect()
    write_demo_database(con)
    cfg = demo_config()
    apply(con, cfg)
    sensitive = dataclasses.replace(cfg, l=2, in_memory_rows=0)
    with pytest.raises(ConfigError) as e:
        partition(con, sensitive)
    assert str(e.value).startswith("anonymization.l needs the in-memory partitioner")
    assert "anonymization.in_memory_rows = 0" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("value", [-1, 2.5, True])
def test_in_memory_rows_must_be_a_count(value):
    with pytest.raises(ConfigError, match="anonymization.in_memory_rows must be an integer >= 0"):
        demo_config(in_memory_rows=value)


def test_hostile_names_and_nulls():
    """A zero-width space inside column names, two columns that differ in case, a relation named
    like one of the SQL levels' own tables (level_persons), NULL values and texts: the same tables."""
    names = ["p\u200bid", "Ident", "Nu\u200bm", "num", "texte", "level_persons"]
    persons = [(i, f"Zoë O\u2019Hara{i}", [None, 1, 2, 3, 4, 5][i % 6], [None, "a", "b", "'; --"][i % 4],
                [[None, "New York and Jo Ann", "plain words", "caf\u00e9 \u200bJo"][i % 4]]) for i in range(30)]
    con, text = build_random(names, persons)
    for strategy in ("mondrian", "gdf"):
        cfg = config_from(text, k=2, strategy=strategy)
        apply(con, cfg)
        in_memory, in_sql, levels = both_partitioners(con, cfg)
        assert in_sql == in_memory and levels >= 3
