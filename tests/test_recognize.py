import shutil
import tomllib

import duckdb
import pytest

from helpers import demo_config, differing_rows, rows, rx_tables, scalar
from rxanon_sql import recognize
from rxanon_sql.config import parse_config
from rxanon_sql.demo import write_demo_database
from rxanon_sql.generate import config_text, generate, prefill_cache
from rxanon_sql.pipeline import apply
from rxanon_sql.udf import register_ner
from udfs.ner import TextRecognizer


def test_ner_udf_offsets_refer_to_the_original_text():
    con = duckdb.connect()
    register_ner(con, TextRecognizer())
    text = "Zoë O\u2019Brien 😀 flew from Zürich to Canada; mail zoe@example.org or call +1 415-555-2671."
    ents = rows(con, "SELECT unnest(rx_ner(?))", [text])
    found = {(e[0]["label"], e[0]["term"]) for e in ents}
    for e, in ents:
        assert text[e["start_pos"]:e["end_pos"]] == e["term"]
    assert ("GPE", "Canada") in found
    assert ("MAIL", "zoe@example.org") in found
    assert any(label == "PHONE" for label, _ in found)


def test_null_and_empty_texts():
    r = TextRecognizer()
    import pyarrow as pa
    out = r.arrow(pa.array([None, "", "Paris"], type=pa.string())).to_pylist()
    assert out[0] is None and out[1] == [] and out[2][0]["term"] == "Paris"


def test_second_run_recognizes_nothing(demo_con_rw):
    con = demo_con_rw
    before = scalar(con, "SELECT count(*) FROM rx.ner_cache")
    report = apply(con, demo_config(k=3, lam=0.2))
    assert report.counts["texts_recognized"] == 0
    assert scalar(con, "SELECT count(*) FROM rx.ner_cache") == before == 9


def test_changing_term_lists_recognizes_again(demo_con_rw):
    con = demo_con_rw
    cfg = demo_config()
    cfg = cfg.with_overrides(terms={**cfg.terms, "HOBBY": ("blog",)})
    report = apply(con, cfg)
    assert report.counts["texts_recognized"] == 9
    assert ("blog", "HOBBY") in rows(con, "SELECT term, label FROM rx.terms")


def test_every_occurrence_of_a_persons_term_is_a_term():
    con = duckdb.connect()
    write_demo_database(con)
    # Person 3 writes "Ben" twice; spaCy does not tag the second occurrence on its own.
    con.execute("INSERT INTO posts VALUES (3, '28,May,2004', 'the ben thing')")
    apply(con, demo_config())
    terms = rows(con, "SELECT term, label, source FROM rx.terms WHERE person = 3 AND norm = 'ben' ORDER BY row_id")
    assert ("ben", "PERSON", "match") in terms


def test_the_corpus_searcher_is_let_go_after_propagation(demo_con_rw):
    # (the UDF lives as long as the connection; its automaton must not live through the check)
    con = demo_con_rw
    apply(con, demo_config(k=3, lam=0.2))
    terms = rows(con, "SELECT * FROM rx.terms ORDER BY ALL")
    with pytest.raises(duckdb.Error, match="let go"):
        con.execute("SELECT rx_find_corpus('Ben')").fetchall()
    # a second run on the same connection builds its own searcher, and finds the same
    apply(con, demo_config(k=3, lam=0.2))
    assert rows(con, "SELECT * FROM rx.terms ORDER BY ALL") == terms


def test_vague_dates_are_not_terms(demo_con):
    norms = {r[0] for r in rows(demo_con, "SELECT norm FROM rx.terms WHERE label = 'DATE'")}
    assert "a great year" not in norms and "four days ago" not in norms and "a good day" not in norms
    assert "2004" in norms and "36 years old" in norms


