"""`rxanon-sql load` and `init` on a newcomer's own data (issue 19): files read by DuckDB's readers,
and the roles init guesses for them, down to the walkthrough of the README run end to end."""
import json
import tomllib

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from rxanon_sql.cli import main
from rxanon_sql.init import starting_config
from rxanon_sql.load import load
from rxanon_sql.join import InputError

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def reviews(n=40):
    """Rows of a hotel-review file: no person column, a hotel's name, address and coordinates, a
    text date, a list of tags, a review text."""
    out = []
    for i in range(n):
        hotel = i % 2
        out.append({
            "Hotel_Address": ["1 Main Street London", "5 Dam Square Amsterdam"][hotel],
            "Hotel_Name": ["Hotel Arena", "The Grand"][hotel],
            "Review_Date": f"{1 + i % 28},{MONTHS[i % 12]},{2015 + i % 3}",
            "Reviewer_Nationality": ["Germany", "France", "Spain", "Italy"][i % 4],
            "Reviewer_Score": 5.0 + i % 5,
            "Tags": f"[' Leisure trip ', ' Couple ', ' Stayed {1 + i % 4} nights ']",
            "Review": f"We stayed at {['Hotel Arena', 'The Grand'][hotel]}; the room was clean and the staff were "
                      f"friendly, review number {i}.",
            "lat": [51.5, 52.37][hotel],
            "lng": [-0.12, 4.89][hotel],
        })
    return out


def write_csv(path, rows):
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT unnest(?, recursive := true)", [rows])
    con.execute(f"COPY t TO '{path}' (HEADER)")
    con.close()


def run_cli(*args):
    r = CliRunner().invoke(main, [str(a) for a in args])
    return r


def one_line_error(r, *parts):
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rxanon-sql: error:"), r.output
    for p in parts:
        assert p in lines[0], (p, lines[0])


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet", ".json", ".jsonl"])
def test_load_reads_each_format_in_file_order(tmp_path, suffix):
    rows = [{"id": i % 7, "age": 20 + i, "city": f"c{i % 3}"} for i in range(30)]
    src = duckdb.connect()
    src.execute("CREATE TABLE t AS SELECT unnest(?, recursive := true)", [rows])
    path = tmp_path / f"my data-2024{suffix}"
    opts = {".csv": "(HEADER)", ".csv.gz": "(HEADER, COMPRESSION gzip)", ".parquet": "(FORMAT parquet)",
            ".json": "(FORMAT json, ARRAY true)", ".jsonl": "(FORMAT json)"}[suffix]
    src.execute(f"COPY t TO '{path}' {opts}")
    con = duckdb.connect()
    loaded = load(con, str(path))
    assert loaded.table == "my_data_2024" and loaded.rows == 30 and loaded.key is None
    assert con.execute("SELECT id, age, city FROM my_data_2024").fetchall() == [
        (r["id"], r["age"], r["city"]) for r in rows]


def test_load_adds_a_row_key_only_when_no_column_can_be_the_person(tmp_path):
    path = tmp_path / "reviews.csv"
    write_csv(path, reviews())
    con = duckdb.connect()
    loaded = load(con, str(path), "hotel")
    assert loaded.key == "row_key" and loaded.columns == 10
    keys = con.execute("SELECT row_key, Review FROM hotel").fetchall()
    assert [k for k, _ in keys] == list(range(1, 41))
    assert all(f"number {k - 1}." in text for k, text in keys)        # file order
    # a file with a person column gets none
    path = tmp_path / "posts.csv"
    write_csv(path, [{"author": i % 5, "age": 30 + i % 5} for i in range(20)])
    assert load(con, str(path)).key is None


