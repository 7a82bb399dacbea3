"""The blog-shaped generator: seeded, deterministic, and its spans are where it says."""
from __future__ import annotations

import tomllib

import duckdb

from rxanon_sql.config import parse_config
from rxanon_sql.generate import config_text, generate, prefill_cache
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify


def _dump(con):
    return (con.execute("SELECT * FROM authors ORDER BY id").fetchall(),
            con.execute("SELECT * FROM posts ORDER BY id, date, text").fetchall(),
            con.execute("SELECT * FROM generated_entities ORDER BY text_hash").fetchall())


def test_same_seed_same_data_other_seed_other_data():
    a, b, c = duckdb.connect(), duckdb.connect(), duckdb.connect()
    generate(a, 30, 3, seed=7)
    generate(b, 30, 3, seed=7)
    generate(c, 30, 3, seed=8)
    assert _dump(a) == _dump(b)
    assert _dump(a)[1] != _dump(c)[1]


def test_shape_and_spans():
    con = duckdb.connect()
    stats = generate(con, 40, 4, seed=1)
    assert stats["persons"] == 40 and stats["posts"] == 160
    assert con.execute("SELECT count(*), count(DISTINCT id) FROM authors").fetchall() == [(40, 40)]
    assert con.execute("SELECT count(*) FROM posts").fetchall() == [(160,)]
    # Every span is exactly the text it claims, and every kind of term is there.
    bad = con.execute("""
        SELECT count(*) FROM posts AS p JOIN generated_entities AS g ON g.text_hash = md5(p.text),
             unnest(g.entities) AS u(e)
        WHERE substring(p.text, e.start_pos + 1, e.end_pos - e.start_pos) <> e.term""").fetchall()[0][0]
    assert bad == 0
    labels = {r[0] for r in con.execute(
        "SELECT DISTINCT e.label FROM generated_entities, unnest(entities) AS u(e)").fetchall()}
    assert {"PERSON", "GPE", "ORG", "DATE", "LANGUAGE", "MAIL", "PHONE"} <= labels
    # Ages are stated in the texts, so that linking has work.
    assert con.execute("SELECT count(*) FROM posts JOIN authors USING (id) "
                       "WHERE contains(text, CAST(age AS VARCHAR) || ' years old')").fetchall()[0][0] > 0


def test_prefilled_cache_runs_no_ner_and_release_verifies():
    con = duckdb.connect()
    generate(con, 60, 3, seed=2)
    cfg = parse_config(tomllib.loads(config_text()))
    assert prefill_cache(con, cfg) > 0
    report = apply(con, cfg)
    assert report.counts["texts_recognized"] == 0
    assert report.counts["persons"] == 60
    assert con.execute("SELECT count(*) FROM rx.terms WHERE linked_attribute = 'age'").fetchall()[0][0] > 0
    assert verify(con, cfg.schema).ok


def test_relational_shape_from_csv(tmp_path):
    path = tmp_path / "rel.csv"
    path.write_text("id,gender,age,topic,sign,date\n1,male,36,Education,Aries,\"14,May,2004\"\n"
                    "1,male,36,Education,Aries,\"15,mayo,2004\"\n2,female,24,Science,Leo,\"3,June,2004\"\n")
    con = duckdb.connect()
    stats = generate(con, relational=str(path), seed=0)
    assert stats == {**stats, "persons": 2, "posts": 3}
    assert con.execute("SELECT date FROM posts ORDER BY id, date").fetchall() == [("14,May,2004",), ("15,mayo,2004",), ("3,June,2004",)]


def test_generate_command_then_apply_with_two_workers(tmp_path):
    from click.testing import CliRunner
    from rxanon_sql.cli import main
    db, cfg = str(tmp_path / "g.duckdb"), str(tmp_path / "g.toml")
    r = CliRunner().invoke(main, ["generate", db, "--persons", "12", "--posts-per-person", "2", "--seed", "4",
                                  "--out", cfg])
    assert r.exit_code == 0, r.output
    # No prefilled cache: the two NER worker processes recognize the 24 texts.
    r = CliRunner().invoke(main, ["apply", db, "--config", cfg, "--workers", "2", "--k", "3"])
    assert r.exit_code == 0, r.output
    assert "24 texts recognized" in r.output and "0 leaks" in r.output
