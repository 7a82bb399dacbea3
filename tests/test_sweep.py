"""The sweep (sql/sweep.sql): a surface replaced somewhere in a person's texts, and kept nowhere,
is replaced everywhere in them, whichever span the earlier choices left it in. The sentences are
from the blog authorship corpus, where each of these once ended in a leak report."""
import duckdb
import pytest

from helpers import config_from, rows
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

CONFIG = """
[source]
relations = ["t"]
person = "id"
[attributes.age]
type = "numeric"
[attributes.topic]
type = "nominal"
[text]
columns = ["text"]
[anonymization]
k = 2
"""

OTHERS = [(2, 50, "Arts", "nothing here"), (3, 51, "Arts", "nothing"), (4, 52, "Arts", "nothing at all")]


def release_of(texts, topic="Law", sweep=True, monkeypatch=None):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, topic VARCHAR, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(1, 30, topic, x) for x in texts] + OTHERS)
    apply(con, config_from(CONFIG))
    return con, [r[0] for r in rows(con, "SELECT text FROM rx.audit WHERE person = 1")]


@pytest.mark.parametrize("texts, surface", [
    # "Law" is the person's topic: linked and recoded alone, which left the NORP "German" beside it
    (["We haven't even started our German Law classes and we have finals.", "My German teacher is strict."],
     "German"),
    # "224" of the CARDINAL "224 50" was left to linking, and "50", a MONEY elsewhere, replaced the span
    (["Start the day at 224 50 to win 90 on the Pistons +180 L at 174", "I lost $50 on the Pistons.",
      "Room 224 was cold."], "224"),
    # the same without a "224" elsewhere: a rare number whose span another match replaced
    # (resolve_matches.sql)
    (["Start the day at 224 50 to win 90 on the Pistons +180 L at 174", "I lost $50 on the Pistons."], "224"),
])
def test_a_surface_replaced_elsewhere_is_replaced_here(texts, surface):
    con, released = release_of(texts)
    replaced = rows(con, "SELECT DISTINCT norm FROM rx.replacements WHERE person = 1 AND reason = 'suppressed'")
    assert (surface.lower(),) in replaced, replaced
    assert not [t for t in released if surface in t.split() or f" {surface} " in f" {t} "], released
    assert verify(con).ok


def test_a_rare_run_around_the_persons_own_value_stays_whole():
    # The run "Science Weapon Hammer Tonight" is rare (one person writes it) and holds the
    # person's own topic; it stays a RARE term, rather than giving way to the topic and leaving
    # "Weapon Hammer Tonight" readable beside it (linking.sql).
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, topic VARCHAR, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(1, 30, "Science", "Quiz: Science Weapon Hammer Tonight")] + OTHERS)
    apply(con, config_from(CONFIG))
    released = rows(con, "SELECT text FROM rx.audit WHERE person = 1")[0][0]
    assert "Weapon" not in released and "Hammer" not in released, released
    assert verify(con, strict=True).ok
