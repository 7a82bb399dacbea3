"""End-to-end tests of each command, run as a user would on a database file, in this process
(CliRunner): the tests that need a process of their own (a kill, a lock held by another process,
a terminal, another environment) start one with CLI."""
import shutil
import tomllib

import duckdb
import pytest
import pyarrow.parquet as pq

from helpers import cli, demo_files
from rxanon_sql.demo import CONFIG

def test_demo(tmp_path):
    r = cli("demo", "--db", str(tmp_path / "demo.duckdb"))
    assert r.returncode == 0, r.stderr
    assert "I\u2019m a [36-37] years old [JOB] from [GPE]." in r.stdout
    assert "NCP_A" in r.stdout and "0 leaks" in r.stdout


def test_apply_verify_export(tmp_path):
    db, config = demo_files(tmp_path)
    r = cli("apply", db, "--config", config, "--k", "3", "--lambda", "0.2")
    assert r.returncode == 0, r.stderr
    assert "6 persons" in r.stdout
    # (the cost to a reader: rx.utility)
    assert "words kept: 0." in r.stdout and "; most replaced: 'engineer' (JOB) 2x, " in r.stdout
    r = cli("verify", db)
    assert r.returncode == 0, r.stderr
    assert "smallest has 3 persons" in r.stdout

    r = cli("export", db, str(tmp_path / "out.parquet"))
    assert r.returncode == 0, r.stderr
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column_names == ["gender", "age", "topic", "sign", "date", "text"]
    assert table.num_rows == 9
    r = cli("export", db, str(tmp_path / "out.csv"))
    assert r.returncode == 0 and (tmp_path / "out.csv").read_text().startswith("gender,age,topic,sign,date,text")


def test_verify_fails_on_a_tampered_release(demo_db, tmp_path):
    # (the demo's release as `apply DB --config` makes it: conftest.demo_db, copied)
    db = str(tmp_path / "demo.duckdb")
    shutil.copyfile(demo_db, db)
    con = duckdb.connect(db)
    con.execute("UPDATE rx.audit SET age = '36' WHERE person = 1")  # person 1 now stands alone
    con.execute("UPDATE rx.audit SET text = text || ' Ben again.' WHERE person = 3")
    # (rx.release is a view of the audit: a release that is not is compared with it row for row)
    con.execute("DROP VIEW rx.release")
    con.execute("CREATE TABLE rx.release AS SELECT * EXCLUDE (row_id, person, partition_id) FROM rx.audit WHERE person <> 2")
    con.close()
    r = cli("verify", db)
    assert r.returncode == 1
    assert "FAIL class of 1 persons" in r.stderr and "LEAK" in r.stderr
    assert "rows of the release differ from the audit" in r.stderr


def test_memory_limit(tmp_path):
    db, config = demo_files(tmp_path)
    r = cli("apply", db, "--config", config, "--memory-limit", "lots")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert "--memory-limit 'lots'" in r.stderr
    con = duckdb.connect(db)
    assert con.execute("SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'rx'").fetchall() == [(0,)]
    con.close()
    r = cli("apply", db, "--config", config, "--memory-limit", "2MB")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr
    assert "ran out of memory" in r.stderr and "--memory-limit" in r.stderr
    r = cli("apply", db, "--config", config, "--memory-limit", "64MB")
    assert r.returncode == 0, r.stderr
    assert "0 leaks" in r.stdout


def test_default_memory_limit(tmp_path):
    """Without --memory-limit, apply's DuckDB limit scales with the bytes of the configured texts,
    between its floor and half the RAM, and the configuration is still confined and locked."""
    from rxanon_sql.config import load_config
    from rxanon_sql.engines.duckdb import connect, default_memory_limit, scaled_memory_limit
    from rxanon_sql.join import text_bytes
    assert scaled_memory_limit(0, ram=8 * 10**9) == "300MB"
    assert scaled_memory_limit(163_359_882, ram=24 * 10**9) == "980MB"
    assert scaled_memory_limit(10**10, ram=8 * 10**9) == "4000MB"
    db, config = demo_files(tmp_path)
    con = duckdb.connect(db)
    texts = [t for (t,) in con.execute("SELECT text FROM authors NATURAL JOIN posts").fetchall()]
    assert text_bytes(con, load_config(config)) == sum(len(t.encode()) for t in texts if t is not None)
    con.close()
    seen = []

    def limit(c):
        seen.append(default_memory_limit(c, load_config(config)))
        return seen[-1]
    con = connect(db, confined=True, memory_limit=limit)
    assert seen == ["300MB"]
    assert con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0] == "286.1 MiB"
    with pytest.raises(duckdb.Error):
        con.execute("SET memory_limit = '1GB'")
    with pytest.raises(duckdb.Error):
        con.execute("SELECT * FROM read_csv(?)", [config])
    con.close()


