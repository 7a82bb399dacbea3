"""Progress: NER and the term search report their counts as they go (a callback of the library),
the command line shows them as bars only on a terminal; and the command line's own texts (help,
one-line errors) for a newcomer."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import click
import duckdb
import pyarrow as pa
import pytest
from click.testing import CliRunner

from helpers import CLI, cli, demo_config, demo_files, on_a_terminal, one_line_error, scalar, tables
from rxanon_sql import recognize
from rxanon_sql.config import parse_config
from rxanon_sql.demo import write_demo_database
from rxanon_sql.generate import config_text, generate
from rxanon_sql.pipeline import apply
from rxanon_sql.cli import main
from udfs.ner import ENTITY_ARROW_TYPE

VECTOR = 2048       # DuckDB's vector: the most rows an Arrow UDF gets per call


class NoEntities:
    """A recognizer that finds nothing, at once: the counts, not spaCy, are under test."""
    def arrow(self, texts: pa.Array) -> pa.Array:
        return pa.array([[] for _ in range(len(texts))], type=ENTITY_ARROW_TYPE)


@pytest.fixture(scope="module")
def blog():
    con = duckdb.connect()
    generate(con, 1000, 5, seed=1, entities=False)
    return con, parse_config(tomllib.loads(config_text())).with_overrides(workers=1)


def test_ner_reports_each_vector_and_commits_each_chunk(blog, monkeypatch):
    con, cfg = blog
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: NoEntities())
    monkeypatch.setattr(recognize, "CHUNK", 3000)
    calls = []
    total = recognize.fill_cache(con, cfg, lambda done, of: calls.append((done, of)))
    assert total == 5000 and {of for _, of in calls} == {total}
    done = [d for d, _ in calls]
    assert done[0] == 0 and done[-1] == total
    assert all(0 < b - a <= VECTOR for a, b in zip(done, done[1:])), done
    # more often than once per committed chunk
    assert len(done) > 1 + -(-total // recognize.CHUNK)
    assert scalar(con, "SELECT count(*) FROM rx.ner_cache") == total


def test_an_interrupted_ner_keeps_its_committed_chunks(blog, monkeypatch):
    con, cfg = blog
    cfg = cfg.with_overrides(schema="interrupted")
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: NoEntities())
    monkeypatch.setattr(recognize, "CHUNK", 3000)

    def interrupt(done, total):
        if done > 3000:
            raise KeyboardInterrupt
    with pytest.raises(BaseException):
        recognize.fill_cache(con, cfg, interrupt)
    con.execute("ROLLBACK")
    assert scalar(con, "SELECT count(*) FROM interrupted.ner_cache") == 3000
    assert recognize.pending_texts(con, cfg) == 2000
    con.execute("DROP TABLE ner_todo")


def test_apply_reports_its_stages_and_counts():
    con = duckdb.connect()
    write_demo_database(con)
    calls = []
    report = apply(con, demo_config(), lambda task, done, total: calls.append((task, done, total)))
    assert [t for t, _, total in calls if total is None] == list(report.timings)
    counted = {}
    for task, done, total in calls:
        if total is not None:
            assert done >= counted.get(task, (0, 0))[0]
            counted[task] = (done, total)
    texts = scalar(con, "SELECT count(*) FROM rx.texts")
    assert counted == {"ner": (report.counts["texts_recognized"],) * 2, "search": (texts, texts)}


# --- the command line ---

def unprivileged(*args: str) -> list[str]:
    """The command run without the power to write where the permissions forbid it: as root (the
    test container's user) only with all capabilities dropped."""
    if os.geteuid() != 0:
        return list(args)
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", *args]


def run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=300)


@pytest.fixture
def read_only_dir(tmp_path):
    (tmp_path / "db").mkdir()
    db, config = demo_files(tmp_path / "db")
    before = tables(db)
    os.chmod(tmp_path / "db", 0o555)
    yield db, config, before
    os.chmod(tmp_path / "db", 0o755)


def test_apply_in_a_read_only_directory(read_only_dir):
    db, config, before = read_only_dir
    r = run(unprivileged(*CLI, "apply", db, "--config", config))
    one_line_error(r, repr(db), "cannot write in its directory", "Permission denied")
    assert tables(db) == before


def test_demo_in_a_read_only_directory(read_only_dir):
    db = str(Path(read_only_dir[0]).with_name("new.duckdb"))
    one_line_error(run(unprivileged(*CLI, "demo", "--db", db)), repr(db), "cannot write in its directory")
    assert not Path(db).exists()


def test_a_failed_commit_raises_its_own_error(demo_db, tmp_path):
    """The library, without the command line's check of the directory, on a database whose NER
    cache is filled, so that the first commit is the run's last: its error is raised, not the
    ROLLBACK's "no transaction is active" that hid it."""
    (tmp_path / "db").mkdir()
    db, config = demo_files(tmp_path / "db")
    shutil.copyfile(demo_db, db)        # (the demo's release: conftest.demo_db)
    before = tables(db)
    code = ("import duckdb, sys\nfrom rxanon_sql.config import load_config\n"
            "from rxanon_sql.pipeline import apply\n"
            "con = duckdb.connect(sys.argv[1])\n"
            "try:\n    apply(con, load_config(sys.argv[2]).with_overrides(k=3))\n"
            "except duckdb.Error as e:\n    print(type(e).__name__, e)\n")
    os.chmod(tmp_path / "db", 0o555)
    try:
        r = run(unprivileged(sys.executable, "-c", code, db, config))
    finally:
        os.chmod(tmp_path / "db", 0o755)
    assert "Failed to commit" in r.stdout and ".wal" in r.stdout, (r.stdout, r.stderr[-2000:])
    assert tables(db) == before


def test_apply_on_a_read_only_database_file(tmp_path):
    db, config = demo_files(tmp_path)
    before = tables(db)
    os.chmod(db, 0o444)
    r = run(unprivileged(*CLI, "apply", db, "--config", config))
    one_line_error(r, repr(db), "Permission denied")
    assert tables(db) == before


def test_no_bar_when_stderr_is_not_a_terminal(tmp_path):
    db, config = demo_files(tmp_path)
    r = cli("apply", db, "--config", config)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def test_bars_on_a_terminal(tmp_path):
    db, config = demo_files(tmp_path)
    err = on_a_terminal("apply", db, "--config", config)
    assert re.search(r"NER: 100%.* 9/9 \[[0-9:]+<[0-9:]+, +[0-9.]+ texts/s\]", err), err
    assert re.search(r"term search: 100%.* 9/9 ", err), err
    for stage in ("validate", "ner", "terms", "linking", "partitioning", "check"):
        assert f"rxanon-sql: {stage}" in err, (stage, err)


def test_quiet_on_a_terminal(tmp_path):
    db, config = demo_files(tmp_path)
    assert on_a_terminal("apply", db, "--config", config, "--quiet") == ""


def help_text(*args: str) -> str:
    r = CliRunner().invoke(main, [*args, "--help"], terminal_width=80)
    assert r.exit_code == 0, r.output
    return r.output


def test_the_command_list_is_not_cut():
    listing = help_text().split("Commands:")[1]
    assert set(main.commands) <= {line.split()[0] for line in listing.strip().splitlines()}
    assert "..." not in listing, listing


@pytest.mark.parametrize("command", sorted(main.commands))
def test_every_option_has_help(command):
    for param in main.commands[command].params:
        if isinstance(param, click.Option):
            assert (param.help or "").strip(), (command, param.opts)
