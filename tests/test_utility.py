"""rx.utility and rx.utility_surfaces (sql/utility.sql): the words a release keeps, against the
definition computed in Python, and what replaced the others."""
import re
from collections import Counter

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rxanon_sql.common_words import TOKEN
from rxanon_sql.measures import utility
from rxanon_sql.sqlrun import run_file, statements


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def words_kept(original: dict, released: dict) -> float:
    """The definition: per person, the lower-cased \\w+ words of their original texts and of
    their released texts as multisets; the sum over persons of the intersection's size, divided
    by the number of original words. (person -> list of texts)"""
    kept = sum(sum((Counter(w for t in texts for w in words(t))
                    & Counter(w for t in released.get(person, []) for w in words(t))).values())
               for person, texts in original.items())
    return kept / sum(len(words(t)) for texts in original.values() for t in texts)


def by_person(con, relation: str) -> dict:
    out = {}
    for person, text in con.execute(f"SELECT person, text FROM {relation} WHERE text IS NOT NULL").fetchall():
        out.setdefault(person, []).append(text)
    return out


@pytest.fixture(scope="module")
def demo(demo_db):
    con = duckdb.connect(demo_db, read_only=True)
    yield con
    con.close()


def test_words_kept_of_the_demo_is_the_definition(demo):
    share, words_, kept = demo.execute("SELECT share_kept, words, words_kept FROM rx.utility WHERE scope = 'all'") \
        .fetchall()[0]
    original = by_person(demo, "rx.texts")
    assert words_ == sum(len(words(t)) for texts in original.values() for t in texts)
    assert share == pytest.approx(words_kept(original, by_person(demo, "rx.audit_texts")), abs=1e-12)
    assert kept == round(share * words_)
    assert 0.5 < share < 1


def test_the_words_replaced_per_reason_and_per_label_add_up_to_every_replaced_word(demo):
    spans = demo.execute("SELECT o.text, r.start_pos, r.end_pos FROM rx.replacements AS r "
                         "JOIN rx.texts AS o ON o.row_id = r.row_id AND o.attribute = r.attribute").fetchall()
    replaced = sum(len(words(text[s:e])) for text, s, e in spans)
    totals = dict(((scope, count), n) for scope, count, n in demo.execute(
        "SELECT scope, 'replacements', sum(replacements) FROM rx.utility GROUP BY scope UNION ALL "
        "SELECT scope, 'words', sum(words_replaced) FROM rx.utility GROUP BY scope").fetchall())
    for scope in ("all", "label", "reason"):
        assert totals[scope, "words"] == replaced
        assert totals[scope, "replacements"] == len(spans)
    assert demo.execute("SELECT sum(words), sum(replacements) FROM rx.utility_surfaces").fetchall()[0] == \
        (replaced, len(spans))


def test_the_demo_names_its_reasons_and_surfaces(demo):
    reasons = dict(demo.execute("SELECT name, replacements FROM rx.utility WHERE scope = 'reason'").fetchall())
    # JOB and TOPIC: the configured lists; the age in "36 years old": recoded ("constellation"
    # and "zodiac", dictionary words, stay: the rare guard replaces none)
    assert reasons == {"ner": 4, "list": 4, "recoded": 3}
    share, most = utility(demo, "rx")
    assert share == pytest.approx(109 / 117) and most[0] == ("engineer", "JOB", 2) and len(most) == 3


# The SQL measure against the definition on small random texts: the tables utility.sql reads,
# with replacements placed anywhere (cutting words, side by side, at the ends; in a text over
# 4,096 bytes too) and the released
# text rebuilt from them as release.py rebuilds it.
ALPHABET = "aAbé1_ -.'"
REPLACEMENTS = ["[PERSON]", "[24-27]", "a", "", "b a", "É"]
REASONS = ["ner", "rule", "match", "identifier", "list", "RARE", "sweep", "recoded", "repaired"]