def test_load_refuses_bad_files_and_existing_tables(tmp_path):
    db = tmp_path / "db.duckdb"
    one_line_error(run_cli("load", db, tmp_path / "missing.csv"), "missing.csv", "not found")
    assert not db.exists()
    (tmp_path / "book.xlsx").write_text("x")
    one_line_error(run_cli("load", db, tmp_path / "book.xlsx"), "book.xlsx", "unknown format '.xlsx'")
    (tmp_path / "broken.parquet").write_text("not parquet at all")
    one_line_error(run_cli("load", db, tmp_path / "broken.parquet"), "broken.parquet", "cannot be read as Parquet")
    (tmp_path / "broken.json").write_text('{"a": ')
    one_line_error(run_cli("load", db, tmp_path / "broken.json"), "broken.json", "cannot be read as JSON")
    write_csv(tmp_path / "people.csv", [{"id": 1, "age": 30}])
    assert run_cli("load", db, tmp_path / "people.csv").exit_code == 0
    one_line_error(run_cli("load", db, tmp_path / "people.csv"), "table 'people' exists")
    one_line_error(run_cli("load", db, tmp_path / "people.csv", "--table", "PEOPLE"), "table 'PEOPLE' exists")
    con = duckdb.connect(str(db))
    assert [r[0] for r in con.execute("SHOW TABLES").fetchall()] == ["people"]
    assert con.execute("SELECT * FROM people").fetchall() == [(1, 30)]


def config_of(con):
    warnings = []
    text = starting_config(con, warnings)
    return text, tomllib.loads(text), warnings


def test_init_on_hotel_reviews(tmp_path):
    path = tmp_path / "reviews.csv"
    write_csv(path, reviews())
    con = duckdb.connect()
    load(con, str(path), "hotel")
    text, cfg, warnings = config_of(con)
    # no column names a person: one row per person, said in the file and as a warning
    assert cfg["source"]["person"] == "row_key"
    assert "WARNING: no column names a person" in text and "row_key" in warnings[0]
    # names, addresses and coordinates are direct identifiers
    assert cfg["source"]["direct_identifiers"] == ["Hotel_Address", "Hotel_Name", "lat", "lng"]
    # a date in text with its format; a list of tags is a quasi-identifier, not a text
    assert cfg["attributes"]["Review_Date"] == {"type": "date", "format": "%d,%B,%Y"}
    assert cfg["attributes"]["Tags"] == {"type": "nominal"}
    assert cfg["attributes"]["Reviewer_Score"] == {"type": "numeric"}
    assert cfg["attributes"]["Reviewer_Nationality"] == {"type": "nominal"}
    assert cfg["text"]["columns"] == ["Review"]
    every_column(con, text, cfg)


def every_column(con, text, cfg):
    """Every column of the source has a role in the configuration, on a line with a comment."""
    roles = [cfg["source"]["person"], *cfg["source"]["direct_identifiers"], *cfg["source"]["insensitive"],
             *cfg["attributes"], *cfg["text"]["columns"]]
    tables = [r[0] for r in con.execute("SHOW TABLES").fetchall()]
    columns = {r[0] for t in tables for r in con.execute(f'DESCRIBE "{t}"').fetchall()}
    assert sorted(roles) == sorted(columns)
    for c in columns:
        line = next(l for l in text.splitlines() if json.dumps(c) in l or f"[attributes.{c}]" in l)
        assert "# " in line, line


def test_init_takes_a_unique_key_for_insensitive_and_a_repeated_id_for_the_person():
    con = duckdb.connect()
    con.execute("CREATE TABLE posts AS SELECT 1000 + i AS post_id, i % 9 AS user_id, 18 + (i * 7) % 50 AS age, "
                "strftime(DATE '2004-01-01' + CAST(i AS INTEGER), '%d/%m/%Y') AS posted, "
                "'a text long enough to be taken for free text, number ' || i AS body, "
                "100.5 * i AS salary FROM range(60) t(i)")
    text, cfg, warnings = config_of(con)
    assert cfg["source"]["person"] == "user_id" and not warnings
    assert cfg["source"]["insensitive"] == ["post_id"]
    assert cfg["attributes"]["posted"] == {"type": "date", "format": "%d/%m/%Y"}
    # a unique measure is no key: it stays a quasi-identifier
    assert cfg["attributes"]["salary"] == {"type": "numeric"} and cfg["attributes"]["age"] == {"type": "numeric"}
    every_column(con, text, cfg)


