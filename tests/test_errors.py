"""One error root: every exception rxanon-sql defines is an RxAnonSqlError, and the command line
turns any of them, raised inside any command, into one line and exit status 2 (a release that
fails its own check into its verdict and exit 1). Also the database work the command line
leaves to the library: the printed release and NCP, and the generator's cache prefill."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import duckdb
import pytest

import rxanon_sql
from helpers import cli, demo_files, one_line_error, rows, scalar
from rxanon_sql import errors
from rxanon_sql.demo import CONFIG
from rxanon_sql.errors import ConfigError, InputError, PipelineNotFound, ReleaseRejected, RxAnonSqlError
from rxanon_sql.verify import Verdict


def defined_exceptions() -> list[type]:
    """Every exception class defined in a module of the package, its UDFs included."""
    found = []
    for package in (rxanon_sql, importlib.import_module("udfs")):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):        # (importing it runs the command)
                continue
            module = importlib.import_module(info.name)
            found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                      if issubclass(c, BaseException) and c.__module__ == module.__name__]
    return found


def test_every_exception_of_the_package_is_an_rxanonsqlerror():
    found = defined_exceptions()
    assert {ConfigError, InputError, PipelineNotFound, ReleaseRejected} <= set(found)
    assert [c for c in found if not issubclass(c, RxAnonSqlError)] == []


def test_the_old_import_paths_and_bases_still_work():
    from rxanon_sql.config import ConfigError as config_error
    from rxanon_sql.join import InputError as input_error
    from udfs.ner import PipelineNotFound as pipeline_not_found
    from rxanon_sql.verify import ReleaseRejected as release_rejected
    assert (config_error, input_error, pipeline_not_found, release_rejected) == (
        ConfigError, InputError, PipelineNotFound, ReleaseRejected)
    # (callers that caught the built-in base catch them still)
    assert issubclass(ConfigError, ValueError) and issubclass(InputError, ValueError)
    assert issubclass(PipelineNotFound, RuntimeError)


class Unforeseen(RxAnonSqlError):
    """A subclass no command knows by name."""


def raiser(error: type[RxAnonSqlError]):
    def raise_it(*args, **kwargs):
        raise error("the culprit 'x'")
    return raise_it


# (command, the library function it calls, which the test makes raise, and its arguments)
COMMANDS = [
    ("apply", "rxanon_sql.pipeline.apply", lambda db, config, tmp: ["--config", config]),
    ("demo", "rxanon_sql.pipeline.apply", None),
    ("verify", "rxanon_sql.verify.verify", lambda db, config, tmp: []),
    ("export", "rxanon_sql.verify.verify", lambda db, config, tmp: [str(tmp / "out.csv")]),
    ("init", "rxanon_sql.init.starting_config", lambda db, config, tmp: ["--out", str(tmp / "new.toml")]),
    ("load", "rxanon_sql.load.load", lambda db, config, tmp: [str(tmp / "in.csv")]),
    ("entities", "rxanon_sql.entities.entities", None),
]


@pytest.mark.parametrize("error", [ConfigError, InputError, PipelineNotFound, Unforeseen])
@pytest.mark.parametrize("command, function, args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_any_rxanonsqlerror_in_a_command_is_one_line_and_exit_2(tmp_path, monkeypatch, error, command, function, args):
    db, config = demo_files(tmp_path)
    (tmp_path / "in.csv").write_text("id,age\n1,30\n")
    module, name = function.rsplit(".", 1)
    monkeypatch.setattr(importlib.import_module(module), name, raiser(error))
    argv = {"demo": ["demo", "--db", db], "entities": ["entities", "some text"]}.get(command)
    r = cli(*(argv or [command, db, *args(db, config, tmp_path)]))
    assert one_line_error(r, "the culprit 'x'") == "rxanon-sql: error: the culprit 'x'"
    # the command closed its database on the error exit: this process opens it in another mode
    duckdb.connect(db, read_only=command not in ("verify", "export")).close()


def test_a_release_rejected_exits_1_after_its_verdict(tmp_path, monkeypatch):
    db, config = demo_files(tmp_path)
    verdict = Verdict(k=2, classes=1, smallest=1, failing=[("key", [], 1, 1)], rows_released=3, rows_input=3)

    def reject(con, cfg, *args, **kwargs):
        raise ReleaseRejected(verdict, cfg.schema)
    monkeypatch.setattr("rxanon_sql.pipeline.apply", reject)
    r = cli("apply", db, "--config", config, "--schema", "mine")
    assert r.returncode == 1, r.stderr
    assert r.stdout.startswith("k = 2: 1 equivalence classes, smallest has 1 persons;")
    assert r.stderr.splitlines() == [
        "  FAIL class of 1 persons: key kept terms []",
        "rxanon-sql: error: the new release fails its check; it was rolled back, and schema 'mine' holds the "
        "previous release, if any"]


def test_entities_names_the_key_of_a_bad_pattern(tmp_path):
    (tmp_path / "rx.toml").write_text(CONFIG + '\n[text.patterns]\nBADGE = ["B-([0-9]"]\n')
    one_line_error(cli("entities", "Badge B-12", "--config", str(tmp_path / "rx.toml")),
                   "text.patterns", "'B-([0-9]'", "BADGE")


def test_errors_is_the_only_home_of_exception_classes():
    assert {c.__module__ for c in defined_exceptions()} == {errors.__name__}


# --- the database work of the command line, in the library ---

def test_dataset_ncp_and_release_relation(demo_con):
    from rxanon_sql.measures import dataset_ncp
    from rxanon_sql.release import release_relation
    ncp_a, ncp_x, ncp, records, partitions = dataset_ncp(demo_con, "rx")
    assert (records, partitions) == (6, 3)
    assert ncp == pytest.approx(scalar(demo_con, "SELECT ncp FROM rx.runs ORDER BY run_id DESC LIMIT 1"))
    assert 0 <= ncp_a <= 1 and 0 <= ncp_x <= 1
    rel = release_relation(demo_con, "rx")
    assert rel.columns == ["gender", "age", "topic", "sign", "date", "text"]
    assert sorted(rel.fetchall(), key=repr) == sorted(
        rows(demo_con, "SELECT * EXCLUDE (row_id, person, partition_id) FROM rx.audit"), key=repr)
    with pytest.raises(duckdb.CatalogException):
        release_relation(demo_con, "nothing")


def test_prefill_generated_fills_the_cache_and_drops_the_spans():
    from rxanon_sql.generate import generate, prefill_generated
    con = duckdb.connect()
    generate(con, 5, 2, seed=1)
    spans = scalar(con, "SELECT count(*) FROM generated_entities")
    assert prefill_generated(con) == spans > 0
    assert scalar(con, "SELECT count(*) FROM rx.ner_cache") == spans
    assert scalar(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'generated_entities'") == 0


def test_generate_leaves_no_scaffolding_in_the_users_database(tmp_path):
    db = str(tmp_path / "g.duckdb")
    r = cli("generate", db, "--persons", "4", "--posts-per-person", "2", "--prefill-cache")
    assert r.returncode == 0, r.stderr
    con = duckdb.connect(db, read_only=True)
    assert sorted(t for (t,) in rows(con, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'")) == \
        ["authors", "posts"]
    con.close()
