"""`rxanon-sql sweep`: a grid of runs over k, lambda and the strategy, one row each in rx.sweep
(`sql/grid_*.sql`), to choose the parameters by their information loss and risk (rx-anon paper,
Figures 2 to 5).

Every run is an ordinary `apply`, committed (or rolled back) on its own, so the schema holds the
last setting's release afterwards. NER runs once, in the first run (its cache is kept). The
grid goes k by k: a run that changes only lambda or the strategy starts at partitioning (reuse.py),
but with the rare-word guard on k is also its threshold and changes the terms, so each k builds
the terms once, in its first run, and its other settings reuse them. With the guard off only the
grid's first run builds them.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import duckdb

from .config import Config, ConfigError
from .join import check_persons
from .pipeline import apply, check_schema_is_ours
from .sqlrun import create_schema, mark_owned, run_file, schema_objects, table
from .verify import ReleaseRejected

# (a grid beyond this is a typo in a range, such as 0:1:0.0001)
MAX_SETTINGS = 1000


def parse_ks(text: str) -> list[int]:
    """--k: a comma-separated list of integers, each checked as anonymization.k is."""
    try:
        ks = [int(part) for part in text.split(",")]
    except ValueError:
        raise ConfigError(f"--k {text!r}: give integers separated by commas, e.g. 2,3,5,10") from None
    return sorted(set(ks))


def parse_lambdas(text: str) -> list[float]:
    """--lambda: values separated by commas, or a range START:STOP:STEP with STOP included."""
    try:
        if ":" in text:
            start, stop, step = (float(part) for part in text.split(":"))
            if step <= 0:
                raise ValueError
            # (counted in steps, rounded, so that 0:1:0.1 ends at 1.0 and not at 0.9999999999999999)
            n = int(round((stop - start) / step, 9)) + 1
            if n > MAX_SETTINGS:
                raise ConfigError(f"--lambda {text!r} gives {n} values, more than {MAX_SETTINGS}")
            lams = [round(start + i * step, 10) for i in range(max(n, 0))]
        else:
            lams = [float(part) for part in text.split(",")]
    except ValueError:
        raise ConfigError(f"--lambda {text!r}: give values separated by commas (0,0.5,1) or a range "
                          "START:STOP:STEP with a positive step (0:1:0.1)") from None
    if not lams:
        raise ConfigError(f"--lambda {text!r} gives no value")
    return sorted(set(lams))


def grid(cfg: Config, ks: list[int], lams: list[float], gdf: bool = False) -> list[Config]:
    """The settings in the order they run: by k, then Mondrian for each lambda, then GDF (which
    reads no lambda, so runs once per k). Each is checked as `apply` checks its overrides."""
    settings = []
    for k in sorted(set(ks)):
        settings += [cfg.with_overrides(k=k, lam=lam, strategy="mondrian") for lam in sorted(set(lams))]
        if gdf:
            settings.append(cfg.with_overrides(k=k, strategy="gdf"))
    if len(settings) > MAX_SETTINGS:
        raise ConfigError(f"the grid has {len(settings)} settings, more than {MAX_SETTINGS}")
    return settings


@dataclasses.dataclass
class SweepResult:
    sweep_id: int
    runs: int = 0
    rejected: list[Config] = dataclasses.field(default_factory=list)
    seconds: float = 0.0


def sweep(con: duckdb.DuckDBPyConnection, settings: list[Config],
          progress: Callable[[int, int, Config, str | None], None] | None = None) -> SweepResult:
    """Run every setting with `apply` (reusing what it can) and add a row for each to rx.sweep.

    A run whose release fails its check is rolled back by apply and recorded with ok false; the
    sweep goes on. Bad input (ConfigError, InputError) stops it at once: the rows and the release
    of the runs before stay. `progress(done, total, setting, stage)`, if given, is called before
    each run (stage None) and as its stages start (stage the stage's name, or "ner 120/13360")."""
    s = settings[0].schema
    check_schema_is_ours(con, s)
    started = time.perf_counter()
    result = SweepResult(sweep_id=_next_sweep_id(con, s))
    counted = False
    for i, cfg in enumerate(settings):
        if progress is not None:
            progress(i, len(settings), cfg, None)
        run_started = time.perf_counter()
        stage = None if progress is None else _stage_progress(progress, i, len(settings), cfg)
        try:
            report = apply(con, cfg, stage)
        except ReleaseRejected:
            _record(con, s, "grid_rejected", sweep_id=result.sweep_id, k=cfg.k, lam=cfg.lam, strategy=cfg.strategy,
                    seconds=time.perf_counter() - run_started)
            result.rejected.append(cfg)
        else:
            _record(con, s, "grid_record", sweep_id=result.sweep_id, reused=report.reused,
                    seconds=time.perf_counter() - run_started)
            if not counted:
                # (the first run counted the persons: a k above them fails now, not after the others)
                for later in settings:
                    check_persons(later, report.counts["persons"])
                counted = True
        result.runs += 1
    if progress is not None:
        progress(len(settings), len(settings), settings[-1], None)
    result.seconds = time.perf_counter() - started
    return result


def _stage_progress(progress, i: int, total: int, cfg: Config):
    def stage(task: str, done: int, n: int | None) -> None:
        progress(i, total, cfg, task if n is None else f"{task} {done}/{n}")
    return stage


def _next_sweep_id(con: duckdb.DuckDBPyConnection, schema: str) -> int:
    if "sweep" not in schema_objects(con, schema):
        return 1
    return con.execute(f"SELECT coalesce(max(sweep_id), 0) + 1 FROM {table('sweep', schema).sql('duckdb')}") \
        .fetchall()[0][0]


def _record(con: duckdb.DuckDBPyConnection, schema: str, name: str, **params) -> None:
    """One row into rx.sweep, in a transaction of its own after the run's. The table is marked as
    rxanon-sql's (sqlrun.OWNED) as apply marks its own, or the next run would refuse the schema."""
    con.execute("BEGIN TRANSACTION")
    try:
        create_schema(con, schema)
        run_file(con, "grid_table", schema)
        run_file(con, name, schema, **params)
        mark_owned(con, schema)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def sweep_rows(con: duckdb.DuckDBPyConnection, schema: str, sweep_id) -> list[tuple]:
    """The runs of one sweep as `rxanon-sql sweep` prints them, by k, strategy and lambda."""
    return con.execute(f"SELECT k, lam, strategy, ok, partitions, round(size_mean, 1), splits_relational, "
                       f"splits_textual, round(ncp_a, 4), round(ncp_x, 4), round(ncp, 4), round(risk_highest, 3), "
                       f"reused, round(seconds, 2) FROM {table('sweep', schema).sql('duckdb')} "
                       "WHERE sweep_id = ? ORDER BY k, strategy DESC, lam", [sweep_id]).fetchall()
