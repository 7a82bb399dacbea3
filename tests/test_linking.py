import datetime as dt

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import config_from, rows
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

CONFIG = """
[source]
relations = ["t"]
person = "id"
[attributes.age]
type = "numeric"
emap = ["DATE", "CARDINAL", "QUANTITY"]
[attributes.sign]
type = "nominal"
[attributes.day]
type = "date"
emap = ["DATE"]
[text]
columns = ["text"]
[anonymization]
k = 2
"""


def linked(text, age=36, sign="Pisces", day="2004-05-14"):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, sign VARCHAR, day DATE, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                    [(1, age, sign, day, text), (2, 50, "Leo", "2001-01-01", "nothing here"),
                     (3, 51, "Leo", "2001-01-02", "nothing"), (4, 52, "Leo", "2001-01-03", "nothing at all")])
    apply(con, config_from(CONFIG))
    return [(r[0], r[1], text[r[2]:r[3]]) for r in rows(
        con, "SELECT term, linked_attribute, stated_start, stated_end FROM rx.terms WHERE person = 1 ORDER BY start_pos")]


@pytest.mark.parametrize("text, stated", [
    ("I am a 36 years old engineer.", "36"),
    ("I turned 36 last week.", "36"),
    ("She is a 36-year-old nurse.", "36"),
])
def test_numbers_inside_phrases_state_the_age(text, stated):
    links = [l for l in linked(text) if l[1] == "age"]
    assert links and links[0][2] == stated


def test_a_day_in_a_date_is_not_an_age():
    assert not [l for l in linked("See you on June 17, 2003.", age=17) if l[1] == "age"]


def test_another_number_is_not_linked():
    assert not [l for l in linked("I am 37 years old.") if l[1] == "age"]


@pytest.mark.parametrize("text, stated", [
    ("That was on 14 May 2004, a Friday.", "14 May 2004"),
    ("It happened on May 14, 2004.", "May 14, 2004"),
    ("Back in May 2004 things were different.", "May 2004"),
    ("The year 2004 was great.", "The year 2004"),  # a date term is replaced whole
])
def test_dates_that_agree_are_linked(text, stated):
    links = [l for l in linked(text) if l[1] == "day"]
    assert links and links[0][2] == stated


def test_a_date_that_disagrees_is_not_linked():
    assert not [l for l in linked("On 15 June 2004 we met.") if l[1] == "day"]


def test_categorical_value_is_linked_whatever_the_label():
    links = linked("Did you know that Pisces is the last sign of the zodiac.")
    assert ("Pisces", "sign", "Pisces") in links


def test_demo_links(demo_con):
    got = set(rows(demo_con, "SELECT person, term, linked_attribute FROM rx.terms WHERE linked_attribute IS NOT NULL"))
    assert {(1, "36 years old", "age"), (4, "2004", "date"), (4, "science", "topic"), (5, "Pisces", "sign")} <= got
    # A redundant term is not part of X'.
    x = set(rows(demo_con, "SELECT person, norm FROM rx.person_terms"))
    assert (1, "36 years old") not in x and (1, "pedro") in x


def test_a_non_sensitive_label_counts_only_when_it_states_a_value():
    cfg = CONFIG.replace('[text]\ncolumns = ["text"]', '[text]\ncolumns = ["text"]\nlabels = ["PERSON"]')
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, sign VARCHAR, day DATE, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                    [(i, 36 + i, "Leo", "2001-01-01", f"I am {36 + i} years old and have 3 cats.") for i in range(4)])
    apply(con, config_from(cfg))
    got = rows(con, "SELECT person, term, label, linked_attribute FROM rx.terms ORDER BY person")
    assert [g[3] for g in got] == ["age"] * 4 and all(g[2] in ("DATE", "CARDINAL") for g in got)


def test_without_matching_values_a_categorical_value_needs_its_label():
    # (match_values = false: the value is linked only when the term's label states the attribute)
    def links(emap):
        cfg = CONFIG.replace('[attributes.sign]\ntype = "nominal"',
                             f'[attributes.sign]\ntype = "nominal"\nmatch_values = false\nemap = {emap}')
        cfg += '[text.terms]\nZODIAC = ["Pisces", "Leo"]\n'
        con = duckdb.connect()
        con.execute("CREATE TABLE t (id INTEGER, age INTEGER, sign VARCHAR, day DATE, text VARCHAR)")
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                        [(1, 36, "Pisces", "2004-05-14", "A Pisces, not a Leo."), (2, 50, "Leo", "2001-01-01", "no sign"),
                         (3, 51, "Leo", "2001-01-02", "nothing"), (4, 52, "Leo", "2001-01-03", "nothing at all")])
        apply(con, config_from(cfg))
        return rows(con, "SELECT term, label, linked_attribute FROM rx.terms WHERE person = 1 ORDER BY start_pos")
    assert links('["ZODIAC"]') == [("Pisces", "ZODIAC", "sign"), ("Leo", "ZODIAC", None)]
    assert links('["GPE"]') == [("Pisces", "ZODIAC", None), ("Leo", "ZODIAC", None)]


