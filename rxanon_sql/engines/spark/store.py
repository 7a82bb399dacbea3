"""The release folder of the Spark engine: manifest.json names the Parquet folder (under tables/)
of each committed table and the SQL of each committed view. Every table a statement writes is a
new folder; COMMIT replaces the manifest in one rename, so a reader, or a run that stops
half-way, sees the last committed release whole. One writer at a time holds the folder's lock."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time

from ...errors import EngineError
from .dialect import duckdb_type
from .messages import first_line

MANIFEST = "manifest.json"
LOCK = ".writer.lock"


class ReleaseStore:
    """The tables and views of a release folder as the temporary views of a Spark session: load,
    commit, roll back, and the catalogue of what the session holds."""

    def __init__(self, spark, folder: str, read_only: bool = False):
        self.spark = spark
        self.folder = os.path.abspath(folder)
        self.read_only = read_only
        self._tables_dir = os.path.join(self.folder, "tables")
        self._stamp = f"{time.time_ns():x}"
        self._version = 0
        # view -> (kind, temporary) as DuckDB's catalogue would list the table it stands for
        self._kinds: dict[str, tuple[str, bool]] = {}
        self._where: dict[str, str] = {}        # table view -> its rows' folder
        self._views: dict[str, str] = {}        # view -> its Spark SQL, in the order of creation
        # (a read-only session, verify's or export's, writes its temporary tables elsewhere)
        self._scratch = tempfile.mkdtemp(prefix="rxanon-spark-") if read_only else None
        self._lock = None
        if not read_only:
            os.makedirs(self._tables_dir, exist_ok=True)
            self._take_lock()
        self._load()
        if not read_only:
            self._collect_garbage()

    # -- the release: load, commit, roll back ------------------------------------------------

    def _take_lock(self) -> None:
        """One writer at a time: a second one would delete the first one's unpublished tables as
        garbage, and the last COMMIT would drop the other's. The lock is the operating system's
        on an open file, so a killed run leaves none behind. (Readers take none: they read what
        the manifest named when they opened.)"""
        self._lock = open(os.path.join(self.folder, LOCK), "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            self._lock = None
            raise EngineError(f"release folder {self.folder!r} is being written by another run; "
                              "start this one when that one has ended") from None

    def _manifest_path(self) -> str:
        return os.path.join(self.folder, MANIFEST)

    def _load(self) -> None:
        """The committed tables and views as this session's views."""
        try:
            with open(self._manifest_path(), encoding="utf-8") as f:
                manifest = json.load(f)
        except FileNotFoundError:
            return
        for view, folder in manifest["tables"].items():
            self.spark.read.parquet(os.path.join(self._tables_dir, folder)).createOrReplaceTempView(view)
            self._where[view] = os.path.join(self._tables_dir, folder)
            self._kinds[view] = ("TABLE", False)
        pending = dict(manifest["views"])
        while pending:      # (a view is created after those it reads)
            done = []
            for view, sql in pending.items():
                try:
                    self.spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW `{view}` AS {sql}")
                except Exception:
                    continue
                self._views[view] = sql
                self._kinds[view] = ("VIEW", False)
                done.append(view)
            if not done:
                raise EngineError(f"{self._manifest_path()}: views {sorted(pending)} cannot be read")
            for view in done:
                del pending[view]

    def _committed(self, view: str) -> bool:
        """Whether a view is part of the release: a table or view of a schema other than main."""
        return "__" in view and not self._kinds.get(view, ("", False))[1]

    def commit(self) -> None:
        if self.read_only:
            raise EngineError(f"release folder {self.folder!r} was opened read-only")
        manifest = {"tables": {v: os.path.relpath(p, self._tables_dir) for v, p in self._where.items()
                               if self._committed(v)},
                    "views": {v: sql for v, sql in self._views.items() if self._committed(v)}}
        tmp = self._manifest_path() + f".{self._stamp}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(manifest, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._manifest_path())
        self._collect_garbage()

    def rollback(self) -> None:
        for view in [v for v in (*self._where, *self._views) if self._committed(v)]:
            self.drop(view)
        self._load()

    def _collect_garbage(self) -> None:
        """Delete the table folders that neither the manifest nor a view of this session reads
        (those of a run that was stopped, or replaced by a later statement)."""
        try:
            with open(self._manifest_path(), encoding="utf-8") as f:
                kept = set(json.load(f)["tables"].values())
        except FileNotFoundError:
            kept = set()
        kept |= {os.path.relpath(p, self._tables_dir) for p in self._where.values()}
        for name in os.listdir(self._tables_dir):
            if name not in kept:
                shutil.rmtree(os.path.join(self._tables_dir, name), ignore_errors=True)

    # -- catalogue --------------------------------------------------------------------------

    def views(self) -> set[str]:
        return {r.viewName if hasattr(r, "viewName") else r[1]
                for r in self.spark.sql("SHOW VIEWS").collect()}

    def has(self, view: str) -> bool:
        return self.spark.catalog.tableExists(view)

    def columns(self, view: str) -> dict[str, str]:
        return {f.name: duckdb_type(f.dataType.simpleString()) for f in self.spark.table(f"`{view}`").schema}

    def _put(self, view: str, df, materialize: bool = True, kind: str | None = None,
             temporary: bool | None = None) -> None:
        old = self._kinds.get(view, ("TABLE", False))
        self._kinds[view] = (kind or old[0], old[1] if temporary is None else temporary)
        self._views.pop(view, None)
        if materialize:
            df, self._where[view] = self._checkpointed(df, view)
        else:
            self._where.pop(view, None)
        df.createOrReplaceTempView(view)

    def _checkpointed(self, df, view: str):
        """The rows of `df` written to a new folder and read back: lineage one step long, and a
        plan that names its columns afresh (a union over two checkpoints of related plans lost
        a column in Spark 4.3, "key not found: attribute#…")."""
        self._version += 1
        path = os.path.join(self._scratch or self._tables_dir, f"{self._stamp}-{self._version:06d}")
        try:
            df.write.parquet(path)
            return self.spark.read.parquet(path), path
        except Exception as e:
            raise EngineError(f"{first_line(e)}\n  writing: {view}") from None

    def drop(self, view: str) -> None:
        self._kinds.pop(view, None)
        self._where.pop(view, None)
        self._views.pop(view, None)
        self.spark.catalog.dropTempView(view)
