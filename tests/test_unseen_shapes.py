"""The README path, unedited (load, init, apply, verify --strict, export), on generated files of
the two kinds the project ships samples of, built with what the samples lack and real files of
the same kinds hold (rxanon_sql/generate_shapes.py): a hotel per review, hotel names that share
landmark words with other hotels' reviews, postcodes equal to review counts; blog posts with
mis-decoded text, C1 controls, phrases many bloggers write and spelt-out addresses."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from rxanon_sql.cli import main
from shapes import blog_posts, hotel_reviews


def cli(*args):
    r = CliRunner().invoke(main, [str(a) for a in args])
    return r.exit_code, r.output


@pytest.mark.parametrize("shape", ["hotel", "blog"])
def test_the_readme_path_releases_at_k_2_and_5(tmp_path, monkeypatch, shape):
    monkeypatch.chdir(tmp_path)
    if shape == "hotel":
        hotel_reviews("data.csv", n=1000, seed=7)
    else:
        blog_posts("data.csv", bloggers=80, posts=4, seed=7)
    assert cli("load", "data.duckdb", "data.csv")[0] == 0
    assert cli("init", "data.duckdb", "--out", "rx.toml")[0] == 0
    for k in (5, 2):
        code, out = cli("apply", "data.duckdb", "--config", "rx.toml", "--k", k, "--quiet")
        assert code == 0, out
        # (the fixes of the pipeline, not the repair, release these shapes)
        assert "repaired" not in out, out
        code, out = cli("verify", "data.duckdb", "--strict")
        assert code == 0 and "0 suspect strings" in out, out
    assert cli("export", "data.duckdb", "release.parquet")[0] == 0
    released = pq.read_table(tmp_path / "release.parquet")
    assert released.num_rows == (1000 if shape == "hotel" else 320)


NAMES = ["Bak1139", "Quorvex", "Zandril", "Miltoq", "Pravena", "Tesk77", "Yorbin", "Caldro", "Nuvim", "Oskarel"]
PLAIN = "I agree with the answer above, thanks for the sources."


def _jsonl(path, rows):
    import json
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _readme_path(tmp_path, *files, k=2):
    for f in files:
        assert cli("load", tmp_path / "data.duckdb", f)[0] == 0
    assert cli("init", tmp_path / "data.duckdb", "--out", tmp_path / "rx.toml")[0] == 0
    code, out = cli("apply", tmp_path / "data.duckdb", "--config", tmp_path / "rx.toml", "--k", k, "--quiet")
    assert code == 0, out
    code, out = cli("verify", tmp_path / "data.duckdb", "--strict")
    assert code == 0, out
    return out


def test_a_blank_date_held_as_text_is_a_missing_one(tmp_path):
    """A ticket's first response time, '' where there was none: not a value that no format reads."""
    _jsonl(tmp_path / "tickets.jsonl", [
        {"Ticket ID": str(i), "Customer Gender": "Male" if i % 2 else "Female",
         "First Response Time": "" if i < 3 else f"2023-06-0{1 + i % 3} 12:15:36",
         "Ticket Description": "My printer stopped working after the update, please help."} for i in range(1, 11)])
    _readme_path(tmp_path, tmp_path / "tickets.jsonl")


def test_a_direct_identifier_inside_a_quasi_identifier_value_is_masked(tmp_path):
    """A forum profile whose location names its user ("/home/bak1139"): the released value shows
    the identifier's column label in its place, and the rest of it."""
    # (and as a hostile profile writes it: in capitals with a zero-width space, in markup, possessive)
    hostile = {1: "/home/bak1139", 2: "/srv/BAK\u200b1139", 3: "<b>quorvex</b> land", 4: "Zandril's place"}
    _jsonl(tmp_path / "profiles.jsonl", [
        {"user_id": i, "display_name": n, "location": hostile.get(i, ["Ohio", "Texas"][i % 2]), "text": PLAIN}
        for i, n in enumerate(NAMES, 1)])
    _readme_path(tmp_path, tmp_path / "profiles.jsonl")
    import duckdb
    con = duckdb.connect(str(tmp_path / "data.duckdb"), read_only=True)
    shown = {r[0] for r in con.execute("SELECT location FROM rx.release").fetchall()}
    con.close()
    assert any("/home/[DISPLAY_NAME]" in v for v in shown), shown
    assert not any(n in v.lower().replace("\u200b", "") for v in shown for n in ("bak1139", "quorvex", "zandril")), shown


