import duckdb

from helpers import demo_config, rows, scalar
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import apply
from rxanon_sql.udf import register_ner
from rxanon_sql.udfs.ner import Recognizer


def test_ner_udf_offsets_refer_to_the_original_text():
    con = duckdb.connect()
    register_ner(con, Recognizer())
    text = "Zoë O\u2019Brien 😀 flew from Zürich to Canada; mail zoe@example.org or call +1 415-555-2671."
    ents = rows(con, "SELECT unnest(rx_ner(?))", [text])
    found = {(e[0]["label"], e[0]["term"]) for e in ents}
    for e, in ents:
        assert text[e["start_pos"]:e["end_pos"]] == e["term"]
    assert ("GPE", "Canada") in found
    assert ("MAIL", "zoe@example.org") in found
    assert any(label == "PHONE" for label, _ in found)


def test_null_and_empty_texts():
    r = Recognizer()
    import pyarrow as pa
    out = r.arrow(pa.array([None, "", "Paris"], type=pa.string())).to_pylist()
    assert out[0] is None and out[1] == [] and out[2][0]["term"] == "Paris"


def test_second_run_recognizes_nothing(demo_con):
    before = scalar(demo_con, "SELECT count(*) FROM rx.ner_cache")
    report = apply(demo_con, demo_config(k=3, lam=0.2))
    assert report.counts["texts_recognized"] == 0
    assert scalar(demo_con, "SELECT count(*) FROM rx.ner_cache") == before == 9


def test_changing_term_lists_recognizes_again(demo_con):
    cfg = demo_config()
    cfg = cfg.with_overrides(terms={**cfg.terms, "HOBBY": ("blog",)})
    report = apply(demo_con, cfg)
    assert report.counts["texts_recognized"] == 9
    assert ("blog", "HOBBY") in rows(demo_con, "SELECT term, label FROM rx.terms")


def test_every_occurrence_of_a_persons_term_is_a_term():
    con = duckdb.connect()
    write_demo_database(con)
    # Person 3 writes "Ben" twice; spaCy does not tag the second occurrence on its own.
    con.execute("INSERT INTO posts VALUES (3, '28,May,2004', 'the ben thing')")
    apply(con, demo_config())
    terms = rows(con, "SELECT term, label, source FROM rx.terms WHERE person = 3 AND norm = 'ben' ORDER BY row_id")
    assert ("ben", "PERSON", "match") in terms


def test_vague_dates_are_not_terms(demo_con):
    norms = {r[0] for r in rows(demo_con, "SELECT norm FROM rx.terms WHERE label = 'DATE'")}
    assert "a great year" not in norms and "four days ago" not in norms and "a good day" not in norms
    assert "2004" in norms and "36 years old" in norms
