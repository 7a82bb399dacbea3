"""Privacy beyond the recognizer: a surface found once is a term everywhere, the name-like words
of a multi-word name too, rare words are guarded, and the values of dropped columns and direct
identifiers are searched by their distinctive words (corpus_needles.sql, propagate.sql,
identifiers.py)."""
from __future__ import annotations

import dataclasses
import random
import re

import duckdb
import pyarrow as pa
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import config_from, rows
from rxanon_sql import recognize
from rxanon_sql.pipeline import apply
from udfs.ner import ENTITY_ARROW_TYPE
from rxanon_sql.verify import verify

CONFIG = """
[source]
relations = ["t"]
person = "id"
{source}
[attributes.age]
type = "numeric"
[text]
columns = ["text"]
{text}
[anonymization]
k = {k}
"""


def run(texts, source="", text="", rare_guard=True, ages=None, extra=None, k=2):
    con = duckdb.connect()
    columns = ", ".join(["id INTEGER", "age INTEGER", "text VARCHAR"] + [f"{c} VARCHAR" for c in (extra or {})])
    con.execute(f"CREATE TABLE t ({columns})")
    for i, t in enumerate(texts):
        values = [i + 1, (ages or [30 + i % 3] * len(texts))[i], t] + [v[i] for v in (extra or {}).values()]
        con.execute(f"INSERT INTO t VALUES ({', '.join('?' * len(values))})", values)
    cfg = dataclasses.replace(config_from(CONFIG.format(source=source, text=text, k=k)), rare_guard=rare_guard)
    apply(con, cfg)
    return con


def released(con):
    return [r[0] for r in rows(con, "SELECT text FROM rx.audit ORDER BY row_id")]


class TagFirst:
    """A recognizer that tags `pattern` as PERSON in the first text only, as a model that sees a
    name once and misses it everywhere else."""

    def __init__(self, pattern: str):
        self.pattern = pattern

    def arrow(self, texts: pa.Array) -> pa.Array:
        out = []
        for text in texts.to_pylist():
            spans = [{"start_pos": m.start(), "end_pos": m.end(), "term": m.group(), "label": "PERSON", "source": "ner"}
                     for m in re.finditer(self.pattern, text)] if "[tagme]" in text else []
            out.append(spans)
        return pa.array(out, type=ENTITY_ARROW_TYPE)


def test_a_name_tagged_for_one_person_is_a_term_for_everyone(monkeypatch):
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: TagFirst("Zorbek Quill"))
    texts = ["I met Zorbek Quill at the [tagme].", "Zorbek Quill came by.", "zorbek quill again", "Nothing here.",
             "Nothing at all.", "Nothing more."]
    # (k = 4: the three who write the name are too few to keep it as a class)
    con = run(texts, text='labels = ["PERSON"]', rare_guard=False, k=4)
    assert all("orbek" not in r.lower() for r in released(con)), released(con)
    assert rows(con, "SELECT DISTINCT label FROM rx.terms WHERE norm = 'zorbek quill'") == [("PERSON",)]
    assert verify(con).ok


def test_the_name_like_words_of_a_multi_word_name_count_alone(monkeypatch):
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: TagFirst("Mervat Zindel and George Will"))
    texts = ["Thanks to Mervat Zindel and George Will [tagme].", "Ask for George at reception.",
             "Mervat was kind.", "I will go.", "Will you come?", "Nothing here."]
    con = run(texts, text='labels = ["PERSON"]', rare_guard=False, k=4)
    out = released(con)
    assert "George" not in out[1] and "Mervat" not in out[2], out
    # "Will" is a first name but a common word: it counts where a name it is, capitalised, only
    assert out[3] == "I will go."


