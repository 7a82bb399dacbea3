"""Hostile input through the command line: each case ends in exit status 2 and one line that
names the culprit, never a traceback, and leaves the database as it was; NaN in a numeric
quasi-identifier is a missing value and goes through."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from helpers import cli, demo_files, one_line_error, tables
from rxanon_sql.demo import CONFIG, write_demo_database


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The demo's database after one `apply`, and its configuration."""
    tmp = tmp_path_factory.mktemp("released")
    db, config = demo_files(tmp)
    r = cli("apply", db, "--config", config)
    assert r.returncode == 0, r.stderr
    return db, config


def age_db(tmp_path, name: str, age: str) -> str:
    db = str(tmp_path / f"{name}.duckdb")
    con = duckdb.connect(db)
    write_demo_database(con)
    con.execute("ALTER TABLE authors ALTER age TYPE DOUBLE")
    con.execute(f"UPDATE authors SET age = {age} WHERE id = 2")
    con.close()
    return db


def test_nan_in_a_numeric_quasi_identifier_is_missing(tmp_path):
    (tmp_path / "rx.toml").write_text(CONFIG)
    config = str(tmp_path / "rx.toml")
    nan, null = age_db(tmp_path, "nan", "'nan'::DOUBLE"), age_db(tmp_path, "null", "NULL")
    for db in (nan, null):
        r = cli("apply", db, "--config", config)
        assert r.returncode == 0, r.stderr
    release = [duckdb.connect(db, read_only=True).execute("SELECT * FROM rx.release ORDER BY ALL").fetchall()
               for db in (nan, null)]
    assert release[0] == release[1]
    assert not any("nan" in str(row).lower() for row in release[0])


@pytest.mark.parametrize("value", ["'inf'::DOUBLE", "'-inf'::DOUBLE"])
def test_infinity_in_a_numeric_quasi_identifier(tmp_path, value):
    (tmp_path / "rx.toml").write_text(CONFIG)
    db = age_db(tmp_path, "inf", value)
    before = tables(db)
    r = cli("apply", db, "--config", str(tmp_path / "rx.toml"))
    one_line_error(r, "column 'age'", "inf", "not a finite number")
    assert tables(db) == before


def test_config_not_utf8(tmp_path):
    db, _ = demo_files(tmp_path, None)
    config = tmp_path / "latin1.toml"
    config.write_bytes(CONFIG.replace("the rx-anon paper", "l'article rx-anon, écrit").encode("latin-1"))
    one_line_error(cli("apply", db, "--config", str(config)), "latin1.toml", "not UTF-8", "0xe9")


def test_invalid_pattern(tmp_path):
    db, config = demo_files(tmp_path, CONFIG + '\n[text.patterns]\nBADGE = ["B-([0-9]"]\n')
    before = tables(db)
    one_line_error(cli("apply", db, "--config", config), "text.patterns", "'B-([0-9]'", "BADGE")
    assert tables(db) == before


@pytest.mark.parametrize("where", ["config", "option"])
def test_k_out_of_range(tmp_path, where):
    huge = str(2 ** 40)
    db, config = demo_files(tmp_path, CONFIG.replace("k = 2", f"k = {huge}") if where == "config" else CONFIG)
    before = tables(db)
    r = cli("apply", db, "--config", config, *(["--k", huge] if where == "option" else []))
    one_line_error(r, "anonymization.k", huge)
    assert tables(db) == before


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_export_to_a_missing_directory(released, tmp_path, suffix):
    out = str(tmp_path / "missing" / f"release.{suffix}")
    one_line_error(cli("export", released[0], out), out, str(tmp_path / "missing"), "not found")
    assert not (tmp_path / "missing").exists()


def test_init_into_a_missing_directory(tmp_path):
    db, _ = demo_files(tmp_path, None)
    out = str(tmp_path / "missing" / "rx.toml")
    one_line_error(cli("init", db, "--out", out), out, "not found")


