"""Tests for udfs/ner_guards.py: the spans of the model that name no one or say nothing."""
from __future__ import annotations

import pytest

from rxanon_sql.common_words import EVERYDAY_ZIPF, common_words, name_words
from udfs.ner_guards import everyday_lower, function_words, known_names, names_no_one, read_span, says_nothing_here


@pytest.mark.parametrize("text, term, expected", [
    ("So I went home.", "I", True), ("It was a good day.", "a", True), ("Well I'm here.", "I'm", True),
    ("Come visit us soon.", "us", True), ("I had the time of my life.", "time", True), ("Oh it's you.", "it's", True),
    ("Well Iâ€™m here.", "Iâ€™m", True), ("so itâ\x80\x99s done", "itâ\x80\x99s", True),   # mis-decoded UTF-8
    ("Yesterday I told Will about it.", "Will", False),     # a name, capitalised inside a sentence
    ("Will you come?", "Will", True),                       # the first word of a sentence
    ("I will come.", "will", True),                          # lower case: the verb
    ("We flew to the US last May.", "US", False),            # an acronym
    ("I met Pedro there.", "Pedro", False), ("the time at Google", "Google", False)])
def test_a_span_of_function_words_names_no_one(text, term, expected):
    import spacy
    function = function_words("en", frozenset(spacy.blank("en").Defaults.stop_words))
    start = text.index(term)
    assert names_no_one(text, start, term, function, frozenset(name_words("en"))) is expected


@pytest.mark.parametrize("text, term, says", [
    ("thats it.&nbsp; However", "it.&nbsp", "it.\u00a0"),       # an HTML character reference
    ("x &nbsp; y", "nbsp", "\u00a0"),                           # the model's span without its "&"
    ("Well Iâ€™m here.", "Iâ", "I'm"),                         # the whole mis-decoded run
    ("AT&T called", "AT&T", "AT&T"),                            # no reference
])
def test_a_span_is_read_as_it_says(text, term, says):
    assert read_span(text, text.index(term), term) == says


@pytest.mark.parametrize("text, term, label, dropped", [
    ("haha that was fun", "haha", "PERSON", True), ("it was kinda cold", "kinda", "GPE", True),
    ("lol ok", "lol", "ORG", True), ("we went to paris", "paris", "GPE", False),   # a known place
    ("with bush and me", "bush", "PERSON", False),                                  # a known name
    ("at the hilton", "hilton", "ORG", False),              # a common word, but no everyday one
    ("we met Haha there", "Haha", "PERSON", False),         # written as a name
    ("the french way", "french", "NORP", False)])           # a nationality (see COMMON_WORD_LABELS)
def test_a_lower_case_span_of_everyday_words_names_no_one(text, term, label, dropped):
    everyday = frozenset(common_words("en", EVERYDAY_ZIPF))
    names = known_names("en")
    assert everyday_lower(text, text.index(term), term, label, everyday, names) is dropped


@pytest.mark.parametrize("text, term, label, nothing", [
    ("items\u00e2\u20ac\u00a6 I went", "\u00a6", "PERSON", True),   # a piece of a mis-decoded ellipsis
    ("so &nbsp;&nbsp; here", "nbsp;&nbsp", "GPE", True), ("for \u00e8 there", "\u00e8", "MONEY", True),
    ("Iâ€™m here", "Iâ", "ORG", True), ("it cost $5", "5", "MONEY", False), ("met Jo there", "Jo", "PERSON", False)])
def test_a_span_that_says_nothing_is_none(text, term, label, nothing):
    assert says_nothing_here(text, text.index(term), term, label) is nothing
