"""Every SQL file parses with sqlglot and transpiles to Spark SQL, and avoids the constructs
sqlglot 30.x transpiles wrongly (DESIGN.md)."""
import json
import os
from importlib import resources

import pytest
import sqlglot
from sqlglot import exp

FILES = sorted(p.name for p in resources.files("sql").iterdir() if p.name.endswith(".sql"))


def test_there_are_sql_files():
    assert len(FILES) >= 15


@pytest.mark.parametrize("name", FILES)
def test_transpiles_to_spark(name):
    text = resources.files("sql").joinpath(name).read_text()
    statements = [s for s in sqlglot.parse(text, read="duckdb") if s is not None]
    assert statements
    for s in statements:
        assert s.sql(dialect="spark")
        for f in s.find_all(exp.Anonymous):
            assert f.name.lower() not in ("list_has_all", "list_intersect", "list_reduce", "len"), f.name
        for agg in s.find_all(exp.ArrayAgg):
            assert not isinstance(agg.this, exp.Order), "list(x ORDER BY y) loses its ORDER BY on Spark"
        for w in s.find_all(exp.Window):
            assert not isinstance(w.this, exp.Quantile), "quantile_cont OVER gets the wrong arity on Spark"
    assert "[:" not in text.replace("[:alnum:]", ""), "list slices do not parse"


def test_rows_inserted_after_an_empty_create_stay_visible():
    """DuckDB 2.0.0 loses a later insert of 122,880 rows or more into a table created empty in the
    same transaction (scans and joins see none of its rows). The files put a row into such a table
    and take it out again; this is that pattern, and where the files use it."""
    import duckdb
    from rxanon_sql.sqlrun import _file
    con = duckdb.connect()
    con.execute("CREATE TABLE src AS SELECT range AS row_id FROM range(200000)")
    con.execute("BEGIN")
    con.execute("CREATE TEMP TABLE t AS SELECT row_id FROM src WHERE false")
    con.execute("INSERT INTO t (row_id) VALUES (NULL)")
    con.execute("DELETE FROM t WHERE row_id IS NULL")
    con.execute("INSERT INTO t SELECT row_id FROM src")
    assert con.execute("SELECT count(*) FROM (SELECT * FROM t LIMIT 5)").fetchall() == [(5,)]
    assert con.execute("SELECT count(*) FROM t JOIN src USING (row_id)").fetchall() == [(200000,)]
    con.execute("ROLLBACK")
    for name, table, key in (("terms", "terms_found", "row_id"), ("propagate", "found_matches", "text_id")):
        assert f"INSERT INTO {table} ({key}) VALUES (NULL);\nDELETE FROM {table} WHERE {key} IS NULL;" in _file(name)


def test_rendered_statements_are_kept_between_runs(tmp_path, monkeypatch):
    """The rendered statements are read back from the cache file, the same as rendered, and a
    damaged file is rendered again and replaced."""
    from rxanon_sql import sqlrun

    def fresh(name, schema):
        sqlrun.statements.cache_clear()
        sqlrun._rendered.cache_clear()
        return sqlrun.statements(name, schema)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = sqlrun._cache_file()
    assert path.startswith(str(tmp_path))
    rendered = fresh("linking", "my schema")
    assert '"my schema"' in rendered[0][0] and os.path.exists(path)
    assert any("linking my schema" in key for key in json.load(open(path)))
    # read back: the same statements, without sqlglot
    monkeypatch.setattr(sqlrun.sqlglot, "parse", lambda *a, **k: pytest.fail("parsed again"))
    assert fresh("linking", "my schema") == rendered
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with open(path, "w") as f:
        f.write('{"linking my schema')
    assert fresh("linking", "my schema") == rendered
    assert json.load(open(path))
    sqlrun.statements.cache_clear()
    sqlrun._rendered.cache_clear()
