"""Privacy properties over random small datasets (hypothesis): for any k, lambda and strategy the
release is k-anonymous, keeps every row, leaves no suppressed term in any text of its person, and
the level-synchronous partitioner agrees with the recursive reference, cut for cut."""
from __future__ import annotations

import datetime as dt
import json
import re

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference
from helpers import config_from, rows
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

JOBS = ["engineer", "nurse", "teacher", "pilot"]
PLACES = ["Berlin", "Lisbon", "Oslo", "Quito", "Rome"]
FRIENDS = ["Alice", "Omar", "Zoë", "Chen"]
CITIES = ["Berlin", "Paris", "Rome"]

CONFIG = """
[source]
relations = ["people", "posts"]
person = "pid"
[attributes.age]
type = "numeric"
[attributes.gender]
type = "nominal"
[attributes.city]
type = "nominal"
[attributes.day]
type = "date"
[text]
columns = ["body", "title"]
[text.terms]
JOB = {jobs}
PLACE = {places}
FRIEND = {friends}
""".format(jobs=JOBS, places=PLACES, friends=FRIENDS)

sentence = st.one_of(
    st.sampled_from(JOBS).map(lambda j: f"I work as a {j}."),
    st.sampled_from(PLACES).map(lambda p: f"Greetings from {p}!"),
    st.sampled_from(FRIENDS).map(lambda f: f"My friend {f} says hi."),
    st.sampled_from(CITIES).map(lambda c: f"Back home in {c}."),
    st.just("I am {age} years old."),
    st.just("Nothing much happened \u2014 caf\u00e9 au lait \U0001F600."),
)
post = st.tuples(st.lists(sentence, min_size=0, max_size=4), st.one_of(st.none(), sentence),
                 st.dates(dt.date(2003, 1, 1), dt.date(2006, 12, 31)))
person = st.tuples(st.integers(18, 60), st.sampled_from(["f", "m"]), st.sampled_from(CITIES),
                   st.lists(post, min_size=1, max_size=3))


@st.composite
def datasets(draw):
    k = draw(st.integers(2, 4))
    people = draw(st.lists(person, min_size=k, max_size=18))
    return k, people


def build(people):
    con = duckdb.connect()
    con.execute("CREATE TABLE people (pid INTEGER, age INTEGER, gender VARCHAR, city VARCHAR)")
    con.execute("CREATE TABLE posts (pid INTEGER, day DATE, body VARCHAR, title VARCHAR)")
    for i, (age, gender, city, posts) in enumerate(people):
        con.execute("INSERT INTO people VALUES (?, ?, ?, ?)", [i, age, gender, city])
        for sentences, title, day in posts:
            con.execute("INSERT INTO posts VALUES (?, ?, ?, ?)",
                        [i, day, " ".join(sentences).replace("{age}", str(age)), title and title.replace("{age}", str(age))])
    return con


def unreplaced_leaks(con):
    """Occurrences of a suppressed surface, in the person's original texts, with a letter or digit
    left unreplaced (an occurrence inside a longer term belongs to that term)."""
    leaks = []
    suppressed = {}
    for person, norm in rows(con, "SELECT DISTINCT person, norm FROM rx.replacements WHERE reason = 'suppressed'"):
        suppressed.setdefault(person, set()).add(norm)
    for row_id, person, attribute, text in rows(con, "SELECT row_id, person, attribute, text FROM rx.texts"):
        spans = rows(con, "SELECT start_pos, end_pos FROM rx.replacements WHERE row_id = ? AND attribute = ?", [row_id, attribute])
        terms = rows(con, "SELECT start_pos, end_pos FROM rx.terms WHERE row_id = ? AND attribute = ?", [row_id, attribute])
        for norm in suppressed.get(person, ()):
            for m in re.finditer(rf"(?<!\w){re.escape(norm)}(?!\w)", text, re.IGNORECASE):
                inside_longer_term = any(s <= m.start() and m.end() <= e and e - s > m.end() - m.start() for s, e in terms)
                # every letter and digit of the occurrence lies under some replacement
                replaced = all(any(s <= p < e for s, e in spans) for p in range(m.start(), m.end()) if text[p].isalnum())
                if not inside_longer_term and not replaced:
                    leaks.append((row_id, norm))
    return leaks


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), lam=st.floats(0, 1), strategy=st.sampled_from(["mondrian", "gdf"]),
       nominal_order=st.sampled_from(["value", "frequency"]))