def test_rare_words_are_guarded_and_common_ones_stay():
    texts = ["Our guide Xylophanes was great.", "The breakfast was great.", "The breakfast was fine.",
             "Great breakfast and a Quorvex.", "Nothing here.", "The room was fine."]
    on = released(run(texts, text='labels = ["PHONE"]'))
    assert "Xylophanes" not in on[0] and "Quorvex" not in on[3] and "breakfast" in on[1] and "[RARE]" in on[0], on
    off = released(run(texts, text='labels = ["PHONE"]', rare_guard=False))
    assert "Xylophanes" in off[0]
    allowed = released(run(texts, text='labels = ["PHONE"]\nallow = ["xylophanes"]'))
    assert "Xylophanes" in allowed[0] and "Quorvex" not in allowed[3]


def test_a_rare_word_in_as_many_persons_as_k_is_kept_where_their_class_shares_it():
    # (a RARE term like any other: the partitioner may put its k writers together, and keeps it)
    texts = ["Xylophanes here.", "Xylophanes there.", "Nothing here.", "Nothing there."]
    con = run(texts, text='labels = ["PHONE"]')
    assert rows(con, "SELECT DISTINCT label, norm FROM rx.terms") == [("RARE", "xylophanes")]
    together = rows(con, "SELECT count(DISTINCT partition_id) FROM rx.audit WHERE person IN (1, 2)") == [(1,)]
    assert ("Xylophanes" in released(con)[0]) == together
    assert verify(con, strict=True).ok


def test_a_rare_number_stating_the_age_is_linked_not_rare():
    texts = [f"I am {a} years old." for a in (36, 47, 58, 69)]
    con = run(texts, text='labels = ["PHONE"]', ages=[36, 47, 58, 69])
    assert rows(con, "SELECT DISTINCT linked_attribute FROM rx.terms") == [("age",)]


def test_a_dropped_columns_distinctive_words_are_searched():
    texts = ["Loved the Astoria vibe.", "The hotel was fine.", "Grand place.", "Fine hotel.", "Ok.", "Fine."]
    hotel = ["Hotel Astoria"] * 3 + ["Grand Hotel"] * 3
    con = run(texts, text='labels = ["PHONE"]', rare_guard=False, extra={"hotel_name": hotel})
    out = released(con)
    assert "Astoria" not in out[0] and "[HOTEL_NAME]" in out[0] and "hotel" in out[1], out
    assert verify(con).identifiers == []


# --- the property: a recognizer that misses occurrences --------------------------------------

NAMES = ["Zorbek", "Quillon", "Mervat", "Astoria", "Pelinor", "Dravik"]


class SubsetRecognizer:
    """Tags each occurrence of a name with a fixed probability: the model's misses."""

    def __init__(self, seed: int, p: float):
        self.rng, self.p = random.Random(seed), p

    def arrow(self, texts: pa.Array) -> pa.Array:
        out = []
        for text in texts.to_pylist():
            spans = [] if text is not None else None
            for m in re.finditer("|".join(NAMES), text or ""):
                if self.rng.random() < self.p:
                    spans.append({"start_pos": m.start(), "end_pos": m.end(), "term": m.group(), "label": "PERSON",
                                  "source": "ner"})
            out.append(spans)
        return pa.array(out, type=ENTITY_ARROW_TYPE)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(NAMES + ["and", "the", "met", "saw", "today"]), min_size=1, max_size=8),
                min_size=4, max_size=9),
       st.integers(0, 10_000), st.floats(0.1, 0.9), st.booleans())
def test_no_found_term_survives_unless_its_class_keeps_it(monkeypatch, texts, seed, p, rare_guard):
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: SubsetRecognizer(seed, p))
    texts = [" ".join(words) + "." for words in texts]
    con = run(texts, text='labels = ["PERSON"]', rare_guard=rare_guard)
    found = {n for (n,) in rows(con, "SELECT DISTINCT lower(term) FROM rx.terms WHERE source = 'ner'")}
    # (a found word may show inside a longer term its class keeps: "Zorbek" of the capitalised run
    # "zorbek zorbek zorbek zorbek" that both persons of the class write, a RARE term)
    kept = {(person, word) for person, norm in rows(con, "SELECT p.person, k.norm FROM rx.kept_terms AS k "
                                                          "JOIN rx.partitions AS p ON p.partition_id = k.partition_id")
            for word in re.findall(r"\w+", norm)}
    for person, text in rows(con, "SELECT person, text FROM rx.audit"):
        for word in re.findall(r"\w+", text):
            if word.lower() in found:
                assert (person, word.lower()) in kept, (person, text, found)
    assert verify(con).ok


