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
from rxanon_sql.generate_shapes import blog_posts, hotel_reviews


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