@st.composite
def releases(draw):
    texts = []
    for row_id in range(draw(st.integers(1, 4))):
        person = draw(st.integers(1, 2))
        text = draw(st.text(ALPHABET, max_size=24))
        if draw(st.integers(0, 5)) == 0:
            # (a text over 4,096 bytes is read whole from the release)
            text += " a." * 1400
        cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=6)))
        spans = [(s, e) for s, e in zip(cuts[::2], cuts[1::2]) if s < e]
        edits = [(s, e, draw(st.sampled_from(REPLACEMENTS)), draw(st.sampled_from(REASONS))) for s, e in spans]
        texts.append((row_id, person, text, edits))
    return texts


def _load(con, texts) -> None:
    con.execute("CREATE SCHEMA rx")
    con.execute("CREATE TABLE rx.texts (row_id BIGINT, person INTEGER, attribute VARCHAR, text VARCHAR)")
    con.execute("CREATE TABLE rx.audit_texts (row_id BIGINT, person INTEGER, attribute VARCHAR, text VARCHAR)")
    con.execute("CREATE TABLE rx.replacements (row_id BIGINT, person INTEGER, attribute VARCHAR, start_pos INTEGER, "
                "end_pos INTEGER, replacement VARCHAR, reason VARCHAR, label VARCHAR, norm VARCHAR, operator VARCHAR)")
    con.execute("CREATE TABLE rx.terms (row_id BIGINT, person INTEGER, attribute VARCHAR, start_pos INTEGER, "
                "end_pos INTEGER, term VARCHAR, norm VARCHAR, label VARCHAR, source VARCHAR, "
                "linked_attribute VARCHAR, stated_start INTEGER, stated_end INTEGER)")
    for row_id, person, text, edits in texts:
        released, end = "", 0
        for s, e, replacement, why in edits:
            released += text[end:s] + replacement
            end = e
            surface = text[s:e]
            label = "RARE" if why == "RARE" else "X"
            reason = why if why in ("recoded", "repaired") else "suppressed"
            con.execute("INSERT INTO rx.replacements VALUES (?, ?, 'text', ?, ?, ?, ?, ?, ?, 'label')",
                        [row_id, person, s, e, replacement, reason, label, surface.lower()])
            if why == "recoded":
                # (a linked term one character wider on the left where it can be, stating the span)
                start = max(s - 1, 0)
                con.execute("INSERT INTO rx.terms VALUES (?, ?, 'text', ?, ?, ?, ?, ?, 'list', 'age', ?, ?)",
                            [row_id, person, start, e, text[start:e], surface.lower(), label, s, e])
            elif why not in ("sweep", "repaired"):
                con.execute("INSERT INTO rx.terms VALUES (?, ?, 'text', ?, ?, ?, ?, ?, ?, NULL, NULL, NULL)",
                            [row_id, person, s, e, surface, surface.lower(), label,
                             "match" if why == "RARE" else why])
        released += text[end:]
        con.execute("INSERT INTO rx.texts VALUES (?, ?, 'text', ?)", [row_id, person, text])
        con.execute("INSERT INTO rx.audit_texts VALUES (?, ?, 'text', ?)", [row_id, person, released])
    # (the number of words of the texts, as the terms stage counts it: corpus_needles.sql)
    for sql, names in statements("corpus_needles", "rx", cached=False):
        if "TABLE person_tokens AS" in sql or "TABLE rx.text_words AS" in sql:
            con.execute(sql, {"token": TOKEN} if names else None)


