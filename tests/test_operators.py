"""Text operators (issue 6): label, mask, tag, pseudonymize, generalize. Each keeps the release
k-anonymous and leak-free; tags and surrogates are consistent within a person and link no two
persons; generalized values are shared by the whole partition and lower NCP_X."""
from __future__ import annotations

import datetime as dt
import re

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import config_from, demo_config, rows, scalar
from rxanon_sql.config import ConfigError
from rxanon_sql.demo import write_demo_database
from rxanon_sql.operators import geo_chain, hierarchy_rows
from rxanon_sql.pipeline import apply
from udfs.dates import parse_date, shift_date
from udfs.surrogates import Surrogates
from rxanon_sql.verify import verify

OPERATORS = ["label", "mask", "tag", "pseudonymize", "generalize"]


def demo(**overrides):
    con = duckdb.connect()
    write_demo_database(con)
    apply(con, demo_config(**overrides))
    return con


# --- configuration --------------------------------------------------------------------------

def test_operator_settings_parse():
    cfg = config_from("""
[source]
relations = ["t"]
[attributes.age]
type = "numeric"
[text.operators]
gpe = "generalize"
PERSON = "pseudonymize"
[anonymization]
operator = "tag"
fallback = "mask"
mask = "***"
secret = "s3cret"
locale = "de_DE"
""")
    assert cfg.operator_of("GPE") == "generalize" and cfg.operator_of("PERSON") == "pseudonymize"
    assert cfg.operator_of("ORG") == "tag" and cfg.fallback == "mask" and cfg.mask == "***"
    assert "s3cret" not in cfg.as_json()  # never stored in rx.runs


@pytest.mark.parametrize("extra, match", [
    ('[anonymization]\noperator = "blur"', "anonymization.operator"),
    ('[text.operators]\nGPE = "blur"', "text.operators.GPE"),
    ('[anonymization]\nfallback = "generalize"', "anonymization.fallback"),
    ('[text.operators]\nGPE = "pseudonymize"\n[anonymization]\nlocale = "xx_XX"', "locale"),
])
def test_bad_operator_settings_are_named(extra, match):
    with pytest.raises(ConfigError, match=match):
        config_from('[source]\nrelations = ["t"]\n[attributes.age]\ntype = "numeric"\n' + extra)


# --- the running example under every operator ------------------------------------------------

@pytest.mark.parametrize("operator", OPERATORS)
def test_every_operator_is_k_anonymous_and_leak_free(operator):
    con = demo(operator=operator, secret="test")
    v = verify(con)
    assert v.ok, (v.failing, v.leaks, v.identifiers)
    released = " ".join(r[0] for r in rows(con, "SELECT text FROM rx.release"))
    for original in ("Pedro", "Mexico", "Canada", "Ben", "engineer", "biologist"):
        assert not re.search(rf"\b{original}\b", released), (operator, original)
    assert "UK" in released  # kept: shared by its whole partition


def test_label_is_the_default_and_unchanged(demo_con):
    assert "My name is [PERSON], I\u2019m a [36-37] years old [JOB] from [GPE]." in \
        [r[0] for r in rows(demo_con, "SELECT text FROM rx.release")]


def test_mask_and_tag_texts():
    con = demo(operator="mask", mask="###")
    assert "My name is ###, I\u2019m a [36-37] years old ### from ###." in [r[0] for r in rows(con, "SELECT text FROM rx.release")]
    con = demo(operator="tag")
    texts = dict(rows(con, "SELECT row_id, text FROM rx.audit"))
    assert re.fullmatch(r"My name is \[PERSON_\d\], I\u2019m a \[36-37\] years old \[JOB_\d\] from \[GPE_\d\]\.", texts[1])
    # person 4: scientist first, then biologist (order of first occurrence, not alphabetical)
    first, second = (int(re.search(r"\[JOB_(\d)\]", texts[r]).group(1)) for r in (5, 7))
    assert second == first + 1
    # no tag in two persons' texts: all three JOB tags of persons 1 and 4 differ
    tags = rows(con, "SELECT person, list(DISTINCT r) FROM rx.audit, unnest(regexp_extract_all(text, '\\[[A-Z]+_\\d+\\]')) AS u(r) GROUP BY person")
    owners = [t for _, ts in tags for t in ts]
    assert len(owners) == len(set(owners)) and len(owners) >= 6