@pytest.mark.parametrize("name", ["blog.duckdb", "My \"db\" 's.v2.duckdb", "memory.duckdb"])
def test_apply_writes_row_groups_sized_by_its_source_under_the_files_own_name(tmp_path, name):
    """apply's connection opens the file as duckdb.connect does (its catalogue name, its temporary
    files beside it, no other database); a source of fewer rows than DuckDB's row group per thread
    is written in smaller groups, one per thread at least, so that DuckDB's threads share its
    tables. A file DuckDB names "memory" is opened as it is."""
    from rxanon_sql.engines.duckdb import DEFAULT_ROW_GROUP, connect, row_group_rows
    assert row_group_rows(13_360, 2) == 8192 and row_group_rows(13_360, 4) == 4096
    assert row_group_rows(9, 2) == 2048 and row_group_rows(681_288, 2) == row_group_rows(None, 2) == DEFAULT_ROW_GROUP
    db = str(tmp_path / name)
    plain = duckdb.connect(db)
    own_name = plain.execute("SELECT current_database()").fetchall()[0][0]
    plain.execute("CREATE TABLE Posts AS SELECT range AS i FROM range(12000)")
    plain.close()

    def groups(relations):
        con = connect(db, confined=True, relations=relations)
        assert con.execute("SELECT current_database(), current_setting('temp_directory')").fetchall() == [
            (own_name, f"{tmp_path / name}.tmp")]
        assert [r[0] for r in con.execute("SELECT database_name FROM duckdb_databases() WHERE NOT internal").fetchall()] \
            == [own_name]
        con.execute("CREATE OR REPLACE TABLE copied AS SELECT * FROM posts")
        n = con.execute("SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('copied')").fetchall()[0][0]
        con.close()
        return n
    threads = duckdb.connect().execute("SELECT current_setting('threads')").fetchall()[0][0]
    assert groups(("main.posts",)) == (1 if own_name == "memory" else -(-12000 // row_group_rows(12000, threads)))
    assert groups(()) == groups(("absent",)) == 1


def test_retuning_keeps_the_stages_before_partitioning(tmp_path):
    db, config = demo_files(tmp_path)
    kept = "its join, terms, linking and persons were kept"
    r = cli("apply", db, "--config", config)
    assert r.returncode == 0 and kept not in r.stdout, r.stderr
    r = cli("apply", db, "--config", config, "--lambda", "0.9")
    assert r.returncode == 0 and kept in r.stdout, r.stderr
    assert "k = 2:" in r.stdout and "0 leaks" in r.stdout
    assert "terms" not in r.stdout.split("timings:")[1]
    # (k is also the rare-token guard's threshold: another k finds other rare words)
    r = cli("apply", db, "--config", config, "--k", "3")
    assert r.returncode == 0 and kept not in r.stdout and "smallest has 3 persons" in r.stdout, r.stderr
    r = cli("apply", db, "--config", config, "--k", "3", "--rebuild")
    assert r.returncode == 0 and kept not in r.stdout, r.stderr
    assert "terms" in r.stdout.split("timings:")[1]


def test_bad_input_gives_one_line_and_exit_2(tmp_path):
    db, config = demo_files(tmp_path, CONFIG.replace("[anonymization]", "[anonymization]\nkay = 3"))
    r = cli("apply", db, "--config", config)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "kay" in r.stderr
    (tmp_path / "bad2.toml").write_text(CONFIG.replace('"posts"]', '"post"]'))
    r = cli("apply", db, "--config", str(tmp_path / "bad2.toml"))
    assert r.returncode == 2 and "relation 'post' not found" in r.stderr
    r = cli("verify", str(tmp_path / "missing.duckdb"))
    assert r.returncode == 2 and "not found" in r.stderr
    r = cli("verify", db)
    assert r.returncode == 2 and "no release" in r.stderr
    r = cli("export", db, str(tmp_path / "out.json"))
    assert r.returncode == 2


def test_init_writes_a_usable_configuration(tmp_path):
    db, _ = demo_files(tmp_path, config=None)
    out = tmp_path / "rx.toml"
    r = cli("init", db, "--out", str(out))
    assert r.returncode == 0, r.stderr
    data = tomllib.loads(out.read_text())
    assert data["source"]["relations"] == ["authors", "posts"] and data["source"]["person"] == "id"
    assert data["text"]["columns"] == ["text"]
    assert data["attributes"]["age"]["type"] == "numeric"
    r = cli("apply", db, "--config", str(out), "--k", "2")
    assert r.returncode == 0, r.stderr
