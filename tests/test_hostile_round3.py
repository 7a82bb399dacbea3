"""Hostile input, round three: a configuration or database that reads files outside the
database; a database with a damaged block; export onto the database, a directory or a user's
file. Each refusal is one line and exit status 2, names what to change, and leaves the database
(and any file) as it was. The tiny database has no text column, so that no run loads spaCy."""
from __future__ import annotations

import os
import shutil

import duckdb
import pytest

from helpers import cli, one_line_error, tables
from rxanon_sql.sqlrun import confine

TINY = """
[source]
{source}
person = "id"
{roles}
[attributes.age]
type = "numeric"
[attributes.city]
type = "nominal"
[anonymization]
k = 2
"""
PEOPLE = "SELECT i AS id, 20 + i AS age, ['Oslo', 'Rome'][i % 2 + 1] AS city FROM range(1, 7) t(i)"


def tiny_db(tmp_path, name="tiny") -> str:
    db = str(tmp_path / f"{name}.duckdb")
    con = duckdb.connect(db)
    con.execute(f"CREATE TABLE people AS {PEOPLE}")
    con.close()
    return db


def tiny_config(tmp_path, source='relations = ["people"]', roles="", name="tiny") -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(TINY.format(source=source, roles=roles))
    return str(path)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The tiny database after one `apply`, and its configuration."""
    tmp = tmp_path_factory.mktemp("released")
    db, config = tiny_db(tmp), tiny_config(tmp)
    r = cli("apply", db, "--config", config)
    assert r.returncode == 0, r.stderr
    return db, config


def copy_of(released, tmp_path) -> str:
    db = str(tmp_path / "copy.duckdb")
    shutil.copy(released[0], db)
    return db


# --- 1: files outside the database ---------------------------------------------------------------

@pytest.fixture
def secret(tmp_path):
    """A file outside the database that a hostile configuration wants published."""
    path = tmp_path / "secret" / "passwd.csv"
    path.parent.mkdir()
    path.write_text("".join(f"{i},{20 + i},Oslo,secret line {i}\n" for i in range(1, 7)))
    return str(path)


SOURCES = {
    "read_csv": lambda f: f"SELECT column0 AS id, column1 AS age, column2 AS city, column3 AS line "
                          f"FROM read_csv('{f}', header=false)",
    "read_text": lambda f: f"SELECT row_number() OVER () AS id, 30 AS age, 'Oslo' AS city, content AS line "
                           f"FROM read_text('{f}')",
    "glob": lambda f: f"SELECT row_number() OVER () AS id, 30 AS age, 'Oslo' AS city, file AS line "
                      f"FROM glob('{os.path.dirname(f)}/*')",
    "a URL": lambda f: "SELECT column0 AS id, 30 AS age, 'Oslo' AS city, column1 AS line "
                       "FROM read_csv('https://example.invalid/passwd.csv')",
}


@pytest.mark.parametrize("reader", SOURCES)
def test_a_query_reading_a_file_or_url_is_refused(tmp_path, secret, reader):
    db = tiny_db(tmp_path)
    query = SOURCES[reader](secret)
    config = tiny_config(tmp_path, f"query = '''{query}'''", 'insensitive = ["line"]')
    before = tables(db)
    for command in (["apply", db, "--config", config], ["sweep", db, "--config", config, "--k", "2", "--lambda", "0.5"]):
        line = one_line_error(cli(*command), "source.query reads outside the database", "--allow-external-access")
        assert ("example.invalid" if reader == "a URL" else os.path.dirname(secret)) in line
    assert tables(db) == before


def test_a_relation_named_like_a_file_is_not_read(tmp_path, secret):
    db = tiny_db(tmp_path)
    config = tiny_config(tmp_path, f'relations = ["{secret}"]')
    before = tables(db)
    one_line_error(cli("apply", db, "--config", config), f"relation {secret!r}", "rxanon-sql load")
    assert tables(db) == before


def test_a_view_reading_a_file_is_refused_as_a_relation(tmp_path, secret):
    db = tiny_db(tmp_path)
    con = duckdb.connect(db)
    con.execute(f"CREATE VIEW people_too AS SELECT column0 AS id, column1 AS age, column2 AS city "
                f"FROM read_csv('{secret}', header=false)")
    con.close()
    before = tables(db)
    one_line_error(cli("apply", db, "--config", tiny_config(tmp_path, 'relations = ["people_too"]')),
                   "relation 'people_too' reads outside the database", secret)
    assert tables(db) == before


def test_a_view_in_the_release_schema_reading_a_file_is_refused(released, tmp_path, secret):
    db = copy_of(released, tmp_path)
    con = duckdb.connect(db)
    con.execute(f"CREATE OR REPLACE VIEW rx.release AS SELECT * FROM read_text('{secret}')")
    con.execute("DROP TABLE rx.ncp")
    con.execute(f"CREATE VIEW rx.ncp AS SELECT * FROM read_text('{secret}')")      # (which report reads)
    con.close()
    out = tmp_path / "out.csv"
    for command in (["verify", db], ["export", db, out, "--allow-unverified"], ["report", db, "-o", tmp_path / "r.html"]):
        one_line_error(cli(*command), "a view of the database reads outside the database", secret)
    assert not out.exists()


def test_allow_external_access_lets_a_trusted_query_read_a_file(tmp_path, secret):
    db = tiny_db(tmp_path)
    query = SOURCES["read_csv"](secret)
    config = tiny_config(tmp_path, f"query = '''{query}'''", 'insensitive = ["line"]')
    r = cli("apply", db, "--config", config, "--allow-external-access")
    assert r.returncode == 0, r.stderr
    # (the release is the database's own tables now: verify and export read them confined)
    assert cli("verify", db).returncode == 0
    out = tmp_path / "out.csv"
    assert cli("export", db, out).returncode == 0 and "secret line 1" in out.read_text()


def test_a_confined_connection_still_does_what_the_tool_needs(tmp_path):
    con = duckdb.connect(str(tmp_path / "c.duckdb"))
    con.execute("SET memory_limit = '64MB'")
    con.execute("SET threads = 1")
    confine(con)
    with pytest.raises(duckdb.Error):
        con.execute("SET enable_external_access = true")
    with pytest.raises(duckdb.PermissionException):
        con.execute("SELECT * FROM read_text('/etc/hostname')")
    con.execute("ATTACH ':memory:' AS scratch (READ_WRITE)")          # (verify's scratch tables)
    con.create_function("plus_one", lambda x: x + 1, ["BIGINT"], "BIGINT")
    assert con.execute("SELECT plus_one(41)").fetchall() == [(42,)]
    # (beyond the memory limit: spilled into the database's own temporary folder)
    con.execute("CREATE TEMP TABLE big AS SELECT i, md5(i::VARCHAR) AS m FROM range(3000000) t(i)")
    assert con.execute("SELECT count(*) FROM duckdb_temporary_files()").fetchall()[0][0] > 0


# --- 3: a damaged block --------------------------------------------------------------------------

def damage(db: str, relation: str) -> None:
    """Overwrite bytes inside the blocks that hold `relation`, past each block's checksum."""
    con = duckdb.connect(db)
    con.execute("CHECKPOINT")
    size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    blocks = [b for (b,) in con.execute("SELECT DISTINCT block_id FROM pragma_storage_info(?) WHERE block_id >= 0",
                                        [relation]).fetchall()]
    con.close()
    assert blocks
    with open(db, "r+b") as f:
        for b in blocks:
            f.seek(3 * 4096 + b * size + 64)          # (after the file's three header blocks)
            f.write(b"\xff" * 64)


