import duckdb
import pytest

from rxanon_sql.join import InputError
from rxanon_sql.pipeline import apply
from helpers import config_from, rows, scalar

CONFIG = """
[source]
relations = ["people", "visits"]
person = "pid"
direct_identifiers = ["name"]
insensitive = ["note"]
[attributes.age]
type = "numeric"
[attributes.seen]
type = "date"
format = "%d,%B,%Y"
[text]
columns = []
[anonymization]
k = 2
"""


def make(con, dates=("14,May,2004", "3,Juni,2004", "1,mayo,2005", "9,juin,2003")):
    con.execute("CREATE TABLE people (pid INTEGER, name VARCHAR, age INTEGER)")
    con.execute("CREATE TABLE visits (pid INTEGER, seen VARCHAR, note VARCHAR)")
    con.executemany("INSERT INTO people VALUES (?, ?, ?)", [(1, "Ann", 30), (2, "Bob", 40), (3, "Cy", 50), (4, "Di", 60)])
    con.executemany("INSERT INTO visits VALUES (?, ?, ?)", [(i + 1, d, f"n{i}") for i, d in enumerate(dates)] + [(1, "2,May,2004", "x")])


def test_natural_join_and_values():
    con = duckdb.connect()
    make(con)
    apply(con, config_from(CONFIG))
    assert scalar(con, "SELECT count(*) FROM rx.dataset") == 5
    assert [r[0] for r in rows(con, "DESCRIBE rx.dataset")] == ["row_id", "person", "name", "age", "seen", "note"]
    # Month names in other languages parse (Juni, mayo, juin).
    days = rows(con, "SELECT person, day FROM rx.qi_values WHERE attribute = 'seen' ORDER BY person, day")
    assert [str(d) for _, d in days] == ["2004-05-02", "2004-05-14", "2004-06-03", "2005-05-01", "2003-06-09"]
    # The user's tables are untouched, and the release drops person and direct identifiers.
    assert scalar(con, "SELECT count(*) FROM people") == 4
    assert [r[0] for r in rows(con, "DESCRIBE rx.release")] == ["age", "seen", "note"]


def test_row_ids_are_deterministic():
    a, b = duckdb.connect(), duckdb.connect()
    make(a), make(b)
    apply(a, config_from(CONFIG)), apply(b, config_from(CONFIG))
    q = "SELECT row_id, person, seen FROM rx.dataset ORDER BY row_id"
    assert rows(a, q) == rows(b, q)


def test_missing_relation_and_column_are_named():
    con = duckdb.connect()
    make(con)
    with pytest.raises(InputError, match="relation 'visitz' not found"):
        apply(con, config_from(CONFIG.replace('"visits"]', '"visitz"]')))
    with pytest.raises(InputError, match="column 'agee'"):
        apply(con, config_from(CONFIG.replace("[attributes.age]", "[attributes.agee]")))


def test_unparseable_date_names_the_value():
    con = duckdb.connect()
    make(con, dates=("14,May,2004", "31,Floreal,2004", "1,May,2005", "9,June,2003"))
    with pytest.raises(InputError, match="'31,Floreal,2004' is not a date in format '%d,%B,%Y'"):
        apply(con, config_from(CONFIG))
    assert scalar(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'release'") == 0


def test_wrong_column_type():
    con = duckdb.connect()
    make(con)
    with pytest.raises(InputError, match="column 'seen' is VARCHAR, but attributes.seen.type is numeric"):
        apply(con, config_from(CONFIG.replace('type = "date"\nformat = "%d,%B,%Y"', 'type = "numeric"')))


def test_fewer_than_k_persons_and_empty_input():
    con = duckdb.connect()
    make(con)
    with pytest.raises(InputError, match="4 persons in column 'pid', fewer than k = 5"):
        apply(con, config_from(CONFIG, k=5))
    con.execute("DELETE FROM visits")
    with pytest.raises(InputError, match="has no rows"):
        apply(con, config_from(CONFIG))
