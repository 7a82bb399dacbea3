"""The leak check's search (sql/leaks.sql), run in batches of persons: the same hits whatever the
number of batches."""
from rxanon_sql.recognize import register_find_texts
from rxanon_sql.sqlrun import run_file

HITS = "SELECT row_id, person, attribute, start_pos, end_pos, needle, replaced_term, identifier FROM leak_hits"


def test_the_leak_hits_do_not_depend_on_the_batches(demo_con_rw):
    con = demo_con_rw
    # Every person's suppressed surfaces written back at the end of their first released text:
    # each person has hits, the first and the last of every batch among them.
    con.execute("UPDATE rx.audit AS a SET text = a.text || ' ' || s.surfaces "
                "FROM (SELECT person, string_agg(DISTINCT norm, ' . ' ORDER BY norm) AS surfaces "
                "      FROM rx.replacements WHERE reason = 'suppressed' GROUP BY person) AS s, "
                "     (SELECT person, min(row_id) AS row_id FROM rx.audit GROUP BY person) AS f "
                "WHERE a.row_id = f.row_id AND f.person = s.person")
    persons = con.execute("SELECT count(DISTINCT person) FROM rx.replacements WHERE reason = 'suppressed'") \
        .fetchall()[0][0]
    register_find_texts(con)
    run_file(con, "shown_terms", "rx", cached=False)
    found = {}
    for batches in (1, 2, 3, persons, persons + 3):
        leaks = run_file(con, "leaks", "rx", cached=False, batches=batches, batch_table="leak_batches").fetchall()
        found[batches] = (sorted(con.execute(HITS).fetchall(), key=repr), sorted(leaks, key=repr))
    hits, leaks = found[1]
    assert persons >= 4 and len({h[1] for h in hits}) == persons and leaks
    assert all(f == found[1] for f in found.values())
