import duckdb
import pytest

import reference
from helpers import config_from, demo_config, rows, scalar
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import apply


def partitions(con):
    groups = {}
    for person, pid in rows(con, "SELECT person, partition_id FROM rx.partitions"):
        groups.setdefault(pid, set()).add(person)
    return sorted(sorted(g) for g in groups.values())


def run_demo(**kw):
    con = duckdb.connect()
    write_demo_database(con)
    apply(con, demo_config(**kw))
    return con


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("strategy", ["mondrian", "gdf"])
def test_set_based_equals_recursive_reference(lam, strategy):
    con = run_demo(lam=lam, strategy=strategy)
    d = reference.load(con)
    expected = reference.mondrian(d) if strategy == "mondrian" else reference.gdf(d)
    assert partitions(con) == sorted(sorted(g) for g in expected)
    assert min(len(g) for g in partitions(con)) >= 2


def test_demo_partitions_and_splits(demo_con):
    assert partitions(demo_con) == [[1, 3], [2, 5], [4, 6]]
    splits = rows(demo_con, "SELECT level, kind, coalesce(attribute, label), cut FROM rx.splits ORDER BY level, partition_id")
    assert splits[0] == (0, "textual", "GPE", "has uk")
    assert all(r[0] >= 0 for r in splits)


def test_deterministic(demo_con):
    a, b = demo_con, run_demo()     # (the session's run of the demo, and another)
    for q in ("SELECT * FROM rx.partitions ORDER BY person", "SELECT * FROM rx.splits ORDER BY level, partition_id"):
        assert rows(a, q) == rows(b, q)


def test_lambda_one_prefers_any_allowable_relational_cut():
    con = run_demo(lam=1.0)
    bad = scalar(con, """
        SELECT count(*) FROM rx.split_candidates c
        WHERE c.chosen AND c.kind = 'textual' AND EXISTS (
            SELECT 1 FROM rx.split_candidates r
            WHERE r.level = c.level AND r.partition_id = c.partition_id AND r.kind = 'relational' AND r.allowable)""")
    assert bad == 0
    assert scalar(con, "SELECT count(*) FROM rx.splits WHERE kind = 'textual'") == 0


def test_lambda_zero_prefers_any_allowable_textual_cut():
    con = run_demo(lam=0.0)
    bad = scalar(con, """
        SELECT count(*) FROM rx.split_candidates c
        WHERE c.chosen AND c.kind = 'relational' AND EXISTS (
            SELECT 1 FROM rx.split_candidates t
            WHERE t.level = c.level AND t.partition_id = c.partition_id AND t.kind = 'textual' AND t.allowable)""")
    assert bad == 0
    assert scalar(con, "SELECT count(*) FROM rx.splits WHERE kind = 'textual'") >= 1


def test_gdf_cuts_only_on_terms():
    con = run_demo(strategy="gdf")
    assert {r[0] for r in rows(con, "SELECT kind FROM rx.splits")} <= {"textual"}


def test_no_cut_when_fewer_than_2k_persons():
    con = run_demo(k=4)
    assert partitions(con) == [[1, 2, 3, 4, 5, 6]]
    assert scalar(con, "SELECT count(*) FROM rx.splits") == 0


def test_nominal_order_frequency_keeps_the_dominant_value_with_the_common_ones():
    # 10 persons: "us" 6 times, "ca", "de", "fr", "mx" once each. In sorted order the first half
    # is {ca, de}: 2 persons, no allowable cut at k = 3. By frequency it is {us, ca}: 7 | 3.
    con = duckdb.connect()
    con.execute("CREATE TABLE p (id INTEGER, country VARCHAR)")
    con.executemany("INSERT INTO p VALUES (?, ?)", list(enumerate(["us"] * 6 + ["ca", "de", "fr", "mx"])))
    cfg = """
[source]
relations = ["p"]
[attributes.country]
type = "nominal"
[anonymization]
k = 3
"""
    sizes = {}
    for order in ("value", "frequency"):
        apply(con, config_from(cfg, nominal_order=order))
        sizes[order] = sorted(len(g) for g in partitions(con))
        assert partitions(con) == sorted(sorted(g) for g in reference.mondrian(reference.load(con)))
    assert sizes == {"value": [10], "frequency": [3, 7]}


