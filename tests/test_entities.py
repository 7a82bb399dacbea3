"""Issue 4: `rxanon-sql entities`, the rx_entities SQL function, and the end-to-end guarantees
of recoding: Unicode text outside replaced spans comes back byte-identical, and no replacement
is glued onto a neighbouring word."""
from __future__ import annotations

import functools
import unicodedata

import duckdb
import pytest
from click.testing import CliRunner

import rxanon_sql
from helpers import config_from, rows
from rxanon_sql.cli import main
from rxanon_sql.pipeline import apply


def test_cli_entities_shows_labels_and_offsets():
    text = "Mail jane@example.com or call +44 20 7946 0958; she lives in London."
    result = CliRunner().invoke(main, ["entities", text])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["start", "end", "label", "source", "term"]
    assert any(l.split()[:4] == ["5", "21", "MAIL", "rule"] and l.endswith("jane@example.com") for l in lines)
    assert any(" PHONE " in l and l.endswith("+44 20 7946 0958") for l in lines)
    assert any(" GPE " in l and l.endswith("London") for l in lines)


def test_cli_entities_with_a_configuration(tmp_path):
    cfg = tmp_path / "rx.toml"
    cfg.write_text('[source]\nrelations = ["t"]\n[attributes.age]\ntype = "numeric"\n'
                   '[text]\ncolumns = ["x"]\n[text.terms]\nJOB = ["biologist"]\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["entities", "--config", str(cfg), "A Biologist, not a biologists."])
    assert result.exit_code == 0, result.output
    assert [l.split()[:4] for l in result.output.splitlines()[1:]] == [["2", "11", "JOB", "list"]]


def test_cli_entities_nothing_found():
    result = CliRunner().invoke(main, ["entities", "nothing to see here"])
    assert result.exit_code == 0 and "no sensitive terms found" in result.output


def test_sql_function_after_register():
    con = duckdb.connect()
    rxanon_sql.register(con)
    text = "Café owner Zoë rang 020 7946 0958 from Zürich 😀 on 14 May 2004."
    ents = [e for (e,) in rows(con, "SELECT unnest(rx_entities(?))", [text])]
    for e in ents:
        assert con.execute("SELECT substring(?, ? + 1, ? - ?)",
                           [text, e["start_pos"], e["end_pos"], e["start_pos"]]).fetchall()[0][0] == e["term"]
    labels = {(e["label"], e["term"]) for e in ents}
    assert ("PHONE", "020 7946 0958") in labels
    assert ("DATE", "14 May 2004") in labels
    assert rows(con, "SELECT rx_entities(NULL), rx_entities('')") == [(None, [])]
    # rx_find is registered too
    assert rows(con, "SELECT len(rx_find('a Zoë b', ['zoë']))") == [(1,)]


# --- end to end through pipeline.apply ---------------------------------------------------------

TEXTS = [
    (1, "Zoë O\u2019Brien 😀 moved to Zürich; mail zoë@example.org—or call +41 44 668 18 00!"),
    (1, "“Zoë” wrote: I\u2019m a biologist (36-year-old), café-owner in Zürich… 🇨🇭"),
    (2, "Ahmed said: مرحبا بكم في القاهرة — I\u2019m 41, an engineer; e-mail ahmed@example.com."),
    (2, "שלום! Ahmed (engineer) flew from Cairo to Tel Aviv on 14 May 2004, aged 41."),
    (3, "José García — ingénieur? No: a biologist from Sevilla; phone (415) 555-2671."),
    (3, "José’s card 4111 1111 1111 1111 and IBAN DE89 3704 0044 0532 0130 00 — naïve façade ✨"),
    (4, "Ben Miller\u00a0lives in Toronto; he\u2019s 29 and an engineer. Tel.: 416-555-0199."),
    (4, "Ben\u2019s blog: https://example.com/ben?x=1, 192.168.1.1 and “Toronto” again 🙂"),
    (5, "Pedro, a 36 years old engineer from Mexico, e-mails pedro@example.mx."),
    (5, "Pedro’s friend Ben from Mexico City says «hola» — 😀😀"),
    (6, "Aïsha Khan, biologist, Paris 10ᵉ; tel. +33 1 42 68 53 00; naïve résumé."),
    (6, "Aïsha’s cat lives in Paris too: ça va? 🐈"),
]
PEOPLE = [(1, 36, "F"), (2, 41, "M"), (3, 36, "M"), (4, 29, "M"), (5, 36, "M"), (6, 29, "F")]
CONFIG = """
[source]
relations = ["people", "notes"]
person = "id"
[attributes.age]
type = "numeric"
[attributes.sex]
type = "nominal"
[text]
columns = ["note"]
[text.terms]
JOB = ["engineer", "biologist", "ingénieur"]
[anonymization]
k = 2
"""


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_" or unicodedata.category(ch).startswith("M")


@pytest.fixture(scope="module")
def unicode_con():
    con = duckdb.connect()
    con.execute("CREATE TABLE people (id INTEGER, age INTEGER, sex VARCHAR)")
    con.execute("CREATE TABLE notes (id INTEGER, note VARCHAR)")
    con.executemany("INSERT INTO people VALUES (?, ?, ?)", PEOPLE)
    con.executemany("INSERT INTO notes VALUES (?, ?)", TEXTS)
    apply(con, config_from(CONFIG))
    return con


def _pairs(con):
    return rows(con, """SELECT t.row_id, t.attribute, t.text, r.text
                        FROM rx.texts t JOIN rx.released_texts r USING (row_id, attribute)""")


def test_unicode_outside_replacements_is_byte_identical(unicode_con):
    pairs = _pairs(unicode_con)
    assert len(pairs) == len(TEXTS)
    replaced = 0
    for row_id, attribute, original, released in pairs:
        reps = rows(unicode_con, "SELECT start_pos, end_pos, replacement FROM rx.replacements "
                    "WHERE row_id = ? AND attribute = ? ORDER BY start_pos", [row_id, attribute])
        rebuilt, last = [], 0
        for s, e, rep in reps:
            assert last <= s < e <= len(original)
            rebuilt += [original[last:s].encode("utf-8"), rep.encode("utf-8")]
            last = e
        rebuilt.append(original[last:].encode("utf-8"))
        assert released.encode("utf-8") == b"".join(rebuilt)
        replaced += len(reps)
    assert replaced >= len(TEXTS)   # the texts really were recoded


def test_identifiers_are_gone(unicode_con):
    released = "\n".join(r[3] for r in _pairs(unicode_con))
    for secret in ("zoë@example.org", "ahmed@example.com", "pedro@example.mx", "4111 1111 1111 1111",
                   "DE89 3704", "(415) 555-2671", "416-555-0199", "+41 44 668 18 00", "+33 1 42 68 53 00",
                   "192.168.1.1", "https://example.com/ben"):
        assert secret not in released, secret


def test_replacements_never_glue_onto_neighbouring_words(unicode_con):
    for row_id, attribute, original, released in _pairs(unicode_con):
        for s, e, rep in rows(unicode_con, "SELECT start_pos, end_pos, replacement FROM rx.replacements "
                              "WHERE row_id = ? AND attribute = ?", [row_id, attribute]):
            # The replaced span starts and ends on a word boundary of the original text ...
            assert not (s > 0 and _word(original[s - 1]) and _word(original[s])), (original, original[s:e])
            assert not (e < len(original) and _word(original[e - 1]) and _word(original[e])), (original, original[s:e])
        # ... so in the release, no bracketed replacement touches a letter or digit.
        i = released.find("[")
        while i >= 0:
            j = released.find("]", i)
            if j > i:
                assert not (i > 0 and _word(released[i - 1])), released
                assert not (j + 1 < len(released) and _word(released[j + 1])), released
            i = released.find("[", i + 1)


# --- linking quality (redundant terms: docs/how-it-works.md) ------------------------------------

LINK_CONFIG = """
[source]
relations = ["t"]
person = "id"
[attributes.age]
type = "numeric"
emap = ["DATE", "CARDINAL", "QUANTITY"]
[attributes.sign]
type = "nominal"
[attributes.topic]
type = "nominal"
[attributes.day]
type = "date"
emap = ["DATE"]
[text]
columns = ["text"]
[anonymization]
k = 2
"""


@functools.cache     # (one text is asked about twice, sign and topic: one run)
def _links(text):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, sign VARCHAR, topic VARCHAR, day DATE, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [
        (1, 36, "Pisces", "Science", "2004-05-14", text),
        (2, 50, "Leo", "Arts", "2001-01-01", "nothing here"),
        (3, 51, "Leo", "Arts", "2001-01-02", "nothing"),
        (4, 52, "Leo", "Arts", "2001-01-03", "nothing at all")])
    apply(con, config_from(LINK_CONFIG))
    return frozenset((a, text[s:e]) for a, s, e in rows(
        con, "SELECT linked_attribute, stated_start, stated_end FROM rx.terms "
             "WHERE person = 1 AND linked_attribute IS NOT NULL"))


@pytest.mark.parametrize("text, link", [
    ("I am aged 36 now.", ("age", "36")),
    ("Aged 36, I moved.", ("age", "36")),
    ("A 36-year-old from Leeds.", ("age", "36")),
    ("I am 36 years old.", ("age", "36")),
    ("I was born on 2004-05-14 exactly.", ("day", "2004-05-14")),
    ("Posted 14.05.2004 late.", ("day", "14.05.2004")),
    ("Posted 05/14/2004 late.", ("day", "05/14/2004")),
    ("On the 14th of May 2004 we met.", ("day", "the 14th of May 2004")),  # a date term is replaced whole
    ("Since 2004 I blog.", ("day", "2004")),
    ("I love pisces and science.", ("sign", "pisces")),
    ("I love pisces and science.", ("topic", "science")),
    ("PISCES rule.", ("sign", "PISCES")),
])
def test_linking_states_only_the_stating_part(text, link):
    assert link in _links(text)
