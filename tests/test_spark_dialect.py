"""The Spark engine's rewrites (rxanon_sql/engines/spark/dialect.py), read as the Spark SQL they write:
no Spark needed. That Spark runs them as DuckDB does is tests/test_spark.py's and
tests/test_spark_semantics.py's part."""
import datetime

import pytest
import sqlglot

from rxanon_sql.errors import EngineError
from rxanon_sql.engines.spark.dialect import bind, duckdb_type, spark_type, table_view, to_spark
from rxanon_sql.sqlrun import statements


def spark(sql: str, params=None) -> str:
    return to_spark(bind(sqlglot.parse_one(sql, read="duckdb"), params))


def test_schemas_are_view_prefixes_and_a_renamed_table_keeps_its_name_as_alias():
    assert spark("SELECT persons.person FROM rx.persons") == "SELECT persons.person FROM `rx__persons` AS `persons`"
    assert spark("SELECT * FROM temp.main.found_raw AS f") == "SELECT * FROM `found_raw` AS f"
    assert spark("SELECT * FROM main.authors") == "SELECT * FROM `authors`"
    assert table_view(sqlglot.parse_one("x.y", into=sqlglot.exp.Table)) == "x__y"


def test_parameters_become_literals_in_order_and_by_name():
    assert spark("SELECT ?, ?, ?", [1, "it's", None]) == "SELECT 1, 'it\\'s', NULL"
    assert spark("SELECT $a + $b", {"a": 2, "b": 1.5}) == "SELECT 2 + CAST(1.5 AS DOUBLE)"
    assert spark("SELECT ?", [["a", "b"]]) == "SELECT ARRAY('a', 'b')"
    assert spark("SELECT ?", [datetime.date(2004, 5, 14)]) == "SELECT CAST('2004-05-14' AS DATE)"
    with pytest.raises(EngineError, match="2 parameters in the statement, 1 given"):
        spark("SELECT ?, ?", [1])


def test_unnests_side_by_side_are_one_zipped_generator():
    assert spark("SELECT a, unnest(x) AS e, unnest(y) AS f FROM t") == \
        "SELECT a, INLINE(ARRAYS_ZIP(x, y)) AS (e, f) FROM t"


def test_a_lateral_unnest_comes_before_the_joins_that_read_it_and_its_ordinal_counts_from_one():
    assert spark("SELECT u.m FROM t CROSS JOIN unnest(t.l) AS u(m) JOIN v ON v.a = u.m") == \
        "SELECT u.m FROM t CROSS JOIN LATERAL EXPLODE(t.l) AS u(m) JOIN v ON v.a = u.m"
    assert spark("SELECT u.i FROM t CROSS JOIN unnest(t.l) WITH ORDINALITY AS u(piece, i)") == \
        "SELECT (u.i__from0 + 1) AS i FROM t CROSS JOIN LATERAL POSEXPLODE(t.l) AS u(i__from0, piece)"


def test_list_functions_keep_duckdb_indexing():
    # 1-based, both ends included, empty when the end is before the start
    assert spark("SELECT list_slice(l, 2, 3)") == "SELECT SLICE(l, 2, GREATEST((3 - 2) - -1, 0))"
    assert spark("SELECT l[2:]") == "SELECT SLICE(l, 2, GREATEST((SIZE(l) - 2) - -1, 0))"
    assert spark("SELECT list_position(l, 'a')") == "SELECT NULLIF(ARRAY_POSITION(l, 'a'), 0)"
    # (NULL beyond the end, as in DuckDB, whatever spark.sql.ansi.enabled says)
    assert spark("SELECT l[1], l[i], l[a.i + b.n - 1], m['k']") == \
        "SELECT GET(l, 0), GET(l, (i) - 1), GET(l, (a.i + b.n - 1) - 1), m['k']"


def test_a_computed_substring_start_of_zero_is_read_as_duckdb_reads_it():
    assert spark("SELECT substring(t, p - 1, 1), substring(t, 2, 3), substring(t, p)") == \
        "SELECT CASE WHEN p - 1 = 0 THEN SUBSTRING(t, 1, (1) - 1) ELSE SUBSTRING(t, p - 1, 1) END, " \
        "SUBSTRING(t, 2, 3), SUBSTRING(t, p)"


