"""Every SQL file parses with sqlglot and transpiles to Spark SQL, and avoids the constructs
sqlglot 30.x transpiles wrongly (DESIGN.md)."""
from importlib import resources

import pytest
import sqlglot
from sqlglot import exp

FILES = sorted(p.name for p in resources.files("rxanon_sql.sql").iterdir() if p.name.endswith(".sql"))


def test_there_are_sql_files():
    assert len(FILES) >= 15


@pytest.mark.parametrize("name", FILES)
def test_transpiles_to_spark(name):
    text = resources.files("rxanon_sql.sql").joinpath(name).read_text()
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
