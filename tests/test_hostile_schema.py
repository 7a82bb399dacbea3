"""Hostile schemas (issue 23, classes 3, 8, 9, 10): column names that differ only in case, which
DuckDB takes for one name; output schemas and demo databases that hold the user's tables; a table
of the same name in another schema. Each refusal is one line naming the culprit and leaves every
table of every schema as it was."""
from __future__ import annotations

import duckdb
import pytest

from helpers import cli, config_from, rows, rx_tables, scalar
from rxanon_sql.config import ConfigError
from rxanon_sql.demo import write_demo_database
from rxanon_sql.join import InputError
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

CONFIG = """
[source]
{source}
person = "{person}"
[attributes.age]
type = "numeric"
[attributes.gender]
type = "nominal"
[text]
columns = ["body"]
[anonymization]
k = 2
"""
AUTHORS = [(1, 30, "m"), (2, 41, "f"), (3, 52, "m"), (4, 63, "f"), (5, 70, "m")]
POSTS = [(1, "hello"), (2, "hi there"), (3, "nothing new"), (4, "a post"), (5, "the last")]


def config(source='relations = ["a", "p"]', person="id", extra=""):
    return config_from(CONFIG.format(source=source, person=person) + extra)


def make(a_columns="id INTEGER, age INTEGER, gender VARCHAR", p_columns="id INTEGER, body VARCHAR",
         authors=AUTHORS, posts=POSTS, con=None):
    con = con or duckdb.connect()
    con.execute(f"CREATE TABLE a ({a_columns})")
    con.execute(f"CREATE TABLE p ({p_columns})")
    con.executemany(f"INSERT INTO a VALUES ({', '.join('?' * len(authors[0]))})", authors)
    con.executemany(f"INSERT INTO p VALUES ({', '.join('?' * len(posts[0]))})", posts)
    return con


def everything(con):
    """Every table and view of every schema of the database, with its rows."""
    names = rows(con, "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() "
                      "UNION ALL SELECT schema_name, view_name FROM duckdb_views() WHERE database_name = current_database() "
                      "AND NOT internal ORDER BY ALL")
    return {(s, t): rows(con, f'SELECT * FROM "{s}"."{t}" ORDER BY ALL') for s, t in names}


def refused(con, cfg, message, error=InputError):
    before = everything(con)
    with pytest.raises(error, match=message) as err:
        apply(con, cfg)
    assert "\n" not in str(err.value)
    assert everything(con) == before


# --- 3: column names that differ only in case ---------------------------------------------------

def test_a_query_selecting_age_and_AGE_is_refused_not_released_as_age_1():
    # (before, "AGE" went out as column AGE_1 of the release, holding the exact ages)
    with pytest.raises(ConfigError, match="column 'AGE' \\('age'\\) is given two roles: source.insensitive and attributes"):
        config_from(CONFIG.format(source='query = "SELECT a.id, a.age, a.gender, p.\\"AGE\\", p.body '
                                         'FROM a JOIN p ON a.id = p.id"\ninsensitive = ["AGE"]', person="id"))


def test_a_query_selecting_age_and_AGE_without_a_role_is_refused():
    con = make(p_columns='id INTEGER, "AGE" INTEGER, body VARCHAR', posts=[(i, age, "x") for i, age, _ in AUTHORS])
    refused(con, config('query = "SELECT a.id, a.age, a.gender, p.\\"AGE\\", p.body FROM a JOIN p ON a.id = p.id"'),
            r"the source has duplicate column names \['AGE', 'age'\]")


def test_a_natural_join_on_gender_and_GENDER_is_refused_not_dropping_rows():
    con = make(p_columns='id INTEGER, "GENDER" VARCHAR, body VARCHAR',
               posts=[(1, "m", "a"), (2, "f", "b"), (3, "f", "c"), (4, "m", "d"), (5, "m", "e")])
    refused(con, config(), r"relations 'a' and 'p' both have column 'gender' \('GENDER' in 'p'\), which is not a join key")


def test_a_NULL_in_a_person_column_spelt_PersonId_is_refused():
    con = make(a_columns='"PersonId" INTEGER, age INTEGER, gender VARCHAR', p_columns="personid INTEGER, body VARCHAR",
               authors=AUTHORS[:4] + [(None, 70, "m")], posts=POSTS[:4] + [(None, "orphan")])
    refused(con, config(person="personid"), "person column 'personid' is NULL in 1 rows of relation 'a'")


def test_a_natural_join_that_drops_rows_is_refused_naming_relation_and_column():
    con = make(posts=POSTS + [(9, "a post of nobody")])
    refused(con, config(), r"1 rows of relation 'p' find no partner on column\(s\) \['id'\] in the natural join "
                           r"of relations \['a', 'p'\]")


def test_a_key_listed_twice_in_a_joined_relation_is_refused_not_repeating_texts():
    # (before, the author listed twice with two ages had their post released twice, age [41-50])
    con = make(authors=AUTHORS + [(2, 50, "f")])
    refused(con, config(), r"relation 'a' holds id = 2 in 2 rows, so the natural join of relations \['a', 'p'\] "
                           r"repeats rows of relation 'p' \(5 rows become 6\); keep one row per key in relation 'a'")