def test_the_hotel_review_cases():
    # (from held-out hotel reviews: a lower-case hotel name, a staff name the model missed
    # behind a title, and a hotel's own name in the dropped column, written by one reviewer each)
    texts = ["We loved our stay at the hyatt", "Especially MD Mohammad he was excellent",
             "the present Astor atmosphere", "The staff was nice", "The staff was kind", "Nice staff"]
    hotel = ["Hyatt Regency", "Park Inn", "Hotel Astor", "Park Inn", "Park Inn", "Park Inn"]
    out = released(run(texts, text='labels = ["PHONE"]', extra={"hotel_name": hotel}, k=3))
    assert "hyatt" not in out[0].lower() and "Mohammad" not in out[1] and "Astor" not in out[2], out
    assert out[3:] == texts[3:]


def test_a_common_word_tagged_for_one_person_stays_a_term_of_theirs_only(monkeypatch):
    # (the model tags a capitalised common word; every "Transportation" of that person written as
    # a name, capitalised, is the term, and nobody else's is; the lower-case everyday word is none:
    # propagation follows the form that identifies, issue 33, propagate.sql)
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: TagFirst("Transportation"))
    texts = ["Transportation was bad [tagme]. The transportation tickets, TRANSPORTATION",
             "Transportation is fine.", "Nothing here.", "Nothing there."]
    con = run(texts, text='labels = ["PERSON"]', rare_guard=False)
    out = released(con)
    assert out[0] == "[PERSON] was bad [tagme]. The transportation tickets, [PERSON]" and out[1] == texts[1], out
    assert verify(con).ok


def test_a_rare_word_inside_a_number_span_goes_with_it(monkeypatch):
    # (spaCy's CARDINAL "5.30ish" gives way to the MONEY "5" another text has: its rare "30ish"
    # must not stay behind; a rare number inside such a span is left to linking instead)
    class Tags:
        def arrow(self, texts):
            out = []
            for t in texts.to_pylist():
                spans = [{"start_pos": x.start(), "end_pos": x.end(), "term": x.group(), "label": label, "source": "ner"}
                         for pattern, label in (("5(?= dollars)", "MONEY"), (r"5\.30ish", "CARDINAL"))
                         for x in re.finditer(pattern, t)]
                out.append(spans)
            return pa.array(out, type=ENTITY_ARROW_TYPE)
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: Tags())
    texts = ["It cost 5 dollars. See you at 5.30ish then.", "Nothing.", "Nothing here.", "Nothing there."]
    con = run(texts, text='labels = ["MONEY"]', k=2)
    out = released(con)
    assert "30ish" not in out[0], out
    assert verify(con).ok


def test_a_name_of_several_common_words_reaches_everyone_where_capitalised(monkeypatch):
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: TagFirst("New York"))
    texts = ["Back to New York [tagme].", "I love New York.", "a new york strip steak", "Nothing here.",
             "Nothing at all.", "Nothing more."]
    out = released(run(texts, text='labels = ["PERSON"]', rare_guard=False, k=4))
    assert "New York" not in out[0] and "New York" not in out[1] and out[2] == texts[2], out


def test_a_name_glued_by_an_invisible_character_is_one_capitalised_run():
    # (a zero-width space or a control character between the words hides the name from the model;
    # the guard and the audit still read "John\u200bSmith" as one capitalised run, which one
    # person writes)
    texts = ["Met John\u200bSmith at the mall.", "We saw Peter\x01Parker today.", "Nothing here.",
             "Nothing there.", "Nothing at all."]
    con = run(texts, text='labels = ["PHONE"]', k=2)
    out = released(con)
    assert "Smith" not in out[0] and "Parker" not in out[1], out
    assert verify(con, strict=True).ok
