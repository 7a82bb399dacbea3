"""The sweep (sql/sweep.sql): a surface replaced somewhere in a person's texts, and kept nowhere,
is replaced everywhere in them, whichever span the earlier choices left it in. The sentences are
from the blog authorship corpus, where each of these once ended in a leak report."""
import re

import duckdb
import pyarrow as pa
import pytest

from helpers import config_from, rows
from rxanon_sql import recognize
from rxanon_sql.pipeline import apply
from udfs.ner import ENTITY_ARROW_TYPE
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
    # (replaced alone, or inside a replaced span: "224 50" as a whole, now that the MONEY "50" of
    # "$50" is a term only where it was recognized, corpus_needles.sql)
    assert any(surface.lower() in norm.split() for (norm,) in replaced), replaced
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


class Tags:
    """A recognizer that tags `pattern` with `label` in the texts that hold `marker`."""

    def __init__(self, rules):
        self.rules = rules

    def arrow(self, texts: pa.Array) -> pa.Array:
        return pa.array([[{"start_pos": m.start(), "end_pos": m.end(), "term": m.group(), "label": label, "source": "ner"}
                          for marker, pattern, label in self.rules if marker in text
                          for m in re.finditer(pattern, text)] for text in texts.to_pylist()],
                        type=ENTITY_ARROW_TYPE)


def test_a_hit_cutting_into_a_kept_term_takes_the_term_with_it(monkeypatch):
    # Persons 1 and 2 share "Zed? Quo" (kept); person 1's "Quo'x" and "Zed" are suppressed. In
    # "Zed? Quo'x", the sweep's "Quo'x" cuts into the kept term: replaced alone, it left "Zed?"
    # readable, a suppressed name of person 1 (the blog sample's "I? I'm", k = 2).
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: Tags([
        ("[one]", r"Zed\? Quo", "PERSON"), ("[two]", r"Quo'x", "ORG"), ("[three]", r"Zed", "PERSON")]))
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, topic VARCHAR, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [
        (1, 30, "Arts", "Hello Zed? Quo'x here. [one]"), (1, 30, "Arts", "Quo'x again. [two]"),
        (1, 30, "Arts", "Zed said hi. [three]"), (2, 31, "Arts", "Hello Zed? Quo here. [one]"),
        (3, 50, "Arts", "nothing here"), (4, 51, "Arts", "nothing at all")])
    apply(con, config_from(CONFIG.replace('columns = ["text"]', 'columns = ["text"]\nrare_guard = false')))
    assert rows(con, "SELECT text FROM rx.audit WHERE person = 2") == [("Hello Zed? Quo here. [one]",)]
    assert ("Hello [ORG] here. [one]",) in rows(con, "SELECT text FROM rx.audit WHERE person = 1")
    assert verify(con).ok
