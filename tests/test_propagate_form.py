"""Propagation follows the form that identifies (propagate.sql, leaks.sql, sweep.sql).

A surface made of common words only ("Hope", "Love Actually", "Summer School") is a term where it
is written as a name, every word capitalised; written in lower case it is the everyday word, and
stays, unless its person had it tagged in lower case (a writer who writes names that way). The
leak check reads the released texts by the same test, so a release passes its own check."""
from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
from helpers import released, rows, run_tagged
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rxanon_sql.verify import verify
from udfs.corpus import CorpusSearcher, written_as_name


def release_of(con) -> dict[str, tuple[int, str]]:
    """Each original text: its person and its released text."""
    return {o: (p, r) for o, p, r in rows(con, "SELECT d.text, a.person, a.text FROM rx.audit AS a "
                                               "JOIN rx.dataset AS d ON d.row_id = a.row_id")}


def words(texts: list[str], word: str) -> int:
    return sum(len(re.findall(rf"(?<!\w){word}(?!\w)", t)) for t in texts)


# Everyday words (rx.everyday_words) that are also tagged as names: "Will" and "May" are first
# names among the most frequent words, "Love" and "Really" are titles' and bands' words.
NAMES = ["Will", "May", "Love", "Really"]


@st.composite
def posts_with_a_name(draw):
    name = draw(st.sampled_from(NAMES))
    word = name.lower()
    posts = [(1, f"Yesterday I told {name} about it.", [(name, "PERSON")])]
    for person in range(1, draw(st.integers(2, 4)) + 1):
        for _ in range(draw(st.integers(1, 3))):
            forms = draw(st.lists(st.sampled_from(["lower", "name"] if person == 1 else ["lower"]), min_size=1,
                                  max_size=3))
            parts = [f"so we {word} it works" if f == "lower" else f"and then {name} called" for f in forms]
            posts.append((person, "Well, " + ", ".join(parts) + ".", []))
    return name, posts


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(posts_with_a_name(), st.sampled_from([0.0, 0.5]))
def test_a_lower_case_everyday_word_stays_and_the_name_form_goes(monkeypatch, case, lam):
    # Only person 1 has the name, so it is suppressed for them; nobody tagged the lower-case word.
    name, posts = case
    con = run_tagged(monkeypatch, posts, lam)
    out = release_of(con)
    assert all(words([r], name.lower()) == words([o], name.lower()) for o, (_, r) in out.items()), out
    assert words([r for p, r in out.values() if p == 1], name) == 0, out
    v = verify(con)
    assert v.ok and not v.leaks, v.leaks


def test_a_name_tagged_in_lower_case_goes_in_every_case(monkeypatch):
    # A writer whose tagged "kyle" is lower case writes names that way: each of their "kyle" goes.
    con = run_tagged(monkeypatch, [
        (1, "went to the mall with kyle and jenn today.", [("kyle", "PERSON")]),
        (1, "then kyle said hi to Kyle's mom.", []),
        (2, "Nothing much happened today.", []),
    ])
    assert words(released(con)[:2], "kyle") == 0 and "Kyle" not in " ".join(released(con)), released(con)
    assert verify(con).ok


def test_real_rows_keep_the_everyday_word(monkeypatch):
    # Rows cut from blog_dev_300 (persons 1325894 and 1325355): a college and a book's title
    # written as names once, and lower-case words beside them. "love" is an everyday word and
    # stays; "hope" is also a first name and not one of the most frequent words, so its writer's
    # lower-case "hope" may be the name, and goes.
    con = run_tagged(monkeypatch, [
        (1, "I liked it better than MSU and Hope, but I'm still not positive that it's where I want to go.",
         [("Hope", "ORG"), ("MSU", "ORG")]),
        (1, "I can only hope that my miserable existance does some good.", []),
        (2, "& will read The Feast of Love, a book I picked up months ago.", [("Love", "ORG")]),
        (2, "I love winter. I love being married.", []),
        (3, "We hope the summer is fun, and we love it.", []),
    ], lam=0.5)
    out = {o: r for o, (_, r) in release_of(con).items()}
    assert not any("Hope" in r or "Love" in r for r in out.values()), out
    assert words([out["I can only hope that my miserable existance does some good."]], "hope") == 0, out
    assert out["I love winter. I love being married."] == "I love winter. I love being married.", out
    assert out["We hope the summer is fun, and we love it."] == "We hope the summer is fun, and we love it.", out
    assert rows(con, "SELECT count(*) FROM rx.replacements WHERE reason = 'repaired'") == [(0,)]
    v = verify(con)
    assert v.ok and not v.leaks, v.leaks


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Hope", "hope", "HOPE", "New York", "new York", "New\u200bYork", "Jo\u200bhn",
                                 "jo\u200bhn", "3rd", "Élise", "élise", "東京", "Iâ\x80\x99m", " ", ", ", ".\n"]),
                min_size=1, max_size=12))
