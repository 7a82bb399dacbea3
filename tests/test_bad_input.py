"""Bad input: each case gets a one-line error that names the key, relation, column or value, and
leaves the database exactly as it was; the cases that are not errors (NULLs, foreign month
names, SQL-looking names and values, long texts) go through and verify."""
from __future__ import annotations

import duckdb
import pytest

from helpers import config_from, rows
from rxanon_sql.config import ConfigError
from rxanon_sql.join import InputError
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

CONFIG = """
[source]
relations = ["people", "posts"]
person = "pid"
direct_identifiers = ["name"]
[attributes.age]
type = "numeric"
[attributes.city]
type = "nominal"
[attributes.day]
type = "date"
format = "%d,%B,%Y"
[text]
columns = ["body"]
[anonymization]
k = 2
"""
PEOPLE = [(1, "Ann Smith", 30, "Oslo"), (2, "Bob Jones", 41, "Rome"), (3, "Cy Young", 52, "Oslo"), (4, "Di Prince", 63, "Rome")]
POSTS = [(1, "14,May,2004", "Ann Smith here, greetings from Paris."), (2, "3,Juni,2004", "I like Paris too."),
         (3, "1,mayo,2005", "Nothing to report."), (4, "9,juin,2003", "Bob Jones is my neighbour.")]


def make(people=PEOPLE, posts=POSTS, body_type="VARCHAR"):
    con = duckdb.connect()
    con.execute("CREATE TABLE people (pid INTEGER, name VARCHAR, age INTEGER, city VARCHAR)")
    con.execute(f"CREATE TABLE posts (pid INTEGER, day VARCHAR, body {body_type})")
    con.executemany("INSERT INTO people VALUES (?, ?, ?, ?)", people)
    con.executemany("INSERT INTO posts VALUES (?, ?, ?)", posts)
    return con


def snapshot(con):
    tables = rows(con, "SELECT table_schema, table_name FROM information_schema.tables ORDER BY ALL")
    return tables, [rows(con, f'SELECT * FROM "{s}"."{t}" ORDER BY ALL') for s, t in tables if s == "main"]


BAD = [
    # (description, config edit, data edit, error pattern)
    ("missing relation", lambda c: c.replace('"posts"]', '"post"]'), None, "relation 'post' not found"),
    ("missing quasi-identifier", lambda c: c.replace("[attributes.city]", "[attributes.town]"), None, "column 'town'"),
    ("missing text column", lambda c: c.replace('columns = ["body"]', 'columns = ["bdy"]'), None, "column 'bdy'"),
    ("missing person column", lambda c: c.replace('person = "pid"', 'person = "uid"'), None, "column 'uid'"),
    ("numeric column of text", lambda c: c.replace('[attributes.city]\ntype = "nominal"', '[attributes.city]\ntype = "numeric"'),
     None, "column 'city' is VARCHAR, but attributes.city.type is numeric"),
    ("date column of numbers", lambda c: c.replace('[attributes.age]\ntype = "numeric"', '[attributes.age]\ntype = "date"'),
     None, "column 'age' is INTEGER, but attributes.age.type is date"),
    ("text column of numbers", lambda c: c.replace('columns = ["body"]', 'columns = ["age"]').replace(
        '[attributes.age]\ntype = "numeric"\n', ''), None, "text column 'age' is INTEGER"),
    ("unparseable date", None, lambda con: con.execute("UPDATE posts SET day = '31,Floreal,2004' WHERE pid = 2"),
     "'31,Floreal,2004' is not a date"),
    ("empty input", None, lambda con: con.execute("DELETE FROM posts"), "has no rows"),
    ("fewer than k persons", lambda c: c.replace("k = 2", "k = 5"), None, "4 persons in column 'pid', fewer than k = 5"),
    ("shared non-key column", None, lambda con: con.execute("ALTER TABLE posts ADD COLUMN city VARCHAR"),
     "relations 'people' and 'posts' both have column 'city'"),
    ("NULL person", None, lambda con: con.execute("INSERT INTO people VALUES (NULL, 'X Y', 1, 'Oslo'); "
                                                  "INSERT INTO posts VALUES (NULL, '1,May,2004', 'x')"),
     "person column 'pid' is NULL in 1 rows of relation 'people'"),
    ("ordinal value not in order", lambda c: c.replace('[attributes.city]\ntype = "nominal"',
                                                       '[attributes.city]\ntype = "ordinal"\norder = ["Oslo"]'),
     None, "value 'Rome' is not in attributes.city.order"),
    ("output schema holds the user's tables", lambda c: c + 'schema = "main"\n', None, "schema 'main' holds tables"),
]
BAD_CONFIG = [
    ("k below 2", lambda c: c.replace("k = 2", "k = 1"), "k must be an integer from 2 to"),
    ("lambda above 1", lambda c: c + "lambda = 1.5\n", r"lambda must lie in \[0, 1\]"),
    ("lambda below 0", lambda c: c + "lambda = -0.5\n", r"lambda must lie in \[0, 1\]"),
    ("unknown key", lambda c: c + "kk = 3\n", "unknown configuration key anonymization.'kk'"),
    ("wrong type", lambda c: c.replace("k = 2", "k = '2'"), "anonymization.k must be int"),
    ("query that is not a SELECT", lambda c: c.replace('relations = ["people", "posts"]', 'query = "DROP TABLE people"'),
     "source.query must be a single SELECT"),
    ("two statements", lambda c: c.replace('relations = ["people", "posts"]', 'query = "SELECT 1; DROP TABLE people"'),
     "source.query must be a single SELECT"),
    ("reserved column name", lambda c: c.replace('columns = ["body"]', 'columns = ["row_id"]'), "reserved"),
]


