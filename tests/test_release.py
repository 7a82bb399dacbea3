import random
import re

import duckdb

from helpers import demo_config, rows, scalar
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import apply
from rxanon_sql.sqlrun import run_file
from rxanon_sql.udf import register_cut
from rxanon_sql.verify import verify

ORIGINAL = "My name is Pedro, I\u2019m a 36 years old engineer from Mexico."


def test_public_columns_only(demo_con):
    cols = [r[0] for r in rows(demo_con, "DESCRIBE rx.release")]
    assert cols == ["gender", "age", "topic", "sign", "date", "text"]
    audit = [r[0] for r in rows(demo_con, "DESCRIBE rx.audit")]
    assert audit[:3] == ["row_id", "person", "partition_id"]


def test_redundant_terms_carry_the_recoded_value(demo_con):
    text, age = rows(demo_con, "SELECT a.text, a.age FROM rx.audit a WHERE row_id = 1")[0]
    assert age == "[36-37]"
    assert f"I\u2019m a {age} years old" in text  # the apostrophe survives
    assert "Pedro" not in text and "Mexico" not in text
    assert text == "My name is [PERSON], I\u2019m a [36-37] years old [JOB] from [GPE]."


def test_text_outside_replacements_is_unchanged(demo_con):
    for row_id, attribute, original, released in rows(demo_con, """
            SELECT t.row_id, t.attribute, t.text, r.text FROM rx.texts t JOIN rx.released_texts r USING (row_id, attribute)"""):
        reps = rows(demo_con, "SELECT start_pos, end_pos, replacement FROM rx.replacements WHERE row_id = ? "
                    "AND attribute = ? ORDER BY start_pos", [row_id, attribute])
        rebuilt, last = "", 0
        for s, e, rep in reps:
            rebuilt += original[last:s] + rep
            last = e
        assert released == rebuilt + original[last:]


def test_suppressed_terms_are_gone_from_every_text_of_the_person(demo_con):
    for person, norm in rows(demo_con, "SELECT DISTINCT person, norm FROM rx.replacements WHERE reason = 'suppressed'"):
        for (text,) in rows(demo_con, "SELECT text FROM rx.audit WHERE person = ?", [person]):
            assert not re.search(rf"(?<!\w){re.escape(norm)}(?!\w)", text, re.IGNORECASE), (person, norm, text)


def test_kept_terms_are_shared_by_the_whole_partition(demo_con):
    # UK is written by persons 4 and 6, who share a partition: it stays.
    texts = [r[0] for r in rows(demo_con, "SELECT text FROM rx.audit WHERE person IN (4, 6)")]
    assert sum("UK" in t for t in texts) == 2


def test_row_order_does_not_follow_person_or_row_id(demo_con):
    order = rows(demo_con, "SELECT partition_id, row_id FROM rx.audit")
    assert [p for p, _ in order] == sorted(p for p, _ in order)  # grouped by partition
    assert scalar(demo_con, "SELECT count(*) FROM rx.release") == 9


def test_released_spans_point_into_the_released_text(demo_con):
    for row_id, attribute, kind, s, e in rows(demo_con, "SELECT * FROM rx.released_spans"):
        released = rows(demo_con, "SELECT text FROM rx.released_texts WHERE row_id = ? AND attribute = ?", [row_id, attribute])[0][0]
        if kind == "replacement":
            assert released[s:e] in {r[0] for r in rows(demo_con, "SELECT replacement FROM rx.replacements WHERE row_id = ?", [row_id])}
        else:
            assert released[s:e] in {r[0] for r in rows(demo_con, "SELECT term FROM rx.terms WHERE row_id = ?", [row_id])}


def test_release_is_the_audit_without_its_keys_in_the_same_order(demo_con):
    public = [r[0] for r in rows(demo_con, "DESCRIBE rx.release")]
    cols = ", ".join(f'"{c}"' for c in public)
    assert rows(demo_con, f"SELECT {cols} FROM rx.release") == rows(demo_con, f"SELECT {cols} FROM rx.audit")


def test_released_texts_hold_every_text_once(demo_con):
    assert rows(demo_con, "SELECT row_id, attribute FROM rx.released_texts ORDER BY ALL") == \
        rows(demo_con, "SELECT row_id, attribute FROM rx.texts ORDER BY ALL")


def test_rebuild_applies_edits_in_order_whatever_their_number():
    """sql/rebuild_texts.sql on hand-made edits: none, one at either end, the whole text, offsets
    in characters beyond ASCII, and a text with more edits than any corpus text has, given in
    shuffled order."""
    con = duckdb.connect(":memory:")
    con.execute("CREATE TEMP TABLE original_texts (row_id BIGINT, attribute VARCHAR, text VARCHAR)")
    long = "".join(f"w{i:03d} " for i in range(300))
    texts = {(1, "a"): "abcdef", (1, "b"): "abcdef", (2, "a"): "abcdef", (3, "a"): "xyz", (4, "a"): long,
             (5, "a"): "untouched", (6, "a"): "", (7, "a"): "\u00f1and\u00fa y ping\u00fcino"}
    con.executemany("INSERT INTO original_texts VALUES (?, ?, ?)", [(r, a, t) for (r, a), t in texts.items()])
    edits = [(1, "a", 0, 1, "[A]"), (1, "b", 5, 6, "<F>"), (2, "a", 1, 2, ""), (2, "a", 3, 5, "\u00e9\u00e9\u00e9"),
             (3, "a", 0, 3, "[ALL]"), (6, "a", 0, 0, "+"),
             (7, "a", 0, 5, "[X]"), (7, "a", 8, 16, "[Y]")]
    edits += [(4, "a", 5 * i, 5 * i + 4, f"[{i}]") for i in range(0, 300, 2)]
    random.Random(1).shuffle(edits)
    con.execute("CREATE TEMP TABLE text_edits (row_id BIGINT, attribute VARCHAR, start_pos INTEGER, end_pos INTEGER, replacement VARCHAR)")
    con.executemany("INSERT INTO text_edits VALUES (?, ?, ?, ?, ?)", edits)
    register_cut(con)
    run_file(con, "rebuild_texts")
    expected = {}
    for key, text in texts.items():
        mine = sorted((s, e, r) for (row, a, s, e, r) in edits if (row, a) == key)
        if not mine:
            continue
        out, last = "", 0
        for s, e, r in mine:
            out += text[last:s] + r
            last = e
        expected[key] = out + text[last:]
    assert {(r, a): t for r, a, t in rows(con, "SELECT * FROM rebuilt_texts")} == expected


def test_release_keeps_the_audit_order_when_the_connection_may_reorder():
    con = duckdb.connect(":memory:")
    con.execute("SET preserve_insertion_order = false")
    write_demo_database(con)
    apply(con, demo_config())
    public = ", ".join(f'"{r[0]}"' for r in rows(con, "DESCRIBE rx.release"))
    assert rows(con, f"SELECT {public} FROM rx.release") == rows(con, f"SELECT {public} FROM rx.audit")


def test_verify_counts_release_rows_that_differ_from_the_audit_in_one_cell(demo_con_rw):
    con = demo_con_rw
    assert verify(con).mismatched_rows == 0
    con.execute("DROP VIEW rx.release")
    # as many rows as the audit, one cell changed: the hash sums differ, and the rows are counted
    con.execute("CREATE TABLE rx.release AS SELECT * EXCLUDE (row_id, person, partition_id) "
                "REPLACE (CASE WHEN row_id = 1 THEN 'other' ELSE gender END AS gender) FROM rx.audit")
    v = verify(con)
    assert v.mismatched_rows == 2 and not v.ok