@pytest.mark.parametrize("command", ["apply", "verify"])
def test_truncated_database(released, tmp_path, command):
    db = str(tmp_path / "truncated.duckdb")
    shutil.copy(released[0], db)
    os.truncate(db, os.path.getsize(db) // 2)
    r = cli(command, db, *(["--config", released[1]] if command == "apply" else []))
    one_line_error(r, "truncated.duckdb")


@pytest.mark.parametrize("command", ["apply", "verify", "export"])
def test_random_bytes_database(released, tmp_path, command):
    db = tmp_path / "random.duckdb"
    db.write_bytes(os.urandom(1 << 18))
    args = {"apply": ["--config", released[1]], "verify": [], "export": [str(tmp_path / "out.csv")]}[command]
    one_line_error(cli(command, str(db), *args), "random.duckdb", "not a valid DuckDB database")


# Short and numeric direct identifiers: a badge number and initials, written by their person.
ID_CONFIG = """
[source]
relations = ["people", "posts"]
person = "pid"
direct_identifiers = ["badge", "initials"]
[attributes.age]
type = "numeric"
[text]
columns = ["body"]
[anonymization]
k = 2
"""
ID_PEOPLE = [(1, 483920, "LW", 30), (2, 48, "AB", 31), (3, 7, "Cy", 40), (4, 1234, "DP", 41)]
ID_POSTS = [(1, "Account 483920 is mine. Cheers, LW"), (1, "lw here, I saw 48 birds"),
            (2, "Badge 48 says ab. I met LW at noon."), (3, "I drove 7 miles, cy"), (4, "In 1234 lw and ab saw dp.")]


def id_db(tmp_path) -> tuple[str, str]:
    db = str(tmp_path / "ids.duckdb")
    con = duckdb.connect(db)
    con.execute("CREATE TABLE people (pid INTEGER, badge INTEGER, initials VARCHAR, age INTEGER)")
    con.execute("CREATE TABLE posts (pid INTEGER, body VARCHAR)")
    con.executemany("INSERT INTO people VALUES (?, ?, ?, ?)", ID_PEOPLE)
    con.executemany("INSERT INTO posts VALUES (?, ?)", ID_POSTS)
    con.close()
    (tmp_path / "ids.toml").write_text(ID_CONFIG)
    return db, str(tmp_path / "ids.toml")


def words(text: str) -> list[str]:
    import re
    return re.findall(r"\w+", text.lower())


def test_short_and_numeric_identifiers_in_their_persons_texts(tmp_path):
    db, config = id_db(tmp_path)
    # (the rare guard off: "48" and "lw" can name someone, and per class it would replace them
    # where the class of their writer does not write them too, whatever the identifier search did)
    Path(config).write_text(ID_CONFIG.replace('columns = ["body"]', 'columns = ["body"]\nrare_guard = false'))
    r = cli("apply", db, "--config", config)
    assert r.returncode == 0, r.stdout + r.stderr
    con = duckdb.connect(db, read_only=True)
    texts = dict(((p, i), t) for p, i, t in con.execute(
        "SELECT person, row_number() OVER (PARTITION BY person ORDER BY row_id), body FROM rx.audit").fetchall())
    con.close()
    # each person's own values are gone from their texts, in any case, digits too
    for (person, _), text in texts.items():
        _, badge, initials, _ = ID_PEOPLE[person - 1]
        own = {str(badge), initials.lower()} - {"7"}   # (a single character is not searched)
        assert not own & set(words(text)), (person, text)
    # the six digits of person 1's badge are searched in every text
    assert "483920" not in " ".join(texts.values())
    # a short value is someone else's ordinary word or number: person 2's "48" and "LW" stay in person 1's and 2's texts
    assert "48" in words(texts[(1, 2)]) and "lw" in words(texts[(2, 1)]) and "lw" in words(texts[(4, 1)])


def test_verify_finds_a_short_identifier_left_in_its_persons_text(tmp_path):
    db, config = id_db(tmp_path)
    assert cli("apply", db, "--config", config).returncode == 0
    con = duckdb.connect(db)
    con.execute("UPDATE rx.audit SET body = body || ' Bye, lw.' WHERE person = 1")
    con.execute("UPDATE rx.audit SET body = body || ' Bye, LW.' WHERE person = 3")   # not person 3's
    con.close()
    r = cli("verify", db)
    assert r.returncode == 1
    # (the leak check of suppressed terms reports person 1's rows too: "lw" was one of theirs)
    named = [l for l in r.stderr.splitlines() if "names the direct identifier" in l]
    assert named == ["  LEAK column 'body' names the direct identifier 'lw' in 2 rows"], r.stderr


def test_huge_numbers_in_a_numeric_quasi_identifier(tmp_path):
    """1e12 is beyond the INTEGER the spelled-out numbers are matched as, 1e300 beyond BIGINT."""
    (tmp_path / "rx.toml").write_text(CONFIG)
    db = age_db(tmp_path, "huge", "1e300")
    con = duckdb.connect(db)
    con.execute("UPDATE authors SET age = 1e12 WHERE id = 5")
    con.close()
    r = cli("apply", db, "--config", str(tmp_path / "rx.toml"))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    ages = {a for (a,) in duckdb.connect(db, read_only=True).execute("SELECT age FROM rx.release").fetchall()}
    assert any("1e+300" in a for a in ages), ages
