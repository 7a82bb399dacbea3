"""`rxanon-sql sweep` (grid.py), `rxanon-sql report` (report.py) and the risk views (sql/risk.sql)."""
from __future__ import annotations

import base64
import re
import shutil
import tomllib

import duckdb
import pytest
from click.testing import CliRunner

from helpers import cli, demo_files, on_a_terminal, rows, scalar
from rxanon_sql import pipeline
from rxanon_sql.cli import main
from rxanon_sql.config import ConfigError, parse_config
from rxanon_sql.generate import config_text, generate, prefill_cache
from rxanon_sql.grid import grid, parse_ks, parse_lambdas, sweep
from rxanon_sql.pipeline import apply
from rxanon_sql.report import collect, render
from rxanon_sql.verify import verify

BASE = parse_config(tomllib.loads(config_text()))
PERSONS = 60
KS, LAMS = [2, 4], [0.0, 0.5, 1.0]
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Generated blog-shaped data with the NER cache filled, so that no run loads spaCy."""
    path = tmp_path_factory.mktemp("sweep") / "generated.duckdb"
    con = duckdb.connect(str(path))
    generate(con, PERSONS, 3, seed=7)
    prefill_cache(con, BASE)
    con.close()
    (path.parent / "rx.toml").write_text(config_text())
    return path


@pytest.fixture(scope="module")
def swept(generated, tmp_path_factory):
    """The generated data after one sweep over KS x LAMS, with GDF."""
    path = tmp_path_factory.mktemp("swept") / "swept.duckdb"
    shutil.copy(generated, path)
    con = duckdb.connect(str(path))
    result = sweep(con, grid(BASE, KS, LAMS, gdf=True))
    con.close()
    return path, result


def one_line_error(r, *parts):
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rxanon-sql: error:"), r.output
    for p in parts:
        assert p in lines[0], (p, lines[0])


# --- risk views ---------------------------------------------------------------------------------

def test_risk_views_on_the_demo(demo_con):
    sizes = [s for (s,) in rows(demo_con, "SELECT size FROM rx.classes")]
    assert rows(demo_con, "SELECT size, prosecutor_risk FROM rx.risk_classes ORDER BY size") == \
        sorted((s, 1 / s) for s in sizes)
    highest, average, share, threshold, records, classes = rows(demo_con, "SELECT * FROM rx.risk")[0]
    assert (records, classes) == (6, 3) and threshold == 0.2
    assert highest == pytest.approx(1 / min(sizes))
    # the average over the persons: each of a class of n persons has risk 1/n
    assert average == pytest.approx(sum(s * (1 / s) for s in sizes) / sum(sizes))
    assert share == pytest.approx(sum(s for s in sizes if 1 / s > 0.2) / sum(sizes))


def test_risk_share_counts_only_the_records_above_the_threshold(generated, tmp_path):
    shutil.copy(generated, tmp_path / "g.duckdb")
    con = duckdb.connect(str(tmp_path / "g.duckdb"))
    apply(con, BASE.with_overrides(k=3, lam=0.5))
    sizes = [s for (s,) in rows(con, "SELECT size FROM rx.classes")]
    assert sum(sizes) == PERSONS and len(set(sizes)) > 1
    assert scalar(con, "SELECT share_above FROM rx.risk") == pytest.approx(sum(s for s in sizes if s < 5) / PERSONS)
    assert scalar(con, "SELECT highest FROM rx.risk") <= 1 / 3


# --- sweep --------------------------------------------------------------------------------------

def test_parse_grid_options():
    assert parse_ks("10,2,5,2") == [2, 5, 10]
    assert parse_lambdas("0:1:0.1") == [round(i / 10, 10) for i in range(11)]
    assert parse_lambdas("1,0.5") == [0.5, 1.0]
    for bad in ("0:1:0", "0:1", "a", "0:1:-0.1"):
        with pytest.raises(ConfigError, match="--lambda"):
            parse_lambdas(bad)
    with pytest.raises(ConfigError, match="--k"):
        parse_ks("2,x")
    with pytest.raises(ConfigError, match="anonymization.lambda"):
        grid(BASE, [2], [1.5])
    with pytest.raises(ConfigError, match="anonymization.k"):
        grid(BASE, [1], [0.5])


def test_grid_runs_k_by_k_with_gdf_once_per_k():
    order = [(c.k, c.lam if c.strategy == "mondrian" else None) for c in grid(BASE, [5, 2], [1.0, 0.0], gdf=True)]
    assert order == [(2, 0.0), (2, 1.0), (2, None), (5, 0.0), (5, 1.0), (5, None)]


def test_sweep_writes_one_row_per_run(swept):
    path, result = swept
    con = duckdb.connect(str(path), read_only=True)
    assert result.runs == len(KS) * (len(LAMS) + 1) and not result.rejected
    got = rows(con, "SELECT k, lam, strategy, ok, reused FROM rx.sweep WHERE sweep_id = ? ORDER BY run_id",
               [result.sweep_id])
    # with the rare-word guard on, k is its threshold: each k builds the terms in its first run only
    assert got == [row for k in KS for row in [*[(k, lam, "mondrian", True, i > 0) for i, lam in enumerate(LAMS)],
                                               (k, None, "gdf", True, True)]]
    for (run_id, k, partitions, mean, a, x, ncp_a, ncp_x, ncp, labels, highest, average, share, seconds) in rows(
            con, "SELECT run_id, k, partitions, size_mean, splits_relational, splits_textual, ncp_a, ncp_x, ncp, "
                 "ncp_labels, risk_highest, risk_average, risk_share_above, seconds FROM rx.sweep"):
        # each cut splits one partition in two
        assert a + x == partitions - 1
        assert mean * partitions == pytest.approx(PERSONS)
        assert (ncp_a, ncp_x, ncp) == rows(con, "SELECT ncp_a, ncp_x, ncp FROM rx.runs WHERE run_id = ?", [run_id])[0]
        assert labels and all(0 <= v <= 1 for v in labels.values() if v is not None)
        # k-anonymity as risk: nobody is picked out with more than 1/k
        assert 0 < average <= highest <= 1 / k and 0 <= share <= 1 and seconds > 0
    # lambda 0 prefers textual cuts, lambda 1 relational ones
    assert scalar(con, "SELECT sum(splits_textual) FROM rx.sweep WHERE lam = 0") > \
        scalar(con, "SELECT sum(splits_textual) FROM rx.sweep WHERE lam = 1")
    # the schema holds the release of the last setting, and it passes
    assert rows(con, "SELECT k, strategy FROM rx.ncp") == [(KS[-1], "gdf")]
    assert verify(con, "rx", residual=False).ok
    con.close()


def test_sweep_table_survives_later_runs(swept, tmp_path):
    shutil.copy(swept[0], tmp_path / "s.duckdb")
    con = duckdb.connect(str(tmp_path / "s.duckdb"))
    before = scalar(con, "SELECT count(*) FROM rx.sweep")
    # an ordinary apply accepts the schema (rx.sweep is marked as rxanon-sql's) and keeps the rows
    apply(con, BASE.with_overrides(k=3))
    assert scalar(con, "SELECT count(*) FROM rx.sweep") == before
    second = sweep(con, grid(BASE, [3], [0.5]))
    assert second.sweep_id == 2
    assert rows(con, "SELECT sweep_id, count(*) FROM rx.sweep GROUP BY ALL ORDER BY 1") == [(1, before), (2, 1)]


def test_a_rejected_run_is_recorded_and_the_sweep_goes_on(generated, tmp_path, monkeypatch):
    shutil.copy(generated, tmp_path / "r.duckdb")
    con = duckdb.connect(str(tmp_path / "r.duckdb"))
    real = pipeline.verify

    def failing_at_zero(con, schema, *args, **kw):
        verdict = real(con, schema, *args, **kw)
        if scalar(con, f"SELECT lam FROM {schema}.params") == 0.0:
            # as if a class were too small: no repair reaches that (a leak in a text is repaired)
            verdict.failing = [({"age": "[24-27]"}, [], 1, 1)]
        return verdict
    monkeypatch.setattr(pipeline, "verify", failing_at_zero)
    # (the first run on the connection fails: the functions it registered went with its rollback)
    result = sweep(con, grid(BASE, [2], [0.0, 0.5, 1.0]))
    assert [c.lam for c in result.rejected] == [0.0]
    assert rows(con, "SELECT lam, ok, ncp IS NULL, run_id IS NULL FROM rx.sweep ORDER BY lam") == [
        (0.0, False, True, True), (0.5, True, False, False), (1.0, True, False, False)]
    # the rejected run was rolled back: rx.runs has the two others only
    assert rows(con, "SELECT lam FROM rx.runs ORDER BY run_id") == [(0.5,), (1.0,)]


def test_sweep_command(generated, tmp_path):
    shutil.copy(generated, tmp_path / "c.duckdb")
    db, config = str(tmp_path / "c.duckdb"), str(generated.parent / "rx.toml")
    r = CliRunner().invoke(main, ["sweep", db, "--config", config, "--k", "2,3", "--lambda", "0,1"])
    assert r.exit_code == 0, r.output
    assert "sweep 1: 4 runs" in r.output and len(re.findall(r"^[23] +[01]\.0 +mondrian +True", r.output, re.M)) == 4
    one_line_error(CliRunner().invoke(main, ["sweep", db, "--config", config, "--k", "2,x"]), "--k", "2,x")
    one_line_error(CliRunner().invoke(main, ["sweep", db, "--config", config, "--lambda", "0:1:0"]), "--lambda")
    one_line_error(CliRunner().invoke(main, ["sweep", db, "--config", config, "--lambda", "0,2"]),
                   "anonymization.lambda", "2.0")
    one_line_error(CliRunner().invoke(main, ["sweep", db, "--config", config, "--k", "1,2"]), "anonymization.k")
    # a k above the persons stops the sweep after its first run, which counted them
    r = CliRunner().invoke(main, ["sweep", db, "--config", config, "--k", f"2,{PERSONS + 1}", "--lambda", "0.5"])
    one_line_error(r, f"{PERSONS} persons", f"k = {PERSONS + 1}")
    # (read-write: the failed command's connection, closed only at exit, is still open in this process)
    con = duckdb.connect(db)
    assert rows(con, "SELECT sweep_id, k FROM rx.sweep WHERE sweep_id = 2") == [(2, 2)]


# --- report -------------------------------------------------------------------------------------

def _images(page: str) -> list[bytes]:
    return [base64.b64decode(data) for data in re.findall(r"<img [^>]*src='data:image/png;base64,([^']*)'", page)]


def test_report_of_a_sweep_has_every_figure_with_data(swept, tmp_path):
    con = duckdb.connect(str(swept[0]), read_only=True)
    report = collect(con)
    assert report.sweep_id == 1
    assert [f.name for f in report.figures] == ["split_shares", "ncp_a", "ncp_x", "ncp", "words_kept", "ncp_labels",
                                                "words_replaced", "class_sizes"]
    for figure in report.figures:
        assert figure.series and all(points for points in figure.series.values()), figure.name
    # a line per lambda and one for GDF, each over every k
    assert {name: [k for k, _ in points] for name, points in report.figures[1].series.items()} == \
        {**{f"λ = {lam:g}": KS for lam in LAMS}, "GDF": KS}
    assert sum(n for _, n in report.figures[-1].series["classes"]) == scalar(con, "SELECT count(*) FROM rx.classes")
    titles = [t.title for t in report.tables]
    for wanted in ("Partitions per k and λ", "Recommended settings", "Re-identification risk"):
        assert any(t.startswith(wanted) for t in titles), wanted
    recommended = next(t for t in report.tables if t.title.startswith("Recommended"))
    for k, lam, ncp, *_ in recommended.rows:
        assert float(ncp) == pytest.approx(scalar(
            con, "SELECT min(ncp) FROM rx.sweep WHERE k = ? AND strategy = 'mondrian'", [k]), abs=1e-4)
    page = render(report, "swept.duckdb", png_dir=str(tmp_path))
    images = _images(page)
    assert len(images) == len(report.figures)
    for figure, data in zip(report.figures, images):
        assert data.startswith(PNG) and len(data) > 5000
        assert (tmp_path / f"{figure.name}.png").read_bytes() == data
    assert "http" not in page.replace("http-equiv", "")    # nothing fetched: the page opens offline


def test_report_without_a_sweep_shows_the_last_run(demo_db, tmp_path):
    r = CliRunner().invoke(main, ["report", demo_db, "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    assert "the last run (no sweep)" in r.output
    page = (tmp_path / "r.html").read_text()
    # (NCP_X per label, the words replaced per reason, the class sizes)
    assert len(_images(page)) == 3 and all(i.startswith(PNG) for i in _images(page))
    assert "Partitions per k" not in page and "Re-identification risk" in page
    con = duckdb.connect(demo_db, read_only=True)
    figures = collect(con).figures
    assert [f.name for f in figures] == ["ncp_labels", "words_replaced", "class_sizes"]
    assert all(points for f in figures for points in f.series.values())
    assert "words kept 0.932" in figures[1].caption and "'engineer' (JOB) 2x" in figures[1].caption
    assert next(t for t in collect(con).tables if t.title == "The release in the schema").rows[0][6] == "0.9316"


def test_report_bad_input(tmp_path):
    db = tmp_path / "empty.duckdb"
    duckdb.connect(str(db)).close()
    one_line_error(CliRunner().invoke(main, ["report", str(db), "-o", str(tmp_path / "r.html")]), "no release")
    one_line_error(CliRunner().invoke(main, ["report", str(tmp_path / "missing.duckdb"), "-o", "r.html"]), "not found")
    one_line_error(CliRunner().invoke(main, ["report", str(db), "-o", str(tmp_path / "no" / "r.html")]), "--out")
    assert not (tmp_path / "r.html").exists()


def test_hostile_labels_are_drawn_and_shown_as_text():
    """A label is the user's configuration: matplotlib would read "$\\frac{$" as TeX and fail, and
    a page would run "<script>" as markup."""
    from rxanon_sql.report import Figure, Report, Table, png
    hostile = "$\\frac{$ <script>x</script>"
    figures = [Figure("line", "t", "k", "y", {hostile: [(2, 0.5), (5, 0.7)]}),
               Figure("bar", "t", "label", "y", {hostile: [(hostile, 0.5)]}, kind="bar")]
    for figure in figures:
        assert png(figure).startswith(PNG)
    page = render(Report(None, figures, [Table(hostile, [hostile], [(hostile,)], hostile)]), "<b>.duckdb")
    assert "<script>" not in page and "<b>" not in page and "&lt;script&gt;" in page


def test_sweep_bar_on_a_terminal_only(tmp_path):
    db, config = demo_files(tmp_path)
    err = on_a_terminal("sweep", db, "--config", config, "--k", "2", "--lambda", "0,1")
    assert re.search(r"sweep: 100%.* 2/2 ", err), err
    assert "k=2 lambda=1 mondrian" in err and "k=2 lambda=0 mondrian: partitioning" in err, err
    r = cli("sweep", db, "--config", config, "--k", "2", "--lambda", "0.5")
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_a_sweep_table_of_an_earlier_version_gets_words_kept():
    from rxanon_sql.sqlrun import run_file
    con = duckdb.connect()
    con.execute("CREATE SCHEMA rx")
    run_file(con, "grid_table", "rx")
    con.execute("ALTER TABLE rx.sweep DROP COLUMN words_kept")
    con.execute("INSERT INTO rx.sweep (sweep_id, k, ok) VALUES (1, 2, TRUE)")
    run_file(con, "grid_table", "rx")
    assert rows(con, "SELECT sweep_id, words_kept FROM rx.sweep") == [(1, None)]