def test_a_lookup_relation_listing_a_key_twice_is_refused_naming_that_key():
    con = make(a_columns="id INTEGER, age INTEGER, gender VARCHAR, city VARCHAR",
               authors=[(*a, "Oslo" if a[0] % 2 else "Rome") for a in AUTHORS])
    con.execute("CREATE TABLE c AS SELECT * FROM (VALUES ('Oslo', 'NO'), ('Rome', 'IT'), ('Oslo', 'US')) t(city, land)")
    refused(con, config('relations = ["a", "p", "c"]\njoin_keys = ["id", "city"]'),
            r"relation 'c' holds city = 'Oslo' in 2 rows, so the natural join of relations \['a', 'p', 'c'\] "
            r"repeats rows of relation 'p' \(5 rows become 8\)")


def test_cli_a_key_listed_twice_exits_2_in_one_line(tmp_path):
    db = str(tmp_path / "d.duckdb")
    make(authors=AUTHORS + [(2, 50, "f")], con=duckdb.connect(db)).close()
    (tmp_path / "c.toml").write_text(CONFIG.format(source='relations = ["a", "p"]', person="id"))
    r = cli("apply", db, "--config", str(tmp_path / "c.toml"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert "relation 'a' holds id = 2 in 2 rows" in r.stderr


def test_configured_names_match_columns_in_any_case():
    con = make(a_columns='"ID" INTEGER, "Age" INTEGER, "GENDER" VARCHAR', p_columns="Id INTEGER, body VARCHAR")
    apply(con, config())
    assert [r[0] for r in rows(con, "DESCRIBE rx.release")] == ["Age", "GENDER", "body"]
    assert scalar(con, "SELECT count(*) FROM rx.release") == len(POSTS)
    assert "[" in scalar(con, 'SELECT min("Age") FROM rx.release')      # recoded, not the exact ages
    assert verify(con).ok


@pytest.mark.parametrize("roles, message", [
    ('direct_identifiers = ["Gender"]', "column 'Gender' \\('gender'\\) is given two roles: source.direct_identifiers and attributes"),
    ('insensitive = ["Person"]', "column name 'Person' \\(source.insensitive\\) is reserved"),
], ids=["Gender dropped beside attributes.gender", "Person beside the reserved person"])
def test_roles_compare_names_as_duckdb_does(roles, message):
    with pytest.raises(ConfigError, match=message):
        config_from(CONFIG.format(source='relations = ["a", "p"]\n' + roles, person="id"))


def test_cli_natural_join_on_case_differing_column_exits_2(tmp_path):
    db = str(tmp_path / "d.duckdb")
    make(p_columns='id INTEGER, "GENDER" VARCHAR, body VARCHAR',
         posts=[(1, "m", "a"), (2, "f", "b"), (3, "f", "c"), (4, "m", "d"), (5, "m", "e")], con=duckdb.connect(db)).close()
    (tmp_path / "c.toml").write_text(CONFIG.format(source='relations = ["a", "p"]', person="id"))
    r = cli("apply", db, "--config", str(tmp_path / "c.toml"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert "both have column 'gender'" in r.stderr


# --- 8: an output schema that holds the user's tables -------------------------------------------

BOOKKEEPING = ["runs", "dataset", "terms", "release"]


@pytest.mark.parametrize("name", BOOKKEEPING)
@pytest.mark.parametrize("schema", ["main", "MAIN", "mine"])
def test_an_output_schema_with_a_user_table_named_like_bookkeeping_is_refused(schema, name):
    con = make()
    con.execute("CREATE SCHEMA IF NOT EXISTS mine")
    con.execute(f'CREATE TABLE {"main" if schema == "MAIN" else schema}."{name}" (note VARCHAR)')
    con.execute(f'INSERT INTO {"main" if schema == "MAIN" else schema}."{name}" VALUES (\'the user\'\'s\')')
    refused(con, config(extra=f'schema = "{schema}"\n'), f"schema '{schema}' holds tables rxanon-sql did not write")


def test_a_users_runs_table_with_other_columns_is_refused():
    con = make()
    con.execute("CREATE SCHEMA rx")
    con.execute("CREATE TABLE rx.runs (run_id INTEGER, note VARCHAR)")
    refused(con, config(), r"schema 'rx' holds tables rxanon-sql did not write \(\['runs'\]\)")


def test_a_table_the_user_adds_to_the_tools_schema_is_refused():
    con = make()
    apply(con, config())
    con.execute("CREATE TABLE rx.notes AS SELECT 'mine' AS note")
    refused(con, config(), r"schema 'rx' holds tables rxanon-sql did not write \(\['notes'\]\)")


def test_a_copied_run_log_with_the_tools_columns_does_not_make_main_the_tools_schema():
    # (before, main.runs with exactly rx.runs's columns made `--schema main` overwrite the user's
    # dataset, release and terms: only the marker tells the tool's schema)
    con = make()
    apply(con, config())
    for name in ("runs", "dataset", "release", "terms"):
        con.execute(f'CREATE TABLE main."{name}" AS SELECT * FROM rx."{name}"')
    refused(con, config(extra='schema = "main"\n'), "schema 'main' holds tables rxanon-sql did not write")


@pytest.mark.parametrize("left", ["runs", "ner_cache"])
def test_a_schema_without_the_marker_is_refused_whatever_its_tables_columns(left):
    con = make()
    apply(con, config())
    views = {v for (v,) in rows(con, "SELECT view_name FROM duckdb_views() WHERE schema_name = 'rx'")}
    for name in sorted(set(rx_tables(con)) - {left}, key=lambda n: n not in views):
        con.execute(f'DROP {"VIEW" if name in views else "TABLE"} rx."{name}"')
    refused(con, config(), rf"schema 'rx' holds tables rxanon-sql did not write \(\['{left}'\]\)")


def test_cli_apply_into_main_with_a_users_runs_table_exits_2_and_writes_nothing(tmp_path):
    db = str(tmp_path / "d.duckdb")
    con = make(con=duckdb.connect(db))
    con.execute("CREATE TABLE runs AS SELECT 1 AS run_id, 'my own' AS what")
    before = everything(con)
    con.close()
    (tmp_path / "c.toml").write_text(CONFIG.format(source='relations = ["a", "p"]', person="id"))
    r = cli("apply", db, "--config", str(tmp_path / "c.toml"), "--schema", "main")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert "schema 'main' holds tables rxanon-sql did not write" in r.stderr
    con = duckdb.connect(db)
    assert everything(con) == before            # no main.ner_cache either


# --- 9: demo --db of a database with the user's authors ------------------------------------------

@pytest.mark.parametrize("name", ["authors", "Posts"])
def test_demo_refuses_a_database_with_a_users_table_of_its_names(tmp_path, name):
    db = str(tmp_path / "mine.duckdb")
    con = duckdb.connect(db)
    con.execute(f'CREATE TABLE "{name}" (id INTEGER, who VARCHAR)')
    con.execute(f"INSERT INTO \"{name}\" VALUES (1, 'my own')")
    before = everything(con)
    con.close()
    r = cli("demo", "--db", db)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"already holds a table '{name}' that is not the demo's" in r.stderr
    con = duckdb.connect(db)
    assert everything(con) == before


def test_demo_refuses_a_database_whose_rx_is_the_users(tmp_path):
    db = str(tmp_path / "mine.duckdb")
    con = duckdb.connect(db)
    con.execute("CREATE SCHEMA rx")
    con.execute("CREATE TABLE rx.release AS SELECT 'mine' AS what")
    before = everything(con)
    con.close()
    r = cli("demo", "--db", db)
    assert r.returncode == 2 and "schema 'rx' holds tables rxanon-sql did not write" in r.stderr, r.stderr
    con = duckdb.connect(db)
    assert everything(con) == before            # no authors or posts either


def test_demo_runs_again_on_its_own_database():
    con = duckdb.connect()
    write_demo_database(con)
    write_demo_database(con)
    con.execute("UPDATE authors SET age = 99 WHERE id = 1")       # now the user's data
    with pytest.raises(InputError, match="already holds a table 'authors' that is not the demo's"):
        write_demo_database(con)
    assert scalar(con, "SELECT age FROM authors WHERE id = 1") == 99


# --- 10: a table of the same name in another schema ----------------------------------------------

def test_a_same_named_table_in_another_schema_is_not_read():
    con = make()
    con.execute("CREATE SCHEMA archive")
    con.execute("CREATE TABLE archive.p (id INTEGER, body VARCHAR, gender VARCHAR, old VARCHAR)")
    apply(con, config())
    assert scalar(con, "SELECT count(*) FROM rx.release") == len(POSTS)
    assert verify(con).ok


def test_a_qualified_relation_is_read_from_its_schema():
    con = make()
    con.execute("CREATE SCHEMA archive")
    con.execute("CREATE TABLE archive.p AS SELECT id, body || ' (archived)' AS body FROM p")
    con.execute("DROP TABLE p")
    apply(con, config('relations = ["a", "archive.p"]'))
    assert all(b.endswith("(archived)") for (b,) in rows(con, "SELECT body FROM rx.release"))
    assert scalar(con, "SELECT count(*) FROM rx.release") == len(POSTS)


def test_init_takes_ID_and_id_for_one_column():
    from rxanon_sql.init import starting_config
    con = make(p_columns='"ID" INTEGER, body VARCHAR', posts=[(i, "a text long enough to be taken for free text " * 2)
                                                             for i, *_ in AUTHORS])
    text = starting_config(con)
    assert "[attributes.ID]" not in text and 'person = "id"' in text
    apply(con, config_from(text, k=2))
    assert scalar(con, "SELECT count(*) FROM rx.release") == len(POSTS)