def test_per_label_operators():
    con = demo(label_operators={"PERSON": "pseudonymize", "GPE": "generalize"}, operator="tag", secret="x")
    text = rows(con, "SELECT text FROM rx.audit WHERE row_id = 1")[0][0]
    assert re.fullmatch(r"My name is [A-Z][a-z]+, I\u2019m a \[36-37\] years old \[JOB_\d\] from North America\.", text), text
    assert verify(con).ok


def test_pseudonymize_is_deterministic_per_secret():
    a = rows(demo(operator="pseudonymize", secret="one"), "SELECT row_id, text FROM rx.audit ORDER BY row_id")
    b = rows(demo(operator="pseudonymize", secret="one"), "SELECT row_id, text FROM rx.audit ORDER BY row_id")
    c = rows(demo(operator="pseudonymize", secret="two"), "SELECT row_id, text FROM rx.audit ORDER BY row_id")
    assert a == b and a != c


def test_generalize_keeps_what_suppression_loses(demo_con):
    label = demo_con        # (the demo under the default operator, label)
    gen = demo(operator="generalize")
    texts = dict(rows(gen, "SELECT row_id, text FROM rx.audit"))
    assert texts[1].endswith("from North America.") and "trip to North America" in texts[4]
    assert scalar(gen, "SELECT ncp_x FROM rx.ncp") < scalar(label, "SELECT ncp_x FROM rx.ncp")
    g = rows(gen, "SELECT person, norm, node, share FROM rx.generalized_terms ORDER BY person")
    assert [(p, n, node) for p, n, node, _ in g] == [(1, "mexico", "continent:NA"), (3, "canada", "continent:NA")]
    assert 0 < g[0][3] < 1
    assert dict(rows(gen, "SELECT label, ncp_x FROM rx.ncp_terms"))["GPE"] < 1.0
    # the class key holds the shown value
    kept = [r[0] for r in rows(gen, "SELECT kept_terms FROM rx.classes")]
    assert sum("GPE:north america" in k for k in kept) == 1


# --- generalization in a partition built by hand ----------------------------------------------

def places_db(texts):
    con = duckdb.connect()
    con.execute("CREATE TABLE p (id INTEGER, age INTEGER, body VARCHAR)")
    for i, t in enumerate(texts):
        con.execute("INSERT INTO p VALUES (?, 30, ?)", [i, t])
    return con


PLACES = """
[source]
relations = ["p"]
[attributes.age]
type = "numeric"
emap = []
[text]
columns = ["body"]
labels = ["GPE"]
[text.terms]
GPE = ["Paris", "Lyon", "Berlin", "Munich", "Tokyo", "France"]
[anonymization]
k = 2
operator = "generalize"
"""


def test_a_node_not_shown_by_everyone_is_not_used():
    # Berlin could reach Europe through Paris, but the first person shows France, not Europe.
    con = places_db(["I love Paris.", "From Lyon to Berlin."])
    apply(con, config_from(PLACES))
    texts = [r[0] for r in rows(con, "SELECT body FROM rx.audit ORDER BY row_id")]
    assert texts == ["I love France.", "From France to [GPE]."]
    assert verify(con).ok


def test_a_surface_shown_anyway_is_no_leak():
    # Person 0's "the United States" is generalized to itself (level 0: person 1 shows the US
    # through "USA"), and so is "Houston": "the Houston metro" is released as "the United States
    # metro", which reads as the surface of the first term but tells nothing more.
    con = places_db(["I moved to the United States. Now the Houston metro is slow.",
                     "Back in the USA, in Chicago."])
    apply(con, config_from(PLACES.replace('"France"]', '"France", "Houston", "Chicago", "USA", "the United States"]')))
    texts = [r[0] for r in rows(con, "SELECT body FROM rx.audit ORDER BY row_id")]
    assert texts == ["I moved to United States. Now the United States metro is slow.",
                     "Back in the United States, in United States."]
    assert verify(con).ok


def test_tampered_generalization_fails_verify():
    con = places_db(["Paris again.", "Lyon again.", "Munich now."])
    apply(con, config_from(PLACES, k=3))
    assert {r[0] for r in rows(con, "SELECT replacement FROM rx.replacements")} == {"Europe"}
    assert verify(con).ok
    con.execute("UPDATE rx.replacements SET replacement = 'France' WHERE person = 0")
    assert not verify(con).ok


