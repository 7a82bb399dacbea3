"""Atomic runs: a run killed at any point (SIGKILL, no cleanup) leaves the previous release and
the user's tables intact, and a rerun completes; a database locked by another process gets a
clear error and nothing is written."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import duckdb
import pytest

from helpers import cli as in_process, rows
from rxanon_sql.demo import CONFIG

POINTS = ["validate", "ner", "ner_chunk", "join", "terms", "linking", "persons", "partitioning",
          "recoding_release", "measures", "commit"]
# The killed run uses another k and an extra term list, so that it has NER work and a new release to write.
SECOND = CONFIG.replace("k = 2", "k = 3").replace("[text.terms]", "[text.terms]\nHOBBY = [\"blog\", \"weather\"]")


def cli(*args, env=None):
    """A run in a process of its own, which the fault point can kill. (The rerun after it runs in
    this process, helpers.cli: the same command, without a second start of Python and spaCy.)"""
    return subprocess.run([sys.executable, "-m", "rxanon_sql", *args], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), timeout=300, env={**os.environ, **(env or {})})


@pytest.fixture
def released(demo_db):
    """The session's demo release (conftest.demo_db), which each test copies before it writes."""
    return demo_db


def state(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return (rows(con, "SELECT * FROM authors ORDER BY ALL"), rows(con, "SELECT * FROM posts ORDER BY ALL"),
                rows(con, "SELECT * FROM rx.release ORDER BY ALL"), rows(con, "SELECT count(*), max(k) FROM rx.runs"))
    finally:
        con.close()


@pytest.mark.parametrize("point", POINTS)
def test_kill_at_any_point_keeps_the_previous_release(released, tmp_path, point):
    db = tmp_path / "db.duckdb"
    shutil.copy(released, db)
    (tmp_path / "second.toml").write_text(SECOND)
    before = state(db)
    r = cli("apply", str(db), "--config", str(tmp_path / "second.toml"), env={"RXANON_SQL_FAULT": point})
    assert r.returncode == -9, (r.returncode, r.stderr[-500:])
    assert state(db) == before
    r = in_process("apply", str(db), "--config", str(tmp_path / "second.toml"))
    assert r.returncode == 0, r.stderr
    after = state(db)
    assert after[:2] == before[:2] and after[3] == [(2, 3)]


@pytest.mark.parametrize("point", ["join", "partitioning", "recoding_release", "commit"])
def test_kill_while_retuning_keeps_the_previous_release(released, tmp_path, point):
    """A run that reuses the stages before partitioning (only lambda changed) writes in the same
    transaction: killed, it leaves the release and the reused tables as they were."""
    db = tmp_path / "db.duckdb"
    shutil.copy(released, db)
    (tmp_path / "retuned.toml").write_text(CONFIG.replace("lambda = 0.5", "lambda = 0.9"))
    before = state(db)
    r = cli("apply", str(db), "--config", str(tmp_path / "retuned.toml"), env={"RXANON_SQL_FAULT": point})
    assert r.returncode == -9, (r.returncode, r.stderr[-500:])
    assert state(db) == before
    r = in_process("apply", str(db), "--config", str(tmp_path / "retuned.toml"))
    assert r.returncode == 0 and "were kept" in r.stdout, r.stderr
    assert state(db)[3] == [(2, 2)] and state(db)[2] != before[2]


def hold(db, read_only):
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb, time; c = duckdb.connect({str(db)!r}, "
                               f"read_only={read_only}); print('held', flush=True); time.sleep(120)"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


@pytest.mark.parametrize("read_only", [False, True])
def test_a_locked_database_gets_a_clear_error(released, tmp_path, read_only):
    db = tmp_path / "db.duckdb"
    shutil.copy(released, db)
    (tmp_path / "rx.toml").write_text(CONFIG)
    holder = hold(db, read_only)
    try:
        r = cli("apply", str(db), "--config", str(tmp_path / "rx.toml"))
        assert r.returncode == 2
        assert r.stderr.startswith(f"rxanon-sql: error: cannot open database {str(db)!r}") and r.stderr.count("\n") == 1
        if not read_only:
            r = cli("verify", str(db))
            assert r.returncode == 2 and "cannot open database" in r.stderr
    finally:
        holder.kill()
        holder.wait()
    assert state(db) == state(released)