def test_a_damaged_block_in_the_source_fails_apply_in_one_line(tmp_path):
    db = tiny_db(tmp_path)
    damage(db, "people")
    config = tiny_config(tmp_path)
    for command in (["apply", db, "--config", config], ["sweep", db, "--config", config, "--k", "2", "--lambda", "0.5"]):
        one_line_error(cli(*command), "tiny.duckdb", "cannot be read (damaged", "checksum")


def test_a_damaged_block_in_the_release_fails_verify_and_export_in_one_line(released, tmp_path):
    db = copy_of(released, tmp_path)
    damage(db, "rx.audit")
    out = tmp_path / "out.parquet"
    for command in (["verify", db], ["export", db, out]):
        one_line_error(cli(*command), "copy.duckdb", "cannot be read (damaged", "checksum")
    assert not out.exists()


# --- 5: where export writes ----------------------------------------------------------------------

def test_export_onto_a_symlink_to_the_database_is_refused(released, tmp_path):
    db = copy_of(released, tmp_path)
    link = tmp_path / "release.parquet"
    link.symlink_to(db)
    before = open(db, "rb").read()
    for force in ([], ["--force"]):
        one_line_error(cli("export", db, link, *force), "release.parquet", "is the database")
    assert open(db, "rb").read() == before


def test_export_onto_a_directory_is_refused_naming_it(released, tmp_path):
    (tmp_path / "release.parquet").mkdir()
    line = one_line_error(cli("export", released[0], tmp_path / "release.parquet"), "is a directory")
    assert "damaged" not in line


def test_export_keeps_an_existing_file_unless_forced(released, tmp_path):
    mine = tmp_path / "mine.csv"
    mine.write_text("the user's own\n")
    one_line_error(cli("export", released[0], mine), "mine.csv", "exists", "--force")
    assert mine.read_text() == "the user's own\n"
    r = cli("export", released[0], mine, "--force")
    assert r.returncode == 0, r.stderr
    assert mine.read_text().startswith("age,city\n")


def test_export_forced_onto_a_symlink_replaces_the_link_not_its_target(released, tmp_path):
    mine = tmp_path / "mine.csv"
    mine.write_text("the user's own\n")
    link = tmp_path / "out.csv"
    link.symlink_to(mine)
    r = cli("export", released[0], link, "--force")
    assert r.returncode == 0, r.stderr
    assert mine.read_text() == "the user's own\n"
    assert not link.is_symlink() and link.read_text().startswith("age,city\n")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []     # (no temporary file left)
