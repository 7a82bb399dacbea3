"""The rare-string guard judged per class (corpus_needles.sql, residual.sql): a string that can
name someone is kept only where every person of the class shows it, and the audit counts its
holders in the class; rare dictionary words stay unless text.rare_guard = "strict"."""
from __future__ import annotations

import dataclasses

import duckdb
import pytest
import reference
import tomllib
from helpers import config_from, rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rxanon_sql.common_words import common_words
from rxanon_sql.config import ConfigError, parse_config
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

CONFIG = """
[source]
relations = ["t"]
person = "id"
[attributes.age]
type = "numeric"
match_values = false
[text]
columns = ["text"]
labels = ["PHONE"]
{text}
[anonymization]
k = {k}
{anonymization}
"""


def run(texts, ages, k=2, text="", anonymization=""):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i + 1, a, t) for i, (a, t) in enumerate(zip(ages, texts))])
    apply(con, config_from(CONFIG.format(k=k, text=text, anonymization=anonymization)))
    return con


def released(con) -> dict[int, str]:
    return dict(rows(con, "SELECT person, text FROM rx.audit ORDER BY row_id"))


def classes(con) -> dict[int, int]:
    return dict(rows(con, "SELECT DISTINCT person, partition_id FROM rx.audit"))


ADDRESS = "write to olaf dot brekke at gmx dot de"


def test_a_rare_string_written_by_k_persons_in_different_classes_is_replaced(tmp_path):
    # (issue 34: two persons of different age classes write the same address, k = 2; released
    # whole before, and the corpus-wide audit passed it)
    texts = [f"Please {ADDRESS} today.", "The weather was fine.", f"You can {ADDRESS} anytime.", "We had a fine lunch."]
    # (lambda 0.9: the age is cut first; at 0.5 the partitioner cuts on the shared rare word and
    # puts its two writers together, which keeps it)
    con = run(texts, ages=[20, 21, 60, 61], anonymization="lambda = 0.9")
    parts = classes(con)
    assert parts[1] != parts[3] and parts[1] == parts[2] and parts[3] == parts[4]
    out = released(con)
    assert "brekke" not in out[1] and "brekke" not in out[3] and "gmx" not in out[1] and "[RARE]" in out[1], out
    assert out[2] == texts[1] and out[4] == texts[3]
    assert verify(con, strict=True).ok
    # The audit: the same release with the address shown again fails, each writer for the class.
    path = str(tmp_path / "shown.duckdb")
    con.execute(f"ATTACH '{path}' AS shown")
    con.execute("COPY FROM DATABASE memory TO shown")
    con.close()
    con = duckdb.connect(path)
    con.execute("UPDATE rx.audit SET text = replace(text, '[RARE]', 'brekke') WHERE person = 1")
    suspects = {(r[1], r[3], r[2]) for r in verify(con).suspects}
    assert ("brekke", 1, 1) in suspects and ("gmx", 1, 1) not in suspects, suspects
    con.close()


def test_the_same_string_shared_by_the_class_is_kept():
    texts = [f"Please {ADDRESS} today.", f"Yes, {ADDRESS} please.", "The weather was fine.", "We had a fine lunch."]
    con = run(texts, ages=[20, 21, 60, 61])
    out = released(con)
    assert classes(con)[1] == classes(con)[2]
    assert "olaf dot brekke at gmx" in out[1] and "olaf dot brekke at gmx" in out[2], out
    assert verify(con, strict=True).ok


def test_rare_dictionary_words_stay_unless_strict():
    # "voyages" (Zipf 3.2) is a dictionary word: kept, though one person writes it; "regatta"
    # (2.9) is below the dictionary and "Olaf" (3.1) is written as a name inside a sentence
    texts = ["Our voyages were long.", "The regatta was fun.", "We met Olaf there.", "Lunch was fine."]
    out = released(run(texts, ages=[20, 21, 60, 61]))
    assert "voyages" in out[1] and "regatta" not in out[2] and "Olaf" not in out[3], out
    strict = released(run(texts, ages=[20, 21, 60, 61], text='rare_guard = "strict"'))
    assert "voyages" not in strict[1] and "[RARE]" in strict[1], strict


def test_the_rare_guard_setting():
    base = CONFIG.format(k=2, text="", anonymization="")
    for value, expected in (("true", True), ("false", False), ('"strict"', "strict")):
        cfg = config_from(base.replace("[text]", f"[text]\nrare_guard = {value}"))
        assert cfg.rare_guard == expected
    assert config_from(base).guard_zipf == 3.0
    assert dataclasses.replace(config_from(base), rare_guard="strict").guard_zipf == 3.5
    with pytest.raises(ConfigError, match="text.rare_guard"):
        parse_config(tomllib.loads(base.replace("[text]", '[text]\nrare_guard = "loose"')))


# --- the property, against tests/reference.py -------------------------------------------------

WORDS = ["the", "we", "saw", "and", "at", "dot", "voyages", "regatta", "brekke", "gmx", "zorbix", "f0r", "cubing",
         "Olaf", "Brekke", "Grand", "Central", "Palace", "Zorbix", "Voyages", "2004", "x9"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=9), min_size=4, max_size=7),
       st.lists(st.sampled_from([20, 30, 40, 50]), min_size=7, max_size=7),
       st.sampled_from(["", 'rare_guard = "strict"']))
def test_no_released_guard_string_is_shown_by_fewer_than_k_of_its_class(texts, ages, setting):
    texts = [" ".join(words) + "." for words in texts]
    con = run(texts, ages[:len(texts)], text=setting)
    lang = "en"
    cfg = config_from(CONFIG.format(k=2, text=setting, anonymization=""))
    dictionary = set(common_words(lang, cfg.guard_zipf))
    guard = reference.guard_words(texts, set(common_words(lang, cfg.rare_zipf)), dictionary)
    originals = {i + 1: [t] for i, t in enumerate(texts)}
    shown = {p: [t] for p, t in released(con).items()}
    frequent = set(common_words(lang, 5.5))
    assert reference.guard_violations(originals, shown, classes(con), 2, guard, dictionary, frequent) == []
    assert verify(con, strict=True).ok
