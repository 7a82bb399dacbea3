"""Progress: NER and the term search report their counts as they go (a callback of the library),
the command line shows them as bars only on a terminal; and the command line's own texts (help,
one-line errors) for a newcomer."""
from __future__ import annotations

import io
import tomllib

import duckdb
import pyarrow as pa
import pytest

from helpers import demo_config, scalar
from rxanon_sql import recognize
from rxanon_sql.config import parse_config
from rxanon_sql.demo import write_demo_database
from rxanon_sql.generate import config_text, generate
from rxanon_sql.pipeline import apply
from rxanon_sql.udfs.ner import ENTITY_ARROW_TYPE

VECTOR = 2048       # DuckDB's vector: the most rows an Arrow UDF gets per call


class NoEntities:
    """A recognizer that finds nothing, at once: the counts, not spaCy, are under test."""
    def arrow(self, texts: pa.Array) -> pa.Array:
        return pa.array([[] for _ in range(len(texts))], type=ENTITY_ARROW_TYPE)


@pytest.fixture(scope="module")
def blog():
    con = duckdb.connect()
    generate(con, 1000, 5, seed=1, entities=False)
    return con, parse_config(tomllib.loads(config_text())).with_overrides(workers=1)


def test_ner_reports_each_vector_and_commits_each_chunk(blog, monkeypatch):
    con, cfg = blog
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: NoEntities())
    monkeypatch.setattr(recognize, "CHUNK", 3000)
    calls = []
    total = recognize.fill_cache(con, cfg, lambda done, of: calls.append((done, of)))
    assert total == 5000 and {of for _, of in calls} == {total}
    done = [d for d, _ in calls]
    assert done[0] == 0 and done[-1] == total
    assert all(0 < b - a <= VECTOR for a, b in zip(done, done[1:])), done
    # more often than once per committed chunk
    assert len(done) > 1 + -(-total // recognize.CHUNK)
    assert scalar(con, "SELECT count(*) FROM rx.ner_cache") == total


def test_an_interrupted_ner_keeps_its_committed_chunks(blog, monkeypatch):
    con, cfg = blog
    cfg = cfg.with_overrides(schema="interrupted")
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: NoEntities())
    monkeypatch.setattr(recognize, "CHUNK", 3000)

    def interrupt(done, total):
        if done > 3000:
            raise KeyboardInterrupt
    with pytest.raises(BaseException):
        recognize.fill_cache(con, cfg, interrupt)
    con.execute("ROLLBACK")
    assert scalar(con, "SELECT count(*) FROM interrupted.ner_cache") == 3000
    assert recognize.pending_texts(con, cfg) == 2000
    con.execute("DROP TABLE ner_todo")


def test_apply_reports_its_stages_and_counts():
    con = duckdb.connect()
    write_demo_database(con)
    calls = []
    report = apply(con, demo_config(), lambda task, done, total: calls.append((task, done, total)))
    assert [t for t, _, total in calls if total is None] == list(report.timings)
    counted = {}
    for task, done, total in calls:
        if total is not None:
            assert done >= counted.get(task, (0, 0))[0]
            counted[task] = (done, total)
    texts = scalar(con, "SELECT count(*) FROM rx.texts")
    assert counted == {"ner": (report.counts["texts_recognized"],) * 2, "search": (texts, texts)}
