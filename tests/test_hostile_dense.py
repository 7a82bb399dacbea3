"""Hostile input: one dense text (thousands of distinct names, places, numbers and dates in one
post). The memory of every statement of a run must grow about linearly in the length of that
text: twice the text, at most 2.5 times the memory (a statement that copied the text once per
span took four times). DuckDB's own account of each statement's peak buffer memory is compared,
which, unlike the process' RSS, neither other tests nor the allocator's caching move."""
from __future__ import annotations

import json
import re

import duckdb
import pyarrow as pa
import pytest

from helpers import demo_config, rows
from rxanon_sql import sqlrun
from rxanon_sql.demo import write_demo_database
from rxanon_sql.generate import dense_text, prefill_cache
from rxanon_sql.pipeline import apply
from udfs.ner import ENTITY_ARROW_TYPE
from rxanon_sql.verify import verify

SPAN = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*|\d+")


def _spans(text: str) -> list[dict]:
    """What a recognizer could tag in a dense text, without loading spaCy: each capitalised run
    a PERSON, each number a CARDINAL."""
    return [{"start_pos": m.start(), "end_pos": m.end(), "term": m.group(), "source": "ner",
             "label": "CARDINAL" if m.group().isdigit() else "PERSON"} for m in SPAN.finditer(text)]


def _dense_run(tmp_path, chars: int, monkeypatch, measure: str = "peak_buffer_memory"):
    """apply on the demo plus a seventh person with one dense text; each statement's peak
    buffer memory (bytes) or, with measure="cpu_time", its seconds of CPU, by its label (file
    and statement number); and the connection."""
    con = duckdb.connect()
    write_demo_database(con)
    text = dense_text(chars, seed=1)
    con.execute("INSERT INTO authors VALUES (7, 'female', 31, 'Law', 'Libra')")
    con.execute("INSERT INTO posts VALUES (7, '2,March,2005', ?)", [text])
    texts = [r[0] for r in rows(con, "SELECT text FROM posts")]
    entities = pa.table({"text": texts, "entities": pa.array([_spans(t) for t in texts], type=ENTITY_ARROW_TYPE)})
    con.register("ents", entities)
    con.execute("CREATE TABLE generated_entities AS SELECT md5(text) AS text_hash, entities FROM ents")
    cfg = demo_config()
    prefill_cache(con, cfg)
    peaks: dict[str, int] = {}
    profile = str(tmp_path / f"profile_{chars}.json")
    original = sqlrun._execute

    def measured(c, sql, params, label):
        result = original(c, sql, params, label)
        # (a query whose result is fetched later has not written its profile yet: the file then
        # still holds the statement before, which the query text tells apart)
        with open(profile) as f:
            p = json.load(f)
        if p["query"]["sql"] == sql:
            if measure == "cpu_time":      # (a statement run once per batch: its batches' sum)
                peaks[label] = peaks.get(label, 0) + p["query"]["cpu_time"]
            else:
                peaks[label] = max(peaks.get(label, 0), p["system"][measure])
        return result
    con.execute("PRAGMA enable_profiling = 'json'")
    con.execute(f"PRAGMA profiling_output = '{profile}'")
    monkeypatch.setattr(sqlrun, "_execute", measured)
    apply(con, cfg)
    monkeypatch.undo()
    con.execute("PRAGMA disable_profiling")
    return peaks, con


def test_memory_of_each_statement_grows_linearly_in_one_dense_text(tmp_path, monkeypatch):
    small, _ = _dense_run(tmp_path, 40_000, monkeypatch)
    large, con = _dense_run(tmp_path, 80_000, monkeypatch)
    assert rows(con, "SELECT count(*) FROM rx.terms WHERE person = 7")[0][0] > 2_000
    assert verify(con).ok
    # (below 16 MB a statement's peak is DuckDB's blocks of a few rows, not the text's spans)
    grown = {label: (small.get(label, 0) >> 20, peak >> 20) for label, peak in large.items()
             if peak > 16 << 20 and peak > 2.5 * small.get(label, 0)}
    assert not grown, f"statements whose memory grew more than 2.5 times with twice the text (MB): {grown}"


def test_rx_cut_cuts_as_substring_does():
    """terms.sql reads a span's context from rx_cut where it used DuckDB's substring: the same
    pieces, in characters (not bytes), at the text's ends too."""
    from rxanon_sql.udf import register_cut
    con = duckdb.connect()
    register_cut(con)
    text = "Zoë Ærø met Ann in Zürich, 3 € later: Bob."
    pairs = [(s, e) for s in range(0, len(text) + 2) for e in range(s + 1, len(text) + 3)]
    got = rows(con, "SELECT rx_cut(?, ?, ?)", [text, [max(s, 1) - 1 for s, _ in pairs], [e + 1 for _, e in pairs]])[0][0]
    con.register("pairs", pa.table({"s": [s for s, _ in pairs], "e": [e for _, e in pairs]}))
    want = [r[0] for r in rows(con, "SELECT substring(?, s, e - s + 2) FROM pairs", [text])]
    assert got == want