def test_release_is_k_anonymous_and_leaks_nothing(data, lam, strategy, nominal_order):
    k, people = data
    con = build(people)
    apply(con, config_from(CONFIG, k=k, lam=lam, strategy=strategy, nominal_order=nominal_order))
    v = verify(con)
    assert v.ok, (v.failing, v.leaks)
    assert v.smallest >= k
    assert rows(con, "SELECT count(*) FROM rx.release") == rows(con, "SELECT count(*) FROM posts")
    assert unreplaced_leaks(con) == []
    # A kept term is held by every person of its partition.
    assert rows(con, """
        SELECT count(*) FROM rx.kept_terms k JOIN rx.partitions p USING (partition_id)
        WHERE NOT EXISTS (SELECT 1 FROM rx.person_terms t WHERE t.person = p.person AND t.label = k.label AND t.norm = k.norm)
    """) == [(0,)]
    d = reference.load(con)
    cuts = []
    expected = (reference.mondrian if strategy == "mondrian" else reference.gdf)(d, cuts=cuts)
    got = {}
    for p, pid in rows(con, "SELECT person, partition_id FROM rx.partitions"):
        got.setdefault(pid, set()).add(p)
    assert sorted(map(sorted, got.values())) == sorted(map(sorted, expected))
    # the same cuts, with the same priorities to the last bit
    assert sorted(rows(con, "SELECT left_size + right_size, left_size, coalesce(attribute, label), kind, priority "
                            "FROM rx.splits")) == sorted(cuts)


@settings(max_examples=10, deadline=None)
@given(data=datasets(), lam=st.sampled_from([0.0, 1.0]))
def test_lambda_extremes(data, lam):
    k, people = data
    con = build(people)
    apply(con, config_from(CONFIG, k=k, lam=lam))
    preferred, other = ("relational", "textual") if lam == 1.0 else ("textual", "relational")
    assert rows(con, """
        SELECT count(*) FROM rx.split_candidates c
        WHERE c.chosen AND c.kind = ? AND EXISTS (
            SELECT 1 FROM rx.split_candidates r
            WHERE r.level = c.level AND r.partition_id = c.partition_id AND r.kind = ? AND r.allowable)
    """, [other, preferred]) == [(0,)]


# Random schemas: hostile and Unicode column names, NULLs everywhere, overlapping terms
# ("New York" and "York"), a direct identifier written into other persons' texts.
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12).filter(
    lambda s: s.strip() and s.lower() not in ("row_id", "person", "partition_id"))
OVERLAPS = ["New York", "York", "New York City", "Jo", "Jo Ann"]


@st.composite
def random_schemas(draw):
    names = draw(st.lists(NAMES, min_size=6, max_size=6, unique_by=str.lower))
    k = draw(st.integers(2, 3))
    n = draw(st.integers(k, 12))
    persons = []
    for i in range(n):
        who = f"{draw(st.sampled_from(['Ann', 'Omar', 'Zoë']))} {draw(st.sampled_from(['Lee', 'Núñez', 'O' + chr(8217) + 'Hara']))}{i}"
        num = draw(st.one_of(st.none(), st.integers(0, 9)))
        cat = draw(st.one_of(st.none(), st.sampled_from(["a", "b", "c", "'; --"])))
        texts = draw(st.lists(st.one_of(st.none(), st.lists(st.sampled_from(OVERLAPS + ["plain words", "🙂", "x"]),
                                                            max_size=4).map(" and ".join)), min_size=1, max_size=3))
        persons.append((i, who, num, cat, texts))
    return names, k, persons


def build_random(names, persons):
    q = lambda s: '"' + s.replace('"', '""') + '"'
    pid, ident, num, cat, text, table = names
    con = duckdb.connect()
    con.execute(f"CREATE TABLE {q(table)} ({q(pid)} INTEGER, {q(ident)} VARCHAR, {q(num)} INTEGER, {q(cat)} VARCHAR, {q(text)} VARCHAR)")
    for i, who, n, c, texts in persons:
        for t in texts:
            mention = f" {persons[(i + 1) % len(persons)][1]} says hi" if t is not None and i % 2 else ""
            con.execute(f"INSERT INTO {q(table)} VALUES (?, ?, ?, ?, ?)", [i, who, n, c, None if t is None else t + mention])
    t = lambda s: json.dumps(s, ensure_ascii=False)  # a TOML basic string
    cfg = f"""
[source]
relations = [{t(table)}]
person = {t(pid)}
direct_identifiers = [{t(ident)}]
[attributes.{t(num)}]
type = "numeric"
[attributes.{t(cat)}]
type = "nominal"
[text]
columns = [{t(text)}]
[text.terms]
PLACE = ["New York", "York", "New York City"]
NAME = ["Jo", "Jo Ann"]
"""
    return con, cfg


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=random_schemas(), lam=st.floats(0, 1), strategy=st.sampled_from(["mondrian", "gdf"]))
def test_random_schemas_nulls_and_overlaps(data, lam, strategy):
    names, k, persons = data
    con, cfg = build_random(names, persons)
    apply(con, config_from(cfg, k=k, lam=lam, strategy=strategy))
    v = verify(con)
    assert v.ok, (v.failing, v.leaks, v.identifiers)
    assert rows(con, "SELECT count(*) FROM rx.release") == [(sum(len(p[4]) for p in persons),)]
    assert unreplaced_leaks(con) == []
