import re

from helpers import rows, scalar

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
