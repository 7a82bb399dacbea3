"""What the corpus shows to name no one (corpus_needles.sql): words that most of its writers
write in lower case ("hope", "guy"), tokens that many of its writers write ("urllink"), bare
numbers of one or two digits where they were not recognized ("2" beside a MONEY "$2"). And what
stays protected: a name that is no everyday word ("kyle"), a token few persons write, a longer
number."""
from __future__ import annotations

import duckdb
from helpers import TaggedRecognizer, config_from, released, rows, texts_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rxanon_sql import recognize
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

CONFIG = texts_config(["PERSON", "ORG", "GPE", "MONEY"], extra="lambda = 0.5\n")


def run(monkeypatch, posts):
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: TaggedRecognizer({t: tags for _, t, tags in posts}))
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, 30, ?)", [(p, t) for p, t, _ in posts])
    apply(con, config_from(CONFIG))
    return con


def person_texts(con, person: int) -> list[str]:
    return [r[0] for r in rows(con, f"SELECT text FROM rx.audit WHERE person = {person} ORDER BY row_id")]


# Twelve writers who write the word in lower case; the first also wrote it once as a name, and
# the model tagged that.
def everyday_posts(name: str, lower_form: str):
    posts = [(1, f"{name} called me today.", [(name, "PERSON")])]
    posts += [(p, f"I {lower_form} it works out, said my neighbour.", []) for p in range(1, 13)]
    return posts


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["Hope", "Guy", "Story"]))
def test_a_name_the_corpus_writes_as_an_everyday_word_stays_in_lower_case(monkeypatch, name):
    con = run(monkeypatch, everyday_posts(name, name.lower()))
    mine = person_texts(con, 1)
    assert not any(name in t for t in mine), mine                 # the name is replaced
    assert any(f"I {name.lower()} it works" in t for t in mine), mine   # the everyday word stays
    assert verify(con, strict=True).ok


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["Kyle", "Theo", "George", "Paris"]))
def test_a_name_that_is_no_everyday_word_goes_in_every_case(monkeypatch, name):
    # However many write it in lower case, a rarer name or a place is a name: every form of it
    # in the tagged person's texts goes.
    con = run(monkeypatch, everyday_posts(name, name.lower()))
    mine = " ".join(person_texts(con, 1)).lower()
    assert name.lower() not in mine, mine
    assert verify(con, strict=True).ok


def test_a_token_many_persons_write_is_no_rare_string(monkeypatch):
    # 24 writers (of 25) write "urllink" where the corpus had a link; one writes a handle.
    posts = [(p, "look at this urllink now", []) for p in range(1, 25)]
    posts += [(25, "my handle is zorblat77 there", [])]
    con = run(monkeypatch, posts)
    out = released(con)
    assert sum("urllink" in t for t in out) == 24, out
    assert not any("zorblat77" in t for t in out), out
    assert verify(con, strict=True).ok


def test_a_token_few_persons_write_stays_rare_in_each_class(monkeypatch):
    # Written by 3 of 25 persons (under the bar of max(20, k, 10 %)), the token is kept only
    # where every person of the class writes it, and the audit agrees.
    posts = [(p, "an ordinary day at work", []) for p in range(1, 26)]
    posts += [(p, "we met at zorblat77 again", []) for p in (1, 9, 17)]
    con = run(monkeypatch, posts)
    assert verify(con, strict=True).ok
    shown = {r[0] for r in rows(con, "SELECT person FROM rx.audit WHERE text LIKE '%zorblat77%'")}
    classes = rows(con, "SELECT person, partition_id FROM rx.partitions")
    part = dict(classes)
    for p in shown:
        assert all(q in (1, 9, 17) for q, c in classes if c == part[p]), (shown, classes)


def test_a_bare_number_is_the_term_only_where_recognized(monkeypatch):
    posts = [
        (1, "It cost $2 and took 2 days, and 250 people came.", [("2", "MONEY")]),
        (1, "We stayed 2 nights.", []),
        (2, "The ticket was $250 and 250 people came.", [("250", "MONEY")]),
        (3, "Nothing to report today.", []),
    ]
    con = run(monkeypatch, posts)
    one = person_texts(con, 1)
    assert "$2 " not in " ".join(one) and "took 2 days" in one[0] and "stayed 2 nights" in one[1], one
    two = " ".join(person_texts(con, 2))
    assert "250" not in two, two              # a longer number goes wherever its person writes it
    assert verify(con, strict=True).ok


def test_a_mis_decoded_piece_is_no_part_of_a_name(monkeypatch):
    # "Iâ€™m Princeton" tagged as a PERSON: "Princeton" is a name part, "Iâ" (of "I'm") is none,
    # and 22 other writers' "Iâ€™m" stays (a token written by 22 of 23 persons is a word of the
    # corpus's own). Before, "Iâ" became a name needle: 624 replacements on the blog sample.
    posts = [(1, "Hello, Iâ€™m Princeton and this is my blog.", [("Iâ€™m Princeton", "PERSON")])]
    posts += [(p, "Iâ€™m happy today.", []) for p in range(2, 24)]
    con = run(monkeypatch, posts)
    out = released(con)
    assert sum("Iâ€™m happy" in t for t in out) == 22, out
    assert not any("Princeton" in t for t in out), out
    assert verify(con, strict=True).ok