@pytest.mark.parametrize("what, edit_config, edit_data, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_named_and_changes_nothing(what, edit_config, edit_data, message):
    con = make()
    if edit_data:
        edit_data(con)
    before = snapshot(con)
    with pytest.raises(InputError, match=message) as err:
        apply(con, config_from(edit_config(CONFIG) if edit_config else CONFIG))
    assert "\n" not in str(err.value)
    assert snapshot(con) == before


@pytest.mark.parametrize("what, edit, message", BAD_CONFIG, ids=[b[0] for b in BAD_CONFIG])
def test_bad_configuration_is_named(what, edit, message):
    with pytest.raises(ConfigError, match=message):
        config_from(edit(CONFIG))


def test_a_failed_run_keeps_the_previous_release():
    # Every text is in the NER cache by the second run, which then skips the validation pass
    # before NER: its own transaction must leave everything as it was.
    con = make()
    apply(con, config_from(CONFIG))
    everything = {t: rows(con, f'SELECT * FROM rx."{t}" ORDER BY ALL')
                  for (t,) in rows(con, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'rx'")}
    con.execute("UPDATE posts SET day = 'not a date' WHERE pid = 1")
    with pytest.raises(InputError, match="'not a date' is not a date"):
        apply(con, config_from(CONFIG, k=3))
    assert {t: rows(con, f'SELECT * FROM rx."{t}" ORDER BY ALL') for t in everything} == everything
    assert rows(con, "SELECT count(*), max(k) FROM rx.runs") == [(1, 2)]
    assert rows(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'ner_todo'") == [(0,)]


def test_nulls_are_grouped_not_dropped():
    con = make(people=PEOPLE + [(5, None, None, None)],
               posts=POSTS + [(5, None, None), (5, "2,May,2004", "")])
    apply(con, config_from(CONFIG))
    assert rows(con, "SELECT count(*) FROM rx.release") == [(6,)]
    assert verify(con).ok


def test_direct_identifiers_never_reach_the_release():
    con = make()
    apply(con, config_from(CONFIG))
    texts = " ".join(r[0] for r in rows(con, "SELECT body FROM rx.release"))
    assert "Ann Smith" not in texts and "Bob Jones" not in texts  # also the neighbour's name
    assert "[NAME]" in texts
    assert "name" not in [r[0] for r in rows(con, "DESCRIBE rx.release")]
    assert verify(con).ok


HOSTILE = 'x"; DROP TABLE people; --'


def test_sql_looking_names_and_values_are_inert():
    con = duckdb.connect()
    con.execute(f'CREATE TABLE "{HOSTILE.replace(chr(34), chr(34) * 2)}" ("p.id" INTEGER, "ä""ge" INTEGER, "DROP" VARCHAR, '
                f'"te xt\'" VARCHAR, m VARCHAR)')
    # (a column "m" too: the name of an alias inside verify's queries once)
    con.executemany(f'INSERT INTO "{HOSTILE.replace(chr(34), chr(34) * 2)}" VALUES (?, ?, ?, ?, ?)', [
        (i, 20 + i, ["'); DROP TABLE x; --", "Robert'); --", "🙂 ünï"][i % 3], f"I am {20 + i}; '); DELETE FROM rx.release; -- from Oslo",
         "m")
        for i in range(6)])
    cfg = f"""
[source]
relations = [{HOSTILE!r}]
person = "p.id"
[attributes.'ä"ge']
type = "numeric"
[attributes.DROP]
type = "nominal"
[attributes.m]
type = "nominal"
[text]
columns = ["te xt'"]
[anonymization]
k = 2
schema = 'r"x; --'
"""
    apply(con, config_from(cfg))
    assert rows(con, 'SELECT count(*) FROM "r""x; --".release') == [(6,)]
    assert [r[0] for r in rows(con, 'DESCRIBE "r""x; --".release')] == ['ä"ge', "DROP", "te xt'", "m"]
    assert verify(con, 'r"x; --').ok
    assert rows(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'people'") == [(0,)]


def test_a_one_megabyte_text_goes_through():
    big = "Greetings from Paris, Ann Smith." + "\n" * 1_050_000 + "Paris again."
    con = make(posts=[(1, "14,May,2004", big)] + POSTS[1:])
    apply(con, config_from(CONFIG))
    released = rows(con, "SELECT body FROM rx.audit WHERE person = 1")[0][0]
    assert len(released) > 1_000_000 and "Ann Smith" not in released
    assert verify(con).ok


def test_non_utf8_bytes_are_refused_by_name():
    con = make()
    con.execute("ALTER TABLE posts ADD COLUMN raw BLOB")
    con.execute("UPDATE posts SET raw = '\\xC3\\x28\\xFF'::BLOB")
    before = snapshot(con)
    with pytest.raises(InputError, match="text column 'raw' is BLOB, expected VARCHAR"):
        apply(con, config_from(CONFIG.replace('columns = ["body"]', 'columns = ["body", "raw"]')))
    assert snapshot(con) == before


def test_verify_finds_a_direct_identifier_in_any_released_column():
    con = make()
    apply(con, config_from(CONFIG))
    assert verify(con).identifiers == []
    # (rx.release is a view of the audit)
    changed = con.execute("UPDATE rx.audit SET city = 'Ann Smith' WHERE age = (SELECT min(age) FROM rx.audit)").fetchall()[0][0]
    v = verify(con)
    # (counted per row: the column's distinct values are searched once each)
    assert not v.ok and v.identifiers == [("city", "ann smith", changed)]