def test_value_mentions_found_in_any_case_and_spacing_and_beyond_ascii():
    # A tuple's values are found in its texts (sql/mention_needles.sql, propagate.sql) in other
    # case, with other white space between the words, with a Kelvin sign that case-insensitive
    # matching equates with "k", beyond ASCII, and for persons with no sensitive term to
    # propagate. Only PHONE is a label here, so that the recognizer's own tags do not make the
    # links.
    cfg = """
[source]
relations = ["t"]
person = "id"
[attributes.team]
type = "nominal"
[text]
columns = ["text"]
labels = ["PHONE"]
[anonymization]
k = 2
"""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, team VARCHAR, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [
        (1, "Kilo Zorb", "Our team kilo   ZORB won."), (1, "Kilo Zorb", "\u212aILO zorb again, café."),
        (1, "Kilo Zorb", "Kilo\tZorb\nwon."), (1, "Ünïcø Team", "We are ÜNÏCØ team."),
        (1, "Kilo Zorb", "No team named here."),
        (2, "Leo", "nothing"), (3, "Leo", "nothing here"), (4, "Leo", "nothing at all")])
    apply(con, config_from(cfg))
    got = rows(con, "SELECT d.text, t.start_pos, t.end_pos, t.linked_attribute FROM rx.terms AS t "
                    "JOIN rx.dataset AS d ON d.row_id = t.row_id WHERE t.person = 1 ORDER BY d.text, t.start_pos")
    assert sorted((text[s:e], a) for text, s, e, a in got) == sorted(
        [("kilo   ZORB", "team"), ("\u212aILO zorb", "team"), ("Kilo\tZorb", "team"), ("ÜNÏCØ team", "team")])