@pytest.mark.parametrize("name", ["age", "Zip_Code", "birthYear", "postal_no"])
def test_init_never_takes_a_column_named_for_a_quasi_identifier_for_a_key(name):
    """Unique per row and even the numbers low..low+n-1, an age or a postcode is still released
    generalized, never raw as a row key."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT i AS row_key, 20 + i AS {name}, "
                "'a text long enough to be taken for free text, number ' || i AS body FROM range(6) t(i)")
    _, cfg, _ = config_of(con)
    assert name not in cfg["source"]["insensitive"] and cfg["attributes"][name] == {"type": "numeric"}


def test_init_flags_columns_whose_values_are_names_or_mail_addresses():
    con = duckdb.connect()
    people = ["Mary Jones", "John Smith", "Linda Brown", "James Miller", "Susan Davis", "Robert Wilson"]
    con.execute("CREATE TABLE t AS SELECT i % 12 AS id, ? [1 + i % 6] AS who, 'user' || i || '@example.com' AS contact, "
                "['Aries', 'Leo', 'Virgo'][1 + i % 3] AS sign, 20 + i % 30 AS age FROM range(40) t(i)", [people])
    text, cfg, _ = config_of(con)
    assert cfg["source"]["person"] == "id"
    assert cfg["source"]["direct_identifiers"] == ["who", "contact"]
    assert cfg["attributes"]["sign"] == {"type": "nominal"}


def test_init_without_a_person_or_a_key_says_what_to_do():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT i % 3 AS score, 'x' AS city FROM range(10) t(i)")
    with pytest.raises(InputError, match="no column names a person .*`rxanon-sql load`"):
        starting_config(con)


def test_walkthrough_from_a_csv_to_an_export(tmp_path, monkeypatch):
    """The README's walkthrough: load, init, apply, verify, export, as a user types them."""
    monkeypatch.chdir(tmp_path)
    write_csv(tmp_path / "reviews.csv", reviews(40))
    r = run_cli("load", "reviews.duckdb", "reviews.csv")
    assert r.exit_code == 0, r.output
    assert "loaded 40 rows" in r.output and "row_key" in r.output
    r = run_cli("init", "reviews.duckdb", "--out", "rx.toml")
    assert r.exit_code == 0, r.output
    assert "warning: no column names a person" in r.output
    r = run_cli("apply", "reviews.duckdb", "--config", "rx.toml", "--k", "5")
    assert r.exit_code == 0, r.output
    assert "dropped from the release: row_key (source.person); Hotel_Address, Hotel_Name, lat, lng " \
           "(source.direct_identifiers)" in r.output
    assert run_cli("verify", "reviews.duckdb").exit_code == 0
    r = run_cli("export", "reviews.duckdb", "release.parquet")
    assert r.exit_code == 0, r.output
    release = pq.read_table(tmp_path / "release.parquet")
    assert release.num_rows == 40
    assert not {"row_key", "Hotel_Name", "Hotel_Address", "lat", "lng"} & set(release.column_names)
    assert not any("Hotel Arena" in t for t in release.column("Review").to_pylist())


def test_apply_names_the_columns_the_configuration_leaves_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    con = duckdb.connect("db.duckdb")
    con.execute("CREATE TABLE t AS SELECT i % 12 AS id, 20 + i % 30 AS age, 'x' || i AS note FROM range(40) t(i)")
    con.close()
    (tmp_path / "rx.toml").write_text('[source]\nrelations = ["t"]\nperson = "id"\n[attributes.age]\ntype = "numeric"\n')
    r = run_cli("apply", "db.duckdb", "--config", "rx.toml")
    assert r.exit_code == 0, r.output
    assert "dropped from the release: id (source.person); note (no role in the configuration)" in r.output