def test_hierarchies():
    assert [n for n, _, _ in geo_chain("paris")] == ["city:2988507", "country:FR", "continent:EU"]
    assert [n for n, _, _ in geo_chain("the uk")] == ["country:GB", "continent:EU"]
    assert geo_chain("austin")[1][0] == "state:TX"
    rows_ = hierarchy_rows([("DATE", "14 may 2004"), ("DATE", "2006"), ("MONEY", "$512"), ("MONEY", "$3,000")])
    nodes = {(n, l): (node, d, s) for _, n, l, node, d, s in rows_}
    assert nodes[("14 may 2004", 1)][:2] == ("month:2004-05", "May 2004") and nodes[("14 may 2004", 0)][2] == 0
    assert nodes[("14 may 2004", 2)][2] == pytest.approx(366 / (3 * 365.25))
    assert nodes[("$512", 2)][1] == "[500-599]" and nodes[("$3,000", 4)][1] == "[0-9999]"
    assert nodes[("$512", 2)][2] == 0.5 and nodes[("$3,000", 4)][2] == 1.0  # distinct values covered


def test_a_kept_term_does_not_make_a_node_shared():
    # "LA" is kept (both wrote it); the second person's "Los Angeles" must not show as a value the
    # first does not show.
    con = places_db(["LA is sunny.", "LA and Los Angeles."])
    apply(con, config_from(PLACES.replace('"France"]', '"France", "LA", "Los Angeles"]')))
    texts = [r[0] for r in rows(con, "SELECT body FROM rx.audit ORDER BY row_id")]
    assert texts == ["LA is sunny.", "LA and [GPE]."]
    assert verify(con).ok


# --- surrogates --------------------------------------------------------------------------------

def test_format_preserving_identifiers():
    from stdnum import iban, luhn
    s = Surrogates("k")
    for person in ("1", "2", "3"):
        i = s.surrogate(person, "IBAN", "de89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00")
        assert iban.is_valid(i) and i.startswith("DE") and i != "DE89 3704 0044 0532 0130 00"
        c = s.surrogate(person, "CARD", "4111 1111 1111 1111", "4111 1111 1111 1111")
        assert luhn.is_valid(c.replace(" ", "")) and re.fullmatch(r"4\d{3} \d{4} \d{4} \d{4}", c)
        m = s.surrogate(person, "MAIL", "jane.doe@example.com", "Jane.Doe@example.com")
        assert re.fullmatch(r"[A-Z][a-z]{3}\.[A-Z][a-z]{2}@[a-z]{7}\.com", m)
        u = s.surrogate(person, "URL", "https://www.example.org/a1", "https://www.example.org/a1")
        assert re.fullmatch(r"https://www\.[a-z]{7}\.org/[a-z]\d", u)
        p = s.surrogate(person, "PHONE", "+44 20 7946 0958", "+44 20 7946 0958")
        assert re.fullmatch(r"\+[1-9]\d \d{2} \d{4} \d{4}", p)
        assert re.fullmatch(r"\d{3}-\d{2}-\d{4}", s.surrogate(person, "SSN", "123-45-6789", "123-45-6789"))


def test_names_keep_first_letter_mapping_and_gender():
    s = Surrogates("k")
    for person in map(str, range(20)):
        a = s.surrogate(person, "PERSON", "gandalf", "Gandalf")
        initial = s.surrogate(person, "PERSON", "g.", "G.")
        assert a[0] == initial[0] == s.letter_map(person)["G"] and a != "Gandalf"
    b = s.surrogate("7", "PERSON", "gimli", "Gimli")
    assert s.surrogate("7", "PERSON", "gimli", "GIMLI") == b.upper()  # case of the written form
    from udfs.fake import names as _names
    names = _names("en_US")
    for person in map(str, range(20)):
        assert s.surrogate(person, "PERSON", "mary", "Mary") in names["female"]
        assert s.surrogate(person, "PERSON", "john", "John") in names["male"]


def test_dates_keep_format_and_shift_by_one_offset():
    for text in ("14 May 2004", "May 14th, 2004", "2004-05-14", "14.05.2004", "05/14/2004", "May 2004", "2004"):
        out = shift_date(text, 200)
        assert parse_date(out)[0] == parse_date(text)[0] and out != text
    assert shift_date("2004-05-14", 200) == "2004-11-30" and shift_date("May 14th, 2004", -3) == "May 11th, 2004"
    s = Surrogates("k")
    offsets = {s.date_offset(p, "DATE", 0) for p in map(str, range(50))}
    assert len(offsets) > 30 and all(183 <= abs(d) <= 730 and d % 7 for d in offsets)