def test_names_joined_in_a_url_and_a_name_that_holds_a_place(tmp_path):
    """Two users' names in one chat link ("discussion-between-quorvex-and-bak1139"); a hotel
    whose name holds a place that most of its reviews mention ("Canary Wharf")."""
    _jsonl(tmp_path / "users.jsonl", [{"user_id": i, "display_name": n, "location": ["Ohio", "Texas"][i % 2]}
                                      for i, n in enumerate(NAMES, 1)])
    _jsonl(tmp_path / "comments.jsonl", [
        {"comment_id": i, "user_id": i, "text": PLAIN if i != 2 else "Let us continue this in chat "
         "http://chat.example.com/rooms/16298/discussion-between-quorvex-and-bak1139 please."} for i in range(1, 11)])
    _readme_path(tmp_path, tmp_path / "users.jsonl", tmp_path / "comments.jsonl")
    hotel = tmp_path / "hotel"
    hotel.mkdir()
    with open(hotel / "hotel_reviews.csv", "w", encoding="utf-8") as f:
        f.write("Hotel_Name,Reviewer_Score,Positive_Review\n")
        for i in range(10):
            f.write(f"Britannia International Hotel Canary Wharf,{7 + i % 2},"
                    + ("Great location near Canary Wharf and the staff were friendly.\n" if i < 6 else
                       "The room was clean and the staff were friendly.\n"))
    _readme_path(hotel, hotel / "hotel_reviews.csv")


def test_texts_alone_without_a_quasi_identifier_are_partitioned_on_their_terms(tmp_path):
    # (a table of names and biographies, as DBpedia's: init finds no quasi-identifier, and apply
    # refused to run; the persons are now cut on their terms alone, NCP is NCP_X)
    import duckdb
    towns = ["Leeds", "Leeds", "Porto", "Porto", "Oslo", "Oslo", "Leeds", "Porto", "Oslo", "Leeds"]
    rows = [{"name": f"{first} {last}",
             "text": f"{first} {last} is a painter born in {town} in 19{60 + i}. {last} studied at the {last} Academy."}
            for i, (first, last, town) in enumerate(zip(
                ["Ana", "Omar", "Grace", "John", "Rita", "Carlos", "Maria", "George", "Lena", "Ivan"],
                ["Sousa", "Okafor", "Tanaka", "Mendes", "Pereira", "Nakamura", "Kowalczyk", "Oyelaran", "Brekke", "Petrov"],
                towns))]
    _jsonl(tmp_path / "bios.jsonl", rows)
    _readme_path(tmp_path, tmp_path / "bios.jsonl", k=2)
    # (init says what apply will do, not that it needs a quasi-identifier)
    code, out = cli("init", tmp_path / "data.duckdb", "--out", tmp_path / "again.toml")
    assert code == 0 and "terms alone" in out and "apply needs" not in out, out
    con = duckdb.connect(str(tmp_path / "data.duckdb"), read_only=True)
    ncp_a, ncp_x, ncp = con.execute("SELECT ncp_a, ncp_x, ncp FROM rx.ncp").fetchone()
    assert ncp_a is None and ncp == ncp_x > 0
    released = [r[0] for r in con.execute("SELECT text FROM rx.audit").fetchall()]
    assert len(released) == 10
    assert not any(r["name"].split()[1] in text for r in rows for text in released), released


def test_a_configuration_with_neither_quasi_identifier_nor_text_is_refused(tmp_path):
    (tmp_path / "rx.toml").write_text('[source]\nrelations = ["t"]\nperson = "id"\n', encoding="utf-8")
    code, out = cli("apply", tmp_path / "data.duckdb", "--config", tmp_path / "rx.toml")
    assert code == 2 and "at least one quasi-identifier or text.columns is required" in out, out