@pytest.mark.slow
def test_time_of_each_statement_grows_about_linearly_in_one_dense_text(tmp_path, monkeypatch):
    """The CPU seconds of each statement for a dense text of 100 and 200 KB: a statement that
    pairs the spans of one text with each other takes four times as long for twice the text."""
    small, _ = _dense_run(tmp_path, 100_000, monkeypatch, "cpu_time")
    large, _ = _dense_run(tmp_path, 200_000, monkeypatch, "cpu_time")
    # (under 0.3 s a statement's time is mostly its planning and DuckDB's threads starting)
    grown = {label: (round(small.get(label, 0), 2), round(t, 2)) for label, t in large.items()
             if t > 0.3 and t > 2.5 * small.get(label, 0)}
    assert not grown, f"statements whose CPU time grew more than 2.5 times with twice the text (s): {grown}"


def test_rebuild_cuts_a_long_text_as_a_short_one():
    """rebuild_texts.sql cuts texts of more than 4,096 characters with rx_cut and shorter ones
    with substring: the same edits, given in shuffled order, rebuild both alike (offsets in
    characters beyond ASCII, an edit at either end)."""
    import random
    from rxanon_sql.sqlrun import run_file
    from rxanon_sql.udf import register_cut
    con = duckdb.connect()
    register_cut(con)
    unit = "Zoë met Ærø in Zürich. "
    texts = {1: unit * 4, 2: unit * 400}
    con.execute("CREATE TEMP TABLE original_texts (row_id BIGINT, attribute VARCHAR, text VARCHAR)")
    con.executemany("INSERT INTO original_texts VALUES (?, 'a', ?)", list(texts.items()))
    edits = [(r, "a", s, s + 3, f"[{r}.{s}]") for r, t in texts.items() for s in range(0, len(t) - 3, 7)]
    edits += [(r, "a", len(t) - 2, len(t), "<END>") for r, t in texts.items()]
    random.Random(2).shuffle(edits)
    con.execute("CREATE TEMP TABLE text_edits (row_id BIGINT, attribute VARCHAR, start_pos INTEGER, "
                "end_pos INTEGER, replacement VARCHAR)")
    con.executemany("INSERT INTO text_edits VALUES (?, ?, ?, ?, ?)", edits)
    run_file(con, "rebuild_texts")
    for r, text in texts.items():
        out, last = "", 0
        for s, e, rep in sorted((s, e, rep) for (row, _, s, e, rep) in edits if row == r):
            out, last = out + text[last:s] + rep, e
        assert rows(con, "SELECT text FROM rebuilt_texts WHERE row_id = ?", [r]) == [(out + text[last:],)]
    assert len(texts[2]) > 4096 >= len(texts[1])


def test_spans_far_into_a_text_are_trimmed_and_widened_as_at_its_start():
    """terms.sql reads an unsettled span's text through a window of 64 characters either side:
    the spans of test_recognize's trimming case, 1,000 characters into a text, come out as they
    do at its start, shifted."""
    from rxanon_sql.sqlrun import run_file
    from rxanon_sql.udf import register_cut
    con = duckdb.connect()
    register_cut(con)
    con.execute("CREATE SCHEMA rx")
    run_file(con, "parameters", "rx")
    run_file(con, "ner_cache", "rx")
    con.execute("INSERT INTO rx.params (fingerprint) VALUES ('fp')")
    con.execute("INSERT INTO rx.labels VALUES ('GPE', 0), ('MONEY', 0)")
    core = "Paris 10GB $15 in Zürich, ok"
    spans = [(0, 5, "GPE"), (8, 10, "GPE"), (10, 14, "MONEY"), (20, 24, "GPE"), (27, 27, "GPE")]
    pad = "word " * 200
    texts = [core, pad + core]
    con.execute("CREATE TABLE rx.texts AS SELECT i AS row_id, i AS person, 'text' AS attribute, t AS text, "
                "md5(t) AS text_hash, i AS text_id FROM (SELECT unnest(?) AS t, unnest(range(2)) AS i)", [texts])
    for i, text in enumerate(texts):
        shift = len(text) - len(core)
        con.execute("INSERT INTO rx.ner_cache SELECT 'fp', md5(?), ?::STRUCT(start_pos INTEGER, end_pos INTEGER, "
                    "term VARCHAR, label VARCHAR, source VARCHAR)[]",
                    [text, [{"start_pos": s + shift, "end_pos": e + shift, "term": text[s + shift:e + shift],
                             "label": lab, "source": "ner"} for s, e, lab in spans]])
    run_file(con, "terms", "rx")
    found = rows(con, "SELECT row_id, start_pos, end_pos, term, label FROM terms_found ORDER BY row_id, start_pos, label")
    at_start = [f[1:] for f in found if f[0] == 0]
    far = [(s - len(pad), e - len(pad), t, lab) for row, s, e, t, lab in found if row == 1]
    assert far == at_start and (6, 10, "10GB", "GPE") in at_start