def test_written_as_name_is_the_searchs_capital(parts):
    # rx_written_as_name (leaks.sql, sweep.sql) reads a match as the corpus search's `capital`
    # (propagate.sql) does, wherever the match stands.
    text = " ".join(parts)
    searcher = CorpusSearcher(["hope", "new york", "john", "3rd", "élise", "東京", "iâ\x80\x99m", "jo hn"])
    _, start, end, _, capital = searcher.search([text])
    surfaces = [text[a:b] for a, b in zip(start.tolist(), end.tolist())]
    assert written_as_name(pa.array(surfaces, pa.string())).to_pylist() == np.asarray(capital).tolist()


def test_a_single_digit_goes_no_further_than_where_it_was_tagged(monkeypatch):
    # The small model took a bare "3" for a name here and there ("3" MONEY, 1,055 replacements at
    # k = 5 on the blog sample, most of them other writers'): a single character names no one, so
    # it goes to no other writer, and a bare number of one or two digits is a term only where it
    # was recognized (corpus_needles.sql): its writer's other "3" is the number, kept.
    con = run_tagged(monkeypatch, [
        (1, "I paid 3 for it.", [("3", "ORG")]),
        (1, "We were 3 at the table.", []),
        (2, "My 3 cats are fine.", []),
        (3, "Nothing happened today.", []),
    ])
    out = release_of(con)
    assert out["I paid 3 for it."][1] == "I paid [ORG] for it.", out
    assert out["We were 3 at the table."][1] == "We were 3 at the table.", out
    assert words([r for p, r in out.values() if p == 2], "3") == 1, out
    assert verify(con).ok


def test_a_single_letter_of_a_script_without_spaces_still_goes_to_everyone(monkeypatch):
    # One Chinese character can be a whole surname: unlike a bare digit or Latin letter, it names
    # someone, and another writer's untagged "李" is replaced as well.
    con = run_tagged(monkeypatch, [
        (1, "I went out with 李 today.", [("李", "PERSON")]),
        (2, "Then 李 said hello.", []),
        (3, "Nothing happened today.", []),
    ])
    assert "李" not in " ".join(released(con)), released(con)
    assert verify(con).ok


def test_a_french_name_that_is_a_frequent_word_stays_a_term(monkeypatch):
    # "Côté" is a French surname and one of French's most frequent words. The rule that drops a
    # mis-decoded span of frequent words ("Itâ\x80\x99s") read it as one, though it is written as
    # it reads, and the tagged surname was no term. It is, and goes wherever its writer wrote it
    # (a sentence's first "Côté" too: it may be the name).
    from helpers import texts_config
    con = run_tagged(monkeypatch, [
        (1, "Hier j'ai appelé Côté au bureau.", [("Côté", "PERSON")]),
        (1, "Côté est reparti. J'en ai reparlé avec M. Côté.", []),
        (2, "Rien de neuf aujourd'hui.", []),
    ], config=texts_config(["PERSON"], extra="lambda = {lam}\n").replace(
        "[anonymization]", 'pipeline = "fr_core_news_sm"\n[anonymization]'))
    assert rows(con, "SELECT DISTINCT label FROM rx.terms WHERE norm = 'côté'") == [("PERSON",)]
    assert "Côté" not in " ".join(released(con)), released(con)
    assert verify(con).ok