def test_tables_have_the_same_columns_whether_or_not_anything_is_cut():
    cut, uncut = run_demo(), run_demo(k=4)
    assert scalar(cut, "SELECT count(*) FROM rx.splits") > 0 and scalar(uncut, "SELECT count(*) FROM rx.splits") == 0
    for name in ("partitions", "splits", "split_candidates", "partition_tree"):
        assert rows(cut, f"DESCRIBE rx.{name}") == rows(uncut, f"DESCRIBE rx.{name}")
    assert [r[:2] for r in rows(cut, "DESCRIBE rx.split_candidates")] == [
        ("level", "INTEGER"), ("partition_id", "BIGINT"), ("kind", "VARCHAR"), ("name", "VARCHAR"),
        ("span", "DOUBLE"), ("bias", "DOUBLE"), ("priority", "DOUBLE"), ("cut_op", "VARCHAR"),
        ("cut_value", "DOUBLE"), ("cut_term", "VARCHAR"), ("left_size", "BIGINT"), ("right_size", "BIGINT"),
        ("allowable", "BOOLEAN"), ("chosen", "BOOLEAN")]


def test_person_ids_of_any_type_and_order():
    # Text ids whose order is not the order of their numbers; the partitioner numbers persons itself.
    con = duckdb.connect()
    con.execute("CREATE TABLE p (id VARCHAR, age INTEGER, country VARCHAR)")
    con.executemany("INSERT INTO p VALUES (?, ?, ?)", [
        (f"user-{i * 7 % 12}", 20 + (i * 5) % 17, ["us", "ca", "de"][i % 3]) for i in range(12)])
    cfg = """
[source]
relations = ["p"]
[attributes.age]
type = "numeric"
[attributes.country]
type = "nominal"
[anonymization]
k = 2
"""
    apply(con, config_from(cfg))
    assert partitions(con) == sorted(sorted(g) for g in reference.mondrian(reference.load(con)))
    assert len(partitions(con)) > 1
    assert scalar(con, "SELECT count(DISTINCT person) FROM rx.partitions") == 12


def test_a_numeric_cut_is_duckdbs_median_to_the_last_bit():
    # Keys where (lo + hi) / 2 and lo + (hi - lo) / 2 differ in the last bit.
    con = duckdb.connect()
    con.execute("CREATE TABLE p (id INTEGER, balance DOUBLE)")
    con.executemany("INSERT INTO p VALUES (?, ?)", list(enumerate(
        [985.0868243521302, 719.8930575905797, -758.2200803883871, -334.60962927974185])))
    apply(con, config_from('[source]\nrelations = ["p"]\n[attributes.balance]\ntype = "numeric"\n'
                           '[anonymization]\nk = 2\n'))
    assert rows(con, "SELECT cut_value FROM rx.splits") == rows(con, "SELECT median(key) FROM rx.person_keys")


def test_a_term_cut_prefers_the_larger_of_two_equally_central_terms():
    # 10 persons: "bob" in 6 texts, "alice" in 4, both 1 from |P|/2; the larger df wins over the
    # term order.
    con = duckdb.connect()
    con.execute("CREATE TABLE p (id INTEGER, gender VARCHAR, body VARCHAR)")
    con.executemany("INSERT INTO p VALUES (?, 'f', ?)", [
        (i, "Hi from Bob." if i < 6 else "Hi from Alice.") for i in range(10)])
    cfg = """
[source]
relations = ["p"]
[attributes.gender]
type = "nominal"
[text]
columns = ["body"]
[text.terms]
FRIEND = ["Alice", "Bob"]
[anonymization]
k = 2
lambda = 0.0
"""
    apply(con, config_from(cfg))
    assert rows(con, "SELECT cut, left_size FROM rx.splits WHERE level = 0") == [("has bob", 6)]