def test_iso_weekday():
    assert spark("SELECT isodow(d)") == "SELECT WEEKDAY(d) + 1"


def test_regular_expressions():
    assert spark("SELECT regexp_extract(t, '(a)(b)', ['x', 'y'])") == \
        "SELECT NAMED_STRUCT('x', REGEXP_EXTRACT(t, '(a)(b)', 1), 'y', REGEXP_EXTRACT(t, '(a)(b)', 2))"
    assert spark("SELECT regexp_full_match(s, 'a|b')") == "SELECT s RLIKE CONCAT('^(?:', 'a|b', ')\\\\z')"


def test_functions_spark_lacks():
    # (one digit or two, as DuckDB reads %d and %m: "1,August,2001")
    assert spark("SELECT try_strptime(d, '%d,%B,%Y')") == "SELECT TRY_TO_TIMESTAMP(d, 'd,MMMM,yyyy')"
    assert spark("SELECT try_strptime(d, '%Y-%m-%d %H:%M')") == "SELECT TRY_TO_TIMESTAMP(d, 'yyyy-M-d H:m')"
    assert spark("SELECT isinf(x)") == "SELECT ABS(x) = CAST('Infinity' AS DOUBLE)"
    assert spark("SELECT sum(CAST(hash(a, b) AS HUGEINT))") == "SELECT SUM(CAST(XXHASH64(a, b) AS DECIMAL(38, 0)))"
    assert spark("SELECT row_number() OVER (ORDER BY a)") == \
        "SELECT CAST(ROW_NUMBER() OVER (ORDER BY a NULLS LAST) AS BIGINT)"
    assert spark("WITH c AS MATERIALIZED (SELECT 1) SELECT * FROM c") == "WITH c AS (SELECT 1) SELECT * FROM c"


def test_a_frame_bound_by_an_expression_is_the_tail_of_the_running_list():
    out = spark("SELECT string_agg(p, '' ORDER BY s) OVER (PARTITION BY r ORDER BY s "
                "ROWS BETWEEN (CASE WHEN l THEN e ELSE 0 END) PRECEDING AND CURRENT ROW) FROM t")
    assert out.startswith("SELECT ARRAY_JOIN(SLICE(COLLECT_LIST(p) OVER (PARTITION BY r ORDER BY s NULLS LAST "
                          "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)")
    with pytest.raises(EngineError, match="no Spark form"):
        spark("SELECT sum(x) OVER (ORDER BY s ROWS BETWEEN (e) PRECEDING AND (e) FOLLOWING) FROM t")


def test_types_both_ways():
    assert spark_type("STRUCT(start_pos INTEGER, term VARCHAR)[]") == "ARRAY<STRUCT<start_pos: INT, term: STRING>>"
    assert spark_type("JSON") == "STRING"
    assert spark_type("HUGEINT") == "DECIMAL(38, 0)"
    assert duckdb_type("string") == "VARCHAR"
    assert duckdb_type("array<int>") == "INT[]"
    assert duckdb_type("decimal(10,2)") == "DECIMAL(10,2)"


@pytest.mark.parametrize("name", ["terms", "linking", "rebuild_texts", "residual", "corpus_needles", "operator_terms",
                                  "partition_sql_open", "partition_sql_mondrian", "partition_sql_split"])
def test_every_statement_of_the_busiest_files_is_written_for_spark(name):
    for sql, params in statements(name, cached=False):
        back = sqlglot.parse_one(to_spark(sqlglot.parse_one(sql, read="duckdb")), read="spark")
        assert not list(back.find_all(sqlglot.exp.Unnest)), sql[:200]
        assert not [f for f in back.find_all(sqlglot.exp.Anonymous) if f.name.lower() in (
            "try_strptime", "list_slice", "list_position", "regexp_full_match", "hash")], sql[:200]