NAMES = {"ner": "ner", "rule": "rule", "match": "propagation", "identifier": "identifier", "list": "list",
         "RARE": "rare guard", "sweep": "sweep", "recoded": "recoded", "repaired": "repaired"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(releases())
def test_words_kept_is_the_definition_on_random_texts(texts):
    con = duckdb.connect(":memory:")
    try:
        _load(con, texts)
        run_file(con, "utility", "rx", token=TOKEN)
        original = by_person(con, "rx.texts")
        share, n_words = con.execute("SELECT share_kept, words FROM rx.utility WHERE scope = 'all'").fetchall()[0]
        assert n_words == sum(len(words(t)) for _, _, t, _ in texts)
        if n_words:
            assert share == pytest.approx(words_kept(original, by_person(con, "rx.audit_texts")), abs=1e-12)
        else:
            assert share is None
        expected = Counter()
        for _, _, text, edits in texts:
            for s, e, _, why in edits:
                expected[NAMES[why]] += len(words(text[s:e]))
        got = dict(con.execute("SELECT name, words_replaced FROM rx.utility WHERE scope = 'reason'").fetchall())
        assert got == {k: v for k, v in expected.items() if k in got} and set(got) == {
            NAMES[why] for *_, edits in texts for *_, why in edits}
        assert con.execute("SELECT words_replaced FROM rx.utility WHERE scope = 'all'").fetchall()[0][0] == \
            sum(expected.values())
    finally:
        con.close()


def test_the_replaced_surfaces_spill_under_a_small_memory_limit(tmp_path):
    # utility_replaced joins 300,000 replacements to as many terms. Both joins in one CTE held
    # every replacement with its term in memory, and ran out of it at 60 MB (on the blog corpus
    # shape, at 650 MB); one branch per kind of replacement spills.
    con = duckdb.connect(str(tmp_path / "spill.duckdb"))
    con.execute("SET temp_directory = ?", [str(tmp_path / "spill")])
    con.execute("CREATE SCHEMA rx")
    con.execute("CREATE TABLE rx.texts AS SELECT i AS row_id, 'text' AS attribute, "
                "repeat('word ', 40) || 'name' || i || ' end' AS text FROM range(300000) AS r(i)")
    # (each replacement of one term: the name at 200, recoded every fifth, repaired some others)
    con.execute("CREATE TABLE rx.terms AS SELECT row_id, attribute, 200 AS start_pos, "
                "204 + length(CAST(row_id AS VARCHAR)) AS end_pos, 200 AS stated_start, "
                "204 + length(CAST(row_id AS VARCHAR)) AS stated_end, "
                "CASE WHEN row_id % 3 = 0 THEN 'RARE' ELSE 'PERSON' END AS label, 'name' || row_id AS norm, "
                "CASE WHEN row_id % 2 = 0 THEN 'match' ELSE 'ner' END AS source, 'Name' || row_id AS term "
                "FROM rx.texts")
    con.execute("CREATE TABLE rx.replacements AS SELECT row_id, attribute, start_pos, end_pos, label, norm, "
                "CASE WHEN row_id % 5 = 0 THEN 'recoded' WHEN row_id % 7 = 0 THEN 'repaired' ELSE 'suppressed' END "
                "AS reason FROM rx.terms")
    con.execute("SET memory_limit = '60MB'")
    sql = [s for s, _ in statements("utility", "rx", cached=False)]
    i = next(i for i, s in enumerate(sql) if "utility_replaced AS" in s)
    con.execute(sql[i])
    # (and the surfaces made of it: each counted, and cut into words, once)
    con.execute(sql[i + 1], {"token": TOKEN})
    got = dict(((reason, label), (n, surfaces, words)) for reason, label, n, surfaces, words in con.execute(
        "SELECT reason, label, sum(replacements), count(DISTINCT surface), sum(words) FROM rx.utility_surfaces "
        "WHERE surface = 'name' || substring(surface, 5) GROUP BY ALL").fetchall())
    expected = Counter()
    for i in range(300000):
        label = "RARE" if i % 3 == 0 else "PERSON"
        reason = ("recoded" if i % 5 == 0 else "repaired" if i % 7 == 0 else
                  "rare guard" if label == "RARE" else "propagation" if i % 2 == 0 else "ner")
        expected[reason, label] += 1
    assert got == {key: (n, n, n) for key, n in expected.items()}
    con.close()
