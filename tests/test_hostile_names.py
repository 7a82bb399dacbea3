"""Hostile input, names the recognizer half-sees: where one part of a multi-word name was
replaced (by NER or by the rare-token guard), the rest stayed readable. "TELL JOHN SMITH THE
MEETING MOVED." was released as "TELL JOHN [RARE].", whose rare run "SMITH THE MEETING MOVED"
won over "JOHN SMITH"; in `{"name": "Ana Sousa"}` and `<a href=…>Ana Sousa</a>` only the rare
"Sousa" was a term. A first or last name beside a replaced word of a capitalised sequence is a
term too (corpus_needles.sql), in any case, in JSON and in markup."""
from __future__ import annotations

import re

import duckdb
from hypothesis import HealthCheck, example, given, settings, strategies as st

from helpers import config_from, rows, texts_config
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

CONFIG = texts_config(["PERSON", "GPE", "MAIL", "PHONE", "URL"])
# First names that are common words (so no rare word of their own), surnames that are rare
FIRST = ("Ana", "Rita", "Maria", "Carlos", "Omar", "Grace", "George", "John")
LAST = ("Sousa", "Pereira", "Mendes", "Tanaka", "Okafor", "Nakamura", "Kowalczyk", "Oyelaran")
FILLER = ("The weather is fine today.", "We went for a walk in the afternoon.", "Nothing much happened.",
          "The food was good and the room was quiet.")
SHAPES = ("TELL {name} THE MEETING MOVED.", '{{"name": "{name}", "role": "guest"}}',
          '<a href="https://example.org/p/7">{name}</a>', "<li>{name}</li>", "Thanks to {name} for the help.",
          "Contact: {name}")


def run(texts):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i + 1, 30 + i % 3, t) for i, t in enumerate(texts)])
    apply(con, config_from(CONFIG))
    return con


def readable(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def check(con, texts, names):
    released = [r[0] for r in rows(con, "SELECT text FROM rx.audit ORDER BY row_id")]
    for text, out, name in zip(texts, released, names):
        assert not name or not any(readable(w, out) for w in name), (text, out)
    # (the texts themselves are kept as written)
    assert [r[0] for r in rows(con, "SELECT text FROM rx.texts ORDER BY row_id")] == texts
    assert verify(con).ok


def test_the_rest_of_a_half_replaced_name_goes_with_it():
    names = [("JOHN", "SMITH"), ("Ana", "Sousa"), ("Rita", "Pereira"), ("MARIA", "MENDES"), None, None, None, None]
    texts = ["TELL JOHN SMITH THE MEETING MOVED.", '{"name": "Ana Sousa"}', '<a href="https://x.org/p">Rita Pereira</a>',
             '{"NAME":"MARIA MENDES"}', *FILLER]
    check(run(texts), texts, names)


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.permutations(range(len(FIRST))), st.permutations(range(len(LAST))),
       st.lists(st.tuples(st.sampled_from(SHAPES), st.sampled_from(("title", "upper"))), min_size=3, max_size=3))
# "MENDES THE MEETING MOVED" won over the overlapping run "RITA MENDES THE MEETING", and "RITA"
# was left bare (udfs/corpus.py resolve_arrow widens such a loser now)
@example(list(range(8)), [0, 2, 1, 3, 4, 5, 6, 7], [(SHAPES[0], "title"), (SHAPES[0], "upper"), (SHAPES[0], "title")])
def test_names_in_any_shape_and_case_leave_no_part_readable(firsts, lasts, shapes):
    names, texts = [], []
    for i, (shape, case) in enumerate(shapes):
        first, last = FIRST[firsts[i]], LAST[lasts[i]]
        name = f"{first} {last}"
        names.append((first, last))
        texts.append(shape.format(name=name.upper() if case == "upper" else name))
    names += [None] * len(FILLER)
    texts += list(FILLER)
    check(run(texts), texts, names)
