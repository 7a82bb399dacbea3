"""Helpers shared by the tests (no test module imports another): configurations, one-value
queries, the command line run in this process, and random small datasets for the property tests."""
from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import tomllib
import traceback

import duckdb
import pyarrow as pa
from click.testing import CliRunner
from hypothesis import strategies as st

from stdnum import luhn

from rxanon_sql import recognize
from rxanon_sql.cli import main
from rxanon_sql.config import parse_config
from rxanon_sql.demo import CONFIG, write_demo_database
from rxanon_sql.pipeline import apply
from udfs.ner import ENTITY_ARROW_TYPE


# --- configurations -----------------------------------------------------------------------------

# The smallest source most tests build: table t, one row per person `id`, an `age` (each test adds
# the sections it needs).
ONE_TABLE = """
[source]
relations = ["t"]
person = "id"
[attributes.age]
type = "numeric"
"""


def texts_config(labels, k: int | str = 2, extra: str = "") -> str:
    """ONE_TABLE with its column `text` searched for `labels`, at k (a str such as "{k}" leaves a
    placeholder for str.format)."""
    return ONE_TABLE + f'[text]\ncolumns = ["text"]\nlabels = {json.dumps(list(labels))}\n[anonymization]\nk = {k}\n' + extra


def demo_config(**overrides):
    return parse_config(tomllib.loads(CONFIG)).with_overrides(**overrides)


def config_from(text: str, **overrides):
    return parse_config(tomllib.loads(text)).with_overrides(**overrides)


def rows(con, sql, params=None):
    return con.execute(sql, params).fetchall()


def scalar(con, sql, params=None):
    return con.execute(sql, params).fetchall()[0][0]


def rx_tables(con, schema="rx"):
    """The tables and views of a schema of the connection's database."""
    return sorted(r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = ? "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = ?",
        [schema, schema]).fetchall())


def differing_rows(con, name: str, a: str, b: str, schema="rx") -> int:
    """Rows of table `name` in database a that database b lacks (EXCEPT ALL); doubles rounded, as
    a sum of doubles depends on the order DuckDB's threads add them in, run to run."""
    cells = ", ".join(f'round("{c}", 9)' if t == "DOUBLE" else f'"{c}"' for c, t in con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = ? "
        "AND table_schema = ? AND table_name = ? ORDER BY ordinal_position", [a, schema, name]).fetchall())
    return scalar(con, f'SELECT count(*) FROM (SELECT {cells} FROM {a}.{schema}."{name}" EXCEPT ALL '
                       f'SELECT {cells} FROM {b}.{schema}."{name}")')


def found(rec, text: str, label: str | None = None) -> list[str]:
    """The terms a rule recognizer finds in text (of one label), each checked against its offsets."""
    spans = rec.find(text)
    for s in spans:
        assert text[s.start:s.end] == s.term
    return [s.term for s in spans if label is None or s.label == label]


def labelled(rec, text: str) -> list[tuple[str, str]]:
    return [(s.term, s.label) for s in rec.find(text)]


def luhn_complete(prefix: str) -> str:
    return prefix + luhn.calc_check_digit(prefix)


# --- the command line ---------------------------------------------------------------------------

CLI = [sys.executable, "-m", "rxanon_sql"]


def cli(*args) -> subprocess.CompletedProcess:
    """The command's exit status, standard output and standard error, as from a process of its own."""
    r = CliRunner().invoke(main, [str(a) for a in args])
    err = r.stderr
    if r.exc_info is not None and not isinstance(r.exc_info[1], SystemExit):
        # (what Python would print before exit status 1: the tests that look for a traceback find it)
        err += "".join(traceback.format_exception(*r.exc_info))
    return subprocess.CompletedProcess(args, r.exit_code, r.stdout, err)


def demo_files(tmp_path, config: str | None = CONFIG):
    """The demo's tables in a database file under tmp_path, and the demo's configuration beside
    it; returns their paths as strings."""
    db = tmp_path / "demo.duckdb"
    con = duckdb.connect(str(db))
    write_demo_database(con)
    con.close()
    if config is not None:
        (tmp_path / "rx.toml").write_text(config)
    return str(db), str(tmp_path / "rx.toml")


def one_line_error(r, *culprits: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rxanon-sql: error: "), r.stderr
    for c in culprits:
        assert c in lines[0], (c, lines[0])
    return lines[0]


def tables(db: str) -> list:
    con = duckdb.connect(db, read_only=True)
    try:
        names = con.execute("SELECT table_schema, table_name FROM information_schema.tables ORDER BY ALL").fetchall()
        return [names] + [con.execute(f'SELECT * FROM "{s}"."{t}" ORDER BY ALL').fetchall() for s, t in names]
    finally:
        con.close()



def on_a_terminal(*args: str) -> str:
    """What the command writes to stderr when stderr is a terminal (a pseudo-terminal of 40 rows
    and 100 columns)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    p = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=slave, cwd=tempfile.gettempdir())
    os.close(slave)
    chunks = []
    reader = threading.Thread(target=lambda: _drain(master, chunks))
    reader.start()
    out = p.communicate(timeout=300)[0]
    reader.join(timeout=60)
    os.close(master)
    assert p.returncode == 0, (b"".join(chunks) + out).decode(errors="replace")[-2000:]
    return b"".join(chunks).decode(errors="replace")


def _drain(fd: int, chunks: list[bytes]) -> None:
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:         # (EIO: the last writer closed the terminal)
            return
        if not chunk:
            return
        chunks.append(chunk)

# --- random small datasets (hypothesis) -------------------------------------------------------------

JOBS = ["engineer", "nurse", "teacher", "pilot"]
PLACES = ["Berlin", "Lisbon", "Oslo", "Quito", "Rome"]
FRIENDS = ["Alice", "Omar", "Zoë", "Chen"]
CITIES = ["Berlin", "Paris", "Rome"]

RANDOM_CONFIG = """
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


# --- a recognizer that tags given surfaces, and a release of posts of 30-year-olds (test_k2_terms, test_propagate_form)

TAGGED_CONFIG = texts_config(["PERSON", "ORG", "GPE"], extra="lambda = {lam}\n")


class TaggedRecognizer:
    """A recognizer that tags, in a text of `tags`, the first occurrence of each of its surfaces
    (a model that saw a surface once and missed it elsewhere, as spaCy did on these posts)."""

    def __init__(self, tags: dict[str, list[tuple[str, str]]]):
        self.tags = tags

    def arrow(self, texts: pa.Array) -> pa.Array:
        out = []
        for text in texts.to_pylist():
            spans = []
            for surface, label in self.tags.get(text, []):
                at = text.find(surface)
                assert at >= 0, (surface, text)
                spans.append({"start_pos": at, "end_pos": at + len(surface), "term": surface, "label": label,
                              "source": "ner"})
            out.append(spans)
        return pa.array(out, type=ENTITY_ARROW_TYPE)


def run_tagged(monkeypatch, posts: list[tuple[int, str, list[tuple[str, str]]]], lam: float = 0.0,
               config: str = TAGGED_CONFIG):
    """posts: (person, text, the surfaces tagged in it with their labels). Every person is 30
    years old, so that only the terms tell them apart. apply raises ReleaseRejected where the
    release fails its check. `config`: TAGGED_CONFIG or another with its {lam}."""
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: TaggedRecognizer({t: tags for _, t, tags in posts}))
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, 30, ?)", [(p, t) for p, t, _ in posts])
    apply(con, config_from(config.format(lam=lam)))
    return con


def released(con) -> list[str]:
    return [r[0] for r in rows(con, "SELECT text FROM rx.audit ORDER BY row_id")]
