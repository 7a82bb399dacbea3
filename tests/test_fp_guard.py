"""The common-word guard and `text.allow` (udfs/ner.py): lower-case common words that the model
tags as names are no terms, nor are the surfaces a configuration allows."""
from __future__ import annotations

import duckdb
import pytest
from spacy.tokens import Span as SpacySpan

from helpers import config_from, rows
from rxanon_sql.config import ConfigError
from rxanon_sql.pipeline import apply
from udfs.ner import TextRecognizer


@pytest.fixture(scope="module")
def rec() -> TextRecognizer:
    return TextRecognizer()


def dropped(rec, text: str, word: str, label: str) -> bool:
    """Whether the guards drop `word` of text when the model tags it `label` (the doc's entities
    are set here, so that the test does not hang on what the model happens to tag)."""
    doc = rec.nlp.make_doc(text)
    start = next(t.i for t in doc if t.text == word.split()[0])
    doc.ents = [SpacySpan(doc, start, start + len(word.split()), label=label)]
    return (0, start) in rec._false_positives([doc], [text], [doc.ents])


@pytest.mark.parametrize("text,word,label", [
    ("we booked a room for the whole family last year", "family", "PRODUCT"),
    ("the staff of the hotel were friendly", "hotel", "ORG"),
    ("the breakfast was cold and late", "breakfast", "PERSON"),
    ("we took the metro to the centre", "metro", "FAC"),
    ("the wifi was slow in the room", "wifi", "PERSON"),
])
def test_lower_case_common_words_tagged_as_names_are_dropped(rec, text, word, label):
    assert dropped(rec, text, word, label)


@pytest.mark.parametrize("text,word,label", [
    ("we stayed at the hyatt near the station", "hyatt", "ORG"),        # rare as a word (zipf 3.17)
    ("we met George at the bar", "George", "PERSON"),                   # capitalised
    ("we met george at the bar", "george", "PERSON"),                   # a first name
    ("we flew to belgium in may", "belgium", "GPE"),                    # a country
    ("the english breakfast was good", "english", "NORP"),              # a nationality
    ("the family room was nice", "family room", "PRODUCT"),             # two tokens
    ("we asked google for directions", "google", "ORG"),                # the tagger reads NNP
])
def test_names_and_other_spans_are_kept(rec, text, word, label):
    assert not dropped(rec, text, word, label)


def test_the_model_really_tags_the_word_and_turning_the_guard_off_restores_it(rec):
    text = "we took the metro to the centre"
    off = TextRecognizer(common_word_guard=False)
    assert [(s.term, s.label) for s in off.entities([text])[0]] == [("metro", "FAC")]
    assert rec.entities([text])[0] == []
    assert not TextRecognizer(common_word_guard=False).common
    assert not dropped(off, "the wifi was slow in the room", "wifi", "PERSON")


def test_a_rule_recognized_span_is_never_dropped():
    r = TextRecognizer(terms={"AMENITY": ["wifi", "breakfast"]})
    found = [(s.term, s.label, s.source) for s in r.entities(["the wifi was slow, the breakfast was cold"])[0]]
    assert ("wifi", "AMENITY", "list") in found and ("breakfast", "AMENITY", "list") in found


def test_allowed_surfaces_are_no_spans_whoever_finds_them():
    text = "Ann Lee flew from London to New  York; she is an Engineer."
    r = TextRecognizer(terms={"JOB": ["engineer"]})
    found = {(s.term, s.label) for s in r.entities([text])[0]}
    assert {("London", "GPE"), ("Engineer", "JOB"), ("Ann Lee", "PERSON")} <= found
    allowed = TextRecognizer(terms={"JOB": ["engineer"]}, allow=["london", "new york", "ENGINEER"])
    found = {s.term for s in allowed.entities([text])[0]}
    assert "Ann Lee" in found and not {"London", "New  York", "Engineer"} & found
    # whole terms only: "york" alone does not allow "New York"
    assert "New  York" in {s.term for s in TextRecognizer(allow=["york"]).entities([text])[0]}


CONFIG = """
[source]
relations = ["t"]
[attributes.age]
type = "numeric"
[text]
columns = ["x"]
"""


@pytest.mark.parametrize("line,key", [
    ('allow = "hotel"', "text.allow"),
    ('allow = ["hotel", 3]', "text.allow[1]"),
    ('allow = ["   "]', "text.allow[0]"),
    ('common_word_guard = "no"', "text.common_word_guard"),
])
def test_config_keys_are_checked(line, key):
    with pytest.raises(ConfigError) as e:
        config_from(CONFIG + line + "\n")
    message = str(e.value)
    assert message.startswith(key + " ") and "\n" not in message


def test_config_and_fingerprint():
    base = config_from(CONFIG)
    assert base.common_word_guard and base.allow == ()
    allowed = config_from(CONFIG + 'allow = ["Hotel", "free  wifi", "hotel"]\n')
    assert allowed.allow == ("hotel", "free wifi")
    off = config_from(CONFIG + "common_word_guard = false\n")
    prints = {c.recognizer_fingerprint("v") for c in (base, allowed, off)}
    assert len(prints) == 3


PEOPLE = [(1, 30), (2, 31), (3, 50), (4, 52)]
NOTES = [(1, "We loved Paris and the food."), (2, "We loved Rome and the food."),
         (3, "Berlin was cold."), (4, "Madrid was warm.")]
APPLY = """
[source]
relations = ["people", "notes"]
[attributes.age]
type = "numeric"
[anonymization]
k = 2
[text]
columns = ["note"]
"""


def _released(allow: str) -> list[str]:
    con = duckdb.connect()
    con.execute("CREATE TABLE people (id INTEGER, age INTEGER)")
    con.execute("CREATE TABLE notes (id INTEGER, note VARCHAR)")
    con.executemany("INSERT INTO people VALUES (?, ?)", PEOPLE)
    con.executemany("INSERT INTO notes VALUES (?, ?)", NOTES)
    apply(con, config_from(APPLY + allow))
    return [r[0] for r in rows(con, "SELECT r.text FROM rx.released_texts r JOIN rx.texts t USING (row_id, attribute) "
                                    "ORDER BY t.person")]


def test_an_allowed_word_is_released_as_written():
    before = _released("")
    assert before[0] == "We loved [GPE] and the food."
    after = _released('allow = ["paris", "berlin"]\n')
    assert after[0] == "We loved Paris and the food."
    assert after[2] == "Berlin was cold."
    assert after[1] == "We loved [GPE] and the food."