def test_one_round_of_draws_rejects_what_the_rules_forbid():
    """sql/operator_surrogates.sql on hand-set draws: each forbidden draw is caught, also where
    it forms a replaced term with the text around it, and no match spans two contexts."""
    from rxanon_sql.identifiers import register_identifier_search
    from rxanon_sql.recognize import register_find_texts
    from rxanon_sql.sqlrun import run_file
    draws = {  # (person, label, norm) -> surrogate
        ("1", "PERSON", "ann"): "ann",                    # the term itself
        ("1", "PERSON", "bob"): "carl",                   # an original value of the label
        ("1", "ORG", "acme"): "the bob company",          # contains a replaced term of the person
        ("1", "ORG", "ibm"): "dell",                      # acceptable
        ("1", "GPE", "new york"): "lyon",                 # acceptable
        ("1", "GPE", "oslo"): "new",                      # acceptable, and so is the next: each
        ("1", "GPE", "rome"): "york",                     #   context is searched alone, no "new york"
        ("1", "PERSON", "zed"): "carter and mcdonald",    # "zed's" in the text: forms "mcdonald's"
        ("1", "ORG", "mcdonald's"): "initech",            # acceptable
        ("2", "PERSON", "ann"): "dora",                   # acceptable
        ("3", "PERSON", "ann"): "dora",                   # shares person 2's surrogate of "ann"
        ("2", "ORG", "acme"): "globex",                   # acceptable
        ("2", "ORG", "ibm"): "globex",                    # a second term of person 2 with it
        ("2", "GPE", "paris"): "mail me at x@y.org",      # contains a direct identifier
    }
    con = duckdb.connect()
    con.execute("CREATE SCHEMA rx")
    con.execute("CREATE TABLE rx.identifier_values (column_name VARCHAR, norm VARCHAR)")
    con.execute("INSERT INTO rx.identifier_values VALUES ('email', 'x@y.org')")
    con.execute("CREATE TABLE rx.texts (row_id INTEGER, attribute VARCHAR, text VARCHAR)")
    con.execute("CREATE TABLE rx.terms (row_id INTEGER, person VARCHAR, attribute VARCHAR, start_pos INTEGER, "
                "end_pos INTEGER, label VARCHAR, norm VARCHAR)")
    for i, (p, l, n) in enumerate(draws):  # each term in a text of its own, "x <term> x"
        text = "dear zed's friend" if n == "zed" else f"x {n} x"
        start = text.index(n)
        con.execute("INSERT INTO rx.texts VALUES (?, 'body', ?)", [i, text])
        con.execute("INSERT INTO rx.terms VALUES (?, ?, 'body', ?, ?, ?, ?)", [i, p, start, start + len(n), l, n])
    con.execute("CREATE TEMP TABLE surrogate_keys (person VARCHAR, label VARCHAR, norm VARCHAR, person_key VARCHAR, "
                "attempt INTEGER, canon VARCHAR, drawn BOOLEAN, own_bad BOOLEAN, shifted BOOLEAN)")
    con.executemany("INSERT INTO surrogate_keys VALUES (?, ?, ?, ?, 0, NULL, false, NULL, false)",
                    [[p, l, n, p] for p, l, n in draws])
    con.execute("CREATE TEMP TABLE surrogate_needles AS SELECT person, list_sort(list(DISTINCT norm)) AS needles "
                "FROM surrogate_keys GROUP BY person")
    con.execute("CREATE TEMP TABLE original_norms AS SELECT DISTINCT person, label, norm FROM surrogate_keys "
                "UNION ALL SELECT '9', 'PERSON', 'carl' UNION ALL SELECT '9', 'GPE', 'new york'")
    con.create_function("rx_surrogate", lambda p, l, n, s, a: draws[(p, l, n)],
                        ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER"], "VARCHAR")
    register_find_texts(con)
    register_identifier_search(con, "rx")
    run_file(con, "operator_surrogates", "rx")
    bad = set(rows(con, "SELECT person, label, norm FROM surrogate_bad"))
    assert bad == {("1", "PERSON", "ann"), ("1", "PERSON", "bob"), ("1", "ORG", "acme"), ("1", "PERSON", "zed"),
                   ("3", "PERSON", "ann"), ("2", "ORG", "ibm"), ("2", "GPE", "paris")}


# --- properties over random datasets ----------------------------------------------------------

NAMES = ["Alice Walker", "Omar", "Chen Li", "Maria", "John Smith"]
CITIES = ["Paris", "Berlin", "Lisbon", "Tokyo"]
RANDOM = """
[source]
relations = ["people", "posts"]
person = "pid"
[attributes.age]
type = "numeric"
emap = []
[text]
columns = ["body"]
labels = ["PERSON", "GPE", "DATE", "MAIL"]
[text.terms]
PERSON = {names}
GPE = {cities}
""".format(names=NAMES, cities=CITIES)

sentence = st.one_of(
    st.sampled_from(NAMES).map(lambda n: f"I met {n} today."),
    st.sampled_from(CITIES).map(lambda c: f"Back from {c}."),
    st.dates(dt.date(2001, 1, 1), dt.date(2008, 12, 31)).map(lambda d: f"On {d.isoformat()} it rained."),
    st.sampled_from(["ann", "bo"]).map(lambda u: f"Write to {u}@example.org please."),
)
person_st = st.tuples(st.integers(20, 40), st.lists(st.lists(sentence, min_size=1, max_size=4), min_size=1, max_size=3))


def build(people):
    con = duckdb.connect()
    con.execute("CREATE TABLE people (pid INTEGER, age INTEGER)")
    con.execute("CREATE TABLE posts (pid INTEGER, body VARCHAR)")
    for i, (age, posts) in enumerate(people):
        con.execute("INSERT INTO people VALUES (?, ?)", [i, age])
        for sentences in posts:
            con.execute("INSERT INTO posts VALUES (?, ?)", [i, " ".join(sentences)])
    return con


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(people=st.lists(person_st, min_size=2, max_size=10), k=st.integers(2, 3),
       operator=st.sampled_from(["tag", "pseudonymize"]), secret=st.text(min_size=1, max_size=8))
def test_tags_and_surrogates_are_consistent_and_unlinkable(people, k, operator, secret):
    if len(people) < k:
        return
    con = build(people)
    apply(con, config_from(RANDOM, k=k, operator=operator, secret=secret))
    v = verify(con)
    assert v.ok, (v.failing, v.leaks)
    reps = rows(con, "SELECT person, label, norm, replacement, operator FROM rx.replacements WHERE reason = 'suppressed'")
    per_term = {}
    for person, label, norm, rep, _ in reps:
        per_term.setdefault((person, label, norm), set()).add(rep.lower())
    # consistent within a person: one replacement per term
    assert all(len(v) == 1 for v in per_term.values())
    # one replacement stands for one term of a person
    seen = {}
    for (person, label, norm), (rep,) in per_term.items():
        assert seen.setdefault((person, label, rep), norm) == norm
    originals = {}
    for person, norm in rows(con, "SELECT person, norm FROM rx.terms"):
        originals.setdefault(person, set()).add(norm)
    all_norms = {n for ns in originals.values() for n in ns}
    by_term = {}
    for (person, label, norm), (rep,) in per_term.items():
        by_term.setdefault((label, norm), []).append((person, rep))
        if operator == "tag":
            assert re.fullmatch(rf"\[{label.lower()}_\d+\]", rep)
        elif not rep.startswith("["):
            # no original value among the surrogates (dates: none of the person's own)
            assert rep not in originals[person] and (label == "DATE" or rep not in all_norms), (rep, norm)
    if operator == "pseudonymize":
        # no surrogate contains one of its person's replaced terms as a word
        replaced = {}
        for person, _, norm in per_term:
            replaced.setdefault(person, set()).add(norm)
        for (person, label, norm), (rep,) in per_term.items():
            for other in replaced[person]:
                assert not re.search(rf"(?<!\w){re.escape(other)}(?!\w)", rep), (rep, other)
        # never shared across persons for the same suppressed term (independent draws)
        for (label, norm), reps_ in by_term.items():
            if label != "DATE":
                got = [r for _, r in reps_ if not r.startswith("[")]
                assert len(got) == len(set(got)), (label, norm, reps_)
        # date order and intervals kept per person
        shifted = {}
        for person, label, norm, rep, _ in reps:
            if label == "DATE" and not rep.startswith("["):
                shifted.setdefault(person, {})[dt.date.fromisoformat(norm)] = dt.date.fromisoformat(rep)
        for person, pairs in shifted.items():
            deltas = {(new - old).days for old, new in pairs.items()}
            assert len(deltas) == 1 and 0 not in deltas
    else:
        # never shared across persons, whatever the term: a tag names one term of one person
        owners = {}
        for (person, label, norm), (rep,) in per_term.items():
            assert owners.setdefault(rep, person) == person, (rep, person, owners[rep])
        # numbered 1..n per label over the release, a person's tags in order of first occurrence
        tags = rows(con, "SELECT label, list(tag ORDER BY tag) FROM rx.operator_terms "
                         "WHERE generalized IS NULL GROUP BY ALL")
        assert all(t == list(range(1, len(t) + 1)) for _, t in tags)
