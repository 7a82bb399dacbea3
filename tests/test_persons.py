"""The persons stage: D* as the long tables the partitioner reads and the wide view rx.persons."""

from helpers import demo_config, rows
from rxanon_sql.pipeline import apply


def test_wide_view_holds_each_persons_sorted_values_and_terms(demo_con):
    expected = {}
    for person, gender, age, topic, sign in rows(demo_con, "SELECT person, gender, age, topic, sign FROM rx.dataset"):
        lists = expected.setdefault(person, [set(), set(), set(), set()])
        for i, v in enumerate((gender, age, topic, sign)):
            lists[i].add(v)
    terms = {}
    for person, label, norm in rows(demo_con, "SELECT person, label, norm FROM rx.person_terms"):
        terms.setdefault(person, []).append({"label": label, "norm": norm})
    got = rows(demo_con, "SELECT person, gender, age, topic, sign, terms FROM rx.persons")
    assert [p for p, *_ in got] == sorted(expected)
    for person, gender, age, topic, sign, person_terms in got:
        assert [gender, age, topic, sign] == [sorted(s) for s in expected[person]]
        assert person_terms == sorted(terms.get(person, []), key=lambda t: (t["label"], t["norm"]))


def test_term_ids_number_the_terms_in_label_and_norm_order(demo_con):
    ids = rows(demo_con, "SELECT label_id, term_id, label, norm FROM rx.term_ids ORDER BY term_id")
    assert [t for _, t, _, _ in ids] == list(range(1, len(ids) + 1))
    assert [(label, norm) for _, _, label, norm in ids] == sorted((label, norm) for _, _, label, norm in ids)
    labels = sorted({label for _, _, label, _ in ids})
    assert all(label_id == labels.index(label) + 1 for label_id, _, label, _ in ids)
    assert rows(demo_con, "SELECT count(*) FROM rx.person_terms AS p JOIN rx.term_ids AS i "
                          "ON i.term_id = p.term_id AND (i.label, i.norm, i.label_id) <> (p.label, p.norm, p.label_id)") == [(0,)]


def test_a_persons_table_of_an_earlier_version_becomes_the_view(demo_con_rw):
    con = demo_con_rw       # (a copy of the demo's release: conftest.demo_db)
    con.execute("DROP VIEW rx.persons")
    con.execute("CREATE TABLE rx.persons AS SELECT 1 AS person")
    # (an earlier version's files give another fingerprint: no stage is reused, as with reuse=False)
    apply(con, demo_config(), reuse=False)
    assert rows(con, "SELECT table_type FROM information_schema.tables "
                     "WHERE table_schema = 'rx' AND table_name = 'persons'") == [("VIEW",)]
    assert rows(con, "SELECT count(*) FROM rx.persons") == [(6,)]
