import duckdb
import pytest

from helpers import config_from, rows
from rxanon_sql.pipeline import apply

CONFIG = """
[source]
relations = ["t"]
person = "id"
[attributes.age]
type = "numeric"
[attributes.day]
type = "date"
[attributes.colour]
type = "nominal"
[attributes.size]
type = "ordinal"
order = ["small", "medium", "large"]
[text]
columns = []
[anonymization]
k = 2
"""


def recoded(records):
    """One partition (k = number of persons): the recoded value of each attribute."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age DOUBLE, day DATE, colour VARCHAR, size VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", records)
    apply(con, config_from(CONFIG, k=len({r[0] for r in records})))
    return dict(rows(con, "SELECT attribute, value FROM rx.recoded_values")), con


@pytest.mark.parametrize("days, expected", [
    (["2004-05-14", "2004-05-14"], "2004-05-14"),
    (["2004-05-14", "2004-05-27"], "2004-05"),
    (["2004-01-13", "2004-05-15"], "2004"),
    (["2004-05-14", "2005-08-18"], "[2004-2005]"),
])
def test_date_hierarchy(days, expected):
    values, _ = recoded([(i, 30, d, "red", "small") for i, d in enumerate(days)])
    assert values["day"] == expected


def test_numeric_range_and_single_value():
    values, _ = recoded([(1, 24, "2004-01-01", "red", "small"), (2, 36, "2004-01-01", "red", "small")])
    assert values["age"] == "[24-36]"
    values, _ = recoded([(1, 36, "2004-01-01", "red", "small"), (2, 36, "2004-01-01", "red", "small")])
    assert values["age"] == "36"
    values, _ = recoded([(1, 1.5, "2004-01-01", "red", "small"), (2, 2.25, "2004-01-01", "red", "small")])
    assert values["age"] == "[1.5-2.25]"


def test_nominal_set_and_ordinal_order():
    values, _ = recoded([(1, 1, "2004-01-01", "red", "large"), (2, 2, "2004-01-01", "blue", "small"),
                         (3, 3, "2004-01-01", "red", "medium")])
    assert values["colour"] == "(blue,red)"
    assert values["size"] == "(small,medium,large)"


def test_missing_values_use_a_placeholder_and_keep_rows():
    values, con = recoded([(1, None, None, None, None), (2, 40, "2004-01-01", "red", "small")])
    assert values["colour"] == "((missing),red)"
    assert values["age"] == "40"
    assert rows(con, "SELECT count(*) FROM rx.release") == [(2,)]


def test_date_ncp_counts_leaves_under_the_node():
    _, con = recoded([(1, 1, "2004-05-14", "red", "small"), (2, 1, "2004-05-27", "red", "small"),
                      (3, 1, "2004-06-01", "red", "small")])
    # One partition, node 2004 covers all three dates of D*: NCP = 3/3.
    assert rows(con, "SELECT ncp FROM rx.ncp_attributes WHERE attribute = 'day'") == [(1.0,)]