def test_spans_are_trimmed_widened_and_overlaps_resolved():
    # terms.sql on spans written straight into the cache: the settled ones (ASCII letters or
    # digits at both ends, no word character beside them) and the ones that are trimmed or
    # widened must come out as the rules say.
    from rxanon_sql.sqlrun import run_file
    from rxanon_sql.udf import register_cut
    con = duckdb.connect()
    con.execute("CREATE SCHEMA rx")
    run_file(con, "parameters", "rx")
    run_file(con, "ner_cache", "rx")
    con.execute("INSERT INTO rx.params (fingerprint) VALUES ('fp')")
    con.execute("INSERT INTO rx.labels VALUES ('GPE', 0), ('PERSON', 0), ('MONEY', 0), ('ORG', 0)")
    con.execute("INSERT INTO rx.emap VALUES ('age', 'CARDINAL')")
    texts = ["Paris 10GB $15 in Zürich, ok", "Ann  Lee met Bo Chan at ACME Corp today", "$ x"]
    con.execute("CREATE TABLE rx.texts AS SELECT i AS row_id, i AS person, 'text' AS attribute, t AS text, "
                "md5(t) AS text_hash, i AS text_id FROM (SELECT unnest(?) AS t, unnest(range(3)) AS i)", [texts])
    spans = {0: [(0, 5, "GPE"), (8, 10, "GPE"), (10, 14, "MONEY"), (20, 24, "GPE"), (26, 28, "CARDINAL"),
                 (27, 27, "GPE")],
             1: [(0, 8, "PERSON"), (13, 20, "PERSON"), (16, 20, "ORG"), (24, 33, "CARDINAL"), (24, 28, "ORG"),
                 (34, 39, "NORP")],
             2: [(0, 1, "MONEY"), (2, 3, "PERSON")]}
    for i, ents in spans.items():
        con.execute("INSERT INTO rx.ner_cache SELECT 'fp', md5(?), ?::STRUCT(start_pos INTEGER, end_pos INTEGER, "
                    "term VARCHAR, label VARCHAR, source VARCHAR)[]",
                    [texts[i], [{"start_pos": s, "end_pos": e, "term": texts[i][s:e], "label": lab, "source": "ner"}
                                for s, e, lab in ents]])
    register_cut(con)
    run_file(con, "terms", "rx")
    found = rows(con, "SELECT row_id, start_pos, end_pos, term, norm, label FROM terms_found "
                      "ORDER BY row_id, start_pos, label")
    assert found == [
        (0, 0, 5, "Paris", "paris", "GPE"),
        (0, 6, 10, "10GB", "10gb", "GPE"),       # widened over the "10" spaCy cut off
        (0, 12, 14, "15", "15", "MONEY"),        # trimmed of " $"
        (0, 18, 24, "Zürich", "zürich", "GPE"),  # widened over non-ASCII letters
        (0, 26, 28, "ok", "ok", "CARDINAL"),
        (1, 0, 8, "Ann  Lee", "ann lee", "PERSON"),
        (1, 13, 20, "Bo Chan", "bo chan", "PERSON"),  # the longer sensitive span wins
        (1, 24, 28, "ACME", "acme", "ORG"),           # a sensitive label wins over a longer one
        (2, 2, 3, "x", "x", "PERSON"),
    ]


def test_the_search_in_batches_gives_the_tables_of_one_batch(tmp_path, monkeypatch):
    # Each person's texts must go to exactly one batch (propagate.sql's person_batches), however
    # many batches: more than 50 here, of a few persons each.
    monkeypatch.setattr("secrets.token_hex", lambda n=None: "5a17" * 8)    # (fixed per-run salts)
    cfg = parse_config(tomllib.loads(config_text())).with_overrides(secret="one")
    con = duckdb.connect(str(tmp_path / "a.duckdb"))
    generate(con, 150, 3, seed=11)
    prefill_cache(con, cfg)
    con.close()
    shutil.copy(tmp_path / "a.duckdb", tmp_path / "b.duckdb")
    counts = []
    batches = recognize.search_batches
    monkeypatch.setattr("rxanon_sql.pipeline.search_batches", lambda *a: counts.append(batches(*a)) or counts[-1])
    for name, batch_bytes in (("a", 1 << 40), ("b", 2_000)):
        monkeypatch.setattr(recognize, "SEARCH_BATCH_BYTES", batch_bytes)
        con = duckdb.connect(str(tmp_path / f"{name}.duckdb"))
        apply(con, cfg, reuse=False)
        con.close()
    assert counts[0] == 1 and counts[1] > 50
    con = duckdb.connect(str(tmp_path / "a.duckdb"))
    con.execute(f"ATTACH '{tmp_path / 'b.duckdb'}' AS b (READ_ONLY)")
    assert scalar(con, "SELECT count(*) FROM rx.terms WHERE linked_attribute IS NOT NULL") > 0
    for name in sorted(set(rx_tables(con)) - {"runs"}):
        for a, b in (("a", "b"), ("b", "a")):
            assert differing_rows(con, name, a, b) == 0, (name, a, b)