def released(text, age=36, day="2004-05-14", others=((50, "2001-01-01"), (51, "2001-01-02"), (52, "2001-01-03"))):
    """Person 1's released text, the recoded values of its partition and its terms."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, sign VARCHAR, day DATE, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                    [(1, age, "Pisces", day, text)]
                    + [(i + 2, a, "Leo", d, f"nothing {i}") for i, (a, d) in enumerate(others)])
    apply(con, config_from(CONFIG))
    out = [r[0] for r in rows(con, "SELECT text FROM rx.release") if not r[0].startswith("nothing")]
    values = dict(rows(con, "SELECT r.attribute, r.value FROM rx.recoded_values AS r JOIN rx.partitions AS p "
                            "ON p.partition_id = r.partition_id WHERE p.person = 1"))
    terms = rows(con, "SELECT term, linked_attribute, stated_start, stated_end FROM rx.terms WHERE person = 1")
    return out[0], values, terms


# Every common written form of the date 2004-05-14 (a Friday), each with the words that tell it.
DATE_FORMS = [
    ("We met on 14 May and talked.", ["14", "may"]),
    ("We met on May 14 and talked.", ["14", "may"]),
    ("We met on May 14th and talked.", ["14", "may"]),
    ("We met on the 14th of May and talked.", ["14", "may"]),
    ("Fourteenth of May was the day we met.", ["fourteenth", "may"]),
    ("We met on the fourteenth of May and talked.", ["fourteenth", "may"]),
    ("We met on 5/14 and talked.", ["14"]),
    ("We met on 14/5 and talked.", ["14"]),
    ("We met on 14.05.2004 and talked.", ["14"]),
    ("We met on 2004-05-14 and talked.", ["14"]),
    ("We met on 05/14/2004 and talked.", ["14"]),
    ("We met on Friday May 14 and talked.", ["14", "may", "friday"]),
    ("We met on Friday, 14 May and talked.", ["14", "may", "friday"]),
]

AGE_FORMS = [
    ("I am thirty-six and tired.", ["thirty", "six"]),
    ("I am thirty six and tired.", ["thirty", "six"]),
    ("I am thirty-six years old.", ["thirty", "six"]),
    ("I am 36yo and tired.", ["36"]),
    ("A 36-year-old man, that is me.", ["36"]),
    ("I'm 36 y/o now.", ["36"]),
    ("I am 36y/o now.", ["36"]),
    ("I'm 36yrs and tired.", ["36"]),
]


def _words(text):
    import re
    return set(re.findall(r"[a-z]+|[0-9]+", text.lower()))


@pytest.mark.parametrize("text, tells", DATE_FORMS + AGE_FORMS)
def test_every_written_form_is_linked_and_recoded(text, tells):
    out, values, terms = released(text)
    attribute = "day" if (text, tells) in DATE_FORMS else "age"
    assert [t for t in terms if t[1] == attribute], terms
    # The recoded value stands in the release, and once it is taken out nothing of the value is left.
    assert values[attribute] in out
    rest = _words(out.replace(values[attribute], " "))
    assert not rest & set(tells), out


def test_a_weekday_that_disagrees_is_not_linked():
    # 2004-05-14 is a Friday
    assert not [l for l in linked("We met on Saturday May 14 and talked.") if l[1] == "day"]


@pytest.mark.parametrize("text", ["We met on May 14, 2003.", "We met on 14 May in 2003.", "We met on 5/15 and talked."])
def test_a_year_less_form_that_disagrees_is_not_linked(text):
    assert not [l for l in linked(text) if l[1] == "day"]


def test_another_number_in_words_is_not_linked():
    assert not [l for l in linked("I am thirty-seven and tired.") if l[1] == "age"]


def test_a_surface_beside_the_stating_part_is_replaced_too():
    # spaCy tags "14 Christmas" as one DATE, linked to the age through "14"; "Christmas", a
    # suppressed DATE of the same person in another post, must not stay beside "[14-15]".
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, sign VARCHAR, day DATE, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [
        (1, 14, "Pisces", "2004-05-14", "I turned 14 Christmas and got a bike."),
        (1, 14, "Pisces", "2004-05-15", "Christmas was quiet this year."),
        (2, 15, "Leo", "2001-01-01", "nothing here"), (3, 51, "Leo", "2001-01-02", "nothing"),
        (4, 52, "Leo", "2001-01-03", "nothing at all")])
    apply(con, config_from(CONFIG))
    got = rows(con, "SELECT term, label, linked_attribute FROM rx.terms WHERE person = 1 AND row_id = "
                    "(SELECT min(row_id) FROM rx.terms WHERE term = '14 Christmas') ORDER BY start_pos, end_pos DESC")
    assert got == [("14 Christmas", "DATE", "age"), ("Christmas", "DATE", None)]
    released = [r[0] for r in rows(con, "SELECT text FROM rx.release")]
    assert "I turned [14-15] [DATE] and got a bike." in released
    assert verify(con).ok


def _forms(d):
    """The written forms of date d (day, month name, weekday, ordinal word)."""
    from num2words import num2words
    month, weekday = d.strftime("%B"), d.strftime("%A")
    suffix = "th" if 10 <= d.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    word = num2words(d.day, to="ordinal")
    return {
        "d M": f"{d.day} {month}", "M d": f"{month} {d.day}", "M dth": f"{month} {d.day}{suffix}",
        "the dth of M": f"the {d.day}{suffix} of {month}", "the word of M": f"the {word} of {month}",
        "m/d": f"{d.month}/{d.day}", "d/m": f"{d.day}/{d.month}", "dd.mm.yyyy": d.strftime("%d.%m.%Y"),
        "iso": d.isoformat(), "mm/dd/yyyy": d.strftime("%m/%d/%Y"), "W M d": f"{weekday} {month} {d.day}",
    }


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(day=st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2020, 12, 31)),
       form=st.sampled_from(sorted(_forms(dt.date(2004, 5, 14)))), shift=st.sampled_from([0, 0, 1, -3]))
def test_property_a_written_date_links_exactly_when_it_agrees(day, form, shift):
    # The text writes the date `shift` days off the row's date; it is linked only when it agrees,
    # and then neither its day nor its month is left beside the recoded value.
    written = day + dt.timedelta(days=shift)
    text = f"We met on {_forms(written)[form]} and talked."
    out, values, terms = released(text, day=day.isoformat())
    links = [t for t in terms if t[1] == "day"]
    if shift == 0:
        assert links, (text, terms)
        rest = _words(out.replace(values["day"], " "))
        assert not rest & {str(day.day), day.strftime("%B").lower()}, (text, out)
    else:
        assert not links, (text, terms)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(age=st.integers(min_value=13, max_value=99),
       form=st.sampled_from(["{w}", "{w2}", "{n}yo", "{n}-year-old", "{n} y/o", "{w} years old"]))
def test_property_an_age_in_words_or_compact_is_recoded(age, form):
    from num2words import num2words
    words = num2words(age)
    text = "I am " + form.format(w=words, w2=words.replace("-", " "), n=age) + " and tired."
    out, values, terms = released(text, age=age)
    assert [t for t in terms if t[1] == "age"], (text, terms)
    rest = _words(out.replace(values["age"], " "))
    assert not rest & ({str(age)} | set(words.replace("-", " ").split())), (text, out)
